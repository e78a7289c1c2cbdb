//! Analyzers: how text becomes terms, for documents, queries and the tag
//! predictor alike (a floor below `index/`, `search/` and `predict/`).
//!
//! Prose is lower-cased, folded to ASCII and stemmed; names are only lower-cased and folded. Technical spellings that
//! differ by a hyphen or a space ("all-reduce", "all reduce", "allreduce";
//! "3-D", "3D") meet in the `joined` field, which holds each adjacent pair of
//! words written together.

mod cached_tokenizer;
mod selective_stemmer;
mod word_cache;

use tantivy::Index;

use cached_tokenizer::CachedTokenizer;
pub use cached_tokenizer::{LONGEST_WORD, skip_ascii_word};
use selective_stemmer::SelectiveStemmer;
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, StopWordFilter,
    TextAnalyzer,
};

pub const ENGLISH: &str = "distml_english";
pub const NAMES: &str = "distml_names";

/// No stop-word filter: in this field "all-to-all" and "one-forward-one-
/// backward" are made of stop words, and BM25 already discounts common words.
pub fn english() -> TextAnalyzer {
    TextAnalyzer::from(CachedTokenizer::english())
}

/// [`english`] for highlighting `terms` (already analyzed): the same terms
/// wherever they can match, and cheaper.
pub fn english_for_highlighting<'a>(terms: impl IntoIterator<Item = &'a str>) -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(LONGEST_WORD))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(SelectiveStemmer::for_terms(terms))
        .build()
}

pub fn names() -> TextAnalyzer {
    TextAnalyzer::from(CachedTokenizer::names())
}

/// Names without English stop words: tells a query of only "the of and".
pub fn names_without_stop_words() -> TextAnalyzer {
    let builder = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .dynamic();
    match StopWordFilter::new(Language::English) {
        Some(stop) => builder.filter_dynamic(stop).build(),
        None => builder.build(),
    }
}

/// Registers the analyzers on an index (needed after every open).
pub fn register(index: &Index) {
    index.tokenizers().register(ENGLISH, english());
    index.tokenizers().register(NAMES, names());
}

/// The terms `analyzer` makes of `text`, with their positions.
pub fn terms_with_positions(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while let Some(token) = stream.next() {
        out.push((token.position, token.text.clone()));
    }
    out
}

pub fn terms(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    terms_with_positions(analyzer, text)
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

/// Each run of two and three adjacent words written together: "ZeRO-Offload
/// for all-to-all" gives "zerooffload offloadfor forall allto toall
/// zerooffloadfor offloadforall forallto alltoall".
pub fn joined_pairs(text: &str) -> String {
    let words = NAMES_ANALYZER.with_borrow_mut(|names| terms(names, text));
    joined_runs(&words)
}

/// Binds words into one ("all-to-all").
const BINDERS: [char; 4] = ['-', '/', '\u{2010}', '\u{2011}'];

thread_local! {
    /// For the joined runs of each document: one analyzer, and its cache.
    static NAMES_ANALYZER: std::cell::RefCell<TextAnalyzer> = std::cell::RefCell::new(names());
}

/// Like [`joined_pairs`], but only within words that a hyphen or slash binds
/// ("all-to-all", "ZeRO-Offload", "3-D"). Most adjacent pairs of a text make
/// terms that no other document has, and those are the costliest to index;
/// for an imported corpus only these spelling variants are worth it.
pub fn joined_hyphenated(text: &str) -> String {
    if !text.contains(BINDERS) {
        return String::new();
    }
    NAMES_ANALYZER.with_borrow_mut(|names| hyphenated_runs(names, text))
}

fn hyphenated_runs(names: &mut TextAnalyzer, text: &str) -> String {
    let mut stream = names.token_stream(text);
    let mut out = String::new();
    let mut run: Vec<String> = Vec::new();
    let mut last_end = 0;
    let flush = |run: &mut Vec<String>, out: &mut String| {
        if run.len() > 1 {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&joined_runs(run));
        }
        run.clear();
    };
    while let Some(token) = stream.next() {
        let gap = text.get(last_end..token.offset_from).unwrap_or(" ");
        let bound = !gap.is_empty()
            && gap.chars().count() == 1
            && gap.chars().all(|c| BINDERS.contains(&c));
        if !bound {
            flush(&mut run, &mut out);
        }
        run.push(token.text.clone());
        last_end = token.offset_to;
    }
    flush(&mut run, &mut out);
    out
}

fn joined_runs(words: &[String]) -> String {
    let pairs = words.windows(2).map(|w| w.concat());
    let triples = words.windows(3).map(|w| w.concat());
    pairs.chain(triples).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_meet_in_joined_runs() {
        assert_eq!(joined_pairs("all-reduce"), "allreduce");
        assert_eq!(joined_pairs("All Reduce"), "allreduce");
        assert_eq!(joined_pairs("all-to-all"), "allto toall alltoall");
        assert_eq!(
            joined_pairs("3-D parallelism"),
            "3d dparallelism 3dparallelism"
        );
    }

    #[test]
    fn only_hyphens_and_slashes_bind_words_of_imported_text() {
        assert_eq!(
            joined_hyphenated("ZeRO-Offload for all-to-all on TCP/IP, not all reduce"),
            "zerooffload allto toall alltoall tcpip"
        );
        assert_eq!(joined_hyphenated("3\u{2011}D - parallelism"), "3d");
        assert_eq!(joined_hyphenated("no pairs at all"), "");
    }

    #[test]
    fn highlighting_finds_the_terms_that_full_stemming_finds() {
        let text = "Dying, lying and tying skies: the skis of Yesterday's yearly \
                    generally early only ugly gently idly news; training pipelined trainers.";
        let all = terms_with_positions(&mut english(), text);
        let stems: Vec<&str> = all.iter().map(|(_, t)| t.as_str()).collect();
        let highlighted = terms_with_positions(&mut english_for_highlighting(stems.clone()), text);
        assert_eq!(highlighted, all);
        let only_training = terms_with_positions(&mut english_for_highlighting(["train"]), text);
        let matches =
            |found: &[(usize, String)]| found.iter().filter(|(_, t)| t == "train").count();
        assert_eq!(matches(&only_training), matches(&all));
        assert!(
            only_training.iter().any(|(_, t)| t == "dying"),
            "left unstemmed"
        );
    }

    #[test]
    fn english_stems_and_keeps_short_words() {
        assert_eq!(
            terms(&mut english(), "Training of the Pipelines"),
            ["train", "of", "the", "pipelin"]
        );
        assert_eq!(
            terms(&mut names(), "Zürich Narayanan"),
            ["zurich", "narayanan"]
        );
    }
}
