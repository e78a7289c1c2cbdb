//! The vector column: every matching document scored by its vector alone,
//! the best kept. A scan of stored bytes, not of texts: each segment's
//! distinct vectors are read once, in the column dictionary's order (a
//! sequential read), then each document looks its score up by ordinal.
//! A million records take well under a second a core.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashSet;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::{DocAddress, DocId, Score, Searcher, SegmentReader};

use crate::embed::Vector;
use crate::embed::stored::unpack;

/// The vector of the document at `address`, if it has one.
pub fn document_vector(
    searcher: &Searcher,
    address: DocAddress,
) -> tantivy::Result<Option<Vector>> {
    let reader = searcher.segment_reader(address.segment_ord);
    let Some(column) = reader.fast_fields().bytes("vector")? else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    match column.term_ords(address.doc_id).next() {
        Some(ord) if column.ord_to_bytes(ord, &mut bytes)? => Ok(Some(unpack(&bytes))),
        _ => Ok(None),
    }
}

/// Which documents a scan keeps, besides its query's: by the columns, so
/// that nothing is read from the store.
#[derive(Debug, Default, Clone)]
pub struct Keep {
    /// Only records first submitted on this day number or later.
    pub since: Option<i64>,
    /// Not these arXiv id keys (see `schema::identifier_key`).
    pub excluded: FxHashSet<u64>,
}

/// The best `limit` documents by `score` of their vector (higher is
/// better; ties by address), and how many were scored. Documents without
/// a vector are left out.
pub struct BestByVector<'a> {
    pub score: &'a (dyn Fn(&[u8]) -> f32 + Sync),
    pub keep: &'a Keep,
    pub limit: usize,
}

impl Collector for BestByVector<'_> {
    type Fruit = (Vec<(Score, DocAddress)>, usize);
    type Child = SegmentBest;

    fn for_segment(
        &self,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentBest> {
        let fast = reader.fast_fields();
        let mut scores = Vec::new();
        let ords = match fast.bytes("vector")? {
            Some(column) => {
                scores.resize(column.num_terms(), f32::NAN);
                let mut stream = column.dictionary().stream()?;
                while stream.advance() {
                    scores[stream.term_ord() as usize] = (self.score)(stream.key());
                }
                Some(column.ords().clone())
            }
            None => None,
        };
        let since = match self.keep.since {
            Some(_) => Some(fast.i64("submitted")?),
            None => None,
        };
        let keys = match self.keep.excluded.is_empty() {
            true => None,
            false => Some(fast.u64("arxiv_key")?),
        };
        Ok(SegmentBest {
            segment_ord,
            limit: self.limit,
            scores,
            ords,
            since: since.zip(self.keep.since),
            keys: keys.map(|k| (k, self.keep.excluded.clone())),
            heap: BinaryHeap::with_capacity(self.limit + 1),
            scored: 0,
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let scored = fruits.iter().map(|(_, n)| n).sum();
        let mut all: Vec<(Score, DocAddress)> = fruits.into_iter().flat_map(|(f, _)| f).collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(self.limit);
        Ok((all, scored))
    }
}

/// One segment's best documents so far, the worst on top.
pub struct SegmentBest {
    segment_ord: u32,
    limit: usize,
    /// Each distinct vector's score, by its ordinal in the column.
    scores: Vec<f32>,
    ords: Option<Column<u64>>,
    since: Option<(Column<i64>, i64)>,
    keys: Option<(Column<u64>, FxHashSet<u64>)>,
    /// The worst on top: the lowest score, and of equal scores the later
    /// document.
    heap: BinaryHeap<Reverse<(Ranked, Reverse<DocId>)>>,
    scored: usize,
}

/// A score, ordered totally.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ranked(f32);

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl SegmentCollector for SegmentBest {
    type Fruit = (Vec<(Score, DocAddress)>, usize);

    fn collect(&mut self, doc: DocId, _: Score) {
        if let Some((column, since)) = &self.since
            && column.first(doc).is_none_or(|day| day < *since)
        {
            return;
        }
        if let Some((column, excluded)) = &self.keys
            && column.first(doc).is_some_and(|key| excluded.contains(&key))
        {
            return;
        }
        let Some(ord) = self.ords.as_ref().and_then(|o| o.first(doc)) else {
            return;
        };
        let score = self.scores[ord as usize];
        if score.is_nan() {
            return;
        }
        self.scored += 1;
        let entry = (Ranked(score), Reverse(doc));
        if self.heap.len() < self.limit {
            self.heap.push(Reverse(entry));
        } else if self
            .heap
            .peek()
            .is_some_and(|Reverse(worst)| entry > *worst)
        {
            self.heap.pop();
            self.heap.push(Reverse(entry));
        }
    }

    fn harvest(self) -> Self::Fruit {
        let found = (self.heap.into_iter())
            .map(|Reverse((score, Reverse(doc)))| (score.0, DocAddress::new(self.segment_ord, doc)))
            .collect();
        (found, self.scored)
    }
}
