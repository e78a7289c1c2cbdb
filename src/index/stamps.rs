//! When each record entered the index: its stamp, in the `added` column.
//!
//! A stamp is milliseconds since the Unix epoch, taken when a writer starts
//! and later than every stamp the index already holds, so that stamps grow
//! from one commit to the next even if the clock steps back. One writer
//! runs at a time (the rebuild lock), so a reader that has seen the index
//! through stamp `T` knows that whatever it has not seen is stamped after
//! `T`: that is how `watch` tells what is new, and says it once.
//!
//! A record keeps its stamp for as long as the index holds it: a catalog
//! entry rebuilt keeps its own (found by its id), an arXiv record its own
//! (found by its arXiv id) through new versions, rebuilds, schema changes
//! and snapshot imports. Only what was not in the index before is stamped
//! anew.

use std::collections::{HashMap, HashSet};
use std::time::{SystemTime, UNIX_EPOCH};

use rustc_hash::FxHashMap;
use tantivy::collector::DocSetCollector;
use tantivy::schema::Value;
use tantivy::{Searcher, TantivyDocument, Term};

use super::OpenIndex;
use crate::error::Error;
use crate::model::Collection;

/// The column, by name (an index of another schema may lack it).
pub const ADDED: &str = "added";

/// The stamps a writer gives: what the index held keeps its own; the rest
/// gets `now`.
#[derive(Debug, Clone)]
pub struct Stamps {
    /// The stamp of what enters the index with this writer.
    pub now: i64,
    /// Catalog entries' stamps, by entry id.
    entries: HashMap<String, i64>,
    /// Imported records' stamps, by arXiv id key (`identifier_key`).
    records: FxHashMap<u64, i64>,
}

impl Stamps {
    /// Stamps for an index with nothing before it.
    pub fn fresh() -> Stamps {
        Stamps::at(next_stamp(None))
    }

    /// Stamps that give `now` to everything (until more are added).
    pub fn at(now: i64) -> Stamps {
        Stamps {
            now,
            entries: HashMap::new(),
            records: FxHashMap::default(),
        }
    }

    /// Stamps for what is written after `previous` (a generation being
    /// replaced, or added to): its catalog entries keep theirs, and with
    /// `records` its imported records too (a column pass over every
    /// imported record, which only writers that may meet them again pay).
    /// An index of another schema without stamps keeps none.
    pub fn after(previous: Option<&OpenIndex>, records: bool) -> Result<Stamps, Error> {
        let Some(open) = previous else {
            return Ok(Stamps::fresh());
        };
        let searcher = open.reader.searcher();
        Ok(Stamps {
            now: next_stamp(latest(&searcher)),
            entries: entry_stamps(open, &searcher)?,
            records: if records {
                record_stamps(&searcher, None)?
            } else {
                FxHashMap::default()
            },
        })
    }

    /// [`Stamps::after`], or when the previous generation's stamps cannot be
    /// read (it is damaged, or of a schema that keeps them otherwise), none
    /// kept: a rebuild does not fail for what only says what is new.
    pub fn after_or_fresh(previous: Option<&OpenIndex>, records: bool) -> Stamps {
        let read = crate::diagnostic::catch_panic(|| Stamps::after(previous, records));
        match read {
            Ok(Ok(stamps)) => stamps,
            _ => Stamps::fresh(),
        }
    }

    /// The stamp of the catalog entry `id`.
    pub fn entry(&self, id: &str) -> i64 {
        self.entries.get(id).copied().unwrap_or(self.now)
    }

    /// The stamp of the imported record of arXiv id key `key`.
    pub fn record(&self, key: u64) -> i64 {
        self.records.get(&key).copied().unwrap_or(self.now)
    }

    /// The stamp of the imported record of arXiv id `arxiv` (none: `now`).
    pub fn arxiv(&self, arxiv: Option<&str>) -> i64 {
        arxiv.map_or(self.now, |id| self.record(super::identifier_key(id)))
    }

    /// These stamps with the imported records of `keys` too, as `searcher`
    /// holds them (one pass over the arXiv key column per segment).
    pub fn with_records(mut self, searcher: &Searcher, keys: &HashSet<u64>) -> Result<Self, Error> {
        if !keys.is_empty() {
            self.records.extend(record_stamps(searcher, Some(keys))?);
        }
        Ok(self)
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A stamp as RFC 3339, in UTC, to the millisecond:
/// `2026-12-05T10:00:00.123Z`.
pub fn stamp_time(stamp: i64) -> String {
    let nanos = i128::from(stamp) * 1_000_000;
    time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// A stamp for what enters now: the clock, or just after `latest` when the
/// clock is behind it.
pub fn next_stamp(latest: Option<i64>) -> i64 {
    let now = now_millis();
    latest.map_or(now, |latest| now.max(latest.saturating_add(1)))
}

/// The latest stamp `searcher` holds: each segment's column keeps its
/// greatest value, so nothing is scanned. `None` for an index without
/// stamps.
pub fn latest(searcher: &Searcher) -> Option<i64> {
    searcher
        .segment_readers()
        .iter()
        .filter_map(|segment| {
            let column = segment.fast_fields().column_opt::<i64>(ADDED).ok()??;
            (column.values.num_vals() > 0).then(|| column.max_value())
        })
        .max()
}

/// The stamps of the catalog's documents, by id: a catalog is small, so
/// its stored ids are read.
fn entry_stamps(open: &OpenIndex, searcher: &Searcher) -> Result<HashMap<String, i64>, Error> {
    let schema = open.index.schema();
    let (Ok(collection), Ok(id)) = (schema.get_field("collection"), schema.get_field("id")) else {
        return Ok(HashMap::new());
    };
    let catalog = tantivy::query::TermQuery::new(
        Term::from_field_text(collection, Collection::Catalog.as_str()),
        tantivy::schema::IndexRecordOption::Basic,
    );
    let mut stamps = HashMap::new();
    for address in searcher.search(&catalog, &DocSetCollector)? {
        let segment = searcher.segment_reader(address.segment_ord);
        let Some(column) = segment.fast_fields().column_opt::<i64>(ADDED)? else {
            continue;
        };
        let Some(stamp) = column.first(address.doc_id) else {
            continue;
        };
        let doc: TantivyDocument = searcher.doc(address)?;
        if let Some(id) = doc.get_first(id).and_then(|v| v.as_str()) {
            stamps.insert(id.to_string(), stamp);
        }
    }
    Ok(stamps)
}

/// The stamps of the documents with an arXiv id key (all of them, or those
/// of `only`), by key; of two documents with one key, the earlier stamp.
fn record_stamps(
    searcher: &Searcher,
    only: Option<&HashSet<u64>>,
) -> Result<FxHashMap<u64, i64>, Error> {
    let mut stamps = FxHashMap::default();
    for segment in searcher.segment_readers() {
        let fast = segment.fast_fields();
        let (Some(keys), Some(added)) = (
            fast.column_opt::<u64>("arxiv_key")?,
            fast.column_opt::<i64>(ADDED)?,
        ) else {
            continue;
        };
        let alive = segment.alive_bitset();
        for doc in 0..segment.max_doc() {
            if alive.is_some_and(|a| a.is_deleted(doc)) {
                continue;
            }
            let Some(key) = keys.first(doc) else { continue };
            if only.is_some_and(|only| !only.contains(&key)) {
                continue;
            }
            if let Some(stamp) = added.first(doc) {
                stamps
                    .entry(key)
                    .and_modify(|s: &mut i64| *s = (*s).min(stamp))
                    .or_insert(stamp);
            }
        }
    }
    Ok(stamps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_follows_the_latest_even_when_the_clock_is_behind() {
        let now = now_millis();
        assert!(next_stamp(None) >= now);
        assert!(next_stamp(Some(now - 10_000)) >= now);
        let ahead = now + 3_600_000;
        assert_eq!(next_stamp(Some(ahead)), ahead + 1);
    }
}
