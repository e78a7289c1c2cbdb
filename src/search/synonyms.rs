//! Query-time synonyms: spans of the query that name a tag of the vocabulary
//! (its id, label or an alias), compared with spaces, hyphens and case
//! squashed away so that "all-reduce", "all reduce" and "AllReduce" agree.

use std::collections::HashMap;

use crate::catalog::{Tag, Vocabulary, normalize_title};

/// The longest alias, in words, that a span is compared with.
const MAX_SPAN: usize = 6;

pub struct Synonyms<'v> {
    vocabulary: &'v Vocabulary,
    by_key: HashMap<String, &'v Tag>,
}

/// Lower-case letters and digits only.
pub fn squash(text: &str) -> String {
    normalize_title(text).replace(' ', "")
}

impl<'v> Synonyms<'v> {
    pub fn new(vocabulary: &'v Vocabulary) -> Self {
        let mut by_key = HashMap::new();
        for tag in &vocabulary.tags {
            for name in tag.names() {
                let key = squash(name);
                if !key.is_empty() {
                    by_key.entry(key).or_insert(tag);
                }
            }
        }
        Synonyms { vocabulary, by_key }
    }

    pub fn lookup(&self, text: &str) -> Option<&'v Tag> {
        self.by_key.get(&squash(text)).copied()
    }

    pub fn vocabulary(&self) -> &'v Vocabulary {
        self.vocabulary
    }

    /// The longest span of `words` starting at `start` that names a tag.
    pub fn longest_at(&self, words: &[&str], start: usize) -> Option<(usize, &'v Tag)> {
        let end = words.len().min(start + MAX_SPAN);
        (start + 1..=end).rev().find_map(|stop| {
            let key: String = words[start..stop].iter().map(|w| squash(w)).collect();
            self.by_key.get(&key).map(|tag| (stop - start, *tag))
        })
    }
}
