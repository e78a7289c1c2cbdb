//! Predicted tags: for a record without curated tags (imported, harvested,
//! an uncurated catalog entry), the tags of the vocabulary that a model
//! learned from the curated catalog gives it, each with a confidence.
//!
//! The training data are the curated entries: title, note and cached
//! abstract in, primary `tags` out (`uses`, what a work uses without being
//! about it, are left out: predictions say what a record is about). The
//! features are TF-IDF over the project's stemmed English terms (`text`)
//! and, per tag, whether the text spells out one of its names; the model is
//! one logistic regression per tag (`learn`). Predicting is a sparse sum
//! over a text's known terms: cheap enough for a million-record import.
//! `evaluate` measures it by leave-one-out (`bench/tags.sh`); `saved` keeps
//! a trained model for the next import.
//!
//! Nothing here touches the index or the network.

pub mod evaluate;
mod learn;
mod saved;
mod text;

pub use saved::FILE_NAME as SAVED_MODEL_FILE;

use learn::Model;

pub use crate::embed::cut_after_word;

use crate::catalog::Catalog;
use crate::model::metadata::Cache;
use crate::model::{PredictedTag, Record};

/// A tag is predicted when its probability reaches this. One threshold for
/// every tag (most have a handful of examples, too few to tune one each),
/// chosen by the leave-one-out of `bench/tags.sh` on the shipped catalog.
pub const THRESHOLD: f32 = 0.07;
/// Most tags predicted for one record: as many as a curated entry may have.
pub const MAX_PREDICTED: usize = 8;

/// The model reads this much of an abstract, cut after a word, in training
/// and prediction alike. It learned from notes of a sentence or two (under
/// 230 bytes in the shipped catalog), and an abstract's first sentences say
/// what it is about; reading whole abstracts doubled the time of a
/// million-record import. On blind tags of records with abstracts, 100 to
/// 300 bytes score the same F1 within a tag or two, so the bound is the
/// cheap end of that range: 150 bytes, 3% of a 1M import less than 300
/// (README, "Predicted tags").
pub const ABSTRACT_BYTES: usize = 150;

/// The vocabulary's tag ids, in its order: a model's slots.
fn tag_ids(catalog: &Catalog) -> Vec<String> {
    (catalog.vocabulary.tags.iter())
        .map(|t| t.id.clone())
        .collect()
}

fn abstract_start(text: &str) -> &str {
    cut_after_word(text, ABSTRACT_BYTES)
}

/// How tags are predicted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The tags whose names the text spells out (the baseline).
    Vocabulary,
    /// A regression per tag over TF-IDF of the words.
    Words,
    /// The regression over the words and the tag's name found, also
    /// trained on the vocabulary's descriptions of the tags (the default).
    Combined,
}

impl Method {
    pub const ALL: [Method; 3] = [Method::Vocabulary, Method::Words, Method::Combined];

    pub fn as_str(self) -> &'static str {
        match self {
            Method::Vocabulary => "vocabulary",
            Method::Words => "tf-idf + logistic",
            Method::Combined => "combined",
        }
    }

    fn features(self) -> Features {
        Features {
            words: self != Method::Vocabulary,
            names: self == Method::Combined,
        }
    }
}

/// Which features the regressions read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Features {
    words: bool,
    names: bool,
}

/// One training text: its parts (title, note, abstract) and its tags.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    pub id: String,
    pub parts: Vec<String>,
    pub tags: Vec<String>,
}

/// The curated entries of `catalog` (those with tags), with the abstracts
/// the cache holds.
pub fn examples(catalog: &Catalog, cache: &Cache) -> Vec<Example> {
    catalog
        .entries
        .iter()
        .filter(|e| !e.tags.is_empty())
        .map(|entry| {
            let record = Record::from_entry(entry, cache.get(&entry.id));
            Example {
                id: record.id.clone(),
                parts: text_parts(&record).map(str::to_string).collect(),
                tags: record.tags,
            }
        })
        .collect()
}

/// What the model reads of a record: its title, note and the start of its
/// abstract (see [`ABSTRACT_BYTES`]).
fn text_parts(record: &Record) -> impl Iterator<Item = &str> {
    [
        Some(record.title.as_str()),
        Some(record.note.as_str()),
        record.abstract_text.as_deref().map(abstract_start),
    ]
    .into_iter()
    .flatten()
    .filter(|p| !p.is_empty())
}

/// What predicting for one record needs besides the model; its buffers
/// serve the next record (an import predicts for a million).
#[derive(Default)]
struct Scratch {
    analyzed: text::Analyzed,
    /// Each tag's log-odds.
    scores: Vec<f32>,
    /// (slot, probability) of the tags above the threshold.
    confident: Vec<(usize, f32)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// A trained model and the tags it predicts.
#[derive(Debug, Clone)]
pub struct Predictor {
    /// The vocabulary's tag ids: the model's slots.
    tags: Vec<String>,
    model: Model,
    method: Method,
    threshold: f32,
}

impl Predictor {
    /// Learns from the curated entries of `catalog` (about a second for the
    /// shipped catalog, in a debug build; see `bench/tags.sh`).
    pub fn train(catalog: &Catalog, cache: &Cache) -> Predictor {
        Predictor::learn_all(&examples(catalog, cache), catalog)
    }

    /// The shipped predictor, learned from every one of `examples`.
    fn learn_all(examples: &[Example], catalog: &Catalog) -> Predictor {
        let all: Vec<&Example> = examples.iter().collect();
        Predictor::learn(&all, catalog, Method::Combined, THRESHOLD)
    }

    fn learn(examples: &[&Example], catalog: &Catalog, method: Method, threshold: f32) -> Self {
        let tags = tag_ids(catalog);
        let model = Model::train(examples, &catalog.vocabulary, &tags, method.features());
        Predictor {
            tags,
            model,
            method,
            threshold,
        }
    }

    /// The probability of every tag (by slot) for a text of `parts`; `None`
    /// for a tag the model cannot predict.
    fn probabilities<'a>(&self, parts: impl IntoIterator<Item = &'a str>) -> Vec<Option<f32>> {
        let analyzed = self.model.table.analyze(parts);
        match self.method {
            Method::Vocabulary => {
                let mut found = vec![None; self.tags.len()];
                for &slot in &analyzed.named {
                    found[slot] = Some(1.0);
                }
                found
            }
            Method::Words | Method::Combined => self.model.probabilities(&analyzed),
        }
    }

    /// The tags predicted for `record`, most confident first (ties by id);
    /// none for a record with curated tags.
    pub fn predict(&self, record: &Record) -> Vec<PredictedTag> {
        let mut predicted = Vec::new();
        self.predict_each(record, |tag, confidence| {
            predicted.push(PredictedTag {
                tag: tag.to_string(),
                confidence,
            });
        });
        predicted
    }

    /// [`Predictor::predict`] handed to `each` tag by tag, without a vector
    /// or a string made for each of an import's million records.
    pub fn predict_each(&self, record: &Record, mut each: impl FnMut(&str, f32)) {
        if !record.tags.is_empty() {
            return;
        }
        if self.method == Method::Vocabulary {
            // The baseline, which only the evaluation runs.
            let probabilities = self.probabilities(text_parts(record));
            for tag in above(&probabilities, &self.tags, self.threshold) {
                each(&tag.tag, tag.confidence);
            }
            return;
        }
        SCRATCH.with_borrow_mut(|scratch| {
            let Scratch {
                analyzed,
                scores,
                confident,
            } = scratch;
            self.model.table.analyze_into(text_parts(record), analyzed);
            confident.clear();
            (self.model).confident_into(analyzed, self.threshold, scores, confident);
            for &(slot, confidence) in most_confident(confident, &self.tags) {
                each(&self.tags[slot], confidence);
            }
        })
    }
}

/// The tags (by slot in `tags`) whose probability reaches `threshold`, most
/// confident first (ties by id), at most [`MAX_PREDICTED`].
fn above(probabilities: &[Option<f32>], tags: &[String], threshold: f32) -> Vec<PredictedTag> {
    let mut confident: Vec<(usize, f32)> = (probabilities.iter().enumerate())
        .filter_map(|(slot, p)| p.filter(|&p| p >= threshold).map(|p| (slot, p)))
        .collect();
    (most_confident(&mut confident, tags).iter())
        .map(|&(slot, confidence)| PredictedTag {
            tag: tags[slot].clone(),
            confidence,
        })
        .collect()
}

/// `confident` (slot in `tags`, probability), most confident first (ties
/// by id), at most [`MAX_PREDICTED`].
fn most_confident<'a>(confident: &'a mut [(usize, f32)], tags: &[String]) -> &'a [(usize, f32)] {
    confident.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| tags[a.0].cmp(&tags[b.0])));
    &confident[..confident.len().min(MAX_PREDICTED)]
}

#[cfg(test)]
mod tests;
