//! Query-time synonyms: spans of the query that name a tag of the vocabulary
//! (its id, label or an alias), compared squashed (see `catalog::squash`).

pub use crate::catalog::squash;
use crate::catalog::{Tag, Vocabulary};

/// The longest alias, in words, that a span is compared with.
const MAX_SPAN: usize = 6;
/// Endings that make a word a kind of what its stem names: "ZeRO-style
/// sharding" is sharding as ZeRO does it.
const KIND_ENDINGS: [&str; 4] = ["-style", "-like", "-based", "-type"];

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

    /// The longest span of `words` starting at `start` that names a tag,
    /// or the word there, if its stem before a [`KIND_ENDINGS`] one does.
    pub fn longest_at(&self, words: &[&str], start: usize) -> Option<(usize, &'v Tag)> {
        let end = words.len().min(start + MAX_SPAN);
        (start + 1..=end)
            .rev()
            .find_map(|stop| {
                let key: String = words[start..stop].iter().map(|w| squash(w)).collect();
                self.vocabulary.named(&key).map(|tag| (stop - start, tag))
            })
            .or_else(|| {
                let stem = kind_stem(words.get(start)?)?;
                self.vocabulary.named(&squash(stem)).map(|tag| (1, tag))
            })
    }
}

/// "ZeRO" of "ZeRO-style", in any case; `None` without such an ending.
fn kind_stem(word: &str) -> Option<&str> {
    KIND_ENDINGS.iter().find_map(|ending| {
        let cut = word
            .len()
            .checked_sub(ending.len())
            .filter(|&cut| cut > 0)?;
        let tail = word.get(cut..)?;
        tail.eq_ignore_ascii_case(ending).then(|| &word[..cut])
    })
}

#[cfg(test)]
mod tests {
    use super::kind_stem;
    use crate::catalog::squash;

    #[test]
    fn a_kind_ending_leaves_its_stem() {
        assert_eq!(kind_stem("ZeRO-style"), Some("ZeRO"));
        assert_eq!(kind_stem("GPipe-LIKE"), Some("GPipe"));
        assert_eq!(kind_stem("-style"), None);
        assert_eq!(kind_stem("lifestyle"), None);
        assert_eq!(kind_stem("Zürich-based"), Some("Zürich"));
    }

    #[test]
    fn squash_keeps_lower_case_letters_and_digits() {
        assert_eq!(squash("All-Reduce"), "allreduce");
        assert_eq!(squash("ZeRO++ (3-D)"), "zero3d");
        assert_eq!(squash("Zürich Ünits"), "zürichünits");
        assert_eq!(squash(" -- "), "");
    }
}
