//! The tokenizer of every text field, and the busiest code of an import:
//! each word of a million abstracts passes here. It gives exactly the tokens
//! of tantivy's `SimpleTokenizer`, `RemoveLongFilter` (40 bytes),
//! `LowerCaser`, `AsciiFoldingFilter` and, for prose, English `Stemmer`, in
//! that order, but in one pass: words are found byte by byte where they are
//! ASCII, and a corpus repeats its vocabulary (Zipf), so the term made of
//! each word, as written, is remembered. A word seen before costs a hash
//! lookup, not five filters. (An ASCII name is only lower-cased: names are
//! too many to remember, and that is cheaper than a lookup.)

use super::word_cache::WordCache;

use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RawTokenizer, Stemmer, TextAnalyzer, Token,
    TokenStream, Tokenizer,
};

/// Words of this many bytes or more are left out, as `RemoveLongFilter` does.
pub const LONGEST_WORD: usize = 40;

#[derive(Clone)]
pub struct CachedTokenizer {
    token: Token,
    cache: WordCache,
    /// Makes the term of one word on a cache miss.
    normalizer: TextAnalyzer,
    /// Without stemming, an ASCII word's term is the word lower-cased:
    /// cheaper than a lookup, and names are too many to remember.
    stems: bool,
}

impl CachedTokenizer {
    /// Prose: lower-cased, folded to ASCII and stemmed.
    pub fn english() -> CachedTokenizer {
        CachedTokenizer::with(
            TextAnalyzer::builder(RawTokenizer::default())
                .filter(LowerCaser)
                .filter(AsciiFoldingFilter)
                .filter(Stemmer::new(Language::English))
                .build(),
            true,
        )
    }

    /// Names: lower-cased and folded to ASCII.
    pub fn names() -> CachedTokenizer {
        CachedTokenizer::with(
            TextAnalyzer::builder(RawTokenizer::default())
                .filter(LowerCaser)
                .filter(AsciiFoldingFilter)
                .build(),
            false,
        )
    }

    fn with(normalizer: TextAnalyzer, stems: bool) -> CachedTokenizer {
        CachedTokenizer {
            token: Token::default(),
            cache: WordCache::default(),
            normalizer,
            stems,
        }
    }
}

/// The term `analyzer` makes of one `word` (the word itself if none).
pub(super) fn stem(analyzer: &mut TextAnalyzer, word: &str) -> String {
    let mut stream = analyzer.token_stream(word);
    if stream.advance() {
        std::mem::take(&mut stream.token_mut().text)
    } else {
        word.to_string()
    }
}

impl Tokenizer for CachedTokenizer {
    type TokenStream<'a> = CachedStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CachedStream<'a> {
        self.token.reset();
        CachedStream {
            text,
            next: 0,
            tokenizer: self,
        }
    }
}

pub struct CachedStream<'a> {
    text: &'a str,
    /// Where the search for the next word starts.
    next: usize,
    tokenizer: &'a mut CachedTokenizer,
}

/// How a byte classes a character: ASCII letters and digits are words,
/// other ASCII is not, and a byte beyond ASCII needs its whole character.
const fn byte_classes() -> [u8; 256] {
    let mut classes = [NOT_A_WORD; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        classes[byte] = if !b.is_ascii() {
            NOT_ASCII
        } else if b.is_ascii_alphanumeric() {
            WORD
        } else {
            NOT_A_WORD
        };
        byte += 1;
    }
    classes
}

const NOT_A_WORD: u8 = 0;
const WORD: u8 = 1;
const NOT_ASCII: u8 = 2;
static BYTE_CLASSES: [u8; 256] = byte_classes();

/// The first byte at or after `from` where a character starts whose
/// `is_alphanumeric` is `WANTED`, or the end of `text`.
#[inline(always)]
fn find<const WANTED: bool>(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(&byte) = bytes.get(at) {
        match BYTE_CLASSES[usize::from(byte)] {
            NOT_ASCII => {
                // `at` is a character boundary: it only moves by whole characters.
                let c = text[at..].chars().next().unwrap_or_default();
                if c.is_alphanumeric() == WANTED {
                    return at;
                }
                at += c.len_utf8();
            }
            class => {
                if (class == WORD) == WANTED {
                    return at;
                }
                at += 1;
            }
        }
    }
    bytes.len()
}

/// `byte` in every byte of a word.
const fn bytes_of(byte: u8) -> u64 {
    u64::from_ne_bytes([byte; 8])
}

/// The high bit of each byte of `chunk` (little-endian) that is an ASCII
/// letter or digit. Bytes are compared as 7-bit numbers, whose sums with
/// the offsets below never carry into the next byte; a letter is found
/// lower-cased (setting 0x20 maps only `A-Z` onto `a-z`).
#[inline(always)]
fn ascii_word_bytes(chunk: u64) -> u64 {
    const HIGH: u64 = bytes_of(0x80);
    let low = chunk & bytes_of(0x7f);
    // The high bit set where the byte is at least `lo`, or more than `hi`.
    let at_least = |x: u64, lo: u8| x + bytes_of(0x80 - lo);
    let above = |x: u64, hi: u8| x + bytes_of(0x7f - hi);
    let digit = at_least(low, b'0') & !above(low, b'9');
    let folded = low | bytes_of(0x20);
    let letter = at_least(folded, b'a') & !above(folded, b'z');
    (digit | letter) & !chunk & HIGH
}

/// The end of the ASCII letters and digits that start at `from`, eight
/// bytes at a time (most words are longer than a byte or two); the byte
/// scan goes on from there.
#[inline(always)]
pub fn skip_ascii_word(bytes: &[u8], mut from: usize) -> usize {
    while let Some(chunk) = bytes.get(from..from + 8) {
        let chunk = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let other = !ascii_word_bytes(chunk) & bytes_of(0x80);
        if other != 0 {
            return from + (other.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    from
}

impl TokenStream for CachedStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            let start = find::<true>(self.text, self.next);
            if start == self.text.len() {
                return false;
            }
            let ascii_end = skip_ascii_word(self.text.as_bytes(), start);
            let end = find::<false>(self.text, ascii_end);
            self.next = end;
            let tokenizer = &mut *self.tokenizer;
            // Every word takes a position, even one left out for its length.
            tokenizer.token.position = tokenizer.token.position.wrapping_add(1);
            if end - start >= LONGEST_WORD {
                continue;
            }
            let word = &self.text[start..end];
            let token = &mut tokenizer.token;
            token.offset_from = start;
            token.offset_to = end;
            token.text.clear();
            if !tokenizer.stems && word.is_ascii() {
                token.text.push_str(word);
                token.text.make_ascii_lowercase();
                return true;
            }
            match tokenizer.cache.get(word) {
                Some(term) => token.text.push_str(term),
                None => {
                    let term = stem(&mut tokenizer.normalizer, word);
                    token.text.push_str(&term);
                    tokenizer.cache.insert(word, &term);
                }
            }
            return true;
        }
    }

    fn token(&self) -> &Token {
        &self.tokenizer.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokenizer.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use tantivy::tokenizer::{RemoveLongFilter, SimpleTokenizer};

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut out = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let t = stream.token();
            out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
        }
        out
    }

    /// tantivy's filters, for prose or for names.
    fn chains() -> [(TextAnalyzer, TextAnalyzer); 2] {
        let names = || {
            TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(RemoveLongFilter::limit(LONGEST_WORD))
                .filter(LowerCaser)
                .filter(AsciiFoldingFilter)
                .dynamic()
        };
        [
            (
                TextAnalyzer::from(CachedTokenizer::english()),
                names()
                    .filter_dynamic(Stemmer::new(Language::English))
                    .build(),
            ),
            (
                TextAnalyzer::from(CachedTokenizer::names()),
                names().build(),
            ),
        ]
    }

    #[test]
    fn the_same_tokens_as_tantivys_chain_also_when_cached() {
        let long = "x".repeat(LONGEST_WORD);
        let text = format!(
            "Training pipelines trains the pipelined TRAINERS; Zürich's Straße, \
             ÉCOLE and naïve trainings: {long} {} 3-D ZeRO-Offload İstanbul \
             日本語 e\u{301}t\u{e9} ½ x² — training again",
            &long[1..]
        );
        for (mut cached, mut chain) in chains() {
            let expected = tokens(&mut chain, &text);
            assert!(expected.iter().any(|t| t.0 == "zurich"), "{expected:?}");
            assert_eq!(tokens(&mut cached, &text), expected);
            assert_eq!(tokens(&mut cached, &text), expected, "from the cache");
            assert!(tokens(&mut cached, "").is_empty());
            assert!(tokens(&mut cached, " ,; ").is_empty());
        }
    }

    #[test]
    fn the_same_tokens_as_tantivys_chain_on_random_text() {
        // The bytes on either side of each range of letters and digits
        // ('/', ':', '@', '[', '`', '{') and DEL, for the 8-byte scan.
        let alphabet: Vec<char> = "aAzZ09mM /:@[`{\u{7f}\u{1},.-_'\n\tßÉéİı日½²\u{301}\u{200b}🙂ǅ"
            .chars()
            .collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for (mut cached, mut chain) in chains() {
            for _ in 0..3000 {
                let len = rng.random_range(0..60);
                // Runs of one character make words longer than eight bytes.
                let mut text = String::new();
                for _ in 0..len {
                    let c = alphabet[rng.random_range(0..alphabet.len())];
                    text.extend(std::iter::repeat_n(c, rng.random_range(1..6)));
                }
                assert_eq!(
                    tokens(&mut cached, &text),
                    tokens(&mut chain, &text),
                    "{text:?}"
                );
            }
        }
    }
}
