//! A union that seeks. tantivy's union scorer buffers a window of thousands
//! of documents at a time, which is fast for walking every match but turns
//! each seek into the scoring of a whole window. Ranking a few hundred
//! candidates (see `two_phase`) only seeks, so this union seeks each clause
//! instead. Its score is the sum of the matching clauses', as a boolean query
//! of optional clauses gives.

use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, Term};

#[derive(Debug)]
pub struct SeekUnion {
    clauses: Vec<Box<dyn Query>>,
}

impl SeekUnion {
    pub fn new(clauses: Vec<Box<dyn Query>>) -> SeekUnion {
        SeekUnion { clauses }
    }
}

impl Clone for SeekUnion {
    fn clone(&self) -> Self {
        SeekUnion {
            clauses: self.clauses.iter().map(|q| q.box_clone()).collect(),
        }
    }
}

impl Query for SeekUnion {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let weights = self
            .clauses
            .iter()
            .map(|q| q.weight(scoring))
            .collect::<tantivy::Result<_>>()?;
        Ok(Box::new(SeekUnionWeight { weights }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for clause in &self.clauses {
            clause.query_terms(visitor);
        }
    }
}

struct SeekUnionWeight {
    weights: Vec<Box<dyn Weight>>,
}

impl Weight for SeekUnionWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let scorers = self
            .weights
            .iter()
            .map(|w| w.scorer(reader, boost))
            .collect::<tantivy::Result<Vec<_>>>()?;
        let mut union = SeekUnionScorer {
            scorers,
            doc: 0,
            score: 0.0,
        };
        union.settle();
        Ok(Box::new(union))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let matching: Vec<Explanation> = self
            .weights
            .iter()
            .filter_map(|w| w.explain(reader, doc).ok())
            .collect();
        if matching.is_empty() {
            return Err(tantivy::TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            )));
        }
        let sum = matching.iter().map(Explanation::value).sum();
        let mut explanation = Explanation::new("sum of the matching clauses", sum);
        for detail in matching {
            explanation.add_detail(detail);
        }
        Ok(explanation)
    }
}

struct SeekUnionScorer {
    scorers: Vec<Box<dyn Scorer>>,
    doc: DocId,
    score: Score,
}

impl SeekUnionScorer {
    /// Moves to the smallest document of any clause and sums its score.
    fn settle(&mut self) {
        self.doc = self
            .scorers
            .iter()
            .map(|s| s.doc())
            .min()
            .unwrap_or(TERMINATED);
        self.score = 0.0;
        if self.doc != TERMINATED {
            for scorer in &mut self.scorers {
                if scorer.doc() == self.doc {
                    self.score += scorer.score();
                }
            }
        }
    }
}

impl DocSet for SeekUnionScorer {
    fn advance(&mut self) -> DocId {
        let current = self.doc;
        for scorer in &mut self.scorers {
            if scorer.doc() == current {
                scorer.advance();
            }
        }
        self.settle();
        self.doc
    }

    fn seek(&mut self, target: DocId) -> DocId {
        for scorer in &mut self.scorers {
            if scorer.doc() < target {
                scorer.seek(target);
            }
        }
        self.settle();
        self.doc
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.scorers
            .iter()
            .map(|s| s.size_hint())
            .max()
            .unwrap_or(0)
    }
}

impl Scorer for SeekUnionScorer {
    fn score(&mut self) -> Score {
        self.score
    }
}
