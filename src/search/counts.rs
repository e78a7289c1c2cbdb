//! Counts of a search's matches by facet (tag, section, year, venue, kind,
//! collection), beside its hits: what the web page's filters show. Every
//! facet is a fast field (see `index::schema`), so nothing is read before
//! the first search. Each segment's matches are counted a block at a time
//! by the term ordinals of its columns (a year by its value): a block of
//! close documents reads its rows as one range, the few tagged documents
//! are walked beside the matches, and only the ordinals that were counted
//! become strings, once per segment. Counts are exact: every match is
//! counted, in the ranking's own pass when that walks every match anyway
//! (see `rank::top_docs_and`).

use std::io;

use rustc_hash::FxHashMap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Column, ColumnIndex, RowId, StrColumn};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::{SearchOutcome, SearchRequest, search_then};
use crate::catalog::Catalog;
use crate::error::Error;
use crate::index::OpenIndex;
use crate::model::{Collection, Kind};
use crate::search::Boosts;

/// The facets, in the order the JSON lists them.
pub const FACETS: [&str; 6] = ["tag", "section", "year", "venue", "kind", "collection"];

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
    values: [FxHashMap<String, u64>; 6],
}

/// One segment's counts, as strings.
struct SegmentFruit {
    total: u64,
    values: [Vec<(String, u64)>; 6],
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

/// What a segment's matches hold, counted by ordinal.
struct SegmentCounter {
    total: u64,
    tags: Tags,
    year: Years,
    /// Section, venue, kind and collection: a value each, or none.
    single: [Single; 4],
    scratch: Scratch,
    /// Documents collected one by one, not yet counted.
    pending: Vec<DocId>,
}

impl SegmentCounter {
    /// The columns of the facet fields (see `index::schema::facet`).
    fn open(segment: &SegmentReader) -> tantivy::Result<SegmentCounter> {
        let columns = segment.fast_fields();
        let single = |field| columns.str(field).map(|c| Single::new(Ordinals::open(c)));
        Ok(SegmentCounter {
            total: 0,
            tags: Tags::open(columns.str("tags")?, columns.str("uses")?)?,
            year: Years::open(columns.column_opt::<i64>("year")?),
            single: [
                single("section")?,
                single("venue")?,
                single("kind")?,
                single("collection")?,
            ],
            scratch: Scratch::default(),
            pending: Vec::with_capacity(PENDING_BLOCK),
        })
    }

    fn fruit(self) -> io::Result<SegmentFruit> {
        let [section, venue, kind, collection] = self.single;
        // Stored as written: a record without a kind is a paper (imported
        // records say nothing), one without a collection is the catalog's.
        let kind = kind.values(Some(Kind::default().as_str()), |k| {
            Kind::parse(k).unwrap_or_default().as_str()
        })?;
        let collection = collection.values(Some(Collection::default().as_str()), |c| {
            if c == Collection::Arxiv.as_str() {
                Collection::Arxiv.as_str()
            } else {
                Collection::Catalog.as_str()
            }
        })?;
        let mut values = [
            self.tags.values()?,
            section.values(None, |s| s)?,
            self.year.values(),
            venue.values(None, |v| v)?,
            kind,
            collection,
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

/// How many documents collected one by one are counted together.
const PENDING_BLOCK: usize = 64;

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
        for facet in &mut self.single {
            facet.count_block(docs, &mut self.scratch);
        }
        self.year.count_block(docs, &mut self.scratch);
        self.tags.count_block(docs);
    }

    fn harvest(mut self) -> Self::Fruit {
        self.flush();
        self.fruit()
    }
}

/// Room for a block's rows and values, reused from block to block.
#[derive(Default)]
struct Scratch {
    docs: Vec<DocId>,
    rows: Vec<RowId>,
    ordinals: Vec<u64>,
    years: Vec<i64>,
}

/// The first value in `column` of each of `docs` that has one, into `out`;
/// returns how many have none.
fn first_values<T>(
    column: &Column<T>,
    docs: &[DocId],
    scratch: &mut Scratch,
    out: &mut Vec<T>,
) -> u64
where
    T: PartialOrd + Copy + Default + std::fmt::Debug + Send + Sync + 'static,
{
    out.clear();
    let multivalued = matches!(column.index, ColumnIndex::Multivalued(_));
    if let (Some(&first), Some(&last), false) = (docs.first(), docs.last(), multivalued) {
        // A broad query's matches lie close together: when every document
        // from the block's first to its last has a value (or none has),
        // their rows are read as a range, for two ranks a block, not one a
        // document.
        let span = last.saturating_sub(first) as usize + 1;
        let ascending = docs.windows(2).all(|pair| pair[0] < pair[1]);
        if ascending && span <= 4 * docs.len() {
            let rows = column.index.docid_range_to_rowids(first..last + 1);
            if rows.is_empty() {
                return docs.len() as u64;
            }
            if rows.len() == span {
                out.resize(span, T::default());
                column.values.get_range(u64::from(rows.start), out);
                // Ascending documents: each value moves forward, or stays.
                for (i, &doc) in docs.iter().enumerate() {
                    out[i] = out[(doc - first) as usize];
                }
                out.truncate(docs.len());
                return 0;
            }
        }
    }
    let Scratch {
        docs: owners, rows, ..
    } = scratch;
    owners.clear();
    rows.clear();
    column.row_ids_for_docs(docs, owners, rows);
    if multivalued {
        // No facet but tags is written twice; a document of several values
        // would count by its first, as a stored document reads.
        let mut kept = 0;
        for i in 0..rows.len() {
            if i == 0 || owners[i] != owners[i - 1] {
                rows[kept] = rows[i];
                kept += 1;
            }
        }
        rows.truncate(kept);
    }
    out.resize(rows.len(), T::default());
    column.values.get_vals(rows, out);
    (docs.len() - rows.len()) as u64
}

/// The tag facet: `tags` and `uses`, each tag of a document once. Few
/// documents have tags (the catalog's): those of the segment are listed
/// once, and a block of matches is walked beside the list.
struct Tags {
    tags: Ordinals,
    uses: Ordinals,
    /// Each `uses` ordinal's ordinal in `tags`, if a document of the
    /// segment has that tag as a tag too.
    uses_as_tag: Vec<Option<u64>>,
    /// The documents with a tag or a use, ascending (`None`: all of them).
    tagged: Option<Vec<DocId>>,
    /// Where in `tagged` the last match was sought.
    cursor: usize,
}

impl Tags {
    fn open(tags: Option<StrColumn>, uses: Option<StrColumn>) -> io::Result<Tags> {
        let uses_as_tag = match (&tags, &uses) {
            (Some(tags), Some(uses)) => {
                let mut found = Vec::with_capacity(uses.num_terms());
                let mut terms = uses.dictionary().stream()?;
                while terms.advance() {
                    found.push(tags.dictionary().term_ord(terms.key())?);
                }
                found
            }
            _ => Vec::new(),
        };
        let listed = |column: &Option<StrColumn>| {
            column
                .as_ref()
                .map_or(Some(Vec::new()), |c| docs_with_values(c.ords()))
        };
        let tagged = listed(&tags).zip(listed(&uses)).map(|(mut docs, more)| {
            docs.extend(more);
            docs.sort_unstable();
            docs.dedup();
            docs
        });
        Ok(Tags {
            tags: Ordinals::open(tags),
            uses: Ordinals::open(uses),
            uses_as_tag,
            tagged,
            cursor: 0,
        })
    }

    fn count_block(&mut self, docs: &[DocId]) {
        let Some(tagged) = &self.tagged else {
            for &doc in docs {
                self.count(doc);
            }
            return;
        };
        let (Some(&first), Some(&last)) = (docs.first(), docs.last()) else {
            return;
        };
        // A segment's matches come in ascending order (tantivy's doc sets);
        // a block before the last is sought from the start.
        if self.cursor > 0 && tagged.get(self.cursor - 1).is_some_and(|&t| t >= first) {
            self.cursor = 0;
        }
        if tagged.get(self.cursor).is_none_or(|&t| t > last) {
            return;
        }
        for &doc in docs {
            self.cursor += tagged[self.cursor..].partition_point(|&t| t < doc);
            if tagged.get(self.cursor) == Some(&doc) {
                count_tags(&mut self.tags, &mut self.uses, &self.uses_as_tag, doc);
            }
        }
    }

    fn count(&mut self, doc: DocId) {
        count_tags(&mut self.tags, &mut self.uses, &self.uses_as_tag, doc);
    }

    fn values(&self) -> io::Result<Vec<(String, u64)>> {
        let mut values = self.tags.values()?;
        values.extend(self.uses.values()?);
        Ok(values)
    }
}

/// A document's tags and uses, a tag in both counted once.
fn count_tags(tags: &mut Ordinals, uses: &mut Ordinals, uses_as_tag: &[Option<u64>], doc: DocId) {
    if let Some(column) = &uses.column {
        for ord in column.term_ords(doc) {
            let also_a_tag = match (uses_as_tag.get(ord as usize), &tags.column) {
                (Some(Some(tag)), Some(tags)) => tags.term_ords(doc).any(|t| t == *tag),
                _ => false,
            };
            if !also_a_tag {
                uses.counts[ord as usize] += 1;
            }
        }
    }
    if let Some(column) = &tags.column {
        for ord in column.term_ords(doc) {
            tags.counts[ord as usize] += 1;
        }
    }
}

/// The documents with a value in `column`, ascending; `None` when every
/// document has one.
fn docs_with_values(column: &Column<u64>) -> Option<Vec<DocId>> {
    match &column.index {
        ColumnIndex::Empty { .. } => Some(Vec::new()),
        ColumnIndex::Full => None,
        ColumnIndex::Optional(index) => Some(index.iter_non_null_docs().collect()),
        ColumnIndex::Multivalued(index) => Some(index.iter_non_null_docs().collect()),
    }
}

/// A text column (if the segment has one) and its matches per term
/// ordinal.
struct Ordinals {
    column: Option<StrColumn>,
    counts: Vec<u64>,
}

impl Ordinals {
    fn open(column: Option<StrColumn>) -> Ordinals {
        let counts = vec![0; column.as_ref().map_or(0, |c| c.num_terms())];
        Ordinals { column, counts }
    }

    /// The values counted, with their counts.
    fn values(&self) -> io::Result<Vec<(String, u64)>> {
        let Some(column) = &self.column else {
            return Ok(Vec::new());
        };
        let counted: Vec<u64> = (0..self.counts.len() as u64)
            .filter(|&ord| self.counts[ord as usize] > 0)
            .collect();
        let mut values = Vec::with_capacity(counted.len());
        let mut counts = counted.iter().map(|&ord| self.counts[ord as usize]);
        column
            .dictionary()
            .sorted_ords_to_term_cb(&counted, |term| {
                let n = counts.next().unwrap_or_default();
                values.push((String::from_utf8_lossy(term).into_owned(), n));
            })?;
        Ok(values)
    }
}

/// A facet of one value a document, or none.
struct Single {
    ordinals: Ordinals,
    /// Matches without a value.
    missing: u64,
}

impl Single {
    fn new(ordinals: Ordinals) -> Single {
        Single {
            ordinals,
            missing: 0,
        }
    }

    fn count_block(&mut self, docs: &[DocId], scratch: &mut Scratch) {
        let Some(column) = &self.ordinals.column else {
            self.missing += docs.len() as u64;
            return;
        };
        let mut ordinals = std::mem::take(&mut scratch.ordinals);
        self.missing += first_values(column.ords(), docs, scratch, &mut ordinals);
        for &ord in &ordinals {
            self.ordinals.counts[ord as usize] += 1;
        }
        scratch.ordinals = ordinals;
    }

    /// The values counted, each as `shown` spells it, and the matches
    /// without a value as `missing` (if they count).
    fn values(
        &self,
        missing: Option<&str>,
        shown: impl Fn(&str) -> &str,
    ) -> io::Result<Vec<(String, u64)>> {
        let mut values = self.ordinals.values()?;
        for (value, _) in &mut values {
            let spelled = shown(value);
            if spelled != value {
                *value = spelled.to_string();
            }
        }
        if let Some(missing) = missing.filter(|_| self.missing > 0) {
            values.push((missing.to_string(), self.missing));
        }
        Ok(values)
    }
}

/// Matches per year, in a table from the segment's earliest year (and, for
/// a year too far from it, in a map).
struct Years {
    column: Option<Column<i64>>,
    first: i64,
    counts: Vec<u64>,
    beyond: FxHashMap<i64, u64>,
}

/// The most years the table holds.
const MAX_YEARS: i64 = 1 << 12;

impl Years {
    fn open(column: Option<Column<i64>>) -> Years {
        let (first, span) = column.as_ref().map_or((0, 0), |c| {
            let span = c
                .max_value()
                .saturating_sub(c.min_value())
                .saturating_add(1);
            (c.min_value(), span.clamp(0, MAX_YEARS))
        });
        Years {
            column,
            first,
            counts: vec![0; span as usize],
            beyond: FxHashMap::default(),
        }
    }

    fn count_block(&mut self, docs: &[DocId], scratch: &mut Scratch) {
        let Some(column) = &self.column else { return };
        let mut years = std::mem::take(&mut scratch.years);
        first_values(column, docs, scratch, &mut years);
        for &year in &years {
            let slot = usize::try_from(year.wrapping_sub(self.first)).ok();
            match slot.and_then(|slot| self.counts.get_mut(slot)) {
                Some(n) => *n += 1,
                None => *self.beyond.entry(year).or_default() += 1,
            }
        }
        scratch.years = years;
    }

    fn values(&self) -> Vec<(String, u64)> {
        let table = (self.counts.iter().enumerate())
            .filter(|(_, n)| **n > 0)
            .map(|(slot, n)| (self.first + slot as i64, *n));
        table
            .chain(self.beyond.iter().map(|(year, n)| (*year, *n)))
            .map(|(year, n)| (year.to_string(), n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::DocSetCollector;
    use tantivy::indexer::NoMergePolicy;
    use tantivy::query::{AllQuery, Query};
    use tantivy::{Index, TantivyDocument};

    use super::*;
    use crate::catalog::Vocabulary;
    use crate::index::analysis;
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

    /// Five segments of 40 records, a few deleted in each but the last.
    fn index() -> (Index, Fields) {
        let (schema, fields) = build_schema();
        let index = Index::create_in_ram(schema);
        analysis::register(&index);
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.set_merge_policy(Box::new(NoMergePolicy));
        let vocabulary = Vocabulary::default();
        for segment in 0..5 {
            for n in segment * 40..(segment + 1) * 40 {
                let doc = record(n).to_document(&fields, &vocabulary, None, None);
                writer.add_document(doc).unwrap();
            }
            writer.commit().unwrap();
            // The last keeps every document: its matches come in blocks
            // (tantivy passes a segment with deletions one by one).
            let deleted = (segment * 40..(segment + 1) * 40).step_by(11);
            for n in deleted.filter(|_| segment < 4) {
                writer.delete_term(tantivy::Term::from_field_text(
                    fields.id,
                    &format!("fict-{n}"),
                ));
            }
            writer.commit().unwrap();
        }
        (index, fields)
    }

    fn count(searcher: &tantivy::Searcher, query: &dyn Query) -> Counts {
        counts(searcher.search(query, &Counter).unwrap())
    }

    /// The counts told by reading every matching stored document.
    fn brute_force(searcher: &tantivy::Searcher, fields: &Fields, query: &dyn Query) -> Counts {
        let mut values: [FxHashMap<String, u64>; 6] = Default::default();
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
        assert_eq!(searcher.segment_readers().len(), 5);
        let deleted = searcher.segment_readers().iter();
        assert_eq!(deleted.filter(|s| s.num_deleted_docs() > 0).count(), 4);
        let queries: Vec<Box<dyn Query>> = vec![
            Box::new(AllQuery),
            exact_query(fields.uses, "zero"),
            exact_query(fields.collection, "arxiv"),
            exact_query(fields.venue, "fict"),
        ];
        for query in queries {
            let expected = brute_force(&searcher, &fields, &*query);
            assert!(expected.total > 0, "{query:?} matches nothing");
            assert_eq!(count(&searcher, &*query), expected, "{query:?}");
        }
    }
}
