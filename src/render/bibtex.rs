//! BibTeX: entry types chosen by venue (`venue::genre`), stable keys (`huang2019gpipe`),
//! capitals protected in titles, and TeX's special characters escaped.

use std::fmt::Write;

use super::venue::{self, Genre};
use crate::inert::inert;
use crate::model::{Kind, Record};

const KEY_STOP_WORDS: &[&str] = &[
    "a", "an", "the", "on", "of", "for", "in", "to", "and", "with", "via", "towards",
];

pub fn entry(r: &Record) -> String {
    // A project is software: no catalog field dates it, and of biblatex's
    // types only @software demands no year or date (its data model gives
    // @misc and @online the same year-or-date constraint as papers), so it
    // is the one valid without inventing a date. No urldate either: nothing
    // records when anyone visited the URL.
    let genre = venue::genre(r);
    let kind = match genre {
        Genre::Software => "software",
        Genre::Preprint | Genre::Unplaced => "misc",
        Genre::Journal => "article",
        Genre::Proceedings => "inproceedings",
    };
    let mut out = format!("@{kind}{{{},\n", key(r));
    let mut field = |name: &str, value: &str| {
        if !value.is_empty() {
            let _ = writeln!(out, "  {name:<13} = {{{value}}},");
        }
    };
    field("title", &protect_title(&r.title));
    let mut authors: Vec<String> = r.authors.iter().map(|a| escape(a)).collect();
    if r.et_al {
        // The catalog lists only first authors until metadata is fetched.
        authors.push("others".to_string());
    }
    field("author", &authors.join(" and "));
    if authors.is_empty() {
        // What classic BibTeX sorts and labels by without an author.
        field("key", &escape(&key(r)));
    }
    match (genre, venue::container(r), &r.venue) {
        (Genre::Journal, Some(journal), _) => field("journal", &escape(&journal)),
        (Genre::Proceedings, Some(proceedings), _) => field("booktitle", &escape(&proceedings)),
        (Genre::Preprint, _, Some(venue)) => field("howpublished", &escape(venue)),
        _ => {}
    }
    if let Some(year) = r.year {
        field("year", &year.to_string());
    }
    if let Some(doi) = &r.doi {
        field("doi", &escape(doi));
    }
    if let Some(arxiv) = &r.arxiv {
        field("eprint", &escape(arxiv));
        field("archiveprefix", "arXiv");
    }
    field("url", &escape_url(&r.url));
    out.push_str("}\n");
    out
}

/// First author's surname, year, first significant title word: `huang2019gpipe`.
/// A project's is its id (`megatron-lm`): without author or year, the first
/// title word alone was as weak a key as `easy` or `mesh`, and ids are unique.
pub fn key(r: &Record) -> String {
    if r.kind == Kind::Project {
        return r.id.clone();
    }
    let surname = r
        .authors
        .first()
        .and_then(|a| a.split_whitespace().last())
        .map(ascii_lower)
        .unwrap_or_default();
    let word = r
        .title
        .split(|c: char| !c.is_alphanumeric())
        .map(ascii_lower)
        .find(|w| !w.is_empty() && !KEY_STOP_WORDS.contains(&w.as_str()))
        .unwrap_or_default();
    let year = r.year.map(|y| y.to_string()).unwrap_or_default();
    let key = format!("{surname}{year}{word}");
    if key.is_empty() { r.id.clone() } else { key }
}

fn ascii_lower(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Braces around every word with a capital after its first letter or an
/// all-capital acronym, so styles that lower-case titles keep "GPipe", "MoE".
fn protect_title(title: &str) -> String {
    title
        .split(' ')
        .map(|word| {
            let core = word.trim_matches(|c: char| !c.is_alphanumeric());
            if !core.chars().skip(1).any(char::is_uppercase) {
                return escape(word);
            }
            let start = word.find(core).unwrap_or(0);
            let (head, rest) = word.split_at(start);
            let (core, tail) = rest.split_at(core.len());
            format!("{}{{{}}}{}", escape(head), escape(core), escape(tail))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// TeX's special characters escaped, in the text made inert: no control or
/// bidirectional character reaches a .bib file (or the terminal showing it).
pub fn escape(text: &str) -> String {
    let text = inert(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '&' | '%' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            c => out.push(c),
        }
    }
    out
}

/// URLs keep their characters (biblatex reads them verbatim) but may not
/// unbalance the braces around the field.
fn escape_url(url: &str) -> String {
    inert(url)
        .chars()
        .filter(|c| !matches!(c, '{' | '}' | '\\'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Record {
        Record {
            id: "gpipe-2019".into(),
            kind: Kind::Paper,
            title: "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism"
                .into(),
            authors: vec!["Yanping Huang".into()],
            et_al: true,
            venue: Some("NeurIPS".into()),
            year: Some(2019),
            url: "https://example.org/gpipe.pdf".into(),
            ..Record::default()
        }
    }

    #[test]
    fn keys_and_fields() {
        let r = record();
        assert_eq!(key(&r), "huang2019gpipe");
        let bib = entry(&r);
        assert!(bib.starts_with("@inproceedings{huang2019gpipe,\n"), "{bib}");
        assert!(
            bib.contains("title         = {{GPipe}: Efficient Training"),
            "{bib}"
        );
        assert!(
            bib.contains("author        = {Yanping Huang and others},"),
            "{bib}"
        );
        assert!(
            bib.contains(
                "booktitle     = {Advances in Neural Information Processing Systems (NeurIPS)},"
            ),
            "{bib}"
        );
    }

    #[test]
    fn journals_preprints_and_escapes() {
        let mut r = record();
        r.venue = Some("ACM Computing Surveys".into());
        assert!(entry(&r).starts_with("@article{"));
        r.venue = Some("arxiv".into());
        r.arxiv = Some("2401.10241".into());
        let bib = entry(&r);
        assert!(
            bib.starts_with("@misc{") && bib.contains("eprint        = {2401.10241}"),
            "{bib}"
        );
        assert_eq!(
            escape("50% of {x} & $y_1$"),
            "50\\% of \\{x\\} \\& \\$y\\_1\\$"
        );
    }
}
