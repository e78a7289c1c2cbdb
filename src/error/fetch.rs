//! Why a GET failed ([`FetchError`]), and [`redact`], which keeps `api_key` values out of messages.

/// Why a GET failed. URLs in here are strings with `api_key` values redacted.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("HTTP configuration: {0}")]
    Config(String),
    #[error("cannot fetch {url}: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// A status that retrying will not fix (400, 401, 403, ...).
    #[error("GET {url} returned HTTP {status}: {body_excerpt}")]
    Status {
        status: u16,
        url: String,
        body_excerpt: String,
    },
    /// Connecting failed (refused, DNS, connect timeout, TLS), or the host
    /// was given up (its failure budget spent, or a `Retry-After` too long),
    /// now or earlier in this client's life; nothing more is sent to `host`.
    #[error("GET {url}: host {host} is unreachable ({reason}); skipping it from now on")]
    HostUnreachable {
        host: String,
        url: String,
        reason: String,
        /// Whether connecting failed, rather than the host being given up:
        /// a link checker reports the first as a dead link, the second as
        /// links left unchecked.
        connect_failed: bool,
    },
    #[error("GET {url}: response body is larger than the {limit}-byte limit")]
    TooLarge { url: String, limit: usize },
    /// Transient failures outlasted the retries; `reason` is the last one.
    #[error("GET {url} failed after {attempts} attempts: {reason}")]
    Exhausted {
        url: String,
        attempts: u32,
        reason: String,
    },
    /// A failure retrying will not fix, such as a redirect loop.
    #[error("GET {url} failed: {reason}")]
    Request { url: String, reason: String },
}

/// Replaces every `api_key=` value in `text` (a URL or a message holding
/// one) with `***`.
pub(crate) fn redact(text: &str) -> String {
    const KEY: &str = "api_key=";
    // ASCII lowercasing keeps byte offsets, so positions carry over.
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(found) = lower[from..].find(KEY) {
        let start = from + found;
        let value = start + KEY.len();
        from = value;
        let at_boundary = start == 0 || matches!(text.as_bytes()[start - 1], b'?' | b'&' | b';');
        if !at_boundary {
            continue;
        }
        let end = text[value..]
            .find(|c: char| matches!(c, '&' | '#' | ';' | ')' | '"' | '\'') || c.is_whitespace())
            .map_or(text.len(), |n| value + n);
        out.push_str(&text[copied..value]);
        out.push_str("***");
        copied = end;
        from = end;
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_api_key_values_only() {
        assert_eq!(
            redact("https://x.org/w?api_key=s3cret&q=1#f"),
            "https://x.org/w?api_key=***&q=1#f"
        );
        assert_eq!(
            redact("GET https://x.org/w?q=1&API_KEY=abc failed"),
            "GET https://x.org/w?q=1&API_KEY=*** failed"
        );
        assert_eq!(
            redact("https://x.org/?my_api_key=v"),
            "https://x.org/?my_api_key=v"
        );
        assert_eq!(redact("no key here"), "no key here");
    }
}
