//! What the model reads of a text: the ids of the terms it knows (the
//! project's stemmed English analyzer's terms, so that "pipelines" and
//! "pipelined" are one word) and the tags whose names the text spells out.

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use tantivy::tokenizer::TextAnalyzer;

use crate::catalog::Vocabulary;
use crate::index::analysis;

/// A word the table does not know.
const UNKNOWN: u32 = u32::MAX;

thread_local! {
    /// One analyzer per thread, and its cache of the terms of words (import
    /// workers predict for a million records).
    static ENGLISH: RefCell<TextAnalyzer> = RefCell::new(analysis::english());
}

/// The analyzed terms of `text`.
pub(super) fn terms(text: &str) -> Vec<String> {
    ENGLISH.with_borrow_mut(|english| analysis::terms(english, text))
}

/// The terms the model knows: its features first (ids `0..features`), then
/// the words of tag names that are not features; and each tag name as the
/// sequence of term ids that spells it.
#[derive(Debug, Clone, Default)]
pub(super) struct TermTable {
    ids: FxHashMap<String, u32>,
    features: usize,
    /// The first term of a name, to the rest of it and the tag (its slot).
    names: FxHashMap<u32, Vec<NameRest>>,
}

/// The terms of a name after its first, and the slot of its tag.
type NameRest = (Box<[u32]>, usize);

/// What a text is made of, for the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Analyzed {
    /// (feature id, count), by id.
    pub(super) counts: Vec<(u32, f32)>,
    /// Slots of the tags a name of which the text holds, by slot, once each.
    pub(super) named: Vec<usize>,
}

impl TermTable {
    /// `features` (distinct terms) and the names of `tags` (slots in
    /// `vocabulary` order of the ids given).
    pub(super) fn new(features: Vec<String>, vocabulary: &Vocabulary, tags: &[String]) -> Self {
        let mut table = TermTable {
            features: features.len(),
            ..TermTable::default()
        };
        for (id, term) in features.into_iter().enumerate() {
            table.ids.insert(term, id as u32);
        }
        for (slot, tag) in tags.iter().enumerate() {
            let Some(tag) = vocabulary.get(tag) else {
                continue;
            };
            for name in tag.names() {
                let spelled: Vec<u32> = terms(name).into_iter().map(|t| table.id(t)).collect();
                let Some((&first, rest)) = spelled.split_first() else {
                    continue;
                };
                let entry = table.names.entry(first).or_default();
                if !entry.iter().any(|(r, s)| **r == *rest && *s == slot) {
                    entry.push((rest.into(), slot));
                }
            }
        }
        table
    }

    fn id(&mut self, term: String) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(term).or_insert(next)
    }

    pub(super) fn features(&self) -> usize {
        self.features
    }

    /// The known terms and tag names of `parts` (a name does not run from one
    /// part into the next).
    pub(super) fn analyze<'a>(&self, parts: impl IntoIterator<Item = &'a str>) -> Analyzed {
        let mut counts: FxHashMap<u32, f32> = FxHashMap::default();
        let mut named = Vec::new();
        let mut sequence = Vec::new();
        for part in parts {
            sequence.clear();
            ENGLISH.with_borrow_mut(|english| {
                let mut stream = english.token_stream(part);
                while let Some(token) = stream.next() {
                    let id = self.ids.get(token.text.as_str()).copied();
                    sequence.push(id.unwrap_or(UNKNOWN));
                }
            });
            for (at, &id) in sequence.iter().enumerate() {
                if (id as usize) < self.features {
                    *counts.entry(id).or_default() += 1.0;
                }
                for (rest, slot) in self.names.get(&id).into_iter().flatten() {
                    if sequence[at + 1..].starts_with(rest) {
                        named.push(*slot);
                    }
                }
            }
        }
        let mut counts: Vec<(u32, f32)> = counts.into_iter().collect();
        counts.sort_unstable_by_key(|&(id, _)| id);
        named.sort_unstable();
        named.dedup();
        Analyzed { counts, named }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Tag;

    fn vocabulary() -> Vocabulary {
        let tag = |id: &str, label: &str, aliases: &[&str]| Tag {
            id: id.into(),
            label: label.into(),
            category: "c".into(),
            description: String::new(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            deliberate: Vec::new(),
            location: Default::default(),
        };
        Vocabulary::new(vec![
            tag("blorp-sharding", "Blorp sharding", &["sharded blorps"]),
            tag("zint-caching", "Zint caching", &["ZC"]),
        ])
    }

    #[test]
    fn known_terms_are_counted_by_their_stem_and_names_found_as_phrases() {
        let tags = ["blorp-sharding".to_string(), "zint-caching".to_string()];
        let table = TermTable::new(vec!["blorp".into(), "shard".into()], &vocabulary(), &tags);
        let analyzed = table.analyze(["Sharded blorps, and more blorps", "caching zint"]);
        // "sharded" and "blorps" are the features shard and blorp.
        assert_eq!(analyzed.counts, [(0, 2.0), (1, 1.0)]);
        assert_eq!(analyzed.named, [0], "zint caching is split, not named");
        let analyzed = table.analyze(["the ZC of zint Caching"]);
        assert_eq!(analyzed.named, [1]);
        assert!(analyzed.counts.is_empty());
    }

    #[test]
    fn a_name_does_not_run_across_parts() {
        let tags = ["zint-caching".to_string()];
        let table = TermTable::new(Vec::new(), &vocabulary(), &tags);
        assert!(table.analyze(["a zint", "caching b"]).named.is_empty());
    }
}
