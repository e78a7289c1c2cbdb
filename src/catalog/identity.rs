//! When two records are one work: their identifier keys (arXiv id, DOI,
//! the entry's own and those metadata.json found), DOIs normalized, and
//! titles compared. Titles that differ in a version marker ("Zorblax2" and
//! "Zorblax2++", "v1" and "v2") name distinct works and are never one.
//! Shared by `check`'s duplicates and the inbox's "already listed".

use crate::catalog::Entry;
use crate::ident;
use crate::model::metadata::Cache;

/// Titles at least this similar (normalized Levenshtein) are one work.
const SIMILAR: f64 = 0.9;
/// Shorter titles (project names) are compared exactly: "Ray" and "Rax"
/// are different projects.
const MIN_FUZZY_CHARS: usize = 16;

/// `arxiv:ID` and `doi:DOI` keys of an entry, each with how a report names it.
pub(crate) fn identifiers(entry: &Entry, metadata: &Cache) -> Vec<(String, String)> {
    let cached = metadata.get(&entry.id);
    let arxiv = [
        entry.arxiv.clone(),
        ident::arxiv_from_url(&entry.url),
        cached
            .and_then(|c| c.arxiv.as_ref())
            .map(|i| i.value.clone()),
    ];
    let doi = [
        entry.doi.clone(),
        ident::doi_from_url(&entry.url),
        cached.and_then(|c| c.doi.as_ref()).map(|i| i.value.clone()),
    ];
    let mut keys = Vec::new();
    for id in arxiv.into_iter().flatten() {
        let id = ident::strip_version(id.trim()).to_owned();
        keys.push((format!("arxiv:{id}"), format!("arXiv id {id}")));
    }
    for doi in doi.into_iter().flatten().filter_map(|d| normalize_doi(&d)) {
        keys.push((format!("doi:{doi}"), format!("DOI {doi}")));
    }
    keys.dedup();
    keys
}

/// A DOI as written anywhere (`doi:`, a doi.org URL, any case) to its bare
/// lower-case form.
pub(crate) fn normalize_doi(doi: &str) -> Option<String> {
    let doi = doi.trim();
    let lower = doi.to_lowercase();
    let bare = [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "doi:",
    ]
    .iter()
    .find_map(|p| lower.strip_prefix(p))
    .unwrap_or(&lower);
    ident::is_doi(bare).then(|| bare.to_owned())
}

/// Lower-case words of letters, digits and `+` (so that "2++" stays
/// itself), one space apart.
pub(crate) fn title_key(title: &str) -> String {
    title
        .split(|c: char| !(c.is_alphanumeric() || c == '+'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The version markers of a normalized title, in order: runs of digits,
/// runs of `+`, and `v2`-style words.
fn version_markers(title: &str) -> Vec<&str> {
    let mut markers = Vec::new();
    for word in title.split(' ') {
        if word.len() > 1 && word.starts_with('v') && word[1..].bytes().all(|b| b.is_ascii_digit())
        {
            markers.push(word);
            continue;
        }
        let bytes = word.as_bytes();
        let mut start = 0;
        for i in 1..=bytes.len() {
            let class = |b: u8| {
                if b.is_ascii_digit() {
                    1
                } else if b == b'+' {
                    2
                } else {
                    0
                }
            };
            if i == bytes.len() || class(bytes[i]) != class(bytes[start]) {
                if class(bytes[start]) != 0 {
                    markers.push(&word[start..i]);
                }
                start = i;
            }
        }
    }
    markers
}

/// Whether two [`title_key`]s are one work's.
pub(crate) fn same_title(a: &str, b: &str) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a == b {
        return true;
    }
    let (short, long) = (a.len().min(b.len()), a.len().max(b.len()));
    // Similarity >= SIMILAR needs lengths within that fraction of each other;
    // checked first, as most pairs fail it (the inbox compares every record
    // with every entry).
    short >= MIN_FUZZY_CHARS
        && (long - short) as f64 <= (1.0 - SIMILAR) * long as f64
        && version_markers(a) == version_markers(b)
        && strsim::normalized_levenshtein(a, b) >= SIMILAR
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) -> bool {
        same_title(&title_key(a), &title_key(b))
    }

    #[test]
    fn near_identical_titles_are_one_work() {
        assert!(same(
            "Zorblax: Sharded Widget Training at Scale",
            "Zorblax - sharded widget training at scale."
        ));
        assert!(same(
            "Zorblax: Sharded Widget Training at Scale",
            "Zorblax: Sharded Widget Trainning at Scale"
        ));
    }

    #[test]
    fn version_markers_make_distinct_works() {
        let base = "Zorblax2: Sharded Widget Training at Scale";
        for other in [
            "Zorblax2++: Sharded Widget Training at Scale",
            "Zorblax3: Sharded Widget Training at Scale",
            "Zorblax: Sharded Widget Training at Scale",
            "Zorblax2: Sharded Widget Training at Scale v2",
        ] {
            assert!(!same(base, other), "{other}");
        }
        assert!(!same(
            "Quuxnet v1: Widget Pipelines",
            "Quuxnet v2: Widget Pipelines"
        ));
    }

    #[test]
    fn short_titles_compare_exactly() {
        assert!(!same("Flexwidget", "Flexwidgets"));
        assert!(same("Flex-Widget", "flex widget"));
    }

    #[test]
    fn dois_are_normalized() {
        assert_eq!(
            normalize_doi("https://doi.org/10.99999/ABC.1").as_deref(),
            Some("10.99999/abc.1")
        );
        assert_eq!(
            normalize_doi(" doi:10.99999/x ").as_deref(),
            Some("10.99999/x")
        );
        assert_eq!(normalize_doi("not a doi"), None);
    }
}
