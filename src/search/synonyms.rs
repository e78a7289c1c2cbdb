//! Query-time synonyms: spans of the query that name a tag of the vocabulary
//! (its id, label or an alias), compared with spaces, hyphens and case
//! squashed away so that "all-reduce", "all reduce" and "AllReduce" agree.

use rustc_hash::FxHashMap;

use crate::catalog::{Tag, Vocabulary};

/// The longest alias, in words, that a span is compared with.
const MAX_SPAN: usize = 6;

pub struct Synonyms<'v> {
    vocabulary: &'v Vocabulary,
    by_key: FxHashMap<String, &'v Tag>,
}

/// Lower-case letters and digits only.
pub fn squash(text: &str) -> String {
    if text.is_ascii() {
        return text
            .bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| char::from(b.to_ascii_lowercase()))
            .collect();
    }
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

impl<'v> Synonyms<'v> {
    pub fn new(vocabulary: &'v Vocabulary) -> Self {
        let names = vocabulary.tags.iter().map(|t| t.names().count()).sum();
        let mut by_key = FxHashMap::with_capacity_and_hasher(names, Default::default());
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

#[cfg(test)]
mod tests {
    use super::squash;

    #[test]
    fn squash_keeps_lower_case_letters_and_digits() {
        assert_eq!(squash("All-Reduce"), "allreduce");
        assert_eq!(squash("ZeRO++ (3-D)"), "zero3d");
        assert_eq!(squash("Zürich Ünits"), "zürichünits");
        assert_eq!(squash(" -- "), "");
    }
}
