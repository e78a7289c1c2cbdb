//! The facets of one value a document (section, venue, kind, collection,
//! year), counted from their columns a block of documents at a time: by
//! term ordinal (a year by its value), into a [`Tally`] that a block adds
//! to or takes from, so that matches can be counted as every document less
//! those that do not match (see `SegmentCounter`).

use std::io;

use rustc_hash::FxHashMap;
use tantivy::columnar::{Column, ColumnIndex, RowId, StrColumn};
use tantivy::{DocId, SegmentReader};

/// The single-valued text facets, in the order of [`Columns::single`].
pub const SINGLE: [&str; 4] = ["section", "venue", "kind", "collection"];

/// A segment's columns of the facets of one value.
pub struct Columns {
    single: [Option<StrColumn>; 4],
    year: Option<Column<i64>>,
    /// The year of the first slot of [`Tally::years`].
    first_year: i64,
    /// How many slots the table of years has.
    years: usize,
}

/// Counts per value of [`Columns`], signed: documents taken away count -1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Per facet of [`SINGLE`], the documents per term ordinal.
    pub ordinals: [Vec<i64>; 4],
    /// Per facet of [`SINGLE`], the documents without a value.
    pub missing: [i64; 4],
    /// Documents per year, from [`Columns::first_year`], and the years too
    /// far from it for the table.
    years: Vec<i64>,
    beyond: FxHashMap<i64, i64>,
}

/// The most years the table holds.
const MAX_YEARS: i64 = 1 << 12;

impl Columns {
    /// The columns of the facet fields (see `index::schema::facet`).
    pub fn open(segment: &SegmentReader) -> tantivy::Result<Columns> {
        let columns = segment.fast_fields();
        let [a, b, c, d] = SINGLE;
        let year = columns.column_opt::<i64>("year")?;
        let (first_year, span) = year.as_ref().map_or((0, 0), |c| {
            let span = c
                .max_value()
                .saturating_sub(c.min_value())
                .saturating_add(1);
            (c.min_value(), span.clamp(0, MAX_YEARS))
        });
        Ok(Columns {
            single: [
                columns.str(a)?,
                columns.str(b)?,
                columns.str(c)?,
                columns.str(d)?,
            ],
            year,
            first_year,
            years: span as usize,
        })
    }

    /// A tally of nothing, sized for these columns.
    pub fn tally(&self) -> Tally {
        Tally {
            ordinals: self
                .single
                .each_ref()
                .map(|c| vec![0; c.as_ref().map_or(0, |c| c.num_terms())]),
            missing: [0; 4],
            years: vec![0; self.years],
            beyond: FxHashMap::default(),
        }
    }

    pub fn single(&self, facet: usize) -> Option<&StrColumn> {
        self.single[facet].as_ref()
    }

    /// Adds `sign` (1 or -1) to the tally of each value of `docs`, which
    /// ascend.
    pub fn count_block(&self, docs: &[DocId], sign: i64, tally: &mut Tally, scratch: &mut Scratch) {
        for (facet, column) in self.single.iter().enumerate() {
            let Some(column) = column else {
                tally.missing[facet] += sign * docs.len() as i64;
                continue;
            };
            let mut ordinals = std::mem::take(&mut scratch.ordinals);
            let missing = first_values(column.ords(), docs, scratch, &mut ordinals);
            tally.missing[facet] += sign * missing as i64;
            let counts = &mut tally.ordinals[facet];
            for &ord in &ordinals {
                counts[ord as usize] += sign;
            }
            scratch.ordinals = ordinals;
        }
        let Some(column) = &self.year else { return };
        let mut years = std::mem::take(&mut scratch.years);
        first_values(column, docs, scratch, &mut years);
        for &year in &years {
            let slot = usize::try_from(year.wrapping_sub(self.first_year)).ok();
            match slot.and_then(|slot| tally.years.get_mut(slot)) {
                Some(n) => *n += sign,
                None => *tally.beyond.entry(year).or_default() += sign,
            }
        }
        scratch.years = years;
    }

    /// The years counted, with their counts.
    pub fn years(&self, tally: &Tally) -> Vec<(String, u64)> {
        let table =
            (tally.years.iter().enumerate()).map(|(slot, n)| (self.first_year + slot as i64, *n));
        table
            .chain(tally.beyond.iter().map(|(year, n)| (*year, *n)))
            .filter_map(|(year, n)| Some((year.to_string(), positive(n)?)))
            .collect()
    }
}

impl Tally {
    /// Adds `other`'s counts (of the same columns).
    pub fn add(&mut self, other: &Tally) {
        for (into, from) in self.ordinals.iter_mut().zip(&other.ordinals) {
            into.iter_mut().zip(from).for_each(|(n, m)| *n += m);
        }
        self.missing
            .iter_mut()
            .zip(other.missing)
            .for_each(|(n, m)| *n += m);
        self.years
            .iter_mut()
            .zip(&other.years)
            .for_each(|(n, m)| *n += m);
        for (year, n) in &other.beyond {
            *self.beyond.entry(*year).or_default() += n;
        }
    }
}

/// A count that is above zero, as a count.
pub fn positive(n: i64) -> Option<u64> {
    u64::try_from(n).ok().filter(|&n| n > 0)
}

/// Room for a block's rows and values, reused from block to block.
#[derive(Default)]
pub struct Scratch {
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
    if matches!(column.index, ColumnIndex::Full) {
        // A value for every document, its row the document: read each,
        // never a range of which only some are asked for.
        out.resize(docs.len(), T::default());
        column.values.get_vals(docs, out);
        return 0;
    }
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

/// The terms of `column` with the given ordinals (ascending), each with
/// its count.
pub fn terms_of(column: &StrColumn, counted: &[(u64, u64)]) -> io::Result<Vec<(String, u64)>> {
    let ords: Vec<u64> = counted.iter().map(|(ord, _)| *ord).collect();
    let mut values = Vec::with_capacity(counted.len());
    let mut counts = counted.iter().map(|(_, n)| *n);
    column.dictionary().sorted_ords_to_term_cb(&ords, |term| {
        let n = counts.next().unwrap_or_default();
        values.push((String::from_utf8_lossy(term).into_owned(), n));
    })?;
    Ok(values)
}
