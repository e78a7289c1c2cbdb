//! What a source says about one paper, before it is merged into the cache.

use serde::{Deserialize, Serialize};

/// A metadata source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Arxiv,
    Crossref,
    Openalex,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Arxiv => "arxiv",
            Source::Crossref => "crossref",
            Source::Openalex => "openalex",
        }
    }

    pub fn parse(name: &str) -> Option<Source> {
        [Source::Arxiv, Source::Crossref, Source::Openalex]
            .into_iter()
            .find(|s| s.as_str() == name)
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One paper as a source describes it. Text fields are plain text with
/// whitespace collapsed to single spaces; dates are `YYYY-MM-DD`, `YYYY-MM`
/// or `YYYY` as precise as the source is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaperRecord {
    pub title: String,
    pub authors: Vec<String>,
    pub abstract_text: Option<String>,
    pub published: Option<String>,
    pub updated: Option<String>,
    pub venue: Option<String>,
    pub year: Option<i64>,
    /// Without version suffix.
    pub arxiv: Option<String>,
    /// Lower-case.
    pub doi: Option<String>,
    pub categories: Vec<String>,
    pub journal_ref: Option<String>,
}

/// Collapses runs of whitespace (newlines included) to one space and trims,
/// exactly as `split_whitespace` would. It runs on every abstract of a
/// snapshot import, so words of printable ASCII are skipped over in a tight
/// loop and only other bytes are decoded.
pub fn normalize_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_normalized(&mut out, text);
    out
}

/// [`normalize_whitespace`] of `text` appended to `out`, a space between
/// them unless `out` is empty: `push_normalized` of a first name, then of a
/// last name, makes the name of both in one string.
pub fn push_normalized(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let (space, width) = char_at(text, i);
        if space {
            i += width;
            continue;
        }
        let start = i;
        i += width;
        loop {
            while i < bytes.len() && (0x21..0x80).contains(&bytes[i]) {
                i += 1;
            }
            if i == bytes.len() {
                break;
            }
            let (space, width) = char_at(text, i);
            if space {
                break;
            }
            i += width;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&text[start..i]);
    }
}

/// Whether the character at byte `i` (a char boundary) is whitespace, and its
/// width in bytes.
fn char_at(text: &str, i: usize) -> (bool, usize) {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        return (matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' '), 1);
    }
    let c = text[i..].chars().next().unwrap_or(' ');
    (c.is_whitespace(), c.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::{normalize_whitespace, push_normalized};

    #[test]
    fn whitespace_collapses_as_split_whitespace_would() {
        for text in [
            "",
            "   ",
            "one",
            "  A Study of\n  Pipeline\tBubbles \r\n",
            "vertical\u{0B}tab and form\u{0C}feed",
            "no\u{A0}break, ideographic\u{3000}space, line\u{2028}separator",
            "Zürich — naïve café\u{85}next",
            "trailing unicode space\u{2009}",
        ] {
            let expected = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(normalize_whitespace(text), expected, "{text:?}");
        }
    }

    #[test]
    fn pushed_parts_are_one_space_apart_as_if_joined_first() {
        for (first, last) in [
            ("  Ada\n", " Quillfeather "),
            ("", "Quillfeather"),
            ("Ada", ""),
            (" ", " "),
        ] {
            let mut name = String::new();
            push_normalized(&mut name, first);
            push_normalized(&mut name, last);
            assert_eq!(name, normalize_whitespace(&format!("{first} {last}")));
        }
    }
}
