//! Whether a record belongs in the list: a logistic regression (linfa) that
//! tells the catalog's works from the arxiv collection's, over TF-IDF of
//! stemmed words. The catalog is the positives (each entry's title, note
//! and cached abstract, and each tag's description and names); the
//! collection, mostly not the field, stands for the negatives
//! (positive-unlabelled learning: a record of the field among them is
//! outweighed by the catalog's works it resembles).

use std::cell::RefCell;

use linfa::dataset::Dataset;
use linfa::traits::Fit;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};
use rustc_hash::FxHashMap;
use tantivy::tokenizer::TextAnalyzer;

use crate::catalog::Catalog;
use crate::index::analysis;
use crate::model::Record;
use crate::model::metadata::Cache;

/// Most collection records learned from: a sample, by a hash of the id.
pub const MAX_NEGATIVES: usize = 1500;
/// A word is a feature when at least this many training texts have it.
const MIN_DOCUMENT_FREQUENCY: usize = 2;
/// L2 regularization, chosen on the tuning half of the fictional stream
/// (`bench/inbox.py`: 3, 10 and 30 rank it alike, 1 and 0.1 worse).
const ALPHA: f64 = 10.0;
const MAX_ITERATIONS: u64 = 200;
/// Words given as the reasons of a score.
const WHY_WORDS: usize = 5;

/// The learned weights of each word.
pub struct Classifier {
    words: Vec<String>,
    ids: FxHashMap<String, usize>,
    idf: Vec<f32>,
    weights: Vec<f32>,
    intercept: f32,
}

thread_local! {
    /// The project's stemmed English analyzer, made once per thread.
    static ENGLISH: RefCell<TextAnalyzer> = RefCell::new(analysis::english());
}

fn terms(text: &str) -> Vec<String> {
    ENGLISH.with_borrow_mut(|english| analysis::terms(english, text))
}

/// The analyzed terms of a record as the model reads it: title, note and
/// abstract.
pub fn record_terms(record: &Record) -> Vec<String> {
    let mut all = terms(&record.title);
    all.extend(terms(&record.note));
    if let Some(text) = &record.abstract_text {
        all.extend(terms(text));
    }
    all
}

impl Classifier {
    /// Learns the catalog (and the vocabulary's words) against `collection`;
    /// `None` when either side is empty.
    pub fn train(catalog: &Catalog, cache: &Cache, collection: &[Record]) -> Option<Classifier> {
        let mut positives: Vec<Vec<String>> = catalog
            .entries
            .iter()
            .filter(|e| !e.tags.is_empty())
            .map(|e| record_terms(&Record::from_entry(e, cache.get(&e.id))))
            .collect();
        positives.extend(catalog.vocabulary.tags.iter().map(|tag| {
            let mut all = terms(&tag.description);
            for name in tag.names() {
                all.extend(terms(name));
            }
            all
        }));
        let negatives: Vec<Vec<String>> = sample(collection).map(record_terms).collect();
        if positives.is_empty() || negatives.is_empty() {
            return None;
        }
        let texts: Vec<&Vec<String>> = positives.iter().chain(&negatives).collect();
        let mut frequency: FxHashMap<&str, usize> = FxHashMap::default();
        for text in &texts {
            let mut distinct: Vec<&str> = text.iter().map(String::as_str).collect();
            distinct.sort_unstable();
            distinct.dedup();
            for term in distinct {
                *frequency.entry(term).or_default() += 1;
            }
        }
        let mut words: Vec<&str> = frequency
            .iter()
            .filter(|&(t, &n)| {
                n >= MIN_DOCUMENT_FREQUENCY && !t.bytes().all(|b| b.is_ascii_digit())
            })
            .map(|(t, _)| *t)
            .collect();
        words.sort_unstable();
        let n = texts.len() as f32;
        let idf: Vec<f32> = words
            .iter()
            .map(|w| ((1.0 + n) / (1.0 + frequency[w] as f32)).ln() + 1.0)
            .collect();
        let ids: FxHashMap<String, usize> = words
            .iter()
            .enumerate()
            .map(|(i, w)| (w.to_string(), i))
            .collect();
        let mut classifier = Classifier {
            words: words.iter().map(|w| w.to_string()).collect(),
            ids,
            idf,
            weights: Vec::new(),
            intercept: 0.0,
        };
        let mut x = Array2::zeros((texts.len(), words.len()));
        for (row, text) in texts.iter().enumerate() {
            for (id, value) in classifier.features(text) {
                x[[row, id]] = f64::from(value);
            }
        }
        let y: Array1<bool> = (0..texts.len()).map(|i| i < positives.len()).collect();
        let fitted = LogisticRegression::default()
            .alpha(ALPHA)
            .max_iterations(MAX_ITERATIONS)
            .fit(&Dataset::new(x, y))
            .ok()?;
        // linfa's "positive" class is the more frequent one; the catalog is
        // the class modelled here.
        let sign = if fitted.labels().pos.class { 1.0 } else { -1.0 };
        classifier.weights = fitted.params().iter().map(|w| (sign * w) as f32).collect();
        classifier.intercept = (sign * fitted.intercept()) as f32;
        Some(classifier)
    }

    /// Sublinear TF-IDF of the known terms, normalized to unit length.
    fn features(&self, terms: &[String]) -> Vec<(usize, f32)> {
        let mut counts: FxHashMap<usize, f32> = FxHashMap::default();
        for term in terms {
            if let Some(&id) = self.ids.get(term) {
                *counts.entry(id).or_default() += 1.0;
            }
        }
        let mut weighted: Vec<(usize, f32)> = counts
            .into_iter()
            .map(|(id, count)| (id, (1.0 + count.ln()) * self.idf[id]))
            .collect();
        weighted.sort_unstable_by_key(|&(id, _)| id);
        let norm = weighted.iter().map(|(_, v)| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            weighted.iter_mut().for_each(|(_, v)| *v /= norm);
        }
        weighted
    }

    /// The log-odds that `terms` are the catalog's, and the words that
    /// raised them most (best first).
    pub fn log_odds(&self, terms: &[String]) -> (f32, Vec<(String, f32)>) {
        let features = self.features(terms);
        let mut score = self.intercept;
        let mut parts = Vec::new();
        for (id, value) in features {
            let part = self.weights[id] * value;
            score += part;
            parts.push((id, part));
        }
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        let words: Vec<(String, f32)> = parts
            .into_iter()
            .take_while(|(_, part)| *part > 0.0)
            .take(WHY_WORDS)
            .map(|(id, part)| (self.words[id].clone(), part))
            .collect();
        (score, words)
    }
}

/// Up to [`MAX_NEGATIVES`] records, the same ones whatever their order.
fn sample(collection: &[Record]) -> impl Iterator<Item = &Record> {
    let mut keyed: Vec<(u64, &Record)> = collection
        .iter()
        .map(|r| (xxhash_rust::xxh3::xxh3_64(r.id.as_bytes()), r))
        .collect();
    keyed.sort_unstable_by_key(|&(k, _)| k);
    keyed.truncate(MAX_NEGATIVES);
    keyed.into_iter().map(|(_, r)| r)
}
