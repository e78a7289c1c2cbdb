//! A vocabulary name sought in titles through the markers documents were
//! written with (see `catalog::name_phrases`): the documents and scores of
//! the name's phrase query over titles, read from one term's postings
//! instead of from the positions of every title holding all its words.
//!
//! Its BM25 is the phrase's: the sum of the title terms' idfs, the title's
//! length, and the number of occurrences (the marker's frequency).

use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{Bm25Weight, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, TantivyError, Term};

#[derive(Debug, Clone)]
pub struct NamedInTitle {
    /// The phrase's terms in the title field, with their offsets.
    phrase: Vec<(usize, Term)>,
    /// Its marker in the `title_names` field.
    marker: Term,
}

impl NamedInTitle {
    pub fn new(phrase: Vec<(usize, Term)>, marker: Term) -> NamedInTitle {
        NamedInTitle { phrase, marker }
    }

    fn title(&self) -> Field {
        self.phrase[0].1.field()
    }
}

impl Query for NamedInTitle {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let bm25 = match scoring {
            EnableScoring::Enabled {
                statistics_provider,
                ..
            } => {
                let terms: Vec<Term> = self.phrase.iter().map(|(_, t)| t.clone()).collect();
                Some(Bm25Weight::for_terms(statistics_provider, &terms)?)
            }
            EnableScoring::Disabled { .. } => None,
        };
        Ok(Box::new(NamedInTitleWeight {
            title: self.title(),
            marker: self.marker.clone(),
            bm25,
        }))
    }

    /// The phrase's title terms, with positions: what highlighting reads, as
    /// of the phrase.
    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for (_, term) in &self.phrase {
            visitor(term, true);
        }
    }
}

struct NamedInTitleWeight {
    title: Field,
    marker: Term,
    bm25: Option<Bm25Weight>,
}

impl NamedInTitleWeight {
    fn named_scorer(
        &self,
        reader: &SegmentReader,
        boost: Score,
    ) -> tantivy::Result<Option<NamedScorer>> {
        let inverted = reader.inverted_index(self.marker.field())?;
        let Some(postings) = inverted.read_postings(&self.marker, IndexRecordOption::WithFreqs)?
        else {
            return Ok(None);
        };
        let norms = match (
            &self.bm25,
            reader.fieldnorms_readers().get_field(self.title)?,
        ) {
            (Some(_), Some(norms)) => norms,
            _ => FieldNormReader::constant(reader.max_doc(), 1),
        };
        Ok(Some(NamedScorer {
            postings,
            norms,
            bm25: self.bm25.as_ref().map(|w| w.boost_by(boost)),
        }))
    }
}

impl Weight for NamedInTitleWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(match self.named_scorer(reader, boost)? {
            Some(scorer) => Box::new(scorer),
            None => Box::new(tantivy::query::EmptyScorer),
        })
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let unmatched =
            || TantivyError::InvalidArgument(format!("Document #({doc}) does not match"));
        let mut scorer = self.named_scorer(reader, 1.0)?.ok_or_else(unmatched)?;
        if scorer.seek(doc) != doc {
            return Err(unmatched());
        }
        let norm = scorer.norms.fieldnorm_id(doc);
        Ok(match &scorer.bm25 {
            Some(bm25) => bm25.explain(norm, scorer.postings.term_freq()),
            None => Explanation::new("NamedInTitle (scoring disabled)", 1.0),
        })
    }
}

struct NamedScorer {
    postings: SegmentPostings,
    norms: FieldNormReader,
    bm25: Option<Bm25Weight>,
}

impl DocSet for NamedScorer {
    fn advance(&mut self) -> DocId {
        self.postings.advance()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        self.postings.seek(target)
    }

    fn doc(&self) -> DocId {
        self.postings.doc()
    }

    fn size_hint(&self) -> u32 {
        self.postings.size_hint()
    }
}

impl Scorer for NamedScorer {
    fn score(&mut self) -> Score {
        let doc = self.doc();
        debug_assert_ne!(doc, TERMINATED);
        match &self.bm25 {
            Some(bm25) => bm25.score(self.norms.fieldnorm_id(doc), self.postings.term_freq()),
            None => 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use tantivy::DocAddress;
    use tantivy::collector::TopDocs;
    use tantivy::query::PhraseQuery;

    use super::*;
    use crate::analysis::{self, terms_with_positions};
    use crate::catalog::name_phrases::marker;
    use crate::index::shipped::shipped_index;

    /// Every name of the shipped vocabulary, sought in the shipped
    /// catalog's titles by marker and by phrase: the same documents, the
    /// same scores.
    #[test]
    fn a_name_sought_by_its_marker_finds_and_scores_what_its_phrase_does() {
        let (catalog, open, _root) = shipped_index();
        let searcher = open.reader.searcher();
        let fields = &crate::index::Fields::from_schema(&open.index.schema()).unwrap();
        let mut english = analysis::english();
        let (mut names, mut found) = (0, 0);
        for tag in &catalog.vocabulary.tags {
            for name in tag.names() {
                let terms = terms_with_positions(&mut english, name);
                let marked = marker(&terms);
                if terms.len() < 2 || !catalog.vocabulary.name_phrases().marks(&marked) {
                    continue;
                }
                names += 1;
                let first = terms[0].0;
                let phrase: Vec<(usize, Term)> = (terms.iter())
                    .map(|(p, t)| (p - first, Term::from_field_text(fields.title, t)))
                    .collect();
                let top = TopDocs::with_limit(1000).order_by_score();
                let by_phrase: Vec<(Score, DocAddress)> = searcher
                    .search(&PhraseQuery::new_with_offset(phrase.clone()), &top)
                    .unwrap();
                let named =
                    NamedInTitle::new(phrase, Term::from_field_text(fields.title_names, &marked));
                let by_marker = searcher.search(&named, &top).unwrap();
                assert_eq!(by_marker, by_phrase, "{name}");
                found += by_phrase.len();
            }
        }
        assert!(names > 100 && found > 50, "{names} names, {found} found");
    }
}
