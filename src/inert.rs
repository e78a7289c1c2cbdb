//! Making untrusted text safe on a terminal: a title, an id or a file name
//! cannot move the cursor, change colours or reorder what follows it. Used
//! by every output and message, so it imports nothing.

/// A Unicode bidirectional control (an override, embedding, isolate or
/// mark): it can reorder what follows it on a reader's screen.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Text with every control character, and every Unicode bidirectional
/// override or isolate, replaced: a title cannot move the cursor, change
/// colours or reorder what follows it. Runs of whitespace become one space.
pub fn inert(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let c = if c.is_whitespace() {
            ' '
        } else if c.is_control() || is_bidi_control(c) {
            '\u{FFFD}'
        } else {
            c
        };
        if c == ' ' {
            if !space && !out.is_empty() {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Text of several lines made inert line by line, as [`inert`] does, but
/// keeping the line breaks and each line's spacing (a Markdown export's
/// nesting): every other control character and every bidirectional control
/// becomes U+FFFD.
pub fn inert_lines(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c if c.is_control() || is_bidi_control(c) => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// JSON text with the characters JSON leaves as they are but a terminal
/// obeys (DEL, the C1 controls, among them U+009B, an escape sequence's
/// start, and the bidirectional controls) written as `\uXXXX` escapes: the
/// same JSON value, inert on a terminal. They can only be inside strings
/// (JSON's own syntax is ASCII, its line breaks aside), so each escape is.
pub fn inert_json(json: String) -> String {
    let risky = |c: char| (c.is_control() && c > '\u{7e}') || is_bidi_control(c);
    if !json.contains(risky) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if risky(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_overrides_are_neutralized() {
        assert_eq!(inert("evil\x1b[31mred\x07"), "evil\u{FFFD}[31mred\u{FFFD}");
        assert_eq!(inert("a\u{202E}b"), "a\u{FFFD}b");
        assert_eq!(inert("  two\n\tlines  "), "two lines");
    }

    #[test]
    fn lines_keep_their_breaks_and_spacing() {
        assert_eq!(
            inert_lines("- a\x1b[2J\n  - b\u{202E}c\r\n"),
            "- a\u{FFFD}[2J\n  - b\u{FFFD}c\u{FFFD}\n"
        );
    }

    #[test]
    fn json_keeps_its_value_and_loses_what_a_terminal_obeys() {
        let value = serde_json::json!({"t": "a\u{9b}2J\u{202E}b\u{7f}\u{1b}[0m é"});
        let text = inert_json(format!("{value:#}"));
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(!text.contains('\u{202E}'), "{text:?}");
        assert!(
            text.contains("\\u009b2J\\u202eb\\u007f\\u001b[0m é"),
            "{text:?}"
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }
}
