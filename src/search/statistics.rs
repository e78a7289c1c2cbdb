//! BM25 statistics in which the fields that only catalog entries have
//! (tags, notes, owners, ...) are counted as over the catalog's entries.
//! Over every document of an index with a million imported records, such a
//! field's average length is near zero and a tag of a hundred entries looks
//! like one in ten thousand: BM25 then scores an entry's tag next to
//! nothing, and a search for "expert parallelism" showed no catalog entry in
//! its first hundred results. Made equivalent, those fields score on a large
//! index as on the catalog alone; the fields that imported records have too
//! keep the statistics of every document.

use std::sync::{Mutex, PoisonError};

use rustc_hash::FxHashMap;
use tantivy::collector::Collector;
use tantivy::query::{Bm25StatisticsProvider, EnableScoring, Explanation, Query};
use tantivy::schema::Field;
use tantivy::{DocAddress, DocSet, Searcher, Term};

use crate::index::{Fields, exact_query};
use crate::model::Collection;

pub struct Statistics {
    searcher: Searcher,
    catalog_only: Vec<Field>,
    /// Catalog entries, and every document.
    catalog: u64,
    all: u64,
    /// Each term's document frequency once looked up: a search weighs the
    /// same terms several times (its exact query, its two-phase parts, each
    /// candidate ranking), and each lookup walks every segment's dictionary.
    doc_freqs: Mutex<FxHashMap<Term, u64>>,
}

impl Statistics {
    pub fn new(searcher: &Searcher, fields: &Fields) -> tantivy::Result<Statistics> {
        let catalog =
            exact_query(fields.collection, Collection::Catalog.as_str()).count(searcher)?;
        let f = fields;
        Ok(Statistics {
            searcher: searcher.clone(),
            catalog_only: vec![
                f.id,
                f.kind,
                f.owner,
                f.tags,
                f.uses,
                f.tag_text,
                f.tag_description,
                f.note,
                f.url,
            ],
            catalog: catalog as u64,
            all: searcher.total_num_docs()?,
            doc_freqs: Mutex::default(),
        })
    }

    pub fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    /// [`Searcher::search`], scored by these statistics.
    pub fn search<C: Collector>(
        &self,
        query: &dyn Query,
        collector: &C,
    ) -> tantivy::Result<C::Fruit> {
        (self.searcher).search_with_statistics_provider(query, collector, self)
    }

    /// [`Query::explain`] of the document at `address`, scored by these
    /// statistics; `None` when `query` does not match it (a result found by
    /// meaning alone), which tantivy's explanation takes for an error.
    pub fn explain(
        &self,
        query: &dyn Query,
        address: DocAddress,
    ) -> tantivy::Result<Option<Explanation>> {
        let scoring = EnableScoring::enabled_from_statistics_provider(self, &self.searcher);
        let reader = self.searcher.segment_reader(address.segment_ord);
        let weight = query.weight(scoring)?;
        let mut scorer = weight.scorer(reader, 1.0)?;
        let doc = address.doc_id;
        if scorer.doc() > doc || scorer.seek(doc) != doc {
            return Ok(None);
        }
        weight.explain(reader, doc).map(Some)
    }

    /// Whether `field`'s statistics are made the catalog's.
    fn as_catalog(&self, field: Field) -> bool {
        self.catalog_only.contains(&field) && 0 < self.catalog && self.catalog < self.all
    }
}

impl Bm25StatisticsProvider for Statistics {
    /// A catalog-only field's tokens as many per document, on average, as
    /// among the catalog's entries.
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let tokens = self.searcher.total_num_tokens(field)?;
        Ok(if self.as_catalog(field) {
            (tokens as f64 * self.all as f64 / self.catalog as f64).round() as u64
        } else {
            tokens
        })
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.all)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut memo = self
            .doc_freqs
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let found = match memo.get(term) {
            Some(&found) => found,
            None => {
                let found = self.searcher.doc_freq(term)?;
                memo.insert(term.clone(), found);
                found
            }
        };
        Ok(if self.as_catalog(term.field()) {
            equivalent_doc_freq(found.min(self.catalog), self.catalog, self.all)
        } else {
            found
        })
    }
}

/// BM25's inverse document frequency of a term found in `found` of `docs`
/// documents.
pub fn idf(found: u64, docs: u64) -> f32 {
    let (n, all) = (found as f64, docs as f64);
    (1.0 + (all - n + 0.5) / (n + 0.5)).ln() as f32
}

/// The document frequency among `all` documents that gives a term found in
/// `found` of `catalog` documents the inverse document frequency it has
/// among the catalog alone: BM25's idf is ln(1 + (N - n + 0.5) / (n + 0.5)),
/// and the ratio inside is solved for n.
fn equivalent_doc_freq(found: u64, catalog: u64, all: u64) -> u64 {
    let ratio = (catalog as f64 - found as f64 + 0.5) / (found as f64 + 0.5);
    let n = (all as f64 + 0.5 - 0.5 * ratio) / (1.0 + ratio);
    (n.round().max(0.0) as u64).min(all)
}

#[cfg(test)]
mod tests {
    use super::{equivalent_doc_freq, idf};

    #[test]
    fn a_terms_idf_among_all_documents_is_its_idf_among_the_catalog() {
        let all = 1_000_094;
        for (found, catalog) in [(1, 1), (1, 94), (34, 94), (94, 94)] {
            let n = equivalent_doc_freq(found, catalog, all);
            let (wanted, got) = (idf(found, catalog), idf(n, all));
            assert!(
                (wanted - got).abs() < 1e-3,
                "{found}/{catalog}: {wanted} vs {got}"
            );
        }
        // The catalog alone: unchanged.
        assert_eq!(equivalent_doc_freq(34, 94, 94), 34);
    }
}
