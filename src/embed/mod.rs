//! Meaning: a text as a unit vector of [`DIMS`] floats, from a static
//! table distilled from the sentence encoder all-MiniLM-L6-v2 (model2vec's
//! method; `data/embed/README.md` says how it was made and how to rebuild
//! it). A text's vector is the sum of its word pieces' rows, normalized:
//! tens of thousands of records a second, with nothing downloaded. Texts
//! that mean alike point alike even when they share no word.
//!
//! `stored` packs a vector in a byte per dimension for the index.

pub mod stored;

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use serde::Deserialize;
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::normalizers::BertNormalizer;
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::{AddedToken, Tokenizer};

use crate::model::Record;

/// Dimensions of a vector.
pub const DIMS: usize = 256;

/// The table: `DMLEMB01`, vocabulary size and dimensions (u32 each), a
/// scale per row (f32), then the rows (i8), all little-endian.
static TABLE: &[u8] = include_bytes!("../../data/embed/static-minilm.bin");
/// The encoder's WordPiece tokenizer, without truncation or padding.
static TOKENIZER: &[u8] = include_bytes!("../../data/embed/tokenizer.json");

const MAGIC: &[u8; 8] = b"DMLEMB01";

/// A unit vector (all zeros for a text without a known word piece).
pub type Vector = [f32; DIMS];

/// The table and tokenizer, read once.
pub struct Embedder {
    tokenizer: Tokenizer,
    scales: Vec<f32>,
    rows: &'static [u8],
}

/// The embedder compiled into the binary.
pub fn embedder() -> &'static Embedder {
    static EMBEDDER: OnceLock<Embedder> = OnceLock::new();
    EMBEDDER.get_or_init(|| {
        // Both files are part of the build; a malformed one is a bug the
        // first test run finds.
        Embedder::from_bytes(TABLE, TOKENIZER).expect("the embedded embedding table is valid")
    })
}

impl Embedder {
    fn from_bytes(table: &'static [u8], tokenizer: &[u8]) -> Result<Embedder, String> {
        let tokenizer = wordpiece_tokenizer(tokenizer)?;
        let header = table.get(..16).ok_or("table too short")?;
        if &header[..8] != MAGIC {
            return Err("not an embedding table".into());
        }
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().unwrap()) as usize;
        let (vocabulary, dims) = (word(8), word(12));
        if dims != DIMS || table.len() != 16 + vocabulary * 4 + vocabulary * dims {
            return Err(format!("table of {vocabulary} x {dims} has the wrong size"));
        }
        let scales = table[16..16 + vocabulary * 4]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        Ok(Embedder {
            tokenizer,
            scales,
            rows: &table[16 + vocabulary * 4..],
        })
    }

    /// The vector of `text`: its word pieces' rows summed, normalized.
    pub fn embed(&self, text: &str) -> Vector {
        self.embed_parts([text])
    }

    /// The vector of several texts read as one (a title, a note, an
    /// abstract), without joining them.
    pub fn embed_parts<'a>(&self, parts: impl IntoIterator<Item = &'a str>) -> Vector {
        let mut sum = [0.0f32; DIMS];
        self.sum_parts(parts, &mut sum, None);
        sum
    }

    /// [`Embedder::embed_parts`] into `reading`, with the pieces summed.
    pub fn read_parts<'a>(&self, parts: impl IntoIterator<Item = &'a str>, reading: &mut Reading) {
        reading.vector = [0.0; DIMS];
        reading.pieces.clear();
        reading.length = self.sum_parts(parts, &mut reading.vector, Some(&mut reading.pieces));
    }

    /// The pieces of `parts` added to `sum`, noted in `noted` when given,
    /// and `sum` normalized; returns its length before.
    fn sum_parts<'a>(
        &self,
        parts: impl IntoIterator<Item = &'a str>,
        sum: &mut Vector,
        mut noted: Option<&mut Vec<u32>>,
    ) -> f32 {
        for part in parts {
            self.add(part, sum, noted.as_deref_mut());
        }
        normalize(sum)
    }

    /// The row of word piece `id`, as it is added to a text's sum (zeros
    /// for an id the table lacks).
    pub fn piece_row(&self, id: u32) -> Vector {
        let mut row = [0.0; DIMS];
        self.add_row(id as usize, &mut row);
        row
    }

    /// The number of word pieces: every id is below it.
    pub fn pieces_known(&self) -> usize {
        self.scales.len()
    }

    fn add(&self, text: &str, sum: &mut Vector, noted: Option<&mut Vec<u32>>) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { self.add_avx2(text, sum, noted) };
        }
        self.add_portable(text, sum, noted)
    }

    /// [`Embedder::add`] compiled for AVX2, found at run time (the default
    /// target has SSE2 only, which widens each byte of a row to a float in
    /// several steps): the same multiplies and adds in the same order, so
    /// the same sums.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn add_avx2(&self, text: &str, sum: &mut Vector, noted: Option<&mut Vec<u32>>) {
        self.add_portable(text, sum, noted)
    }

    #[inline(always)]
    fn add_portable(&self, text: &str, sum: &mut Vector, mut noted: Option<&mut Vec<u32>>) {
        // Taken out of the thread's cell, not borrowed in a closure: the
        // loop then stays in this function's body, compiled as its caller.
        let mut pieces = PIECES.take();
        if pieces.len() > MAX_CACHED_WORDS {
            pieces.clear();
        }
        for word in words(text) {
            let ids = match pieces.get(word) {
                Some(ids) => ids,
                None => pieces.entry(word.into()).or_insert(self.pieces(word)),
            };
            for &id in ids.iter() {
                self.add_row(id as usize, sum);
            }
            if let Some(noted) = noted.as_deref_mut() {
                noted.extend_from_slice(ids);
            }
        }
        PIECES.set(pieces);
    }

    /// The word piece ids of `text` as the encoder's tokenizer gives them.
    fn pieces(&self, text: &str) -> Box<[u32]> {
        match self.tokenizer.encode_fast(text, false) {
            Ok(encoding) => encoding.get_ids().into(),
            Err(_) => Box::default(),
        }
    }

    #[inline(always)]
    fn add_row(&self, id: usize, sum: &mut Vector) {
        let (Some(&scale), Some(row)) = (
            self.scales.get(id),
            self.rows.get(id * DIMS..(id + 1) * DIMS),
        ) else {
            return;
        };
        // Fixed lengths, so that the loop is vectorized without bounds checks.
        let row: &[u8; DIMS] = row.try_into().expect("a row is DIMS bytes");
        for (s, &q) in sum.iter_mut().zip(row) {
            *s += scale * f32::from(q as i8);
        }
    }
}

/// Of the encoder's `tokenizer.json`, what its tokenizer is made of: BERT's
/// WordPiece with its normalizer and pre-tokenizer, whose settings are read
/// here, the vocabulary and the added tokens. (Its post-processor and
/// decoder, which add and remove the special tokens, never run: texts are
/// encoded without special tokens and never decoded.)
#[derive(Deserialize)]
struct TokenizerFile {
    /// Each with its flags as the file gives them (its id is the
    /// vocabulary's).
    added_tokens: Vec<AddedToken>,
    normalizer: NormalizerFile,
    pre_tokenizer: PreTokenizerFile,
    model: WordPieceFile,
}

#[derive(Deserialize)]
struct NormalizerFile {
    #[serde(rename = "type")]
    kind: String,
    clean_text: bool,
    handle_chinese_chars: bool,
    strip_accents: Option<bool>,
    lowercase: bool,
}

#[derive(Deserialize)]
struct PreTokenizerFile {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct WordPieceFile {
    #[serde(rename = "type")]
    kind: String,
    unk_token: String,
    continuing_subword_prefix: String,
    max_input_chars_per_word: usize,
    #[serde(deserialize_with = "presized")]
    vocab: ahash::AHashMap<String, u32>,
}

/// A vocabulary read into a map with room for BERT's 30,522 pieces from
/// the start: one grown from nothing, rehashed a dozen times, made the
/// tokenizer's start 7.3 ms instead of 6.1.
fn presized<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<ahash::AHashMap<String, u32>, D::Error> {
    struct Pieces;
    impl<'de> serde::de::Visitor<'de> for Pieces {
        type Value = ahash::AHashMap<String, u32>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of word pieces to ids")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let room = map.size_hint().unwrap_or(1 << 15);
            let mut pieces = ahash::AHashMap::with_capacity(room);
            while let Some((piece, id)) = map.next_entry()? {
                pieces.insert(piece, id);
            }
            Ok(pieces)
        }
    }
    deserializer.deserialize_map(Pieces)
}

/// The tokenizer of `file` (a `tokenizer.json` of BERT's kind), built from
/// its parts: the `tokenizers` crate's own reading of the whole file goes
/// through a generic tree of values, and took 17 to 21 ms against 6 in
/// every process that embeds a text (a cold `search --mode hybrid` on the
/// catalog took 29 ms with it, 17 without).
fn wordpiece_tokenizer(file: &[u8]) -> Result<Tokenizer, String> {
    let file: TokenizerFile = serde_json::from_slice(file).map_err(|e| e.to_string())?;
    let kinds = (
        &*file.normalizer.kind,
        &*file.pre_tokenizer.kind,
        &*file.model.kind,
    );
    if kinds != ("BertNormalizer", "BertPreTokenizer", "WordPiece") {
        return Err(format!("a tokenizer of another kind: {kinds:?}"));
    }
    let model = WordPiece::builder()
        .vocab(file.model.vocab)
        .unk_token(file.model.unk_token)
        .continuing_subword_prefix(file.model.continuing_subword_prefix)
        .max_input_chars_per_word(file.model.max_input_chars_per_word)
        .build()
        .map_err(|e| e.to_string())?;
    let n = file.normalizer;
    let normalizer = BertNormalizer::new(
        n.clean_text,
        n.handle_chinese_chars,
        n.strip_accents,
        n.lowercase,
    );
    let mut tokenizer = Tokenizer::new(model);
    (tokenizer.with_normalizer(Some(normalizer))).map_err(|e| e.to_string())?;
    tokenizer.with_pre_tokenizer(Some(BertPreTokenizer));
    (tokenizer.add_tokens(file.added_tokens)).map_err(|e| e.to_string())?;
    Ok(tokenizer)
}

/// Words remembered with their pieces, per thread, before starting afresh:
/// a million-record import meets a few hundred thousand distinct words.
const MAX_CACHED_WORDS: usize = 1 << 18;

thread_local! {
    /// Each word met and its word pieces: the tokenizer, which tracks every
    /// character's offset, took most of a record's time (190 us a record
    /// of 700 bytes; a cached word is a hash lookup).
    static PIECES: std::cell::RefCell<FxHashMap<Box<str>, Box<[u32]>>> =
        std::cell::RefCell::default();
}

/// `text` split at ASCII spaces and around ASCII punctuation, each mark a
/// word of its own. The encoder's tokenizer splits there too (and its
/// normalization is per character), so tokenizing each word alone gives
/// the pieces of the whole text; it splits any other character itself.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        if start == bytes.len() {
            return None;
        }
        if bytes[at].is_ascii_punctuation() {
            at += 1;
        } else {
            while at < bytes.len()
                && !bytes[at].is_ascii_whitespace()
                && !bytes[at].is_ascii_punctuation()
            {
                at += 1;
            }
        }
        // Splits fall on ASCII bytes, which are whole characters.
        Some(&text[start..at])
    })
}

/// The bytes of an abstract a record's vector reads, cut after a word: its
/// first sentences say what it is about, and each byte more is time in a
/// million-record import.
pub const ABSTRACT_BYTES: usize = 150;

/// What a record means: its title, note and the start of its abstract.
pub fn record_vector(record: &Record) -> Vector {
    meaning_of(&record.title, &record.note, record.abstract_text.as_deref())
}

/// What a title, note and abstract mean together: [`record_vector`]'s
/// reading, which the index repeats from a document's stored texts.
pub fn meaning_of(title: &str, note: &str, abstract_text: Option<&str>) -> Vector {
    embedder().embed_parts(record_parts(title, note, abstract_text))
}

/// [`record_vector`] into `reading`, with the word pieces it summed.
pub fn read_record(record: &Record, reading: &mut Reading) {
    let parts = record_parts(&record.title, &record.note, record.abstract_text.as_deref());
    embedder().read_parts(parts, reading);
}

fn record_parts<'a>(
    title: &'a str,
    note: &'a str,
    abstract_text: Option<&'a str>,
) -> impl Iterator<Item = &'a str> {
    let start = abstract_text.map(|text| cut_after_word(text, ABSTRACT_BYTES));
    [title, note].into_iter().chain(start)
}

/// A text's vector and what it was summed from: for a linear reader of the
/// vector (the tag predictor) that sums each piece's reading of its own,
/// made once, instead of reading the vector's [`DIMS`] floats.
#[derive(Debug, Clone)]
pub struct Reading {
    pub vector: Vector,
    /// The word pieces summed, each as often as the text has it.
    pub pieces: Vec<u32>,
    /// The sum's length, which normalizing divided by (0: no known piece).
    pub length: f32,
}

impl Default for Reading {
    fn default() -> Reading {
        Reading {
            vector: [0.0; DIMS],
            pieces: Vec::new(),
            length: 0.0,
        }
    }
}

/// At most the first `bytes` of `text`, cut after a word.
pub fn cut_after_word(text: &str, bytes: usize) -> &str {
    if text.len() <= bytes {
        return text;
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind(char::is_whitespace) {
        Some(space) => &text[..space],
        None => &text[..end],
    }
}

/// `v` scaled to unit length (left as is when all zeros); its length was.
pub fn normalize(v: &mut [f32]) -> f32 {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    norm
}

/// The dot product: the cosine of two unit vectors.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: &str, b: &str) -> f32 {
        let e = embedder();
        dot(&e.embed(a), &e.embed(b))
    }

    #[test]
    fn texts_that_mean_alike_are_closer_than_texts_that_do_not() {
        let near = cosine(
            "pipeline parallelism for training large models",
            "splitting a network's layers into stages across accelerators",
        );
        let far = cosine(
            "pipeline parallelism for training large models",
            "a recipe for chocolate cake with strawberries",
        );
        assert!(near > far + 0.1, "near {near}, far {far}");
    }

    #[test]
    fn a_vector_is_unit_length_and_an_empty_text_is_zero() {
        let v = embedder().embed("Mixture of experts");
        assert!((dot(&v, &v) - 1.0).abs() < 1e-4);
        assert!(embedder().embed("").iter().all(|&x| x == 0.0));
    }

    /// Vectors stored by one processor are compared with queries embedded
    /// on another: the AVX2 loop must sum exactly as the portable one.
    #[test]
    fn every_processor_embeds_the_same_bits() {
        let e = embedder();
        let stream = include_str!("../../tests/fixtures/stream/records.jsonl");
        for text in stream.lines().take(40) {
            let (mut dispatched, mut portable) = ([0.0f32; DIMS], [0.0f32; DIMS]);
            e.add(text, &mut dispatched, None);
            e.add_portable(text, &mut portable, None);
            assert_eq!(dispatched, portable, "{text}");
        }
    }

    /// The word-by-word tokenizing gives the tokenizer's own pieces.
    #[test]
    fn words_are_pieced_as_the_whole_text_is() {
        let e = embedder();
        let stream = include_str!("../../tests/fixtures/stream/records.jsonl");
        let texts = stream.lines().take(40).map(String::from).chain([
            "Zürich's «naïve» über-fast ALL-REDUCE (v2.1) — 数据并行 ﬁne\ttabs\u{7}bell"
                .to_string(),
        ]);
        for text in texts {
            let by_word: Vec<u32> = words(&text).flat_map(|w| e.pieces(w).into_vec()).collect();
            assert_eq!(by_word, e.pieces(&text).into_vec(), "{text}");
        }
    }

    /// The tokenizer built from the file's parts gives every text the ids
    /// the `tokenizers` crate's own reading of the whole file gives it.
    #[test]
    fn the_tokenizer_built_from_its_parts_is_the_files_own() {
        let own = Tokenizer::from_bytes(TOKENIZER).unwrap();
        let built = wordpiece_tokenizer(TOKENIZER).unwrap();
        let texts = [
            include_str!("../../tests/fixtures/stream/records.jsonl"),
            include_str!("../../catalog/memory-efficient-training.toml"),
            include_str!("../../catalog/inference-and-serving.toml"),
            "Zürich's «naïve» über-fast ALL-REDUCE (v2.1) — 数据并行 ﬁne\ttabs\u{7}bell\u{0}",
            "[MASK] and [UNK] [CLS]x[SEP] [PAD]: literal special tokens",
            &"pneumonoultramicroscopicsilicovolcanoconiosis".repeat(3),
        ];
        let ids = |tokenizer: &Tokenizer, text: &str| -> Vec<u32> {
            tokenizer
                .encode_fast(text, false)
                .unwrap()
                .get_ids()
                .to_vec()
        };
        for text in texts.iter().flat_map(|t| t.lines()) {
            assert_eq!(ids(&built, text), ids(&own, text), "{text}");
        }
    }

    #[test]
    fn a_tokenizer_file_of_another_kind_is_refused() {
        let file = std::str::from_utf8(TOKENIZER).unwrap();
        let other = file.replacen("\"BertPreTokenizer\"", "\"Whitespace\"", 1);
        let error = wordpiece_tokenizer(other.as_bytes()).err().unwrap();
        assert!(error.contains("Whitespace"), "{error}");
        assert!(wordpiece_tokenizer(b"{}").is_err());
    }

    /// A reading's vector is the embedding's to the bit, its pieces the
    /// tokenizer's, and its length what normalizing divided by.
    #[test]
    fn a_reading_is_the_vector_its_pieces_and_their_sums_length() {
        let e = embedder();
        let parts = ["Ring attention", "for long sequences", "ZeRO-3 offload"];
        let mut reading = Reading::default();
        e.read_parts(parts, &mut reading);
        assert_eq!(reading.vector, e.embed_parts(parts));
        let pieces: Vec<u32> = (parts.iter())
            .flat_map(|p| words(p).flat_map(|w| e.pieces(w).into_vec()))
            .collect();
        assert_eq!(reading.pieces, pieces);
        let mut sum = [0.0f32; DIMS];
        pieces.iter().for_each(|&id| {
            let row = e.piece_row(id);
            sum.iter_mut().zip(row).for_each(|(s, r)| *s += r);
        });
        let length = dot(&sum, &sum).sqrt();
        assert!((reading.length - length).abs() < 1e-4 * length);
        e.read_parts([""], &mut reading);
        assert_eq!((reading.length, reading.pieces.len()), (0.0, 0));
    }

    #[test]
    fn parts_read_as_one_text() {
        let e = embedder();
        let parts = e.embed_parts(["Ring attention", "for long sequences"]);
        let whole = e.embed("Ring attention for long sequences");
        assert!(dot(&parts, &whole) > 0.999);
    }
}
