//! Counts of a search's matches by facet (tag, section, year, venue, kind,
//! collection, about), beside its hits: what the web page's filters show. Every
//! facet is a fast field (see `index::schema`), so nothing is read before
//! the first search. Each segment's matches are counted a block at a time
//! by the term ordinals of its columns (a year by its value; `columns`): a
//! block of close documents reads its rows as one range, the few tagged
//! documents are walked beside the matches, and only the ordinals that were
//! counted become strings, once per segment. Where most documents match, as
//! a broad word's do, they are counted as the segment's documents, counted
//! once and kept (`whole`), less those that do not match. Counts are exact:
//! every match is counted, in the ranking's own pass when that walks every
//! match anyway (see `rank::top_docs_and`).

mod columns;
mod tags;
mod whole;

use std::io;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::fastfield::AliveBitSet;
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use crate::catalog::Catalog;
use crate::error::Error;
use crate::index::OpenIndex;
use crate::model::{Collection, Kind};
use crate::search::Boosts;
use crate::search::{SearchOutcome, SearchRequest, search_then};
use columns::{Columns, Scratch, Tally, positive, terms_of};
use tags::Tags;

/// The facets, in the order the JSON lists them. `tag` counts the works
/// that hold a tag as a primary tag or a use, `about` those that hold it as
/// a primary tag: what `--tag` and `--about` select, curated tags only.
pub use crate::search::understand::fields::FACETS;

/// How many documents matched, and how many hold each facet value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Counts {
    pub total: u64,
    /// Per facet of [`FACETS`], (value, count): years oldest first, the
    /// others most frequent first, then by value.
    pub facets: Vec<(&'static str, Vec<(String, u64)>)>,
}

/// [`search`](crate::search::search), with the counts of every match.
pub fn search_counted(
    open: &OpenIndex,
    catalog: &Catalog,
    request: &SearchRequest<'_>,
    boosts: Boosts,
) -> Result<(SearchOutcome, Counts), Error> {
    let (outcome, merged) = search_then(open, catalog, request, boosts, Some(Counter))?;
    Ok((outcome, counts(merged.unwrap_or_default())))
}

fn counts(merged: Merged) -> Counts {
    let facets = FACETS
        .iter()
        .zip(merged.values)
        .map(|(name, values)| {
            let mut values: Vec<(String, u64)> = values.into_iter().collect();
            if *name == "year" {
                values.sort_by_key(|(year, _)| year.parse::<i64>().unwrap_or(i64::MAX));
            } else {
                values.sort_by(|(a, n), (b, m)| m.cmp(n).then_with(|| a.cmp(b)));
            }
            (*name, values)
        })
        .collect();
    Counts {
        total: merged.total,
        facets,
    }
}

/// Counts of every segment, merged.
#[derive(Default)]
struct Merged {
    total: u64,
    values: [FxHashMap<String, u64>; FACETS.len()],
}

/// One segment's counts, as strings.
struct SegmentFruit {
    total: u64,
    values: [Vec<(String, u64)>; FACETS.len()],
}

/// Counts every match (see [`search_counted`]).
struct Counter;

impl Collector for Counter {
    type Fruit = Merged;
    type Child = SegmentCounter;

    fn for_segment(
        &self,
        _: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<SegmentCounter> {
        SegmentCounter::open(segment)
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<io::Result<SegmentFruit>>) -> tantivy::Result<Merged> {
        let mut merged = Merged::default();
        for fruit in fruits {
            let fruit = fruit?;
            merged.total += fruit.total;
            for (into, values) in merged.values.iter_mut().zip(fruit.values) {
                for (value, n) in values {
                    *into.entry(value).or_default() += n;
                }
            }
        }
        Ok(merged)
    }
}

/// What a segment's matches hold.
struct SegmentCounter {
    total: u64,
    tags: Tags,
    columns: Columns,
    /// What [`Way`] has counted: matches added, or the others taken away.
    tally: Tally,
    way: Way,
    /// The segment, for its whole tally (see `whole`).
    segment: SegmentReader,
    alive: Option<AliveBitSet>,
    scratch: Scratch,
    /// Documents collected one by one, not yet counted.
    pending: Vec<DocId>,
    /// Documents that do not match, not yet taken away.
    gaps: Vec<DocId>,
}

/// How a segment's facets of one value are counted.
enum Way {
    /// The first matches, kept until they tell whether most documents
    /// match.
    Undecided(Vec<DocId>),
    /// Each match is counted.
    Matches,
    /// The segment's whole tally, less each live document from the first
    /// to the last that does not match; `next` is the first not yet seen.
    /// A segment's matches come in ascending order (tantivy's doc sets).
    AllBut { whole: Arc<Tally>, next: DocId },
}

/// Matches kept before choosing a [`Way`].
const UNDECIDED_MATCHES: usize = 4096;

impl SegmentCounter {
    fn open(segment: &SegmentReader) -> tantivy::Result<SegmentCounter> {
        let fast = segment.fast_fields();
        let columns = Columns::open(segment)?;
        Ok(SegmentCounter {
            total: 0,
            tags: Tags::open(fast.str("tags")?, fast.str("uses")?)?,
            tally: columns.tally(),
            columns,
            way: Way::Undecided(Vec::new()),
            segment: segment.clone(),
            alive: segment.alive_bitset().cloned(),
            scratch: Scratch::default(),
            pending: Vec::with_capacity(PENDING_BLOCK),
            gaps: Vec::new(),
        })
    }

    /// Chooses how to count from the matches so far: all but the others
    /// when they are more than half the documents they span (the segment's,
    /// once it has been walked).
    fn decide(&mut self, walked: bool) {
        let Way::Undecided(first) = &mut self.way else {
            return;
        };
        let first = std::mem::take(first);
        self.way = Way::Matches;
        let spanned = match (walked, first.last()) {
            (true, _) => u64::from(self.segment.num_docs()),
            (false, Some(&last)) => u64::from(last) + 1,
            (false, None) => 0,
        };
        if 2 * first.len() as u64 > spanned {
            let whole = whole::whole(&self.segment, &self.columns);
            self.way = Way::AllBut { whole, next: 0 };
            self.take_away_before(&first);
        } else {
            (self.columns).count_block(&first, 1, &mut self.tally, &mut self.scratch);
        }
    }

    /// Takes away the live documents before each of `docs` (ascending) that
    /// are not among them.
    fn take_away_before(&mut self, docs: &[DocId]) {
        let Way::AllBut { next, .. } = &mut self.way else {
            return;
        };
        let (Some(&first), Some(&last)) = (docs.first(), docs.last()) else {
            return;
        };
        // Most blocks of a broad query's matches leave no document out.
        if first == *next && (last - first) as usize + 1 == docs.len() {
            *next = last.saturating_add(1);
            return;
        }
        let mut doc = *next;
        for &matched in docs {
            while doc < matched {
                if self.alive.as_ref().is_none_or(|a| a.is_alive(doc)) {
                    self.gaps.push(doc);
                    if self.gaps.len() == GAPS_BLOCK {
                        let gaps = std::mem::take(&mut self.gaps);
                        (self.columns).count_block(&gaps, -1, &mut self.tally, &mut self.scratch);
                        self.gaps = gaps;
                        self.gaps.clear();
                    }
                }
                doc += 1;
            }
            doc = doc.max(matched.saturating_add(1));
        }
        *next = doc;
    }

    fn fruit(mut self) -> io::Result<SegmentFruit> {
        self.decide(true);
        if let Way::AllBut { whole, .. } = &self.way {
            let whole = Arc::clone(whole);
            // The documents after the last match, and then no more.
            self.take_away_before(&[self.segment.max_doc()]);
            let gaps = std::mem::take(&mut self.gaps);
            (self.columns).count_block(&gaps, -1, &mut self.tally, &mut self.scratch);
            self.tally.add(&whole);
        }
        let single = |facet: usize| match self.columns.single(facet) {
            Some(column) => {
                let counted: Vec<(u64, u64)> = (self.tally.ordinals[facet].iter().enumerate())
                    .filter_map(|(ord, &n)| Some((ord as u64, positive(n)?)))
                    .collect();
                terms_of(column, &counted)
            }
            None => Ok(Vec::new()),
        };
        let missing = |facet: usize| positive(self.tally.missing[facet]);
        // Stored as written: a record without a kind is a paper (imported
        // records say nothing), one without a collection is the catalog's.
        let mut kind = spelled(single(2)?, |k| Kind::parse(k).unwrap_or_default().as_str());
        kind.extend(missing(2).map(|n| (Kind::default().as_str().to_string(), n)));
        let mut collection = spelled(single(3)?, |c| {
            if c == Collection::Arxiv.as_str() {
                Collection::Arxiv.as_str()
            } else {
                Collection::Catalog.as_str()
            }
        });
        collection.extend(missing(3).map(|n| (Collection::default().as_str().to_string(), n)));
        let mut values = [
            self.tags.values()?,
            single(0)?,
            self.columns.years(&self.tally),
            single(1)?,
            kind,
            collection,
            self.tags.about_values()?,
        ];
        for facet in &mut values {
            facet.retain(|(value, _)| !value.is_empty());
        }
        Ok(SegmentFruit {
            total: self.total,
            values,
        })
    }
}

/// Values, each as `shown` spells it.
fn spelled(mut values: Vec<(String, u64)>, shown: impl Fn(&str) -> &str) -> Vec<(String, u64)> {
    for (value, _) in &mut values {
        let spelled = shown(value);
        if spelled != value {
            *value = spelled.to_string();
        }
    }
    values
}

/// How many documents collected one by one are counted together.
const PENDING_BLOCK: usize = 64;

/// How many documents that do not match are taken away together.
const GAPS_BLOCK: usize = 1024;

impl SegmentCounter {
    fn flush(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        self.collect_block(&pending);
        self.pending = pending;
        self.pending.clear();
    }
}

impl SegmentCollector for SegmentCounter {
    type Fruit = io::Result<SegmentFruit>;

    /// One by one (a scored pass, or a segment with deletions): gathered
    /// into blocks, which cost less a document.
    fn collect(&mut self, doc: DocId, _: Score) {
        self.pending.push(doc);
        if self.pending.len() == PENDING_BLOCK {
            self.flush();
        }
    }

    fn collect_block(&mut self, docs: &[DocId]) {
        self.total += docs.len() as u64;
        self.tags.count_block(docs);
        match &mut self.way {
            Way::Undecided(first) => {
                first.extend_from_slice(docs);
                if first.len() >= UNDECIDED_MATCHES {
                    self.decide(false);
                }
            }
            Way::Matches => (self.columns).count_block(docs, 1, &mut self.tally, &mut self.scratch),
            Way::AllBut { .. } => self.take_away_before(docs),
        }
    }

    fn harvest(mut self) -> Self::Fruit {
        self.flush();
        self.fruit()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::DocSetCollector;
    use tantivy::indexer::NoMergePolicy;
    use tantivy::query::{AllQuery, BooleanQuery, Occur, Query};
    use tantivy::{Index, TantivyDocument};

    use super::*;
    use crate::analysis;
    use crate::catalog::Vocabulary;
    use crate::index::schema::build_schema;
    use crate::index::{Fields, exact_query};
    use crate::model::Record;

    /// Records whose facets vary: tags shared with `uses` (counted once),
    /// imported records without a kind, no year, no venue, a long venue.
    fn record(n: usize) -> Record {
        let imported = n.is_multiple_of(3);
        let tags = ["moe", "pipeline-parallelism", "zero"];
        Record {
            collection: if imported {
                Collection::Arxiv
            } else {
                Collection::Catalog
            },
            id: format!("fict-{n}"),
            kind: if n % 7 == 1 {
                Kind::Project
            } else {
                Kind::Paper
            },
            title: format!("Fictional work {n}"),
            venue: match n % 5 {
                0 => None,
                1 => Some("FICT".into()),
                2 => Some(format!(
                    "Proceedings of an Invented Venue {} ",
                    "x".repeat(300)
                )),
                _ => Some(format!("Venue {}", n % 4)),
            },
            year: (!n.is_multiple_of(6)).then_some(2015 + (n % 9) as i64),
            section: if imported {
                format!("cs.{}", n % 2)
            } else {
                format!("Section {}", n % 3)
            },
            tags: if imported {
                Vec::new()
            } else {
                vec![tags[n % 3].into()]
            },
            uses: match n % 4 {
                _ if imported => Vec::new(),
                0 => vec![tags[n % 3].into(), tags[(n + 1) % 3].into()],
                1 => vec![tags[(n + 2) % 3].into()],
                _ => Vec::new(),
            },
            ..Record::default()
        }
    }

    /// Five segments of 40 records and two of 12,500 (beyond the matches
    /// that choose how to count), a few deleted in each but the fifth and
    /// the last.
    fn index() -> (Index, Fields) {
        let (schema, fields) = build_schema();
        let index = Index::create_in_ram(schema);
        analysis::register(&index);
        let mut writer = index.writer_with_num_threads(1, 100_000_000).unwrap();
        writer.set_merge_policy(Box::new(NoMergePolicy));
        let vocabulary = Vocabulary::default();
        let mut start = 0;
        for (segment, size) in [40, 40, 40, 40, 40, 12_500, 12_500].into_iter().enumerate() {
            for n in start..start + size {
                let doc = record(n).to_document(&fields, &vocabulary, None, None);
                writer.add_document(doc).unwrap();
            }
            writer.commit().unwrap();
            // Two keep every document: their matches come in blocks
            // (tantivy passes a segment with deletions one by one).
            let deleted = (start..start + size).step_by(11);
            for n in deleted.filter(|_| segment != 4 && segment != 6) {
                writer.delete_term(tantivy::Term::from_field_text(
                    fields.id,
                    &format!("fict-{n}"),
                ));
            }
            writer.commit().unwrap();
            start += size;
        }
        (index, fields)
    }

    fn count(searcher: &tantivy::Searcher, query: &dyn Query) -> Counts {
        counts(searcher.search(query, &Counter).unwrap())
    }

    /// The counts told by reading every matching stored document.
    fn brute_force(searcher: &tantivy::Searcher, fields: &Fields, query: &dyn Query) -> Counts {
        let mut values: [FxHashMap<String, u64>; FACETS.len()] = Default::default();
        let matches = searcher.search(query, &DocSetCollector).unwrap();
        for address in &matches {
            let doc: TantivyDocument = searcher.doc(*address).unwrap();
            let r = Record::from_document(&doc, fields);
            let mut tags: Vec<&String> = r.tags.iter().chain(&r.uses).collect();
            tags.sort();
            tags.dedup();
            let mut add = |facet: usize, value: String| {
                if !value.is_empty() {
                    *values[facet].entry(value).or_default() += 1;
                }
            };
            tags.into_iter().for_each(|t| add(0, t.clone()));
            add(1, r.section.clone());
            r.year.into_iter().for_each(|y| add(2, y.to_string()));
            r.venue.into_iter().for_each(|v| add(3, v));
            add(4, r.kind.as_str().into());
            add(5, r.collection.as_str().into());
            let mut about = r.tags.clone();
            about.sort();
            about.dedup();
            about.into_iter().for_each(|t| add(6, t));
        }
        let facets = FACETS
            .iter()
            .zip(values)
            .map(|(name, values)| {
                let mut values: Vec<(String, u64)> = values.into_iter().collect();
                values.sort_by(|(a, n), (b, m)| m.cmp(n).then_with(|| a.cmp(b)));
                if *name == "year" {
                    values.sort_by_key(|(year, _)| year.parse::<i64>().unwrap());
                }
                (*name, values)
            })
            .collect();
        Counts {
            total: matches.len() as u64,
            facets,
        }
    }

    #[test]
    fn counts_from_columns_equal_counts_of_the_stored_documents() {
        let (index, fields) = index();
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 7);
        let deleted = searcher.segment_readers().iter();
        assert_eq!(deleted.filter(|s| s.num_deleted_docs() > 0).count(), 5);
        let all_but = |query: Box<dyn Query>| -> Box<dyn Query> {
            Box::new(BooleanQuery::new(vec![
                (Occur::Must, Box::new(AllQuery)),
                (Occur::MustNot, query),
            ]))
        };
        // Every document, most of them (counted as all but the others),
        // and a few (each counted).
        let queries: Vec<Box<dyn Query>> = vec![
            Box::new(AllQuery),
            all_but(exact_query(fields.venue, "fict")),
            all_but(exact_query(fields.collection, "arxiv")),
            exact_query(fields.uses, "zero"),
            exact_query(fields.collection, "arxiv"),
            exact_query(fields.venue, "fict"),
        ];
        for query in queries {
            let expected = brute_force(&searcher, &fields, &*query);
            assert!(expected.total > 0, "{query:?} matches nothing");
            assert_eq!(count(&searcher, &*query), expected, "{query:?}");
            // Again, with the segments' whole tallies kept.
            assert_eq!(count(&searcher, &*query), expected, "{query:?}");
        }
    }
}
