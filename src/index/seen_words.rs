//! The typo dictionary needs each word once, not once per document: an
//! import writes to it only the words that it has not written before.

use rustc_hash::FxHashSet;

/// The words (runs of letters and digits, as written) already written to the
/// typo dictionary by one import worker.
///
/// Only for records that are never deleted one by one, like a snapshot's:
/// the word must stay in the dictionary with the record that wrote it.
#[derive(Default)]
pub struct SeenWords {
    /// XXH3 hashes of the words. Two of a million words share a hash with
    /// odds of about 1 in 37 million; the cost is one word the typo repair
    /// cannot reach.
    hashes: FxHashSet<u64>,
}

/// Past this many words (about 20 MB of hashes) the set starts again: a word
/// is then written once more, which costs a posting, never a word.
const CAPACITY: usize = 1 << 20;

impl SeenWords {
    /// Appends to `dictionary` the words of `text` not seen before, each
    /// followed by a space.
    ///
    /// Words are split at ASCII characters other than letters and digits,
    /// and any other character stays within its word. So a word may hold
    /// several of the analyzer's tokens ("model—parallel"), all of which are
    /// written with it the first time it is seen: no token is ever missed.
    pub fn push_unseen(&mut self, text: &str, dictionary: &mut String) {
        let words = text
            .split(|c: char| c.is_ascii() && !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty());
        for word in words {
            if self.hashes.len() >= CAPACITY {
                self.hashes.clear();
            }
            if self
                .hashes
                .insert(xxhash_rust::xxh3::xxh3_64(word.as_bytes()))
            {
                dictionary.push_str(word);
                dictionary.push(' ');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unseen(seen: &mut SeenWords, text: &str) -> String {
        let mut out = String::new();
        seen.push_unseen(text, &mut out);
        out
    }

    #[test]
    fn each_word_is_written_once() {
        let mut seen = SeenWords::default();
        assert_eq!(
            unseen(&mut seen, "Pipeline parallelism: GPipe, pipeline"),
            "Pipeline parallelism GPipe pipeline "
        );
        assert_eq!(
            unseen(&mut seen, "Sequence parallelism for GPipe"),
            "Sequence for "
        );
        assert_eq!(unseen(&mut seen, "(GPipe)"), "");
    }

    #[test]
    fn words_with_other_characters_are_kept_whole() {
        let mut seen = SeenWords::default();
        assert_eq!(
            unseen(&mut seen, "Zéro model—parallel"),
            "Zéro model—parallel "
        );
        // "model" alone is new: "model—parallel" was one word.
        assert_eq!(unseen(&mut seen, "model—parallel model"), "model ");
    }
}
