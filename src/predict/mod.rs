//! Predicted tags: for a record without curated tags (imported, harvested,
//! an uncurated catalog entry), the tags of the vocabulary that a model
//! learned from the curated catalog gives it, each with a confidence.
//!
//! The training data are the curated entries: title, note and cached
//! abstract in, primary `tags` out (`uses`, what a work uses without being
//! about it, are left out: predictions say what a record is about). The
//! features are TF-IDF over the project's stemmed English terms (`text`)
//! and, per tag, whether the text spells out one of its names; the model is
//! one logistic regression per tag (`learn`), and a tag too rare to learn
//! is given to a text that names it. Predicting is a sparse sum
//! over a text's known terms: cheap enough for a million-record import.
//! `evaluate` measures it by leave-one-out (`bench/tags.sh`); `saved` keeps
//! a trained model for the next import.
//!
//! Nothing here touches the index or the network.

use std::sync::OnceLock;

pub mod evaluate;
mod learn;
mod neighbours;
mod projection;
mod saved;
mod text;

pub use saved::FILE_NAME as SAVED_MODEL_FILE;

use learn::{Dense, Model};
use neighbours::Neighbours;
use projection::Projection;

pub use crate::embed::cut_after_word;

use crate::catalog::Catalog;
use crate::embed::{self, Reading, Vector};
use crate::model::metadata::Cache;
use crate::model::{PredictedTag, Record};

/// A tag is predicted when its score (for [`Method::SHIPPED`], the mean of
/// a probability and a vote) reaches this. One threshold for every tag
/// (most have a handful of examples, too few to tune one each), chosen by
/// the leave-one-out of `bench/tags.sh` on the shipped catalog.
pub const THRESHOLD: f32 = 0.06;
/// Most tags predicted for one record: as many as a curated entry may have.
pub const MAX_PREDICTED: usize = 8;

/// The model reads this much of an abstract, cut after a word, in training
/// and prediction alike. It learned from notes of a sentence or two (under
/// 230 bytes in the shipped catalog), and an abstract's first sentences say
/// what it is about; reading whole abstracts doubled the time of a
/// million-record import. On blind tags of records with abstracts, 100 to
/// 300 bytes score the same F1 within a tag or two, so the bound is the
/// cheap end of that range: 150 bytes, 3% of a 1M import less than 300
/// (docs/following.md, "Predicted tags").
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

/// How tags are predicted. The evaluation (`examples/tags.rs`) compares
/// them; [`Method::SHIPPED`] is the one imports use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The tags whose names the text spells out (the baseline).
    Vocabulary,
    /// A regression per tag over TF-IDF of the words.
    Words,
    /// The regression over the words and the tag's name found, also
    /// trained on the vocabulary's descriptions of the tags.
    Combined,
    /// [`Method::Combined`] with the text's vector as dense features too,
    /// each dimension scaled by `tenths` / 10 (the vector is unit length,
    /// as the TF-IDF row is; the scale sets how much regularization holds
    /// the vector's weights back against the words').
    Meaning { tenths: u16 },
    /// A tag's score: the sum of the cosines of the `k` nearest training
    /// texts (entries and descriptions) that have it, over `k`.
    Neighbours { k: u8 },
    /// The mean of [`Method::Meaning`]'s probability (`tenths` 0: of
    /// [`Method::Combined`]'s) and [`Method::Neighbours`]'s score.
    Blend { tenths: u16, k: u8 },
}

impl Method {
    /// The methods before meaning: the evaluation's baseline rows.
    pub const BASELINES: [Method; 3] = [Method::Vocabulary, Method::Words, Method::Combined];

    /// What imports predict with, chosen by the leave-one-out of
    /// `bench/tags.sh` (docs/following.md, "Predicted tags").
    pub const SHIPPED: Method = Method::Blend { tenths: 10, k: 20 };

    /// Its name in the evaluation's table.
    pub fn label(self) -> String {
        match self {
            Method::Vocabulary => "vocabulary".into(),
            Method::Words => "tf-idf + logistic".into(),
            Method::Combined => "combined".into(),
            Method::Meaning { tenths } => format!("combined + vector x{}", scale(tenths)),
            Method::Neighbours { k } => format!("nearest {k}"),
            Method::Blend { tenths: 0, k } => format!("mean(combined, nearest {k})"),
            Method::Blend { tenths, k } => {
                format!("mean(combined + vector x{}, nearest {k})", scale(tenths))
            }
        }
    }

    fn features(self) -> Features {
        let vector = match self {
            Method::Meaning { tenths } | Method::Blend { tenths, .. } => scale(tenths),
            _ => 0.0,
        };
        Features {
            words: !matches!(self, Method::Vocabulary | Method::Neighbours { .. }),
            names: !matches!(self, Method::Vocabulary | Method::Words),
            vector,
        }
    }

    /// Whether a regression predicts (or a part of the prediction).
    fn regresses(self) -> bool {
        !matches!(self, Method::Vocabulary | Method::Neighbours { .. })
    }

    /// How many neighbours vote (0: none).
    fn neighbours(self) -> usize {
        match self {
            Method::Neighbours { k } | Method::Blend { k, .. } => usize::from(k),
            _ => 0,
        }
    }

    /// Whether it reads a record's vector.
    fn reads_vector(self) -> bool {
        self.features().vector > 0.0 || self.neighbours() > 0
    }

    /// Whether the vocabulary's descriptions of the tags are training texts.
    fn reads_descriptions(self) -> bool {
        self.features().names || self.neighbours() > 0
    }
}

fn scale(tenths: u16) -> f32 {
    f32::from(tenths) / 10.0
}

/// Which features the regressions read.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Features {
    words: bool,
    names: bool,
    /// The scale of the vector's dimensions as features (0: not read).
    vector: f32,
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
fn text_parts(record: &Record) -> impl Iterator<Item = &str> + Clone {
    [
        Some(record.title.as_str()),
        Some(record.note.as_str()),
        record.abstract_text.as_deref().map(abstract_start),
    ]
    .into_iter()
    .flatten()
    .filter(|p| !p.is_empty())
}

/// The vector of a text of `parts`: of a record's [`text_parts`], its
/// [`embed::record_vector`] (which reads as much of an abstract).
fn vector_of<'a>(parts: impl IntoIterator<Item = &'a str>) -> Vector {
    embed::embedder().embed_parts(parts)
}

/// What predicting for one record needs besides the model; its buffers
/// serve the next record (an import predicts for a million).
#[derive(Default)]
struct Scratch {
    analyzed: text::Analyzed,
    /// Each tag's log-odds, then its probability.
    scores: Vec<f32>,
    /// The cosine with each training text, and their order.
    cosines: Vec<f32>,
    /// A record's reading by [`Projection`]: the tags' parts, then the
    /// cosines.
    read: Vec<f32>,
    order: Vec<u32>,
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
    /// The regressions (empty when the method has none).
    model: Model,
    /// The training texts by meaning (empty when the method has no vote).
    neighbours: Neighbours,
    /// What the models subtract from a vector before reading it.
    centre: Centre,
    method: Method,
    threshold: f32,
    /// The models' reading of each word piece, for records read by their
    /// pieces (see [`Predictor::predict_each_read`]).
    projection: OnceLock<Projection>,
}

/// What a prediction reads of a text's meaning.
#[derive(Clone, Copy)]
enum Meaning<'a> {
    /// Its vector, as embedded.
    Vector(&'a Vector),
    /// Its vector and the word pieces summed for it.
    Read(&'a Reading),
}

/// The mean of the training texts' vectors, taken from every vector the
/// models read. Every text of the field points much the same way (two
/// catalog entries' cosine is 0.58 on average): centred, a vector keeps
/// what sets its text apart, the neighbours' cosines spread (the tags of an
/// entry's 5 nearest texts: 29% -> 37% its own, in leave-one-out), and a
/// regression's bias stays the log-odds of an average text, which the
/// evidence asked for (`learn::MIN_EVIDENCE`) is measured from.
#[derive(Debug, Clone)]
struct Centre(Vector);

impl Centre {
    fn of(vectors: &[Vector]) -> Centre {
        let mut mean = [0.0; embed::DIMS];
        for vector in vectors {
            for (m, x) in mean.iter_mut().zip(vector) {
                *m += x;
            }
        }
        let n = vectors.len().max(1) as f32;
        mean.iter_mut().for_each(|m| *m /= n);
        Centre(mean)
    }

    /// `vector` less the mean, at unit length (zeros stay zeros: a text
    /// without a known word piece means nothing).
    fn apply(&self, vector: &Vector) -> Vector {
        if vector.iter().all(|&x| x == 0.0) {
            return *vector;
        }
        let mut centred = *vector;
        for (x, m) in centred.iter_mut().zip(&self.0) {
            *x -= m;
        }
        embed::normalize(&mut centred);
        centred
    }
}

/// The texts a predictor learns from (the vocabulary's descriptions too
/// when the method reads them) and, when it reads vectors, theirs, centred
/// by their mean.
fn training<'a>(
    examples: &[&'a Example],
    described: &'a [Example],
    method: Method,
) -> (Vec<&'a Example>, Vec<Vector>, Centre) {
    let described = if method.reads_descriptions() {
        described
    } else {
        &[]
    };
    let all: Vec<&Example> = examples.iter().copied().chain(described).collect();
    let vectors = if method.reads_vector() {
        (all.iter())
            .map(|e| vector_of(e.parts.iter().map(String::as_str)))
            .collect()
    } else {
        Vec::new()
    };
    let centre = Centre::of(&vectors);
    let vectors = vectors.iter().map(|v| centre.apply(v)).collect();
    (all, vectors, centre)
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
        Predictor::learn(&all, catalog, Method::SHIPPED, THRESHOLD)
    }

    fn learn(examples: &[&Example], catalog: &Catalog, method: Method, threshold: f32) -> Self {
        Predictor::with_model(examples, catalog, method, threshold, None)
    }

    /// A predictor learned from `examples`, with the regressions of `model`
    /// when given (kept from a previous run: the vote, which is only the
    /// training texts' vectors, is made again, in milliseconds).
    fn with_model(
        examples: &[&Example],
        catalog: &Catalog,
        method: Method,
        threshold: f32,
        model: Option<Model>,
    ) -> Self {
        let tags = tag_ids(catalog);
        let described = learn::descriptions(&catalog.vocabulary, &tags);
        let (all, vectors, centre) = training(examples, &described, method);
        let neighbours = Predictor::neighbours(&all, &vectors, &tags, method);
        let model = model.unwrap_or_else(|| {
            // The vocabulary baseline's model is its table of tag names.
            if method.regresses() || method == Method::Vocabulary {
                Model::train(
                    &all,
                    &vectors,
                    &catalog.vocabulary,
                    &tags,
                    method.features(),
                )
            } else {
                Model::default()
            }
        });
        Predictor {
            tags,
            model,
            neighbours,
            centre,
            method,
            threshold,
            projection: OnceLock::new(),
        }
    }

    /// The models' readings by word piece, made at the first call.
    fn projection(&self) -> &Projection {
        self.projection.get_or_init(|| {
            Projection::new(
                self.tags.len(),
                self.model.vector_weights(),
                self.neighbours.texts(),
                self.neighbours.columns(),
                &self.centre.0,
            )
        })
    }

    /// The vote of `all`, of `vectors`, for `method` (none without one).
    fn neighbours(
        all: &[&Example],
        vectors: &[Vector],
        tags: &[String],
        method: Method,
    ) -> Neighbours {
        if method.neighbours() == 0 {
            return Neighbours::default();
        }
        let slots = (all.iter())
            .map(|e| {
                (e.tags.iter())
                    .filter_map(|t| tags.iter().position(|id| id == t))
                    .collect()
            })
            .collect();
        Neighbours::new(vectors, slots, method.neighbours())
    }

    /// The probability of every tag (by slot) for a text of `parts`; `None`
    /// for a tag the model cannot predict (not learned, not named, no vote).
    fn probabilities<'a>(
        &self,
        parts: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Vec<Option<f32>> {
        if self.method == Method::Vocabulary {
            let analyzed = self.model.table.analyze(parts);
            let mut found = vec![None; self.tags.len()];
            for &slot in &analyzed.named {
                found[slot] = Some(1.0);
            }
            return found;
        }
        let vector = if self.method.reads_vector() {
            vector_of(parts.clone())
        } else {
            [0.0; embed::DIMS]
        };
        SCRATCH.with_borrow_mut(|scratch| {
            self.scores(parts, Meaning::Vector(&vector), scratch);
            (scratch.scores.iter().enumerate())
                .map(|(slot, &p)| {
                    let known =
                        self.method.neighbours() > 0 || self.model.has_learned(slot) || p > 0.0;
                    known.then_some(p)
                })
                .collect()
        })
    }

    /// Each tag's probability (by slot) for a text of `parts` and
    /// `meaning`, into `scratch.scores`: 0 for a tag not learned, unless
    /// the text names it.
    fn scores<'a>(
        &self,
        parts: impl IntoIterator<Item = &'a str>,
        meaning: Meaning<'_>,
        scratch: &mut Scratch,
    ) {
        let Scratch {
            analyzed,
            scores,
            cosines,
            order,
            read,
            ..
        } = scratch;
        let centred;
        let (dense, cosines) = match meaning {
            _ if !self.method.reads_vector() => (Dense::Unread, &cosines[..0]),
            Meaning::Vector(vector) => {
                centred = self.centre.apply(vector);
                self.neighbours.cosines_into(&centred, cosines);
                (Dense::Vector(&centred), &cosines[..])
            }
            Meaning::Read(reading) => {
                let projection = self.projection();
                projection.read(reading, read);
                let (tags, texts) = read.split_at(projection.tags());
                (Dense::Read(tags), texts)
            }
        };
        if self.method.regresses() {
            self.model.table.analyze_into(parts, analyzed);
            self.model.scores_into(analyzed, dense, scores);
            for (slot, score) in scores.iter_mut().enumerate() {
                *score = self.model.probability(slot, *score).unwrap_or(0.0);
            }
            self.model.name_unlearned(analyzed, scores);
        } else {
            scores.clear();
            scores.resize(self.tags.len(), 0.0);
        }
        if self.method.neighbours() > 0 {
            // The vote alone, or the mean of it and the regression's.
            let share = if self.method.regresses() { 0.5 } else { 0.0 };
            scores.iter_mut().for_each(|p| *p *= share);
            (self.neighbours).add_scores(cosines, 1.0 - share, order, scores);
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

    /// [`Predictor::predict`] handed to `each` tag by tag, without a string
    /// made for each tag. Embeds the record when the method reads its
    /// vector.
    pub fn predict_each(&self, record: &Record, each: impl FnMut(&str, f32)) {
        if !record.tags.is_empty() {
            return;
        }
        let vector = if self.method.reads_vector() {
            embed::record_vector(record)
        } else {
            [0.0; embed::DIMS]
        };
        self.predict_each_meaning(record, Meaning::Vector(&vector), each);
    }

    /// [`Predictor::predict_each`] for a record read already by
    /// [`embed::read_record`] (an import keeps its vector for the index),
    /// whose vector is read through the word pieces it was summed from
    /// (see `projection`): a row of a few hundred floats per piece instead
    /// of 256 rows. The same tags, their confidences equal but for float
    /// rounding. The first call makes the projection's table (a
    /// millisecond), and each piece's reading is made at its first use:
    /// worth it over many records, as an import's million.
    pub fn predict_each_read(
        &self,
        record: &Record,
        reading: &Reading,
        each: impl FnMut(&str, f32),
    ) {
        self.predict_each_meaning(record, Meaning::Read(reading), each);
    }

    fn predict_each_meaning(
        &self,
        record: &Record,
        meaning: Meaning<'_>,
        mut each: impl FnMut(&str, f32),
    ) {
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
            self.scores(text_parts(record), meaning, scratch);
            let Scratch {
                scores, confident, ..
            } = scratch;
            confident.clear();
            confident.extend(
                (scores.iter().enumerate())
                    .filter(|&(_, &p)| p > 0.0 && p >= self.threshold)
                    .map(|(slot, &p)| (slot, p)),
            );
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
