//! Learning: TF-IDF over the training texts' terms, plus, for each tag, a
//! feature for its name spelt out in the text, plus (with
//! `Features::vector`) the text's meaning vector as dense features, and one
//! logistic regression per tag (linfa). The vocabulary's descriptions of
//! the tags are training texts too. Its weights are kept as one row per
//! feature, so that predicting is a sparse sum over the terms a text has
//! and a dense one over the vector's dimensions.

use linfa::dataset::Dataset;
use linfa::traits::Fit;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};
use rustc_hash::FxHashMap;
use tantivy::tokenizer::{Language, StopWordFilter, TextAnalyzer, WhitespaceTokenizer};

use super::text::{Analyzed, TermTable, terms};
use super::{Example, Features};
use crate::catalog::Vocabulary;
use crate::embed::{DIMS, Vector};

/// A term is a feature when at least this many training texts have it: a
/// word of one text says nothing about the others.
const MIN_DOCUMENT_FREQUENCY: usize = 2;
/// A tag is learned when at least this many training texts have it.
const MIN_POSITIVES: usize = 2;
/// L2 regularization of each regression (the sum of the log losses plus
/// `ALPHA / 2 * |w|^2`), chosen by the leave-one-out in `bench/tags.sh`.
const ALPHA: f64 = 0.01;
const MAX_ITERATIONS: u64 = 100;
/// How far above its prior (in log-odds) a text must lift a tag for the tag
/// to be predicted. Without it, in a small catalog where a tag is on a
/// third of the entries, its prior alone would pass the threshold for any
/// text. (On the shipped catalog, 0 to 2 give the same leave-one-out; 2 predicts
/// fewer tags for the long texts of imports.)
const MIN_EVIDENCE: f32 = 2.0;

/// The probability given a tag too rare to learn (with names features) when
/// a text spells out one of its names: about as likely as not, as a name
/// found is (the vocabulary baseline's precision is 0.54 in the
/// leave-one-out of `bench/tags.sh`). Without it, such a tag is left to the
/// vote of its one description, which never reaches the threshold.
const NAMED_UNLEARNED: f32 = 0.5;

/// What the regressions read of a text's meaning.
#[derive(Debug, Clone, Copy)]
pub(super) enum Dense<'a> {
    /// Nothing: the method reads no vector.
    Unread,
    /// The vector, centred.
    Vector(&'a Vector),
    /// Its part of each tag's log-odds, read already (see `projection`).
    Read(&'a [f32]),
}

/// A linear model per tag over the features of [`TermTable`].
#[derive(Debug, Clone, Default)]
pub(super) struct Model {
    pub(super) table: TermTable,
    tags: usize,
    features: Features,
    /// The inverse document frequency of each feature term.
    idf: Vec<f32>,
    /// Per feature term, its weight for each tag (`tags` floats).
    word_weights: Vec<f32>,
    /// Per tag, the weight of its own name found in a text. (Only its own:
    /// a weight for every other tag's name too overfits a small catalog.)
    name_weights: Vec<f32>,
    /// Per dimension of the text's vector, its weight for each tag (`tags`
    /// floats), times `Features::vector` (the scale the regression saw it
    /// at); empty without vector features.
    vector_weights: Vec<f32>,
    /// Per tag; `None` for a tag too rare to learn.
    bias: Vec<Option<f32>>,
}

/// What training learned, apart from what follows from the vocabulary (the
/// names of the tags): what `saved` keeps for the next run.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Learned {
    pub(super) features: Vec<String>,
    pub(super) idf: Vec<f32>,
    pub(super) word_weights: Vec<f32>,
    pub(super) name_weights: Vec<f32>,
    pub(super) vector_weights: Vec<f32>,
    pub(super) bias: Vec<Option<f32>>,
}

/// Whatever changes a model learned from the same texts, or what it
/// predicts: `saved` keys a kept model by these too.
pub(super) const SETTINGS: (f64, usize, usize, u64, f32) = (
    ALPHA,
    MIN_DOCUMENT_FREQUENCY,
    MIN_POSITIVES,
    MAX_ITERATIONS,
    NAMED_UNLEARNED,
);

/// The distinct terms of each text, its training features, and their
/// document frequencies.
fn feature_terms(texts: &[Vec<String>]) -> Vec<String> {
    let mut frequency: FxHashMap<&str, usize> = FxHashMap::default();
    for text in texts {
        let mut distinct: Vec<&str> = text.iter().map(String::as_str).collect();
        distinct.sort_unstable();
        distinct.dedup();
        for term in distinct {
            *frequency.entry(term).or_default() += 1;
        }
    }
    let mut stop = stop_words();
    let mut features: Vec<String> = frequency
        .into_iter()
        .filter(|&(term, n)| {
            n >= MIN_DOCUMENT_FREQUENCY
                && !term.bytes().all(|b| b.is_ascii_digit())
                && !analysis_is_empty(&mut stop, term)
        })
        .map(|(term, _)| term.to_string())
        .collect();
    features.sort_unstable();
    features
}

/// English stop words (tantivy's list), which carry no topic.
fn stop_words() -> TextAnalyzer {
    let builder = TextAnalyzer::builder(WhitespaceTokenizer::default()).dynamic();
    match StopWordFilter::new(Language::English) {
        Some(stop) => builder.filter_dynamic(stop).build(),
        None => builder.build(),
    }
}

fn analysis_is_empty(analyzer: &mut TextAnalyzer, term: &str) -> bool {
    !analyzer.token_stream(term).advance()
}

impl Model {
    /// Learns from `examples` (the vocabulary's descriptions among them
    /// when the features read names, see [`with_descriptions`]), whose tags
    /// are ids of `tags` (slots), and their `vectors` (one each, read only
    /// with `Features::vector`).
    pub(super) fn train(
        examples: &[&Example],
        vectors: &[Vector],
        vocabulary: &Vocabulary,
        tags: &[String],
        features: Features,
    ) -> Model {
        let texts: Vec<Vec<String>> = examples
            .iter()
            .map(|e| e.parts.iter().flat_map(|p| terms(p)).collect())
            .collect();
        let words = if features.words {
            feature_terms(&texts)
        } else {
            Vec::new()
        };
        let table = TermTable::new(words, vocabulary, tags);
        let analyzed: Vec<Analyzed> = examples
            .iter()
            .map(|e| table.analyze(e.parts.iter().map(String::as_str)))
            .collect();
        let mut model = Model {
            tags: tags.len(),
            features,
            idf: idf(&analyzed, table.features()),
            word_weights: vec![0.0; table.features() * tags.len()],
            name_weights: vec![0.0; tags.len()],
            vector_weights: if features.vector > 0.0 {
                vec![0.0; DIMS * tags.len()]
            } else {
                Vec::new()
            },
            bias: vec![None; tags.len()],
            table,
        };
        let mut words = model.words(&analyzed);
        if features.vector > 0.0 {
            words = with_vectors(words, vectors, features.vector);
        }
        let fit_slot = |slot: usize| {
            let y: Array1<bool> = examples
                .iter()
                .map(|e| e.tags.contains(&tags[slot]))
                .collect();
            let positives = y.iter().filter(|&&p| p).count();
            if positives < MIN_POSITIVES || positives == y.len() {
                return None;
            }
            let x = if features.names {
                with_name(&words, &analyzed, slot)
            } else {
                words.clone()
            };
            fit(x, y)
        };
        for (slot, fitted) in in_parallel(tags.len(), fit_slot).into_iter().enumerate() {
            if let Some((params, intercept)) = fitted {
                model.set(slot, &params, intercept);
            }
        }
        model
    }

    /// What this model learned.
    pub(super) fn learned(&self) -> Learned {
        Learned {
            features: self.table.feature_terms(),
            idf: self.idf.clone(),
            word_weights: self.word_weights.clone(),
            name_weights: self.name_weights.clone(),
            vector_weights: self.vector_weights.clone(),
            bias: self.bias.clone(),
        }
    }

    /// The model that learned `learned` (with the names of `tags` from
    /// `vocabulary`, as [`Model::train`] reads them); `None` if its parts
    /// do not fit together.
    pub(super) fn from_learned(
        learned: Learned,
        vocabulary: &Vocabulary,
        tags: &[String],
        features: Features,
    ) -> Option<Model> {
        let words = learned.features.len();
        let fits = learned.idf.len() == words
            && learned.word_weights.len() == words * tags.len()
            && learned.name_weights.len() == tags.len()
            && learned.vector_weights.len()
                == if features.vector > 0.0 {
                    DIMS * tags.len()
                } else {
                    0
                }
            && learned.bias.len() == tags.len();
        let table = TermTable::new(learned.features, vocabulary, tags);
        (fits && table.features() == words).then_some(Model {
            table,
            tags: tags.len(),
            features,
            idf: learned.idf,
            word_weights: learned.word_weights,
            name_weights: learned.name_weights,
            vector_weights: learned.vector_weights,
            bias: learned.bias,
        })
    }

    /// Column `slot` of the rows: the regression of that tag, whose
    /// parameters are the words', the vector's dimensions', then the name's
    /// (the columns of [`with_vectors`] and [`with_name`]).
    fn set(&mut self, slot: usize, params: &Array1<f64>, intercept: f64) {
        let words = self.table.features();
        for feature in 0..words {
            self.word_weights[feature * self.tags + slot] = params[feature] as f32;
        }
        let mut next = words;
        if self.features.vector > 0.0 {
            // Kept times the scale: predicting reads the vector as it is.
            for dim in 0..DIMS {
                self.vector_weights[dim * self.tags + slot] =
                    (params[next + dim] * f64::from(self.features.vector)) as f32;
            }
            next += DIMS;
        }
        if self.features.names {
            self.name_weights[slot] = params[next] as f32;
        }
        self.bias[slot] = Some(intercept as f32);
    }

    /// The training texts as rows of TF-IDF (dense: the catalog is small).
    fn words(&self, analyzed: &[Analyzed]) -> Array2<f64> {
        let mut x = Array2::zeros((analyzed.len(), self.table.features()));
        for (row, text) in analyzed.iter().enumerate() {
            for (id, value) in self.tf_idf(text) {
                x[[row, id as usize]] = f64::from(value);
            }
        }
        x
    }

    /// Sublinear term frequency times idf, normalized to unit length.
    fn tf_idf<'a>(&'a self, text: &'a Analyzed) -> impl Iterator<Item = (u32, f32)> + 'a {
        let weight = |&(id, count): &(u32, f32)| sublinear(count) * self.idf[id as usize];
        let norm = text
            .counts
            .iter()
            .map(|c| weight(c).powi(2))
            .sum::<f32>()
            .sqrt();
        text.counts
            .iter()
            .map(move |c| (c.0, if norm > 0.0 { weight(c) / norm } else { 0.0 }))
    }

    /// Per dimension of a (centred) vector, its weight for each tag: empty
    /// without vector features.
    pub(super) fn vector_weights(&self) -> &[f32] {
        &self.vector_weights
    }

    /// Whether the tag of `slot` was learned (not too rare).
    pub(super) fn has_learned(&self, slot: usize) -> bool {
        self.bias.get(slot).is_some_and(Option::is_some)
    }

    /// Each tag's log-odds for `text` of meaning `dense`, by slot, into
    /// `scores`.
    pub(super) fn scores_into(&self, text: &Analyzed, dense: Dense<'_>, scores: &mut Vec<f32>) {
        scores.clear();
        scores.extend(self.bias.iter().map(|b| b.unwrap_or(0.0)));
        self.add_words(text, scores);
        match dense {
            _ if self.vector_weights.is_empty() => {}
            Dense::Unread => {}
            Dense::Vector(vector) => add_rows(
                vector.iter().copied().enumerate(),
                &self.vector_weights,
                scores,
            ),
            Dense::Read(read) => {
                for (score, part) in scores.iter_mut().zip(read) {
                    *score += part;
                }
            }
        }
        if self.features.names {
            for &slot in &text.named {
                scores[slot] += self.name_weights[slot];
            }
        }
    }

    /// The probability of tag `slot` at log-odds `score`: 0 below the
    /// evidence asked for, `None` for a tag not learned.
    #[inline]
    pub(super) fn probability(&self, slot: usize, score: f32) -> Option<f32> {
        self.bias[slot].map(|bias| {
            if score - bias >= MIN_EVIDENCE {
                1.0 / (1.0 + (-score).exp())
            } else {
                0.0
            }
        })
    }

    /// [`NAMED_UNLEARNED`] into `probabilities` (by slot) for each tag not
    /// learned that `text` names.
    pub(super) fn name_unlearned(&self, text: &Analyzed, probabilities: &mut [f32]) {
        if self.features.names {
            for &slot in &text.named {
                if !self.has_learned(slot) {
                    probabilities[slot] = NAMED_UNLEARNED;
                }
            }
        }
    }
}

impl Model {
    /// Each known term's row of weights times its TF-IDF, added to `scores`.
    fn add_words(&self, text: &Analyzed, scores: &mut [f32]) {
        add_rows(
            self.tf_idf(text).map(|(id, value)| (id as usize, value)),
            &self.word_weights,
            scores,
        );
    }
}

/// Row `i` of `weights` (rows of `scores.len()` floats) times `value`, added
/// to `scores`, for each `(i, value)`: eight tags a step where the processor
/// has AVX (found at run time; the default target has four-wide SSE2 only).
/// A multiply and an add each rounded, in the same order, either way: the
/// same sums.
pub(super) fn add_rows(
    rows: impl Iterator<Item = (usize, f32)>,
    weights: &[f32],
    scores: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx") {
        // SAFETY: the processor has AVX.
        return unsafe { add_rows_avx(rows, weights, scores) };
    }
    add_rows_portable(rows, weights, scores);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn add_rows_avx(rows: impl Iterator<Item = (usize, f32)>, weights: &[f32], scores: &mut [f32]) {
    add_rows_portable(rows, weights, scores);
}

/// Scores summed in registers a tile at a time, over every row, instead
/// of read and written back for each row: a million-record import, whose
/// every record's tags are predicted, took 20.6 and 20.9 s instead of 22.8
/// and 21.6 (user time 37.2 and 38.3 s instead of 41.2 and 40.0).
const TILE: usize = 32;

#[inline(always)]
fn add_rows_portable(
    rows: impl Iterator<Item = (usize, f32)>,
    weights: &[f32],
    scores: &mut [f32],
) {
    let width = scores.len();
    let rows: Vec<(usize, f32)> = rows.collect();
    let mut tiles = scores.chunks_exact_mut(TILE);
    for (t, tile) in (&mut tiles).enumerate() {
        let mut sums: [f32; TILE] = (&*tile).try_into().unwrap();
        for &(i, value) in &rows {
            let at = i * width + t * TILE;
            let row: &[f32; TILE] = weights[at..at + TILE].try_into().unwrap();
            for (sum, weight) in sums.iter_mut().zip(row) {
                *sum += weight * value;
            }
        }
        tile.copy_from_slice(&sums);
    }
    let rest = tiles.into_remainder();
    let start = width - rest.len();
    for &(i, value) in &rows {
        let row = &weights[i * width + start..(i + 1) * width];
        for (score, weight) in rest.iter_mut().zip(row) {
            *score += weight * value;
        }
    }
}

/// `words` and a last column: whether each text names the tag `slot`.
fn with_name(words: &Array2<f64>, analyzed: &[Analyzed], slot: usize) -> Array2<f64> {
    let (rows, columns) = words.dim();
    let mut x = Array2::zeros((rows, columns + 1));
    x.slice_mut(ndarray::s![.., ..columns]).assign(words);
    for (row, text) in analyzed.iter().enumerate() {
        if text.named.contains(&slot) {
            x[[row, columns]] = 1.0;
        }
    }
    x
}

/// `words` and [`DIMS`] more columns: each text's vector times `scale`.
fn with_vectors(words: Array2<f64>, vectors: &[Vector], scale: f32) -> Array2<f64> {
    let (rows, columns) = words.dim();
    let mut x = Array2::zeros((rows, columns + DIMS));
    x.slice_mut(ndarray::s![.., ..columns]).assign(&words);
    for (row, vector) in vectors.iter().enumerate().take(rows) {
        for (dim, &value) in vector.iter().enumerate() {
            x[[row, columns + dim]] = f64::from(value * scale);
        }
    }
    x
}

/// 1 + ln(count). Most terms come once, and ln(1) is 0: no logarithm for
/// them.
fn sublinear(count: f32) -> f32 {
    if count == 1.0 { 1.0 } else { 1.0 + count.ln() }
}

/// Each tag of the vocabulary as one more example of it: its label,
/// description and aliases.
pub(super) fn descriptions(vocabulary: &Vocabulary, tags: &[String]) -> Vec<Example> {
    tags.iter()
        .filter_map(|id| vocabulary.get(id))
        .map(|tag| Example {
            id: tag.id.clone(),
            parts: std::iter::once(tag.description.clone())
                .chain(tag.names().map(str::to_string))
                .collect(),
            tags: vec![tag.id.clone()],
        })
        .collect()
}

/// One regression: its weights and intercept for the tag (`y` true).
fn fit(x: Array2<f64>, y: Array1<bool>) -> Option<(Array1<f64>, f64)> {
    let regression = LogisticRegression::default()
        .alpha(ALPHA)
        .max_iterations(MAX_ITERATIONS);
    let fitted = regression.fit(&Dataset::new(x, y)).ok()?;
    // linfa's "positive" class is the more frequent one: for a tag, the
    // texts without it. The model of the tag is then the negation.
    let sign = if fitted.labels().pos.class { 1.0 } else { -1.0 };
    Some((fitted.params() * sign, fitted.intercept() * sign))
}

/// `f(0..n)`, on a thread per core (training is most of an import's start).
fn in_parallel<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let chunk = n.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|start| {
                let f = &f;
                scope.spawn(move || (start..(start + chunk).min(n)).map(f).collect::<Vec<T>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// Smoothed inverse document frequency, ln((1 + n) / (1 + df)) + 1.
fn idf(analyzed: &[Analyzed], features: usize) -> Vec<f32> {
    let mut frequency = vec![0usize; features];
    for text in analyzed {
        for &(id, _) in &text.counts {
            frequency[id as usize] += 1;
        }
    }
    let n = analyzed.len() as f32;
    frequency
        .into_iter()
        .map(|df| ((1.0 + n) / (1.0 + df as f32)).ln() + 1.0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_added_a_tile_at_a_time_give_each_rows_sum_to_the_bit() {
        // Widths below, at and past a tile, with a remainder; rows repeated
        // and out of order, as a text's terms come.
        let mut random = fastrand::Rng::with_seed(0x2545_f491);
        let mut next = || random.f32() * 2.0 - 1.0;
        for width in [1, TILE - 1, TILE, 2 * TILE + 11] {
            let weights: Vec<f32> = (0..9 * width).map(|_| next()).collect();
            let rows: Vec<(usize, f32)> = [4, 0, 8, 4, 2].iter().map(|&i| (i, next())).collect();
            let start: Vec<f32> = (0..width).map(|_| next()).collect();
            let mut expected = start.clone();
            for &(i, value) in &rows {
                for (score, weight) in expected.iter_mut().zip(&weights[i * width..]) {
                    *score += weight * value;
                }
            }
            let mut scores = start.clone();
            add_rows(rows.iter().copied(), &weights, &mut scores);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&scores), bits(&expected), "width {width}");
        }
    }
}
