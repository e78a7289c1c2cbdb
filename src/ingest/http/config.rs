//! The client's settings ([`HttpConfig`]), its User-Agent, and the timeout's variable.

use std::fmt::Write as _;
use std::time::Duration;

use crate::error::FetchError;

/// The environment variable that overrides the per-request timeout.
pub(crate) const TIMEOUT_ENV: &str = crate::environment::HTTP_TIMEOUT_MS;

/// Settings for an [`HttpClient`](super::HttpClient).
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Sent with every request; build it with [`user_agent`].
    pub user_agent: String,
    /// Whole-request limit, body included.
    pub timeout: Duration,
    /// Kept short so that an offline machine fails in seconds.
    pub connect_timeout: Duration,
    /// A longer body is refused, unread, with [`FetchError::TooLarge`].
    pub max_body_bytes: usize,
    /// Retries after the first attempt, for transient failures only.
    pub max_retries: u32,
    /// First backoff step; it doubles with each retry.
    pub base_backoff: Duration,
    /// Cap on the backoff; a server whose `Retry-After` asks for longer is
    /// given up for the run.
    pub max_backoff: Duration,
    /// Consecutive failed attempts (5xx, timeouts, resets) after which a
    /// host is given up for the run: a broken service must not hold a run
    /// for many minutes, request after request.
    pub failure_budget: u32,
}

impl Default for HttpConfig {
    /// The defaults, without looking at the environment.
    fn default() -> Self {
        Self {
            user_agent: user_agent(None),
            timeout: Duration::from_secs(20),
            connect_timeout: Duration::from_secs(5),
            max_body_bytes: 8 * 1024 * 1024,
            max_retries: 4,
            base_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(60),
            failure_budget: 6,
        }
    }
}

impl HttpConfig {
    /// The defaults with the contact address in the User-Agent (the APIs'
    /// "polite pool" wants one) and the timeout from `DISTML_HTTP_TIMEOUT_MS`.
    pub(crate) fn from_env(mailto: Option<&str>) -> Result<Self, FetchError> {
        let mut config = Self {
            user_agent: user_agent(mailto),
            ..Self::default()
        };
        if let Ok(value) = std::env::var(TIMEOUT_ENV) {
            config.timeout = parse_timeout_ms(&value).ok_or_else(|| {
                FetchError::Config(format!(
                    "{TIMEOUT_ENV} must be a positive number of milliseconds, not {value:?}"
                ))
            })?;
        }
        Ok(config)
    }
}

fn parse_timeout_ms(value: &str) -> Option<Duration> {
    match value.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Some(Duration::from_millis(ms)),
        _ => None,
    }
}

/// `distml-search/<version> (+https://github.com/distml-search; mailto:x@y)`.
/// Characters that cannot appear in a header are dropped from `mailto`.
pub fn user_agent(mailto: Option<&str>) -> String {
    let mut agent = format!(
        "distml-search/{} (+https://github.com/distml-search",
        env!("CARGO_PKG_VERSION")
    );
    let mailto: String = mailto
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_graphic)
        .collect();
    if !mailto.is_empty() {
        let _ = write!(agent, "; mailto:{mailto}");
    }
    agent.push(')');
    agent
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agent_names_version_and_contact() {
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(
            user_agent(Some("a@b.org")),
            format!("distml-search/{version} (+https://github.com/distml-search; mailto:a@b.org)")
        );
        assert_eq!(
            user_agent(Some(" \n")),
            format!("distml-search/{version} (+https://github.com/distml-search)")
        );
    }

    #[test]
    fn timeout_env_values() {
        assert_eq!(
            parse_timeout_ms(" 1500 "),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_timeout_ms("0"), None);
        assert_eq!(parse_timeout_ms("2s"), None);
    }
}
