//! Recognising a venue and year in the spellings lists use: "OSDI 2022",
//! "OSDI' 24", "EuroSys '24", "ICLR'25", "(SOSP2019)", "[MLSys 2024]",
//! "NeurIPS 2023 Workshop", a date column's "2024.05", "arXiv preprint (2019)".

/// A venue and year found in a clause, and the text around them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub venue: Option<String>,
    pub year: i64,
    /// The clause without the venue and year (an affiliation, a page range).
    pub rest: String,
}

const MONTHS: &[&str] = &[
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// The venue and year of one clause (text between commas or bars), if any.
pub fn venue_year(clause: &str) -> Option<Found> {
    let clause = clause.replace(['’', '‘', '`'], "'");
    let words: Vec<&str> = clause.split_whitespace().collect();
    for (i, word) in words.iter().enumerate() {
        let (before, after) = (&words[..i], &words[i + 1..]);
        if let Some((venue_word, year)) = glued_year(word) {
            // "OSDI'24", "(SOSP2019)": the venue is in the word itself.
            if !venue_word.is_empty() {
                return Some(found(&[venue_word], year, before, after));
            }
            // A bare year: the venue is the run of venue-like words before
            // it, and after it when they read as one ("2023 Workshop").
            if before.iter().any(|w| w.to_lowercase().contains("arxiv")) {
                return Some(found(&["arXiv"], year, &[], after));
            }
            let start = venue_start(before);
            let mut venue = before[start..].to_vec();
            let mut rest = after;
            if !venue.is_empty() && !after.is_empty() && after.iter().all(|w| is_venue_word(w)) {
                venue.extend_from_slice(after);
                rest = &[];
            }
            return Some(match clean_venue(&venue.join(" ")) {
                Some(_) => found(&venue, year, &before[..start], rest),
                None => found(&[], year, before, after),
            });
        }
        let last = i + 1 == words.len();
        if let Some(year) = apostrophe_year(word, i.checked_sub(1).map(|p| words[p]), last) {
            let mut head: Vec<&str> = words[..i].to_vec();
            if let Some(last) = head.last_mut() {
                *last = last.trim_end_matches('\'');
            }
            // The forms with an apostrophe follow a one-word venue name.
            let start = head.len().saturating_sub(1);
            return Some(found(&head[start..], year, &head[..start], &words[i + 1..]));
        }
    }
    None
}

/// Words that make up venue names besides acronyms.
const VENUE_WORDS: &[&str] = &[
    "workshop",
    "conference",
    "symposium",
    "journal",
    "transactions",
    "proceedings",
    "computing",
    "surveys",
    "letters",
    "review",
    "systems",
    "networks",
    "learning",
    "machine",
    "intelligence",
    "data",
    "science",
    "international",
    "annual",
    "findings",
    "techrxiv",
];

/// An acronym-like word ("NeurIPS", "SC", "ES-FoMo") or a venue word.
fn is_venue_word(word: &str) -> bool {
    let word = word.trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | ',' | '*'));
    word.chars().next().is_some_and(char::is_alphabetic)
        && (word.chars().filter(char::is_ascii_uppercase).count() >= 2
            || VENUE_WORDS.contains(&word.to_lowercase().as_str()))
}

/// Where the venue starts in the words before a year: venue-like words
/// back from the year, joined by "of", "on", "for"; a last capitalised
/// word ("IEEE Access") may be one too. Names and "et al." stop it.
fn venue_start(words: &[&str]) -> usize {
    let mut start = words.len();
    for (i, word) in words.iter().enumerate().rev() {
        let connector = matches!(*word, "of" | "on" | "for" | "and" | "in" | "the");
        let first_capital = i + 1 == words.len()
            && word.chars().next().is_some_and(char::is_uppercase)
            && word.chars().all(|c| c.is_alphabetic() || c == '-');
        if word.ends_with('.') || !(is_venue_word(word) || connector || first_capital) {
            break;
        }
        start = i;
    }
    // A run does not start with a connector.
    while start < words.len() && matches!(words[start], "of" | "on" | "for" | "and" | "in" | "the")
    {
        start += 1;
    }
    start
}

fn found(venue: &[&str], year: i64, before: &[&str], after: &[&str]) -> Found {
    let venue = clean_venue(&venue.join(" "));
    let mut rest = before.to_vec();
    rest.extend_from_slice(after);
    Found {
        venue,
        year,
        rest: rest.join(" ").trim_matches(is_edge).to_string(),
    }
}

fn is_edge(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | ',' | ';' | ':' | '.' | '-' | '*')
}

/// A venue is a few words that start with a letter; dates and page ranges
/// are not venues; "arXiv preprint arXiv:1911.02549" is arXiv.
fn clean_venue(text: &str) -> Option<String> {
    let text = text.trim_matches(is_edge);
    if text.to_lowercase().contains("arxiv") && text.contains(' ') {
        return Some("arXiv".into());
    }
    let mut words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | ',' | '*')))
        .filter(|w| !w.is_empty())
        .collect();
    // "IEEE Access 6" (a volume), "Oct 04" (a date).
    while words
        .last()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
    {
        words.pop();
    }
    let plausible = !words.is_empty()
        && words.len() <= 6
        && words.iter().all(|w| {
            w.chars().next().is_some_and(char::is_alphabetic)
                && !MONTHS.contains(&w.to_lowercase().trim_end_matches('.'))
                && !matches!(w.to_lowercase().as_str(), "pp." | "pp" | "in" | "vol.")
        })
        && words
            .iter()
            .any(|w| w.chars().any(char::is_uppercase) || matches!(*w, "techrxiv" | "arxiv"));
    plausible.then(|| words.join(" "))
}

/// A word that holds a year: "2019", "(2019).", "SOSP2019", "OSDI'24",
/// "2024.05" (a date column). Returns the venue part ("" for none).
fn glued_year(word: &str) -> Option<(&str, i64)> {
    let edge = |c: char| matches!(c, '(' | ')' | '[' | ']' | ',' | ';' | ':' | '*' | '|' | '.');
    let word = word.trim_matches(edge);
    if let Some((venue, yy)) = word.split_once('\'')
        && !venue.is_empty()
        && yy.len() == 2
        && yy.chars().all(|c| c.is_ascii_digit())
    {
        return Some((venue, two_digit(yy)?));
    }
    let digits_at = word.find(|c: char| c.is_ascii_digit())?;
    let (venue, digits) = word.split_at(digits_at);
    let year_text = digits.get(..4)?;
    let year: i64 = year_text.parse().ok()?;
    if !(1990..2100).contains(&year) {
        return None;
    }
    let after = &digits[4..];
    // A date such as "2024.05" or "2024-05-01" is a year; "2024.12345" is not.
    let date_tail = after.is_empty()
        || (venue.is_empty()
            && after.len() <= 6
            && after.starts_with(['.', '-', '/'])
            && after[1..]
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '/'))
            && after[1..].split(['.', '-', '/']).all(|p| p.len() <= 2));
    let venue_ok = venue.is_empty() || venue.chars().all(|c| c.is_alphabetic() || c == '-');
    (date_tail && venue_ok).then_some((venue, year))
}

/// "'24" after a venue, or "24" right after an apostrophe-ended venue
/// ("OSDI' 24"), or "23" after an upper-case venue ("ASPLOS 23").
fn apostrophe_year(word: &str, previous: Option<&str>, last: bool) -> Option<i64> {
    let previous = previous?;
    let word = word.trim_end_matches([')', ']', ',', ';', '.', '*']);
    let venue_like = |w: &str| {
        let w = w.trim_end_matches('\'');
        w.chars().next().is_some_and(char::is_alphabetic)
            && w.chars().filter(char::is_ascii_uppercase).count() >= 2
    };
    if let Some(yy) = word.strip_prefix('\'') {
        return (yy.len() == 2 && yy.chars().all(|c| c.is_ascii_digit()) && venue_like(previous))
            .then(|| two_digit(yy))
            .flatten();
    }
    // Without an apostrophe only a clause's last word is read as a year.
    let digits = word.len() == 2 && word.chars().all(|c| c.is_ascii_digit());
    (digits && (last || previous.ends_with('\'')) && venue_like(previous))
        .then(|| two_digit(word))
        .flatten()
}

fn two_digit(yy: &str) -> Option<i64> {
    let n: i64 = yy.parse().ok()?;
    // Two digits name a year of this field's venues: 1990 to 2039.
    match n {
        90.. => Some(1900 + n),
        ..40 => Some(2000 + n),
        _ => None,
    }
}

/// A shields.io badge that names a venue: ".../badge/Conference-ICML'23-blue".
pub fn badge_venue(url: &str) -> Option<Found> {
    let path = url.split_once("img.shields.io/badge/")?.1;
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    let (kind, rest) = decoded.split_once('-')?;
    if !matches!(
        kind.to_lowercase().as_str(),
        "conference" | "journal" | "venue" | "publish"
    ) {
        return None;
    }
    let text = rest.rsplit_once('-').map_or(rest, |(text, _colour)| text);
    venue_year(&text.replace('_', " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vy(text: &str) -> Option<(Option<String>, i64, String)> {
        venue_year(text).map(|f| (f.venue, f.year, f.rest))
    }

    fn v(venue: &str, year: i64, rest: &str) -> Option<(Option<String>, i64, String)> {
        Some((Some(venue.to_string()), year, rest.to_string()))
    }

    #[test]
    fn common_spellings() {
        assert_eq!(vy("OSDI 2022"), v("OSDI", 2022, ""));
        assert_eq!(vy("OSDI' 24"), v("OSDI", 2024, ""));
        assert_eq!(vy("EuroSys '24"), v("EuroSys", 2024, ""));
        assert_eq!(vy("ICLR'25"), v("ICLR", 2025, ""));
        assert_eq!(vy("PPoPP ’25"), v("PPoPP", 2025, ""));
        assert_eq!(vy("ASPLOS 23"), v("ASPLOS", 2023, ""));
        assert_eq!(vy("(SOSP2019)"), v("SOSP", 2019, ""));
        assert_eq!(vy("[MLSys 2024]"), v("MLSys", 2024, ""));
        assert_eq!(vy("NeurIPS 2023 Workshop"), v("NeurIPS Workshop", 2023, ""));
        assert_eq!(vy("Acme Labs SC' 24"), v("SC", 2024, "Acme Labs"));
        assert_eq!(
            vy("arXiv preprint arXiv:2999.01234 (2019)."),
            v("arXiv", 2019, "")
        );
    }

    #[test]
    fn years_without_venues() {
        assert_eq!(vy("2024.05"), Some((None, 2024, String::new())));
        assert_eq!(vy("Oct 04 2023"), Some((None, 2023, "Oct 04".into())));
        assert_eq!(
            vy("pp. 109-120. 2017."),
            Some((None, 2017, "pp. 109-120".into()))
        );
        assert_eq!(vy("GPT 4 on 8 GPUs"), None);
        assert_eq!(vy("2999.01234"), None);
    }

    #[test]
    fn badges() {
        let f = badge_venue("https://img.shields.io/badge/Conference-ICML'23-blue").unwrap();
        assert_eq!((f.venue.as_deref(), f.year), (Some("ICML"), 2023));
        let f = badge_venue("https://img.shields.io/badge/Conference-NeurIPS'24%20Workshop-blue")
            .unwrap();
        assert_eq!((f.venue.as_deref(), f.year), (Some("NeurIPS"), 2024));
        assert_eq!(
            badge_venue("https://img.shields.io/badge/Structural-C2A4A6"),
            None
        );
    }
}
