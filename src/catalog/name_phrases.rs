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

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use tantivy::tokenizer::TextAnalyzer;

use crate::analysis;

/// A name as the title's analyzer makes it: each term with its distance
/// from the first.
type Terms = Vec<(usize, String)>;

/// Every name of two or more terms, by its first term.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NamePhrases {
    by_first: FxHashMap<String, Vec<Name>>,
    markers: FxHashSet<String>,
}

/// A name's terms after its first, with their distances from it, and its
/// marker.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Name {
    rest: Terms,
    marker: String,
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
        let mut phrases = NamePhrases::default();
        for name in names {
            let terms = title_terms(name.as_ref());
            if terms.len() < 2 {
                continue;
            }
            let first = terms[0].0;
            let mut rest: Terms = (terms.into_iter()).map(|(p, t)| (p - first, t)).collect();
            let marker = marker(&rest);
            if phrases.markers.insert(marker.clone()) {
                let (_, head) = rest.remove(0);
                (phrases.by_first.entry(head).or_default()).push(Name { rest, marker });
            }
        }
        phrases
    }

    /// Calls `found` with the marker of each occurrence of a name in
    /// `title`.
    pub fn in_title(&self, title: &str, mut found: impl FnMut(&str)) {
        if self.by_first.is_empty() {
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
        for (start, term) in &terms {
            for name in self.by_first.get(term).into_iter().flatten() {
                let whole = (name.rest.iter()).all(|(offset, term)| {
                    at.get(start + offset).copied().flatten() == Some(term.as_str())
                });
                if whole {
                    found(&name.marker);
                }
            }
        }
    }

    /// Whether the terms of `marker` make a name whose occurrences documents
    /// are written with.
    pub fn marks(&self, marker: &str) -> bool {
        self.markers.contains(marker)
    }
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
    fn a_marker_keeps_the_gaps_between_its_terms() {
        let terms = vec![(3, "all".to_string()), (5, "all".to_string())];
        assert_eq!(marker(&terms), "all _ all");
        assert_eq!(marker(&[]), "");
    }
}
