//! Telling a list of people's names from other text that follows a title
//! (an affiliation, a date, a summary): only names go into `authors`.

/// The authors named by `text` ("Ada Example, Bo Sample, et al."), and
/// whether it ends in "et al."; `None` when any part is not a person's name.
pub fn authors(text: &str) -> Option<(Vec<String>, bool)> {
    let mut text = text.trim().trim_end_matches(['.', ',', ';']).trim();
    let mut et_al = false;
    for suffix in ["et al", "et. al", "etc"] {
        if let Some(rest) = strip_suffix_ci(text, suffix) {
            et_al = true;
            text = rest.trim().trim_end_matches([',', ';']).trim();
        }
    }
    let mut names = Vec::new();
    for part in text.split([',', ';', '&']).flat_map(|p| p.split(" and ")) {
        let name = part.trim().trim_end_matches('.').trim();
        if name.is_empty() {
            continue;
        }
        if !is_person(name) {
            return None;
        }
        names.push(name.to_string());
    }
    (!names.is_empty()).then_some((names, et_al))
}

const PARTICLES: &[&str] = &[
    "van", "von", "de", "der", "den", "da", "di", "del", "della", "la", "le", "du", "bin", "al",
    "dos", "y",
];

/// Words that name organisations, which lists often put where authors go.
const ORGANISATION_WORDS: &[&str] = &[
    "ai",
    "lab",
    "labs",
    "laboratory",
    "research",
    "university",
    "institute",
    "inc",
    "corp",
    "company",
    "cloud",
    "team",
    "group",
    "academy",
    "college",
    "school",
    "center",
    "centre",
    "foundation",
    "systems",
    "technologies",
    "google",
    "microsoft",
    "meta",
    "facebook",
    "amazon",
    "alibaba",
    "baidu",
    "tencent",
    "bytedance",
    "huawei",
    "apple",
    "intel",
    "nvidia",
    "samsung",
    "deepmind",
    "openai",
    "deepseek",
    "moonshot",
    "ant",
    "sea",
    "all",
    "the",
    "for",
    "of",
];

/// Two to five words, each a capitalised word, an initial or a particle.
fn is_person(name: &str) -> bool {
    let words: Vec<&str> = name.split_whitespace().collect();
    if !(2..=5).contains(&words.len()) {
        return false;
    }
    let mut capitalised = 0;
    let mut uncommon = 0;
    for word in &words {
        let lower = word.to_lowercase();
        if ORGANISATION_WORDS.contains(&lower.trim_end_matches('.')) {
            return false;
        }
        if PARTICLES.contains(&word.trim_end_matches('.')) {
            continue;
        }
        if is_initial(word) {
            continue;
        }
        if !is_name_word(word.trim_end_matches('.')) {
            return false;
        }
        capitalised += 1;
        if !(word.len() >= 4 && wordnik_list::word_exists(&lower)) {
            uncommon += 1;
        }
    }
    // "Compiler Infrastructure" is two English words, not a person.
    capitalised >= 1 && uncommon >= 1
}

/// "J", "J.", "J.-P.", "A.B."
fn is_initial(word: &str) -> bool {
    let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
    !letters.is_empty()
        && letters.len() <= 3
        && letters.iter().all(|c| c.is_uppercase())
        && word
            .chars()
            .all(|c| c.is_alphabetic() || matches!(c, '.' | '-'))
        && (letters.len() == 1 || word.contains('.'))
}

/// "Huang", "Ben-Nun", "O'Neil", "Zoë": a capital, then letters with at
/// least one lower-case (an acronym such as "NVIDIA" is not a name).
fn is_name_word(word: &str) -> bool {
    let mut chars = word.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    first.is_uppercase()
        && word
            .chars()
            .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '’'))
        && word.chars().skip(1).any(char::is_lowercase)
        && !word
            .chars()
            .skip(1)
            .filter(|c| c.is_alphabetic())
            .all(char::is_uppercase)
}

fn strip_suffix_ci<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let start = s.len().checked_sub(suffix.len())?;
    let tail = s.get(start..)?;
    tail.eq_ignore_ascii_case(suffix).then(|| &s[..start])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Option<(Vec<&str>, bool)> {
        authors(text).map(|(n, e)| (n.leak().iter().map(String::as_str).collect(), e))
    }

    #[test]
    fn lists_of_names() {
        assert_eq!(
            names("Ada Example, Bo-Ra Sample, et al."),
            Some((vec!["Ada Example", "Bo-Ra Sample"], true))
        );
        assert_eq!(names("Ada Example."), Some((vec!["Ada Example"], false)));
        assert_eq!(
            names("Jan van der Fictive and J. Q. Publicovna"),
            Some((vec!["Jan van der Fictive", "J. Q. Publicovna"], false))
        );
        assert_eq!(
            names("J Exampleton, et al."),
            Some((vec!["J Exampleton"], true))
        );
    }

    #[test]
    fn other_text_is_not_names() {
        for text in [
            "(Oct 04",
            "Acme Research",
            "Google AI",
            "NVIDIA",
            "ETH Zurich",
            "A flexible tool for serving models",
            "Summary: caches prefixes",
            "UCB",
            "Example, A., Sample, B. and Public, C., 2019.",
            "Compiler Infrastructure",
            "Hugging Face",
        ] {
            assert_eq!(authors(text), None, "{text}");
        }
    }
}
