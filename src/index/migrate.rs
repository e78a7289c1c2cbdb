//! Imported records carried out of a generation written with another schema
//! (another build of distml-search) into a new one. The old generation is
//! read by field name: its stored documents are the imported records, so a
//! schema change rebuilds them instead of asking for the snapshot again.

use std::collections::HashMap;

use tantivy::schema::{Document, Schema, Value};
use tantivy::{IndexWriter, TantivyDocument};

use super::{Fields, OpenIndex, Stamps};
use crate::catalog::Vocabulary;
use crate::error::Error;
use crate::model::{Collection, Record};
use crate::predict::Predictor;

/// What carrying the imported records came to.
#[derive(Debug, Default, PartialEq)]
pub struct Carried {
    /// Records written into the new generation.
    pub records: u64,
    /// Records the old documents no longer make (no arXiv id or title: an
    /// older build stored less), left out.
    pub unreadable: u64,
}

/// Adds every live imported record of `old` to `writer` as a document of
/// `schema`, predicting tags anew, except the records of `listed` arXiv ids
/// (catalog entries now: their metadata belongs to the entry). A record
/// keeps its stamp; one an older build wrote without any gets `stamps.now`.
pub(crate) fn carry_imported(
    old: &OpenIndex,
    writer: &IndexWriter,
    (schema, fields): (&Schema, &Fields),
    vocabulary: &Vocabulary,
    predictor: &Predictor,
    listed: &HashMap<String, String>,
    stamps: &Stamps,
) -> Result<Carried, Error> {
    let old_schema = old.index.schema();
    let collection = old_schema.get_field("collection").ok();
    let mut carried = Carried::default();
    for segment in old.reader.searcher().segment_readers() {
        let store = segment
            .get_store_reader(1)
            .map_err(|e| Error::io(&old.path, e))?;
        for doc in store.iter::<TantivyDocument>(segment.alive_bitset()) {
            let doc = doc?;
            let imported = collection
                .and_then(|field| doc.get_first(field))
                .and_then(|v| v.as_str())
                == Some(Collection::Arxiv.as_str());
            if !imported {
                continue;
            }
            // Fields this schema lacks are dropped; those it added stay empty.
            let doc = TantivyDocument::convert_named_doc(schema, doc.to_named_doc(&old_schema))
                .map_err(|e| Error::Index(format!("{}: {e}", old.path.display())))?;
            let mut record = Record::from_document(&doc, fields);
            record.added = record.added.or(Some(stamps.now));
            match record.arxiv.as_deref() {
                Some(id) if !record.title.is_empty() => {
                    if !listed.contains_key(id) {
                        let doc = record.to_document(fields, vocabulary, None, Some(predictor));
                        writer.add_document(doc)?;
                        carried.records += 1;
                    }
                }
                _ => carried.unreadable += 1,
            }
        }
    }
    Ok(carried)
}
