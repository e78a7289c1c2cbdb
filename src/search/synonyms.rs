//! Query-time synonyms: spans of the query that name a tag of the vocabulary
//! (its id, label or an alias), compared squashed (see `catalog::squash`).

pub use crate::catalog::squash;
use crate::catalog::{Tag, Vocabulary};

/// The longest alias, in words, that a span is compared with.
const MAX_SPAN: usize = 6;

pub struct Synonyms<'v> {
    vocabulary: &'v Vocabulary,
}

impl<'v> Synonyms<'v> {
    pub fn new(vocabulary: &'v Vocabulary) -> Self {
        Synonyms { vocabulary }
    }

    pub fn lookup(&self, text: &str) -> Option<&'v Tag> {
        self.vocabulary.named(&squash(text))
    }

    pub fn vocabulary(&self) -> &'v Vocabulary {
        self.vocabulary
    }

    /// The longest span of `words` starting at `start` that names a tag.
    pub fn longest_at(&self, words: &[&str], start: usize) -> Option<(usize, &'v Tag)> {
        let end = words.len().min(start + MAX_SPAN);
        (start + 1..=end).rev().find_map(|stop| {
            let key: String = words[start..stop].iter().map(|w| squash(w)).collect();
            self.vocabulary.named(&key).map(|tag| (stop - start, tag))
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::catalog::squash;

    #[test]
    fn squash_keeps_lower_case_letters_and_digits() {
        assert_eq!(squash("All-Reduce"), "allreduce");
        assert_eq!(squash("ZeRO++ (3-D)"), "zero3d");
        assert_eq!(squash("Zürich Ünits"), "zürichünits");
        assert_eq!(squash(" -- "), "");
    }
}
