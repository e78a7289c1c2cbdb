//! What the model reads of a text: the ids of the terms it knows (the
//! project's stemmed English analyzer's terms, so that "pipelines" and
//! "pipelined" are one word) and the tags whose names the text spells out.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;
use tantivy::tokenizer::TextAnalyzer;

use crate::analysis;
use crate::catalog::Vocabulary;

/// A word the table does not know.
const UNKNOWN: u32 = u32::MAX;
/// Words of this many bytes or more are left out, as the analyzer does.
const LONGEST_WORD: usize = crate::analysis::LONGEST_WORD;
/// Most words each thread remembers the id of (names and numbers are many).
const REMEMBERED_WORDS: usize = 1 << 18;

/// ASCII words, lower-cased, to their term ids: those of up to 16 bytes
/// (nearly all) packed into one integer, which hashes and compares in a
/// step, the longer ones as bytes.
#[derive(Default)]
struct WordIds {
    short: FxHashMap<u128, u32>,
    long: FxHashMap<Box<[u8]>, u32>,
}

/// The longest word packed into a `u128` key.
const PACKED_BYTES: usize = 16;

/// An ASCII word, lower-cased, as [`WordIds`] keys it.
enum WordKey<'a> {
    /// Its bytes in the low end of the integer, zeros after them: no word
    /// holds a NUL (a separator), so that no two words are one key.
    Packed(u128),
    Long(&'a [u8]),
}

impl WordIds {
    fn clear(&mut self) {
        self.short.clear();
        self.long.clear();
    }

    fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    /// The id of the word `key`, or the id `find` gives it, then remembered
    /// while there is room.
    #[inline]
    fn get_or_find(&mut self, key: WordKey<'_>, find: impl FnOnce() -> u32) -> u32 {
        if let Some(id) = match &key {
            WordKey::Packed(packed) => self.short.get(packed),
            WordKey::Long(bytes) => self.long.get(*bytes),
        } {
            return *id;
        }
        let id = find();
        if self.len() < REMEMBERED_WORDS {
            match key {
                WordKey::Packed(packed) => self.short.insert(packed, id),
                WordKey::Long(bytes) => self.long.insert(bytes.into(), id),
            };
        }
        id
    }
}

/// What a byte is to the scan for words: the analyzer's separators are the
/// ASCII bytes that are neither letters nor digits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ByteClass {
    Separator,
    AsciiWord,
    NonAscii,
}

const BYTE_CLASS: [ByteClass; 256] = {
    let mut class = [ByteClass::NonAscii; 256];
    let mut byte = 0;
    while byte < 128 {
        class[byte] = if (byte as u8).is_ascii_alphanumeric() {
            ByteClass::AsciiWord
        } else {
            ByteClass::Separator
        };
        byte += 1;
    }
    class
};

/// By length, the bits of a packed key that a word of that length fills.
const PACKED_MASKS: [u128; PACKED_BYTES + 1] = {
    let mut masks = [0; PACKED_BYTES + 1];
    let mut len = 1;
    while len <= PACKED_BYTES {
        masks[len] = u128::MAX >> (8 * (PACKED_BYTES - len));
        len += 1;
    }
    masks
};

/// The ASCII letters and digits `bytes[start..end]`, lower-cased, as a
/// [`WordKey::Packed`]; `None` past [`PACKED_BYTES`]. Read as one integer
/// and masked (a letter or digit is lower-cased by setting its 0x20 bit),
/// not byte by byte: this is done for every word of a million records.
#[inline]
fn packed(bytes: &[u8], start: usize, end: usize) -> Option<u128> {
    let len = end - start;
    if len > PACKED_BYTES {
        return None;
    }
    let mask = PACKED_MASKS[len];
    let word = match bytes.get(start..start + PACKED_BYTES) {
        Some(window) => u128::from_le_bytes(window.try_into().ok()?),
        // Near the end of the text: the word alone, zeros after it.
        None => {
            let mut window = [0; PACKED_BYTES];
            window[..len].copy_from_slice(&bytes[start..end]);
            u128::from_le_bytes(window)
        }
    };
    Some((word | u128::from_le_bytes([0x20; PACKED_BYTES])) & mask)
}

/// Tells tables apart, so that a thread's remembered words are those of the
/// table it reads.
static TABLES: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// One analyzer per thread, and its cache of the terms of words (import
    /// workers predict for a million records).
    static ENGLISH: RefCell<TextAnalyzer> = RefCell::new(analysis::english());
    /// Each ASCII word, lower-cased, to its id in the table numbered `.0`.
    static WORD_IDS: RefCell<(u64, WordIds)> = RefCell::default();
    /// The known terms counted and the term ids of a part, kept from one
    /// text to the next.
    static SCRATCH: RefCell<(Tally, Vec<u32>)> = RefCell::default();
}

/// Counts of feature ids: a count per id, and the ids counted, so that
/// counting is a step per term and reading the counts costs a step per
/// distinct term, not a sort of every term.
#[derive(Default)]
struct Tally {
    /// By feature id; zero again once read.
    counts: Vec<u32>,
    /// The ids whose count is not zero.
    touched: Vec<u32>,
}

impl Tally {
    /// Ready for ids below `features`.
    fn prepare(&mut self, features: usize) {
        if self.counts.len() < features {
            self.counts.resize(features, 0);
        }
    }

    #[inline]
    fn add(&mut self, id: u32) {
        let count = &mut self.counts[id as usize];
        if *count == 0 {
            self.touched.push(id);
        }
        *count += 1;
    }

    /// Each id counted and its count, in the order first counted, into
    /// `out`; empties the tally. That order follows from the text as surely
    /// as the ids' would, without a sort for each of a million records (a
    /// tenth of a prediction).
    fn drain_into(&mut self, out: &mut Vec<(u32, f32)>) {
        for id in self.touched.drain(..) {
            let count = std::mem::take(&mut self.counts[id as usize]);
            out.push((id, count as f32));
        }
    }
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
    /// This table's number (see [`TABLES`]).
    serial: u64,
    /// By term id: where in `names` the names that start with the term are,
    /// or [`NO_NAME`]. Indexed, not hashed: every word of a million imported
    /// texts asks, and four bytes a term stay in the nearest cache, where a
    /// table of `NameStarts` by term did not.
    name_starts: Vec<u32>,
    /// The names that start with each term that starts one.
    names: Vec<NameStarts>,
}

/// In [`TermTable::name_starts`], a term that starts no name.
const NO_NAME: u32 = u32::MAX;

/// The names that start with one term, and the slots of their tags.
#[derive(Debug, Clone, Default)]
struct NameStarts {
    /// Names of that term alone.
    whole: Box<[usize]>,
    /// The second term of each longer name, apart from the rest of it: a
    /// text's next term is compared with these alone, and few are equal.
    seconds: Box<[u32]>,
    /// Bit `id % 64` set for each term of `seconds`: most next terms are
    /// told apart from all of them by one test (a common first term such as
    /// "tensor" starts a dozen names).
    second_bits: u64,
    /// By the place of its second term, the terms after it and the slot.
    tails: Box<[NameRest]>,
}

/// Terms of a name (after its first, or its first two), and the slot of
/// its tag.
type NameRest = (Box<[u32]>, usize);

/// What a text is made of, for the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Analyzed {
    /// (feature id, count), in the order the text first has each.
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
            serial: TABLES.fetch_add(1, Ordering::Relaxed),
            ..TermTable::default()
        };
        for (id, term) in features.into_iter().enumerate() {
            table.ids.insert(term, id as u32);
        }
        let mut names: FxHashMap<u32, Vec<NameRest>> = FxHashMap::default();
        for (slot, tag) in tags.iter().enumerate() {
            let Some(tag) = vocabulary.get(tag) else {
                continue;
            };
            for name in tag.names() {
                let spelled: Vec<u32> = terms(name).into_iter().map(|t| table.id(t)).collect();
                let Some((&first, rest)) = spelled.split_first() else {
                    continue;
                };
                let entry = names.entry(first).or_default();
                if !entry.iter().any(|(r, s)| **r == *rest && *s == slot) {
                    entry.push((rest.into(), slot));
                }
            }
        }
        table.name_starts = vec![NO_NAME; table.ids.len()];
        for (first, rests) in names {
            table.name_starts[first as usize] = table.names.len() as u32;
            let (whole, longer): (Vec<_>, Vec<_>) =
                rests.into_iter().partition(|(r, _)| r.is_empty());
            table.names.push(NameStarts {
                whole: whole.into_iter().map(|(_, slot)| slot).collect(),
                seconds: longer.iter().map(|(r, _)| r[0]).collect(),
                second_bits: longer
                    .iter()
                    .fold(0, |bits, (r, _)| bits | second_bit(r[0])),
                tails: longer
                    .into_iter()
                    .map(|(r, slot)| (r[1..].into(), slot))
                    .collect(),
            });
        }
        table
    }

    fn id(&mut self, term: String) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(term).or_insert(next)
    }

    /// The term id (or [`UNKNOWN`]) of each word of `text`, as the English
    /// analyzer splits and stems it; an ASCII word seen before costs one
    /// lookup of it lower-cased (an import predicts for a million records).
    fn push_ids(&self, text: &str, sequence: &mut Vec<u32>) {
        WORD_IDS.with_borrow_mut(|(table, memo)| {
            if *table != self.serial {
                memo.clear();
                *table = self.serial;
            }
            let bytes = text.as_bytes();
            let mut at = 0;
            while at < bytes.len() {
                if BYTE_CLASS[usize::from(bytes[at])] == ByteClass::Separator {
                    at += 1;
                    continue;
                }
                // The word's end, and whether it is ASCII.
                let start = at;
                at = analysis::skip_ascii_word(bytes, start);
                let mut ascii = true;
                while let Some(&byte) = bytes.get(at) {
                    match BYTE_CLASS[usize::from(byte)] {
                        ByteClass::Separator => break,
                        ByteClass::AsciiWord => {}
                        ByteClass::NonAscii => ascii = false,
                    }
                    at += 1;
                }
                // Both ends are at ASCII bytes (or the end): char boundaries.
                let word = &text[start..at];
                if !ascii {
                    self.push_analyzed(word, sequence);
                } else if let Some(packed) = packed(bytes, start, at) {
                    let id = memo.get_or_find(WordKey::Packed(packed), || self.id_of_word(word));
                    sequence.push(id);
                } else if word.len() < LONGEST_WORD {
                    let mut lower = [0; LONGEST_WORD];
                    let lower = &mut lower[..word.len()];
                    lower.copy_from_slice(word.as_bytes());
                    lower.make_ascii_lowercase();
                    let id = memo.get_or_find(WordKey::Long(lower), || self.id_of_word(word));
                    sequence.push(id);
                }
            }
        });
    }

    /// The ids of the terms the analyzer makes of `text`.
    fn push_analyzed(&self, text: &str, sequence: &mut Vec<u32>) {
        for term in terms(text) {
            sequence.push(self.ids.get(&term).copied().unwrap_or(UNKNOWN));
        }
    }

    fn id_of_word(&self, word: &str) -> u32 {
        let term = terms(word).into_iter().next().unwrap_or_default();
        self.ids.get(&term).copied().unwrap_or(UNKNOWN)
    }

    pub(super) fn features(&self) -> usize {
        self.features
    }

    /// The feature terms, by id.
    pub(super) fn feature_terms(&self) -> Vec<String> {
        let mut terms = vec![String::new(); self.features];
        for (term, &id) in &self.ids {
            if let Some(slot) = terms.get_mut(id as usize) {
                slot.clone_from(term);
            }
        }
        terms
    }

    /// The known terms and tag names of `parts` (a name does not run from one
    /// part into the next).
    pub(super) fn analyze<'a>(&self, parts: impl IntoIterator<Item = &'a str>) -> Analyzed {
        let mut analyzed = Analyzed::default();
        self.analyze_into(parts, &mut analyzed);
        analyzed
    }

    /// [`TermTable::analyze`] into `out`, whose buffers an import's worker
    /// reuses from one record to the next.
    pub(super) fn analyze_into<'a>(
        &self,
        parts: impl IntoIterator<Item = &'a str>,
        out: &mut Analyzed,
    ) {
        out.counts.clear();
        out.named.clear();
        SCRATCH.with_borrow_mut(|(known, sequence)| {
            known.prepare(self.features);
            for part in parts {
                sequence.clear();
                self.push_ids(part, sequence);
                self.find_known(sequence, known, &mut out.named);
            }
            known.drain_into(&mut out.counts);
        });
        out.named.sort_unstable();
        out.named.dedup();
    }

    /// The features of `sequence` (term ids) counted in `known`, and the slots of the
    /// tags it names to `named`.
    fn find_known(&self, sequence: &[u32], known: &mut Tally, named: &mut Vec<usize>) {
        for (at, &id) in sequence.iter().enumerate() {
            if (id as usize) < self.features {
                known.add(id);
            }
            // An unknown word (`UNKNOWN`) starts no name: past the end.
            let Some(&start) = self.name_starts.get(id as usize) else {
                continue;
            };
            if start == NO_NAME {
                continue;
            }
            let starts = &self.names[start as usize];
            if !starts.whole.is_empty() {
                named.extend_from_slice(&starts.whole);
            }
            let Some((&next, after)) = sequence[at + 1..].split_first() else {
                continue;
            };
            if starts.second_bits & second_bit(next) == 0 {
                continue;
            }
            for (place, &second) in starts.seconds.iter().enumerate() {
                if second != next {
                    continue;
                }
                let (rest, slot) = &starts.tails[place];
                if starts_with(after, rest) {
                    named.push(*slot);
                }
            }
        }
    }
}

/// The bit of [`NameStarts::second_bits`] that stands for term `id`.
#[inline]
fn second_bit(id: u32) -> u64 {
    1 << (id % 64)
}

/// Whether `terms` starts with `rest`, compared term by term: names are a
/// word or three, too short for a call to memcmp to pay.
#[inline]
fn starts_with(terms: &[u32], rest: &[u32]) -> bool {
    rest.len() <= terms.len() && rest.iter().zip(terms).all(|(a, b)| a == b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Tag;

    fn tag(id: &str, label: &str, aliases: &[&str]) -> Tag {
        Tag::for_test(id, label, aliases)
    }

    fn vocabulary() -> Vocabulary {
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
        assert_eq!(analyzed.counts, [(1, 1.0), (0, 2.0)]);
        assert_eq!(analyzed.named, [0], "zint caching is split, not named");
        let analyzed = table.analyze(["the ZC of zint Caching"]);
        assert_eq!(analyzed.named, [1]);
        assert!(analyzed.counts.is_empty());
    }

    #[test]
    fn words_get_the_ids_of_the_analyzers_terms() {
        let text = format!(
            "Zürich-based PIPELINES, pipelined; naïve 3-D x{} Ünïcode—dash l'état GPUs Decentralization MICROARCHITECTURES decentralizations Sixteenbytewords Seventeenbytewords gpt3XL Ab",
            "y".repeat(45)
        );
        let features: Vec<String> = terms(&text).into_iter().skip(1).step_by(2).collect();
        let table = TermTable::new(features, &vocabulary(), &[]);
        let (mut fast, mut analyzed) = (Vec::new(), Vec::new());
        // Twice: the second time from the remembered words.
        for _ in 0..2 {
            fast.clear();
            table.push_ids(&text, &mut fast);
            analyzed.clear();
            table.push_analyzed(&text, &mut analyzed);
            assert_eq!(fast, analyzed);
        }
        assert!(fast.iter().any(|&id| id != UNKNOWN));
        assert!(fast.contains(&UNKNOWN));
    }

    #[test]
    fn names_that_share_their_first_terms_are_each_found() {
        let vocabulary = Vocabulary::new(vec![
            tag("frob-glim", "Glim frob", &["glim frob rank"]),
            tag("glim", "Glim", &[]),
            tag("glim-zap", "Glim zap", &[]),
            tag("frob-rank-glim", "Glim frob ranks", &[]),
        ]);
        let tags: Vec<String> = vocabulary.tags.iter().map(|t| t.id.clone()).collect();
        let table = TermTable::new(Vec::new(), &vocabulary, &tags);
        assert_eq!(table.analyze(["a glim frob rank"]).named, [0, 1, 3]);
        assert_eq!(table.analyze(["glim zap; glim"]).named, [1, 2]);
        assert_eq!(table.analyze(["a frob", "glim"]).named, [1]);
        assert!(table.analyze(["frob zap"]).named.is_empty());
    }

    #[test]
    fn a_name_does_not_run_across_parts() {
        let tags = ["zint-caching".to_string()];
        let table = TermTable::new(Vec::new(), &vocabulary(), &tags);
        assert!(table.analyze(["a zint", "caching b"]).named.is_empty());
    }
}
