//! Counts and wrapping for the terminal (untrusted text is made safe by
//! `inert`).

/// "1 entry", "3 entries": a count with its noun in the right number.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Cuts `text` to at most `max` characters, ending with an ellipsis.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Greedy word wrap to `width` columns, the first line starting after
/// `first_used` columns and the others with `indent`. Words are `(text,
/// emphasized)`, painted by `paint` after the layout so that escape codes do
/// not count as columns.
pub fn wrap_words(
    words: &[(String, bool)],
    width: usize,
    first_used: usize,
    indent: &str,
    paint: &dyn Fn(&str, bool) -> String,
) -> Vec<String> {
    let width = width.max(20);
    let indent_len = indent.chars().count();
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut len = first_used;
    let mut empty = true;
    for (word, emphasized) in words {
        let word_len = word.chars().count();
        if !empty && len + 1 + word_len > width {
            lines.push(std::mem::take(&mut line));
            line.push_str(indent);
            len = indent_len;
            empty = true;
        }
        if !empty {
            line.push(' ');
            len += 1;
        }
        line.push_str(&paint(word, *emphasized));
        len += word_len;
        empty = false;
    }
    if !empty {
        lines.push(line);
    }
    lines
}

/// Plain text wrapped like [`wrap_words`], every line indented.
pub fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    let words: Vec<(String, bool)> = text
        .split_whitespace()
        .map(|w| (w.to_string(), false))
        .collect();
    let mut lines = wrap_words(&words, width, indent.chars().count(), indent, &|w, _| {
        w.to_string()
    });
    if let Some(first) = lines.first_mut() {
        first.insert_str(0, indent);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_width() {
        let lines = wrap("aaa bbb ccc ddd", 20, "    ");
        assert_eq!(lines, ["    aaa bbb ccc ddd"]);
        let lines = wrap(&"word ".repeat(10), 22, "  ");
        assert!(lines.iter().all(|l| l.chars().count() <= 22), "{lines:?}");
        assert!(lines.iter().all(|l| l.starts_with("  word")), "{lines:?}");
    }
}
