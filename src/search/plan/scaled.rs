//! A query whose score is multiplied for the documents of a selection: a
//! facet typed as words ("OSDI 2022 auto parallelism") ranks that venue's
//! and year's matches above the others' in proportion to how well they
//! match, where a constant added to every one of them would lift a work that
//! barely matches the words above the best works of other years.
//!
//! Multiplying keeps ranking in two phases exact: a document's factor is the
//! same in the terms part and the phrases part, so their scores still sum to
//! the exact query's. tantivy cannot prune a scaled query (its block-max
//! bounds do not know the factor), so it is walked whole.

use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, Term};

/// What marks a factor in an explanation (see `present/explain.rs`).
pub const SCALE_MARK: &str = "⟨scale⟩ ";

#[derive(Debug)]
pub struct Scaled {
    inner: Box<dyn Query>,
    factors: Vec<Factor>,
}

/// Documents `selection` matches score `1 + weight` times as much.
pub struct Factor {
    pub label: String,
    pub selection: Box<dyn Query>,
    pub weight: f32,
}

/// A factor shows as its label: its selection scores nothing (which the
/// tests of the compiled parts read in this form).
impl std::fmt::Debug for Factor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Factor({} ×{})", self.label, 1.0 + self.weight)
    }
}

impl Clone for Factor {
    fn clone(&self) -> Self {
        Factor {
            label: self.label.clone(),
            selection: self.selection.box_clone(),
            weight: self.weight,
        }
    }
}

impl Scaled {
    pub fn boxed(inner: Box<dyn Query>, factors: Vec<Factor>) -> Box<dyn Query> {
        if factors.is_empty() {
            return inner;
        }
        Box::new(Scaled { inner, factors })
    }
}

impl Clone for Scaled {
    fn clone(&self) -> Self {
        Scaled {
            inner: self.inner.box_clone(),
            factors: self.factors.clone(),
        }
    }
}

impl Query for Scaled {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        // The selections only decide a factor: they are not scored.
        let selections = self
            .factors
            .iter()
            .map(|f| f.selection.weight(unscored(scoring)))
            .collect::<tantivy::Result<_>>()?;
        Ok(Box::new(ScaledWeight {
            inner: self.inner.weight(scoring)?,
            selections,
            factors: self
                .factors
                .iter()
                .map(|f| (f.label.clone(), f.weight))
                .collect(),
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.inner.query_terms(visitor);
    }
}

fn unscored(scoring: EnableScoring<'_>) -> EnableScoring<'_> {
    match scoring {
        EnableScoring::Enabled { searcher, .. } => EnableScoring::disabled_from_searcher(searcher),
        disabled @ EnableScoring::Disabled { .. } => disabled,
    }
}

struct ScaledWeight {
    inner: Box<dyn Weight>,
    selections: Vec<Box<dyn Weight>>,
    factors: Vec<(String, f32)>,
}

impl Weight for ScaledWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let selections = self
            .selections
            .iter()
            .map(|w| w.scorer(reader, 1.0))
            .collect::<tantivy::Result<Vec<_>>>()?;
        Ok(Box::new(ScaledScorer {
            inner: self.inner.scorer(reader, boost)?,
            selections,
            weights: self.factors.iter().map(|(_, w)| *w).collect(),
        }))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let inner = self.inner.explain(reader, doc)?;
        let mut factor = 1.0;
        let mut details = Vec::new();
        for (selection, (label, weight)) in self.selections.iter().zip(&self.factors) {
            let mut scorer = selection.scorer(reader, 1.0)?;
            if scorer.seek(doc) == doc {
                factor *= 1.0 + weight;
                details.push(Explanation::new_with_string(
                    format!("{SCALE_MARK}×{:.2} {label}", 1.0 + weight),
                    1.0 + weight,
                ));
            }
        }
        let mut scaled = Explanation::new("scaled by the facets typed", inner.value() * factor);
        scaled.add_detail(inner);
        for detail in details {
            scaled.add_detail(detail);
        }
        Ok(scaled)
    }

    fn count(&self, reader: &SegmentReader) -> tantivy::Result<u32> {
        self.inner.count(reader)
    }

    fn for_each_no_score(
        &self,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(&[DocId]),
    ) -> tantivy::Result<()> {
        self.inner.for_each_no_score(reader, callback)
    }
}

struct ScaledScorer {
    inner: Box<dyn Scorer>,
    selections: Vec<Box<dyn Scorer>>,
    weights: Vec<f32>,
}

impl DocSet for ScaledScorer {
    fn advance(&mut self) -> DocId {
        self.inner.advance()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        self.inner.seek(target)
    }

    fn doc(&self) -> DocId {
        self.inner.doc()
    }

    fn size_hint(&self) -> u32 {
        self.inner.size_hint()
    }
}

impl Scorer for ScaledScorer {
    fn score(&mut self) -> Score {
        let doc = self.inner.doc();
        let mut score = self.inner.score();
        for (selection, weight) in self.selections.iter_mut().zip(&self.weights) {
            // Documents come in order, so each selection only moves forward.
            if selection.doc() < doc && selection.doc() != TERMINATED {
                selection.seek(doc);
            }
            if selection.doc() == doc {
                score *= 1.0 + weight;
            }
        }
        score
    }
}
