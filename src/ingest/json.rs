//! JSON plumbing shared by the Crossref and OpenAlex parsers: nullable
//! fields, telling JSON from error pages, and one-line error positions.

use serde::{Deserialize, Deserializer};

use crate::model::normalize_whitespace;

/// Reads an absent or `null` field as its default.
pub(super) fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// The body without a byte-order mark, if it looks like JSON at all; error
/// pages (Crossref's 404 is `Resource not found.`) do not.
pub(super) fn json_body(body: &str) -> Option<&str> {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    body.trim_start().starts_with(['{', '[']).then_some(body)
}

/// The start of a non-JSON body, fit for one line of an error message.
pub(super) fn body_snippet(body: &str) -> String {
    const MAX_CHARS: usize = 80;
    let cleaned: String = body
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let cleaned = normalize_whitespace(&cleaned);
    match cleaned.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &cleaned[..cut]),
        None => cleaned,
    }
}

/// Line, column and message (without serde_json's own " at line ..."
/// suffix) of a JSON error.
pub(super) fn json_error_parts(e: &serde_json::Error) -> (usize, usize, String) {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    (e.line(), e.column(), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_is_short_and_clean() {
        let body = format!("<html>\r\n\t<body>{}\u{7}</body>", "x".repeat(200));
        let snippet = body_snippet(&body);
        assert_eq!(snippet.chars().count(), 81);
        assert!(snippet.starts_with("<html> <body>xxx"));
        assert!(!snippet.chars().any(char::is_control));
    }

    #[test]
    fn json_is_told_from_error_pages() {
        assert_eq!(json_body("\u{feff} {\"a\": 1}"), Some(" {\"a\": 1}"));
        assert_eq!(json_body("[]"), Some("[]"));
        assert_eq!(json_body("Resource not found."), None);
        assert_eq!(json_body(""), None);
    }

    #[test]
    fn error_parts_drop_serde_jsons_suffix() {
        let error = serde_json::from_str::<Vec<u8>>("[1,\n 2,").expect_err("truncated");
        let (line, column, message) = json_error_parts(&error);
        assert_eq!((line, column), (2, 3));
        assert_eq!(message, "EOF while parsing a value");
    }

    #[test]
    fn null_and_absent_fields_read_as_defaults() {
        #[derive(Deserialize)]
        struct Probe {
            #[serde(default, deserialize_with = "nullable")]
            items: Vec<u8>,
        }
        for body in ["{}", "{\"items\": null}"] {
            let probe: Probe = serde_json::from_str(body).expect("parses");
            assert!(probe.items.is_empty(), "{body}");
        }
    }
}
