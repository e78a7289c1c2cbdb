//! The cached tokenizer's memory: each word as written, and the term made of
//! it. A lookup is on the path of every word of an import, so words of up to
//! 16 bytes (nearly all) are keyed by two overlapping 8-byte loads and their
//! length: hashed in a few multiplications and compared as integers, with no
//! call to `memcmp` and no pointer to follow. Longer words are kept as
//! strings. The most frequent words (Zipf) are found in a small front table
//! that stays in the processor's cache, which the whole table, as large as
//! a corpus's vocabulary, does not while tantivy indexes. The hash is fast,
//! not collision-resistant: crafted collisions could only slow the import of
//! the corpus holding them, since keys are compared whole.

use compact_str::CompactString;
use rustc_hash::FxHashMap;

/// Distinct words remembered before the cache starts over (bounds memory).
const CAPACITY: usize = 200_000;

/// Slots of the front table (of 48 bytes each).
const FRONT: usize = 512;

#[derive(Clone)]
pub struct WordCache {
    /// The last short word seen at each slot, and its term.
    front: Box<[(ShortKey, CompactString)]>,
    short: FxHashMap<ShortKey, CompactString>,
    long: FxHashMap<CompactString, CompactString>,
}

impl Default for WordCache {
    fn default() -> Self {
        WordCache {
            // The empty key (length 0) is no word's.
            front: vec![(ShortKey::default(), CompactString::default()); FRONT].into_boxed_slice(),
            short: FxHashMap::default(),
            long: FxHashMap::default(),
        }
    }
}

/// A word of at most 16 bytes. Together, `head` and `tail` hold every byte
/// of it (they overlap when it is shorter than 16), so with its length they
/// tell it from every other word.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
struct ShortKey {
    head: u64,
    tail: u64,
    len: u8,
}

impl ShortKey {
    #[inline]
    fn new(word: &[u8]) -> Option<ShortKey> {
        let len = word.len();
        let (head, tail) = match len {
            8..=16 => (le64(&word[..8]), le64(&word[len - 8..])),
            4..=7 => (le32(&word[..4]), le32(&word[len - 4..])),
            1..=3 => {
                let (first, middle, last) = (word[0], word[len / 2], word[len - 1]);
                (
                    u64::from(first) | u64::from(middle) << 8 | u64::from(last) << 16,
                    0,
                )
            }
            _ => return None,
        };
        Some(ShortKey {
            head,
            tail,
            len: len as u8,
        })
    }
}

impl ShortKey {
    #[inline]
    fn front_slot(&self) -> usize {
        let mixed = (self.head ^ self.tail.rotate_left(29) ^ u64::from(self.len))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (mixed >> 32) as usize % FRONT
    }
}

#[inline]
fn le64(bytes: &[u8]) -> u64 {
    let mut eight = [0; 8];
    eight.copy_from_slice(bytes);
    u64::from_le_bytes(eight)
}

#[inline]
fn le32(bytes: &[u8]) -> u64 {
    let mut four = [0; 4];
    four.copy_from_slice(bytes);
    u64::from(u32::from_le_bytes(four))
}

impl WordCache {
    /// Inlined into the tokenizer's loop: a word found in the front table
    /// costs a few instructions, fewer than a call.
    #[inline]
    pub fn get(&mut self, word: &str) -> Option<&str> {
        let Some(key) = ShortKey::new(word.as_bytes()) else {
            return self.long.get(word).map(CompactString::as_str);
        };
        let slot = key.front_slot();
        if self.front[slot].0 != key {
            let term = self.short.get(&key)?;
            self.front[slot] = (key, term.clone());
        }
        Some(self.front[slot].1.as_str())
    }

    pub fn insert(&mut self, word: &str, term: &str) {
        if self.short.len() + self.long.len() >= CAPACITY {
            // A word's term never changes, so the front table may keep its.
            self.short.clear();
            self.long.clear();
        }
        match ShortKey::new(word.as_bytes()) {
            Some(key) => self.short.insert(key, term.into()),
            None => self.long.insert(word.into(), term.into()),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_up_to_sixteen_bytes_has_its_own_key() {
        // Words that share their first and last bytes, or differ only in
        // length or in one middle byte, at every length from 1 to 17.
        let mut words = Vec::new();
        for len in 1..=17 {
            for middle in [b'a', b'b'] {
                let mut word = vec![b'x'; len];
                word[len / 2] = middle;
                words.push(String::from_utf8(word).unwrap());
            }
            words.push("y".repeat(len));
        }
        let mut cache = WordCache::default();
        for (n, word) in words.iter().enumerate() {
            cache.insert(word, &n.to_string());
        }
        // Twice each, the second time from the front table (where words
        // that share a slot replace each other).
        for (n, word) in words
            .iter()
            .enumerate()
            .chain(words.iter().enumerate().rev())
        {
            assert_eq!(cache.get(word), Some(n.to_string().as_str()), "{word}");
            assert_eq!(cache.get(word), Some(n.to_string().as_str()), "{word}");
        }
        assert_eq!(cache.get("xxxxxxxxxxxxxxxxxxxx"), None);
        assert_eq!(cache.get(""), None);
    }
}
