//! Adding records to the current generation in place, in one tantivy commit:
//! the cost follows what is added, not the size of the index, and searches
//! keep answering (they see the commit whole, or not yet).
//!
//! Also what every generation built afresh must hold besides the catalog:
//! the records kept outside the generations ([`KeptRecords`], the harvest),
//! which a rebuild or a snapshot import would otherwise drop.

use crate::predict::Predictor;
use std::collections::HashSet;
use std::time::{Duration, Instant};

use tantivy::query::{
    BitSetDocSet, BooleanQuery, ConstScorer, EnableScoring, Explanation, Occur, Query, Scorer,
    Weight,
};
use tantivy::{BitSet, DocId, IndexWriter, Score, SegmentReader, TantivyError};

use super::schema::identifier_key;
use super::stamps::{Stamps, latest, next_stamp};
use super::{Fields, IndexDir, WRITER_MEMORY, commit, exact_query, store::RebuildLock};
use crate::catalog::{Catalog, Vocabulary};
use crate::error::Error;
use crate::model::metadata::Cache;
use crate::model::{Collection, Record};

/// Records that live beside the index's generations and belong in each.
pub trait KeptRecords {
    /// Calls `add` with each record, the newest version of each arXiv id
    /// once, leaving out those of catalog entries (their metadata goes to
    /// the entry, not to a second result); returns how many it added.
    fn each_record(
        &self,
        catalog: &Catalog,
        cache: &Cache,
        add: &mut dyn FnMut(Record) -> Result<(), Error>,
    ) -> Result<u64, Error>;
}

/// No kept records.
pub struct NoKept;

impl KeptRecords for NoKept {
    fn each_record(
        &self,
        _: &Catalog,
        _: &Cache,
        _: &mut dyn FnMut(Record) -> Result<(), Error>,
    ) -> Result<u64, Error> {
        Ok(0)
    }
}

/// Adds the kept records to a generation being written, each with the
/// stamp it had. With `replace`, imported records of the same arXiv ids
/// added before are deleted first (a snapshot import's, older than the
/// harvest's).
pub(crate) fn add_kept(
    writer: &IndexWriter,
    fields: &Fields,
    (catalog, cache): (&Catalog, &Cache),
    kept: &dyn KeptRecords,
    stamps: &Stamps,
    replace: bool,
) -> Result<u64, Error> {
    // Learned on the first kept record: most rebuilds keep none, and
    // learning costs a rebuild more than the catalog's own documents.
    let predictor = std::cell::OnceCell::new();
    let predictor = || predictor.get_or_init(|| Predictor::train(catalog, cache));
    let mut records = Vec::new();
    let mut add = |mut record: Record| -> Result<(), Error> {
        record.added = Some(stamps.arxiv(record.arxiv.as_deref()));
        if replace {
            records.push(record);
        } else {
            let doc = record.to_document(fields, &catalog.vocabulary, None, Some(predictor()));
            writer.add_document(doc)?;
        }
        Ok(())
    };
    let added = kept.each_record(catalog, cache, &mut add)?;
    if replace && !records.is_empty() {
        replace_records(
            writer,
            fields,
            &catalog.vocabulary,
            predictor(),
            &records,
            &[],
        )?;
    }
    Ok(added)
}

#[derive(Debug, Default)]
pub struct Appended {
    pub added: usize,
    pub elapsed: Duration,
}

/// Adds `records` to the current generation, replacing the imported
/// records of the same arXiv ids, and deletes the imported records of
/// `removed`; one commit, which keeps the generation's fingerprint (the
/// catalog it was built from has not changed). A record the generation
/// held keeps its stamp; the others are stamped now (see `stamps`).
pub fn append(
    dir: &IndexDir,
    _lock: &RebuildLock,
    vocabulary: &Vocabulary,
    predictor: &Predictor,
    records: &[Record],
    removed: &[String],
) -> Result<Appended, Error> {
    let started = Instant::now();
    if records.is_empty() && removed.is_empty() {
        return Ok(Appended::default());
    }
    let open = dir.open()?.ok_or_else(|| {
        Error::Index("no index to add records to; run `distml-search index`".into())
    })?;
    let fields = Fields::from_schema(&open.index.schema())?;
    let searcher = open.reader.searcher();
    let keys: HashSet<u64> = (records.iter())
        .filter_map(|r| r.arxiv.as_deref())
        .map(identifier_key)
        .collect();
    let stamps = Stamps::at(next_stamp(latest(&searcher))).with_records(&searcher, &keys)?;
    let records: Vec<Record> = (records.iter())
        .map(|r| Record {
            added: Some(stamps.arxiv(r.arxiv.as_deref())),
            ..r.clone()
        })
        .collect();
    let mut writer: IndexWriter = open.index.writer_with_num_threads(1, WRITER_MEMORY)?;
    replace_records(&writer, &fields, vocabulary, predictor, &records, removed)
        .map_err(|e| super::thread_failure(&mut writer, e))?;
    commit(
        writer,
        open.fingerprint.as_deref().unwrap_or_default(),
        &open.path,
        None,
    )?;
    Ok(Appended {
        added: records.len(),
        elapsed: started.elapsed(),
    })
}

/// Deletes the imported records with the arXiv ids of `records` and of
/// `removed`, then adds `records`: tantivy applies a delete to what was
/// added before it only, so the new versions stay.
fn replace_records(
    writer: &IndexWriter,
    fields: &Fields,
    vocabulary: &Vocabulary,
    predictor: &Predictor,
    records: &[Record],
    removed: &[String],
) -> Result<(), Error> {
    let keys: HashSet<u64> = records
        .iter()
        .filter_map(|r| r.arxiv.as_deref())
        .chain(removed.iter().map(String::as_str))
        .map(identifier_key)
        .collect();
    if !keys.is_empty() {
        let imported = exact_query(fields.collection, Collection::Arxiv.as_str());
        let with_keys = Box::new(KeySetQuery {
            field: writer
                .index()
                .schema()
                .get_field_name(fields.arxiv_key)
                .to_string(),
            keys,
        });
        writer.delete_query(Box::new(BooleanQuery::new(vec![
            (Occur::Must, imported),
            (Occur::Must, with_keys),
        ])))?;
    }
    for record in records {
        // Without `SeenWords`: these records may later be replaced one by
        // one, so each writes its own words to the typo dictionary.
        writer.add_document(record.to_document(fields, vocabulary, None, Some(predictor)))?;
    }
    Ok(())
}

/// The documents whose fast field `field` holds one of `keys`: one pass
/// over the column per segment, however many keys (a range query per key
/// would scan the column once for each).
#[derive(Debug, Clone)]
struct KeySetQuery {
    field: String,
    keys: HashSet<u64>,
}

impl Query for KeySetQuery {
    fn weight(&self, _: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for KeySetQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let column = reader.fast_fields().u64(&self.field)?;
        let max_doc = reader.max_doc();
        let mut docs = BitSet::with_max_value(max_doc);
        for doc in 0..max_doc {
            if column
                .values_for_doc(doc)
                .any(|key| self.keys.contains(&key))
            {
                docs.insert(doc);
            }
        }
        Ok(Box::new(ConstScorer::new(BitSetDocSet::from(docs), boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let column = reader.fast_fields().u64(&self.field)?;
        if column
            .values_for_doc(doc)
            .any(|key| self.keys.contains(&key))
        {
            Ok(Explanation::new("KeySetQuery", 1.0))
        } else {
            Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            )))
        }
    }
}
