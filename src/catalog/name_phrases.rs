//! The vocabulary's names of two or more words, found in titles when a
//! document is written: each occurrence becomes a term of the document's
//! `title_names` field (its marker), so that a query seeks a name in a
//! million titles by one term's postings instead of by phrase, which reads
//! and matches the positions of every title holding all its words.
//!
//! An occurrence is what a phrase query over the title finds: the name's
//! terms (as the title's analyzer makes them) at the same distances from
//! each other, counted once per position where it starts.

use std::cell::RefCell;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use tantivy::tokenizer::TextAnalyzer;

use crate::analysis;

/// A name as the title's analyzer makes it: each term with its distance
/// from the first.
type Terms = Vec<(usize, String)>;

/// Every name of two or more terms, as its marker. Kept (in `catalog.bin`)
/// as the markers alone, which spell each name's terms and gaps whole: a
/// search only asks whether a marker is known, and one string a name
/// decodes in a quarter of the time that the names by their first terms
/// took as well. Writing documents reads those, made at its first title.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(from = "Vec<String>")]
pub struct NamePhrases {
    /// Sorted, without repeats.
    markers: Vec<String>,
    by_first: OnceLock<ByFirst>,
}

/// The names by their first term.
type ByFirst = FxHashMap<String, Vec<Name>>;

/// A name's terms after its first, with their distances from it, and where
/// its marker is in `markers`.
#[derive(Debug, Clone)]
struct Name {
    rest: Terms,
    marker: usize,
}

thread_local! {
    static ENGLISH: RefCell<TextAnalyzer> = RefCell::new(analysis::english());
}

/// `text`'s terms under the titles' analyzer, with their positions.
fn title_terms(text: &str) -> Terms {
    ENGLISH.with_borrow_mut(|analyzer| analysis::terms_with_positions(analyzer, text))
}

/// The marker of a name's terms (positions from any start): its terms in
/// order, a `_` for each position between them that holds none.
pub fn marker(terms: &[(usize, String)]) -> String {
    let mut out = String::new();
    let mut next = terms.first().map_or(0, |(p, _)| *p);
    for (position, term) in terms {
        while next < *position {
            out.push_str("_ ");
            next += 1;
        }
        out.push_str(term);
        out.push(' ');
        next = position + 1;
    }
    out.pop();
    out
}

impl NamePhrases {
    /// The phrases of `names` (a vocabulary's, with their variants).
    pub fn new(names: impl IntoIterator<Item = impl AsRef<str>>) -> NamePhrases {
        let markers = names.into_iter().filter_map(|name| {
            let terms = title_terms(name.as_ref());
            (terms.len() >= 2).then(|| marker(&terms))
        });
        NamePhrases::from(markers.collect::<Vec<_>>())
    }

    /// The names by their first term, read from their markers.
    fn by_first(&self) -> &ByFirst {
        self.by_first.get_or_init(|| {
            let mut by_first = ByFirst::default();
            for (marker, spelt) in self.markers.iter().enumerate() {
                let mut rest = terms_of(spelt);
                let (_, head) = rest.remove(0);
                by_first
                    .entry(head)
                    .or_default()
                    .push(Name { rest, marker });
            }
            by_first
        })
    }

    /// Calls `found` with the marker of each occurrence of a name in
    /// `title`.
    pub fn in_title(&self, title: &str, mut found: impl FnMut(&str)) {
        if self.markers.is_empty() {
            return;
        }
        let terms = title_terms(title);
        if terms.len() < 2 {
            return;
        }
        // The term at each position (a title is a few dozen at most).
        let mut at: Vec<Option<&str>> = Vec::new();
        for (position, term) in &terms {
            if at.len() <= *position {
                at.resize(position + 1, None);
            }
            at[*position] = Some(term);
        }
        let by_first = self.by_first();
        for (start, term) in &terms {
            for name in by_first.get(term).into_iter().flatten() {
                let whole = (name.rest.iter()).all(|(offset, term)| {
                    at.get(start + offset).copied().flatten() == Some(term.as_str())
                });
                if whole {
                    found(&self.markers[name.marker]);
                }
            }
        }
    }

    /// Whether the terms of `marker` make a name whose occurrences documents
    /// are written with.
    pub fn marks(&self, marker: &str) -> bool {
        (self.markers)
            .binary_search_by(|known| known.as_str().cmp(marker))
            .is_ok()
    }
}

impl From<Vec<String>> for NamePhrases {
    /// The names of `markers`, in any order, repeats allowed.
    fn from(mut markers: Vec<String>) -> NamePhrases {
        markers.sort_unstable();
        markers.dedup();
        NamePhrases {
            markers,
            by_first: OnceLock::new(),
        }
    }
}

/// As its markers alone (see [`NamePhrases`]).
impl Serialize for NamePhrases {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.markers.serialize(serializer)
    }
}

/// The terms of `marker` with their distances from the first: what
/// [`marker`] wrote them from (a term is never `_`, which the analyzer
/// drops with every other symbol).
fn terms_of(marker: &str) -> Terms {
    (marker.split(' ').enumerate())
        .filter(|&(_, word)| word != "_")
        .map(|(position, term)| (position, term.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(phrases: &NamePhrases, title: &str) -> Vec<String> {
        let mut all = Vec::new();
        phrases.in_title(title, |m| all.push(m.to_string()));
        all
    }

    #[test]
    fn a_name_is_found_as_a_phrase_finds_it_each_time_it_occurs() {
        let names = [
            "pipeline parallelism",
            "pipelining",
            "1F1B",
            "expert parallelism",
            "mixture of experts",
        ];
        let phrases = NamePhrases::new(names);
        assert_eq!(
            found(
                &phrases,
                "Pipeline-Parallelism, and pipelined parallelisms at Scale"
            ),
            vec!["pipelin parallel", "pipelin parallel"]
        );
        assert_eq!(
            found(&phrases, "Routing a Mixture of Experts"),
            vec!["mixtur of expert"]
        );
        // Its words apart, or one word alone, are no occurrence.
        assert!(found(&phrases, "Parallelism of a pipeline").is_empty());
        assert!(found(&phrases, "Pipelining").is_empty());
        assert!(phrases.marks("expert parallel"));
        assert!(!phrases.marks("pipelin"));
    }

    #[test]
    fn names_kept_as_their_markers_are_found_as_before() {
        let names = ["all-to-all", "all to all", "zero bubble pipeline", "1F1B"];
        let phrases = NamePhrases::new(names);
        let kept: NamePhrases =
            postcard::from_bytes(&postcard::to_stdvec(&phrases).unwrap()).unwrap();
        let title = "All-to-all and all-to-all again: a zero bubble pipeline";
        assert_eq!(found(&kept, title), found(&phrases, title));
        assert_eq!(
            found(&kept, title),
            ["all to all", "all to all", "zero bubbl pipelin"]
        );
        assert!(kept.marks("zero bubbl pipelin") && !kept.marks("zero bubbl"));
        // A name's terms apart are read back with their gap.
        let gapped = NamePhrases::from(vec!["all _ all".to_string()]);
        assert_eq!(found(&gapped, "all of all"), ["all _ all"]);
        assert!(found(&gapped, "all all").is_empty());
    }

    #[test]
    fn a_marker_keeps_the_gaps_between_its_terms() {
        let terms = vec![(3, "all".to_string()), (5, "all".to_string())];
        assert_eq!(marker(&terms), "all _ all");
        assert_eq!(marker(&[]), "");
    }
}
