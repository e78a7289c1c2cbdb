//! A stemmer that remembers. A corpus repeats its vocabulary (Zipf), and
//! lower-casing, folding and stemming a word cost several times a hash
//! lookup, so each analyzer keeps the terms it has made, by the word as
//! written: a word seen before skips all three. The hash is fast, not
//! collision-resistant: crafted collisions could only slow the import of the
//! corpus holding them. Results are exactly those of tantivy's `LowerCaser`,
//! `AsciiFoldingFilter` and English `Stemmer`, in that order.

use rustc_hash::FxHashMap;

use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RawTokenizer, Stemmer, TextAnalyzer, Token,
    TokenFilter, TokenStream, Tokenizer,
};

/// Distinct words remembered before the cache starts over (bounds memory).
const CAPACITY: usize = 200_000;

/// Lower-cases, folds to ASCII and stems, remembering each word's term.
#[derive(Clone, Default)]
pub struct CachedStemmer;

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            inner,
            cache: FxHashMap::default(),
            stemmer: word_normalizer(),
        }
    }
}

/// tantivy's English stemmer, for one word at a time.
pub(super) fn word_stemmer() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Lower-casing, folding and stemming, for one word at a time.
fn word_normalizer() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The stem of `word` (the word itself if the stemmer gives nothing).
pub(super) fn stem(stemmer: &mut TextAnalyzer, word: &str) -> String {
    let mut stream = stemmer.token_stream(word);
    if stream.advance() {
        std::mem::take(&mut stream.token_mut().text)
    } else {
        word.to_string()
    }
}

#[derive(Clone)]
pub struct CachedStemmerFilter<T> {
    inner: T,
    cache: FxHashMap<String, String>,
    /// Normalizes one word on a cache miss.
    stemmer: TextAnalyzer,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            cache: &mut self.cache,
            stemmer: &mut self.stemmer,
        }
    }
}

pub struct CachedStemmerStream<'a, T> {
    tail: T,
    cache: &'a mut FxHashMap<String, String>,
    stemmer: &'a mut TextAnalyzer,
}

impl<T: TokenStream> TokenStream for CachedStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(stem) = self.cache.get(&token.text) {
            token.text.clear();
            token.text.push_str(stem);
            return true;
        }
        let stem = stem(self.stemmer, &token.text);
        if self.cache.len() >= CAPACITY {
            self.cache.clear();
        }
        self.cache
            .insert(std::mem::replace(&mut token.text, stem.clone()), stem);
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::SimpleTokenizer;

    fn stems(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn same_terms_as_the_plain_chain_also_when_cached() {
        let text = "Training pipelines trains the pipelined TRAINERS; Zürich's \
                    Straße, ÉCOLE and naïve trainings; training again";
        let mut plain = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(LowerCaser)
            .filter(AsciiFoldingFilter)
            .filter(Stemmer::new(Language::English))
            .build();
        let mut cached = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(CachedStemmer)
            .build();
        let expected = stems(&mut plain, text);
        assert!(expected.contains(&"zurich".to_string()), "{expected:?}");
        assert_eq!(stems(&mut cached, text), expected);
        assert_eq!(
            stems(&mut cached, text),
            expected,
            "second pass, from the cache"
        );
    }
}
