//! A stemmer for highlighting: it stems only the words whose first letter
//! starts one of the query's terms. English stemming keeps a word's first
//! letter, so no other word can match, and a snippet no longer stems every
//! word of ten abstracts (most of a warm query's time).

use tantivy::tokenizer::{
    Language, RawTokenizer, Stemmer, TextAnalyzer, Token, TokenFilter, TokenStream, Tokenizer,
};

use super::cached_tokenizer::stem;

/// tantivy's English stemmer, for one word at a time.
fn word_stemmer() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(Stemmer::new(Language::English))
        .build()
}

#[derive(Clone)]
pub struct SelectiveStemmer {
    initials: Vec<char>,
}

impl SelectiveStemmer {
    /// Stems words starting with the first letter of any of `terms`.
    pub fn for_terms<'a>(terms: impl IntoIterator<Item = &'a str>) -> SelectiveStemmer {
        let mut initials: Vec<char> = terms.into_iter().filter_map(|t| t.chars().next()).collect();
        initials.sort_unstable();
        initials.dedup();
        SelectiveStemmer { initials }
    }
}

impl TokenFilter for SelectiveStemmer {
    type Tokenizer<T: Tokenizer> = SelectiveStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> SelectiveStemmerFilter<T> {
        SelectiveStemmerFilter {
            inner,
            initials: self.initials,
            stemmer: word_stemmer(),
        }
    }
}

#[derive(Clone)]
pub struct SelectiveStemmerFilter<T> {
    inner: T,
    initials: Vec<char>,
    stemmer: TextAnalyzer,
}

impl<T: Tokenizer> Tokenizer for SelectiveStemmerFilter<T> {
    type TokenStream<'a> = SelectiveStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        SelectiveStemmerStream {
            tail: self.inner.token_stream(text),
            initials: &self.initials,
            stemmer: &mut self.stemmer,
        }
    }
}

pub struct SelectiveStemmerStream<'a, T> {
    tail: T,
    initials: &'a [char],
    stemmer: &'a mut TextAnalyzer,
}

impl<T: TokenStream> TokenStream for SelectiveStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        let wanted = token
            .text
            .chars()
            .next()
            .is_some_and(|c| self.initials.binary_search(&c).is_ok());
        if wanted {
            token.text = stem(self.stemmer, &token.text);
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}
