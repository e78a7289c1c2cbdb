//! A search's matches newest first (the feeds), and a search with its
//! matches counted (the watches): the query understood and compiled as any
//! search's, with a collector beside the ranking that walks every match
//! (see `rank::top_docs_and`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tantivy::collector::{Collector, Count, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::{DocAddress, DocId, Score, SegmentReader, TantivyDocument};

use crate::catalog::Catalog;
use crate::error::Error;
use crate::index::stamps::ADDED;
use crate::index::{Fields, OpenIndex, day_number};
use crate::model::Record;
use crate::search::{Boosts, SearchOutcome, SearchRequest, search_then, search_then_in};

/// The day a record is dated by, as the number YYYYMMDD: its first
/// version's (an imported record's), else the first of January of its
/// year, else the day it entered the index; 0 when none is known.
pub fn day_key(submitted: Option<i64>, year: Option<i64>, added: Option<i64>) -> i64 {
    submitted
        .or_else(|| year.map(|y| y * 10_000 + 101))
        .or_else(|| added.and_then(stamp_day))
        .unwrap_or(0)
}

/// [`day_key`] of a record read back.
pub fn record_day(record: &Record) -> i64 {
    let submitted = record.submitted.as_deref().and_then(day_number);
    day_key(submitted, record.year, record.added)
}

/// The UTC day of a stamp (milliseconds since the Unix epoch), YYYYMMDD.
fn stamp_day(stamp: i64) -> Option<i64> {
    let at = time::OffsetDateTime::from_unix_timestamp(stamp.div_euclid(1000)).ok()?;
    let date = at.date();
    Some(
        i64::from(date.year()) * 10_000
            + i64::from(u8::from(date.month())) * 100
            + i64::from(date.day()),
    )
}

/// Every match of `request` (its query, filters and flags as `search`
/// understands them), newest first by [`day_key`], then by when they
/// entered the index, then by id; at most `limit`. Only the columns of the
/// matches are read, and the stored documents of those returned.
pub fn newest(
    open: &OpenIndex,
    catalog: &Catalog,
    request: &SearchRequest<'_>,
    boosts: Boosts,
    limit: usize,
) -> Result<Vec<Record>, Error> {
    // One searcher: the addresses found are read from the same documents.
    let searcher = open.reader.searcher();
    let fields = Fields::from_schema(&open.index.schema())?;
    // The ranking is not shown: the fewest results.
    let request = SearchRequest {
        query: request.query,
        filters: request.filters.clone(),
        limit: 1,
        explain: None,
        exhaustive: false,
        mode: request.mode,
    };
    let also = Newest { limit };
    let (_, found) = search_then_in(&searcher, open, catalog, &request, boosts, Some(also))?;
    let mut records = Vec::new();
    for (_, address) in found.unwrap_or_default() {
        let doc: TantivyDocument = searcher.doc(address)?;
        records.push(Record::from_document(&doc, &fields));
    }
    sort_newest(&mut records);
    Ok(records)
}

/// The documents at `addresses` (of `searcher`), newest first as
/// [`newest`] orders them, at most `limit`: their columns are read, and the
/// stored documents of those returned.
pub fn newest_of(
    searcher: &tantivy::Searcher,
    fields: &Fields,
    addresses: &[DocAddress],
    limit: usize,
) -> Result<Vec<Record>, Error> {
    let mut by_segment: std::collections::BTreeMap<u32, Vec<DocId>> = Default::default();
    for address in addresses {
        by_segment
            .entry(address.segment_ord)
            .or_default()
            .push(address.doc_id);
    }
    let mut keyed = Vec::with_capacity(addresses.len());
    for (ord, docs) in by_segment {
        let mut segment = Newest { limit }.for_segment(ord, searcher.segment_reader(ord))?;
        for doc in docs {
            segment.collect(doc, 0.0);
        }
        keyed.extend(segment.harvest());
    }
    let keyed = Newest { limit }.merge_fruits(vec![keyed])?;
    let mut records = Vec::with_capacity(keyed.len());
    for (_, address) in keyed {
        let doc: TantivyDocument = searcher.doc(address)?;
        records.push(Record::from_document(&doc, fields));
    }
    sort_newest(&mut records);
    Ok(records)
}

/// Newest first by [`day_key`], then by when they entered the index, then
/// by id (so that equals keep one order).
pub fn sort_newest(records: &mut [Record]) {
    records.sort_by(newer_first);
}

/// The order of [`sort_newest`].
pub fn newer_first(a: &Record, b: &Record) -> std::cmp::Ordering {
    (record_day(b).cmp(&record_day(a)))
        .then(b.added.cmp(&a.added))
        .then_with(|| a.id.cmp(&b.id))
}

/// [`search`](crate::search::search), and how many documents match.
pub fn search_total(
    open: &OpenIndex,
    catalog: &Catalog,
    request: &SearchRequest<'_>,
    boosts: Boosts,
) -> Result<(SearchOutcome, usize), Error> {
    let (outcome, total) = search_then(open, catalog, request, boosts, Some(Count))?;
    Ok((outcome, total.unwrap_or_default()))
}

/// A match's place: its day, then its stamp (greater is newer).
type Key = (i64, i64);

/// The newest `limit` matches, read from the columns.
struct Newest {
    limit: usize,
}

impl Collector for Newest {
    type Fruit = Vec<(Key, DocAddress)>;
    type Child = SegmentNewest;

    fn for_segment(
        &self,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentNewest> {
        let fast = reader.fast_fields();
        Ok(SegmentNewest {
            segment_ord,
            limit: self.limit,
            submitted: fast.column_opt("submitted")?,
            year: fast.column_opt("year")?,
            added: fast.column_opt(ADDED)?,
            heap: BinaryHeap::with_capacity(self.limit + 1),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let mut all: Vec<(Key, DocAddress)> = fruits.into_iter().flatten().collect();
        all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(self.limit);
        Ok(all)
    }
}

struct SegmentNewest {
    segment_ord: u32,
    limit: usize,
    submitted: Option<Column<i64>>,
    year: Option<Column<i64>>,
    added: Option<Column<i64>>,
    /// The oldest on top; of two equal keys, the later document.
    heap: BinaryHeap<Reverse<(Key, Reverse<DocId>)>>,
}

impl SegmentCollector for SegmentNewest {
    type Fruit = Vec<(Key, DocAddress)>;

    fn collect(&mut self, doc: DocId, _: Score) {
        let first = |column: &Option<Column<i64>>| column.as_ref().and_then(|c| c.first(doc));
        let added = first(&self.added);
        let key = (
            day_key(first(&self.submitted), first(&self.year), added),
            added.unwrap_or(0),
        );
        let entry = Reverse((key, Reverse(doc)));
        if self.heap.len() < self.limit {
            self.heap.push(entry);
        } else if self.heap.peek().is_some_and(|worst| entry < *worst) {
            self.heap.pop();
            self.heap.push(entry);
        }
    }

    fn harvest(self) -> Self::Fruit {
        (self.heap.into_iter())
            .map(|Reverse((key, Reverse(doc)))| (key, DocAddress::new(self.segment_ord, doc)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_dated_by_its_first_version_else_its_year_else_its_entry() {
        assert_eq!(day_key(Some(20_261_002), Some(2026), Some(0)), 20_261_002);
        assert_eq!(day_key(None, Some(2019), Some(0)), 20_190_101);
        // 2026-12-05T10:00:00Z.
        assert_eq!(day_key(None, None, Some(1_796_464_800_000)), 20_261_205);
        assert_eq!(day_key(None, None, None), 0);
    }
}
