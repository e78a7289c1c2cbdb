//! Top-k search on a large index, seeded by the catalog's best matches.
//!
//! Block-max WAND skips the blocks of documents that cannot beat the k-th
//! best score found so far, but each segment starts from nothing: on a
//! million imported records, a word nearly all of them hold ("training")
//! is scored in most of them before the curated entries, which score far
//! higher (tags, notes), raise the bar. Their k-th score is found first,
//! among the catalog's few entries, and every segment starts from it.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use tantivy::collector::{Collector, SegmentCollector, TopDocs};
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, Weight};
use tantivy::{DocAddress, DocId, Score, SegmentReader};

use crate::index::{Fields, exact_query};
use crate::model::Collection;
use crate::search::statistics::Statistics;

/// How far below the catalog's k-th score every segment starts: the same
/// document's score may differ in its last bits between two queries that
/// add its clauses in another order (see `two_phase::rescore`), and the
/// catalog's k best must all be found again. Two-phase ranking's bar keeps
/// the same margin, for the same reason.
pub(super) const FLOOR_MARGIN: f32 = 1e-4;

/// The best `limit` documents for `query`, as `TopDocs` ranks them (ties
/// by address), found with the catalog's k-th best score as the bar every
/// segment starts from.
pub fn top_docs(
    stats: &Statistics,
    fields: &Fields,
    query: &dyn Query,
    limit: usize,
) -> tantivy::Result<Vec<(Score, DocAddress)>> {
    let in_catalog = BooleanQuery::new(vec![
        (Occur::Must, query.box_clone()),
        (
            Occur::Must,
            Box::new(ConstScoreQuery::new(
                exact_query(fields.collection, Collection::Catalog.as_str()),
                0.0,
            )),
        ),
    ]);
    let seeds = stats.search(&in_catalog, &TopDocs::with_limit(limit).order_by_score())?;
    let floor = match seeds.last() {
        Some(&(score, _)) if seeds.len() == limit && score > 0.0 => score * (1.0 - FLOOR_MARGIN),
        _ => Score::MIN,
    };
    above(stats, query, limit, floor)
}

/// The best `limit` documents for `query` scoring more than `floor`, found
/// with `floor` as the bar every segment starts from.
pub(super) fn above(
    stats: &Statistics,
    query: &dyn Query,
    limit: usize,
    floor: Score,
) -> tantivy::Result<Vec<(Score, DocAddress)>> {
    stats.search(query, &Above { limit, floor })
}

/// The best `limit` documents scoring more than `floor`.
struct Above {
    limit: usize,
    floor: Score,
}

impl Collector for Above {
    type Fruit = Vec<(Score, DocAddress)>;
    type Child = Best;

    fn for_segment(&self, segment_ord: u32, _: &SegmentReader) -> tantivy::Result<Best> {
        Ok(Best {
            limit: self.limit,
            floor: self.floor,
            segment_ord,
            heap: BinaryHeap::with_capacity(self.limit + 1),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let mut all: Vec<(Score, DocAddress)> = fruits.into_iter().flatten().collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(self.limit);
        Ok(all)
    }

    /// Pruned, as `TopDocs` is, from `floor` rather than from nothing.
    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<Self::Fruit> {
        let mut best = self.for_segment(segment_ord, reader)?;
        let alive = reader.alive_bitset();
        weight.for_each_pruning(self.floor, reader, &mut |doc, score| {
            if !alive.is_some_and(|a| a.is_deleted(doc)) {
                best.push(score, doc);
            }
            best.bar()
        })?;
        Ok(best.harvest())
    }
}

/// A segment's best documents so far, the worst on top. Collecting
/// unpruned (`collect`) is only tantivy's default way; `collect_segment`
/// prunes.
struct Best {
    limit: usize,
    floor: Score,
    segment_ord: u32,
    heap: BinaryHeap<Reverse<Entry>>,
}

impl SegmentCollector for Best {
    type Fruit = Vec<(Score, DocAddress)>;

    fn collect(&mut self, doc: DocId, score: Score) {
        if score > self.bar() {
            self.push(score, doc);
        }
    }

    fn harvest(self) -> Self::Fruit {
        (self.heap.into_iter())
            .map(|Reverse(e)| (e.score, DocAddress::new(self.segment_ord, e.doc)))
            .collect()
    }
}

impl Best {
    fn push(&mut self, score: Score, doc: DocId) {
        self.heap.push(Reverse(Entry { score, doc }));
        if self.heap.len() > self.limit {
            self.heap.pop();
        }
    }

    /// What a document must score more than to count.
    fn bar(&self) -> Score {
        match self.heap.peek() {
            Some(Reverse(worst)) if self.heap.len() == self.limit => worst.score.max(self.floor),
            _ => self.floor,
        }
    }
}

/// Ordered by score, and of two equal scores the later document is less
/// (dropped first), as `TopDocs` keeps the earlier.
struct Entry {
    score: Score,
    doc: DocId,
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.score.total_cmp(&other.score)).then(other.doc.cmp(&self.doc))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}
