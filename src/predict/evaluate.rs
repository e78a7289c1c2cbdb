//! Leave-one-out over the curated catalog: each entry's tags predicted by a
//! model trained on all the others (its vocabulary of terms and idf too),
//! scored by micro precision and recall against its curated tags.

use super::{Example, Method, Predictor, above};
use crate::catalog::Catalog;

/// True and false positives and false negatives, summed over entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub true_positives: usize,
    pub false_positives: usize,
    pub false_negatives: usize,
}

impl Counts {
    pub fn precision(&self) -> f64 {
        ratio(
            self.true_positives,
            self.true_positives + self.false_positives,
        )
    }

    pub fn recall(&self) -> f64 {
        ratio(
            self.true_positives,
            self.true_positives + self.false_negatives,
        )
    }

    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }

    fn add(&mut self, predicted: &[String], truth: &[String]) {
        let hits = predicted.iter().filter(|t| truth.contains(t)).count();
        self.true_positives += hits;
        self.false_positives += predicted.len() - hits;
        self.false_negatives += truth.len() - hits;
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// Every entry's probabilities from the model that did not see it.
pub struct LeftOut<'a> {
    examples: &'a [Example],
    tags: Vec<String>,
    /// Per example, per tag slot.
    probabilities: Vec<Vec<Option<f32>>>,
}

/// A predictor of `method` learned from all of `examples`, predicting the
/// tags that reach `threshold` (to try a method on texts of one's own).
pub fn learned(
    catalog: &Catalog,
    examples: &[Example],
    method: Method,
    threshold: f32,
) -> Predictor {
    let all: Vec<&Example> = examples.iter().collect();
    Predictor::learn(&all, catalog, method, threshold)
}

/// Trains one model per entry left out, on a thread per core.
pub fn leave_one_out<'a>(
    catalog: &Catalog,
    examples: &'a [Example],
    method: Method,
) -> LeftOut<'a> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let held_out = |i: usize| {
        let others: Vec<&Example> = examples
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, e)| e)
            .collect();
        let predictor = Predictor::learn(&others, catalog, method, 0.0);
        predictor.probabilities(examples[i].parts.iter().map(String::as_str))
    };
    let mut probabilities = vec![Vec::new(); examples.len()];
    std::thread::scope(|scope| {
        let chunk = examples.len().div_ceil(threads).max(1);
        for (c, rows) in probabilities.chunks_mut(chunk).enumerate() {
            let held_out = &held_out;
            scope.spawn(move || {
                for (k, row) in rows.iter_mut().enumerate() {
                    *row = held_out(c * chunk + k);
                }
            });
        }
    });
    LeftOut {
        examples,
        tags: catalog
            .vocabulary
            .tags
            .iter()
            .map(|t| t.id.clone())
            .collect(),
        probabilities,
    }
}

/// The thresholds tried: 0.05 to 0.95 by 0.01.
fn thresholds() -> impl Iterator<Item = f32> {
    (5..=95).map(|t| t as f32 / 100.0)
}

impl LeftOut<'_> {
    /// The tags predicted for entry `i` at `threshold`.
    pub fn predicted(&self, i: usize, threshold: f32) -> Vec<String> {
        above(&self.probabilities[i], &self.tags, threshold)
            .into_iter()
            .map(|p| p.tag)
            .collect()
    }

    /// The counts over the entries `rows` at `threshold`.
    pub fn counts(&self, threshold: f32, rows: impl Iterator<Item = usize>) -> Counts {
        let mut counts = Counts::default();
        for i in rows {
            counts.add(&self.predicted(i, threshold), &self.examples[i].tags);
        }
        counts
    }

    /// The threshold of the best micro F1 over every entry but `except`.
    pub fn best_threshold(&self, except: Option<usize>) -> f32 {
        let rows = || (0..self.examples.len()).filter(move |&i| Some(i) != except);
        thresholds()
            .map(|t| (self.counts(t, rows()).f1(), t))
            .fold(
                (-1.0, 0.5),
                |best, next| if next.0 > best.0 { next } else { best },
            )
            .1
    }

    /// Each entry scored at the threshold best for the others: the
    /// threshold never sees the entry it is applied to.
    pub fn nested(&self) -> Counts {
        let mut total = Counts::default();
        for i in 0..self.examples.len() {
            let c = self.counts(self.best_threshold(Some(i)), std::iter::once(i));
            total.true_positives += c.true_positives;
            total.false_positives += c.false_positives;
            total.false_negatives += c.false_negatives;
        }
        total
    }

    /// The counts over every entry at `threshold`.
    pub fn at(&self, threshold: f32) -> Counts {
        self.counts(threshold, 0..self.examples.len())
    }
}
