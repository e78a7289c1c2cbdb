//! A person's name, as the catalog writes it ("Given Family"), in the parts
//! CSL-JSON and RIS want. Split by BibTeX's rules, so that every format
//! reads a name as the BibTeX of the same entry does.

/// A name in parts; `given` and `particle` may be empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub given: String,
    /// Lower-case words before the family name ("van"), BibTeX's "von".
    pub particle: String,
    pub family: String,
}

/// "First von Last" (the family name is the last word, or the words after
/// the last lower-case one), or "von Last, First".
pub fn split(full: &str) -> Name {
    if let Some((last, first)) = full.split_once(',') {
        let words: Vec<&str> = last.split_whitespace().collect();
        let particle = words.iter().take_while(|w| lower(w)).count();
        let particle = particle.min(words.len().saturating_sub(1));
        return Name {
            given: first.split_whitespace().collect::<Vec<_>>().join(" "),
            particle: words[..particle].join(" "),
            family: words[particle..].join(" "),
        };
    }
    let words: Vec<&str> = full.split_whitespace().collect();
    let Some(last) = words.len().checked_sub(1) else {
        return Name {
            given: String::new(),
            particle: String::new(),
            family: String::new(),
        };
    };
    // The family name is always at least the last word.
    let von_start = words[..last].iter().position(lower);
    let von_end = words[..last].iter().rposition(lower);
    let (given, particle, family) = match (von_start, von_end) {
        (Some(start), Some(end)) => (&words[..start], &words[start..=end], &words[end + 1..]),
        _ => (&words[..last], &words[last..last], &words[last..]),
    };
    Name {
        given: given.join(" "),
        particle: particle.join(" "),
        family: family.join(" "),
    }
}

/// A word that starts with a lower-case letter.
fn lower(word: &&str) -> bool {
    word.chars()
        .find(|c| c.is_alphabetic())
        .is_some_and(char::is_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(full: &str) -> (String, String, String) {
        let n = split(full);
        (n.given, n.particle, n.family)
    }

    #[test]
    fn names_split_as_bibtex_splits_them() {
        let p = |g: &str, v: &str, f: &str| (g.to_string(), v.to_string(), f.to_string());
        assert_eq!(parts("Ada Example"), p("Ada", "", "Example"));
        assert_eq!(parts("Ada Byron Example"), p("Ada Byron", "", "Example"));
        assert_eq!(parts("Ada van Example"), p("Ada", "van", "Example"));
        assert_eq!(parts("Ada de la Fontaine"), p("Ada", "de la", "Fontaine"));
        assert_eq!(parts("Ada de La Fontaine"), p("Ada", "de", "La Fontaine"));
        assert_eq!(parts("Placeholder"), p("", "", "Placeholder"));
        assert_eq!(parts("van Example, Ada"), p("Ada", "van", "Example"));
        assert_eq!(parts("  "), p("", "", ""));
    }
}
