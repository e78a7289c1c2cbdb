//! Counts of a search's matches by facet (tag, section, year, venue, kind,
//! collection), beside its hits: what the web page's filters show. Only
//! `year` is a fast field and `venue` is split into words, so each
//! segment's facet values are read from its stored documents once, into a
//! table of small integers; counting a search is then a pass over its
//! matches with no I/O.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::index::SegmentId;
use tantivy::query::Query;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader, TantivyDocument};

use super::{SearchOutcome, SearchRequest, search_then};
use crate::catalog::Vocabulary;
use crate::error::Error;
use crate::index::{Fields, OpenIndex};
use crate::model::Record;
use crate::search::Boosts;

/// The facets, in the order the JSON lists them.
pub const FACETS: [&str; 6] = ["tag", "section", "year", "venue", "kind", "collection"];

/// Which value of each facet every document holds, by segment.
pub struct FacetTable {
    /// Per facet, its distinct values (an ordinal indexes them).
    names: [Vec<String>; 6],
    segments: FxHashMap<SegmentId, Arc<SegmentFacets>>,
}

/// One segment's documents: for each, its ordinals of every facet.
#[derive(Default)]
struct SegmentFacets {
    /// `values[starts[doc]..starts[doc + 1]]` are the document's (facet,
    /// ordinal) pairs.
    starts: Vec<u32>,
    values: Vec<(u8, u32)>,
}

impl FacetTable {
    /// Reads every stored document of the open index once.
    pub fn build(open: &OpenIndex) -> Result<FacetTable, Error> {
        let searcher = open.reader.searcher();
        let fields = Fields::from_schema(&open.index.schema())?;
        let mut names: [Vec<String>; 6] = Default::default();
        let mut ordinals: [FxHashMap<String, u32>; 6] = Default::default();
        let mut segments = FxHashMap::default();
        for segment in searcher.segment_readers() {
            let store = segment
                .get_store_reader(1)
                .map_err(|e| Error::io(&open.path, e))?;
            let mut table = SegmentFacets::default();
            // Deleted documents too, so that positions are document ids.
            for doc in store.iter::<TantivyDocument>(None) {
                table.starts.push(table.values.len() as u32);
                let record = Record::from_document(&doc?, &fields);
                for (facet, value) in facet_values(&record) {
                    let next = names[facet].len() as u32;
                    let ordinal = *ordinals[facet].entry(value.clone()).or_insert_with(|| {
                        names[facet].push(value);
                        next
                    });
                    table.values.push((facet as u8, ordinal));
                }
            }
            table.starts.push(table.values.len() as u32);
            segments.insert(segment.segment_id(), Arc::new(table));
        }
        Ok(FacetTable { names, segments })
    }
}

/// A record's value of each facet; its tags are those the tag filter
/// matches (what it is about and what it uses), each once.
fn facet_values(r: &Record) -> Vec<(usize, String)> {
    let mut values: Vec<(usize, String)> = Vec::new();
    let mut tags: Vec<&String> = r.tags.iter().chain(&r.uses).collect();
    tags.sort();
    tags.dedup();
    values.extend(tags.into_iter().map(|t| (0, t.clone())));
    values.push((1, r.section.clone()));
    values.extend(r.year.map(|y| (2, y.to_string())));
    values.extend(r.venue.clone().map(|v| (3, v)));
    values.push((4, r.kind.as_str().to_string()));
    values.push((5, r.collection.as_str().to_string()));
    values.retain(|(_, v)| !v.is_empty());
    values
}

/// How many documents matched, and how many hold each facet value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Counts {
    pub total: u64,
    /// Per facet of [`FACETS`], (value, count): years oldest first, the
    /// others most frequent first, then by value.
    pub facets: Vec<(&'static str, Vec<(String, u64)>)>,
}

/// [`search`](super::search), with the counts of every match.
pub fn search_counted(
    open: &OpenIndex,
    table: &FacetTable,
    vocabulary: &Vocabulary,
    sections: &[String],
    request: &SearchRequest<'_>,
    boosts: Boosts,
) -> Result<(SearchOutcome, Counts), Error> {
    search_then(
        open,
        vocabulary,
        sections,
        request,
        boosts,
        |searcher, query| count(searcher, query, table),
    )
}

fn count(
    searcher: &tantivy::Searcher,
    query: &dyn Query,
    table: &FacetTable,
) -> Result<Counts, Error> {
    let (total, by_facet) = searcher.search(query, &Counter { table })?;
    let facets = FACETS
        .iter()
        .enumerate()
        .map(|(facet, name)| {
            let mut values: Vec<(String, u64)> = by_facet[facet]
                .iter()
                .zip(&table.names[facet])
                .filter(|(n, _)| **n > 0)
                .map(|(&n, value)| (value.clone(), n))
                .collect();
            if *name == "year" {
                values.sort_by_key(|(year, _)| year.parse::<i64>().unwrap_or(i64::MAX));
            } else {
                values.sort_by(|(a, n), (b, m)| m.cmp(n).then_with(|| a.cmp(b)));
            }
            (*name, values)
        })
        .collect();
    Ok(Counts { total, facets })
}

/// Per facet, the count of each ordinal.
type FacetCounts = [Vec<u64>; 6];

struct Counter<'t> {
    table: &'t FacetTable,
}

struct SegmentCounter {
    facets: Option<Arc<SegmentFacets>>,
    total: u64,
    counts: FacetCounts,
}

impl Collector for Counter<'_> {
    type Fruit = (u64, FacetCounts);
    type Child = SegmentCounter;

    fn for_segment(
        &self,
        _: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<SegmentCounter> {
        Ok(SegmentCounter {
            facets: self.table.segments.get(&segment.segment_id()).cloned(),
            total: 0,
            counts: self
                .table
                .names
                .each_ref()
                .map(|names| vec![0; names.len()]),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<(u64, FacetCounts)>) -> tantivy::Result<Self::Fruit> {
        let mut merged = (
            0,
            self.table
                .names
                .each_ref()
                .map(|names| vec![0; names.len()]),
        );
        for (total, counts) in fruits {
            merged.0 += total;
            for (into, from) in merged.1.iter_mut().zip(counts) {
                for (sum, n) in into.iter_mut().zip(from) {
                    *sum += n;
                }
            }
        }
        Ok(merged)
    }
}

impl SegmentCollector for SegmentCounter {
    type Fruit = (u64, FacetCounts);

    fn collect(&mut self, doc: DocId, _: Score) {
        self.total += 1;
        // A segment the table has not seen (none: the reader is not
        // reloaded) is counted in the total only.
        let Some(facets) = &self.facets else { return };
        let doc = doc as usize;
        let (Some(&start), Some(&end)) = (facets.starts.get(doc), facets.starts.get(doc + 1))
        else {
            return;
        };
        for &(facet, ordinal) in &facets.values[start as usize..end as usize] {
            self.counts[facet as usize][ordinal as usize] += 1;
        }
    }

    fn harvest(self) -> Self::Fruit {
        (self.total, self.counts)
    }
}
