//! A query clause with a name a reader understands ("title: pipelin ×3"),
//! so that `--explain` can say which fields and terms scored: tantivy's own
//! explanations name neither. Scoring is the inner clause's, untouched: the
//! scorers are the inner weight's own, so no optimization is lost.

use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{DocId, Score, SeekDangerResult, SegmentReader, Term};

#[derive(Debug)]
pub struct Labelled {
    label: String,
    inner: Box<dyn Query>,
}

impl Labelled {
    pub fn boxed(label: String, inner: Box<dyn Query>) -> Box<dyn Query> {
        Box::new(Labelled { label, inner })
    }
}

impl Clone for Labelled {
    fn clone(&self) -> Self {
        Labelled {
            label: self.label.clone(),
            inner: self.inner.box_clone(),
        }
    }
}

/// The description that marks a labelled node in an explanation.
pub const MARK: &str = "⟨label⟩ ";

impl Query for Labelled {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(LabelledWeight {
            label: self.label.clone(),
            inner: self.inner.weight(enable_scoring)?,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.inner.query_terms(visitor);
    }
}

struct LabelledWeight {
    label: String,
    inner: Box<dyn Weight>,
}

impl Weight for LabelledWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        self.inner.scorer(reader, boost)
    }

    fn scorer_danger(
        &self,
        reader: &SegmentReader,
        target: DocId,
        boost: Score,
    ) -> tantivy::Result<(SeekDangerResult, Box<dyn Scorer>)> {
        self.inner.scorer_danger(reader, target, boost)
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let inner = self.inner.explain(reader, doc)?;
        let mut labelled =
            Explanation::new_with_string(format!("{MARK}{}", self.label), inner.value());
        labelled.add_detail(inner);
        Ok(labelled)
    }

    fn count(&self, reader: &SegmentReader) -> tantivy::Result<u32> {
        self.inner.count(reader)
    }

    fn for_each(
        &self,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(DocId, Score),
    ) -> tantivy::Result<()> {
        self.inner.for_each(reader, callback)
    }

    fn for_each_no_score(
        &self,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(&[DocId]),
    ) -> tantivy::Result<()> {
        self.inner.for_each_no_score(reader, callback)
    }

    fn for_each_pruning(
        &self,
        threshold: Score,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(DocId, Score) -> Score,
    ) -> tantivy::Result<()> {
        self.inner.for_each_pruning(threshold, reader, callback)
    }
}
