//! The inbox read from the index: every record of the arxiv collection
//! scored by its stored vector alone (`BestByVector`), only the best read
//! whole and assessed (`candidate`). What `inbox` lists and the server's
//! `/api/inbox` and feed answer.

use std::sync::atomic::{AtomicBool, Ordering};

use tantivy::TantivyDocument;
use tantivy::collector::DocSetCollector;

use super::{Belongs, Candidate, Listed, Rejected};
use crate::catalog::Catalog;
use crate::embed::stored::{HEAD, Head, unpack};
use crate::embed::{DIMS, Vector};
use crate::error::Error;
use crate::index::vectors::{BestByVector, Keep, VectorFiles, VectorScore, vector_at};
use crate::index::{Fields, OpenIndex, exact_query, id_query, identifier_key};
use crate::model::metadata::Cache;
use crate::model::{Collection, Record, arxiv_record_id};

/// What the inbox learns of the catalog: which works are listed, and how
/// well a record belongs. The server keeps one; the command learns it
/// at each run.
pub struct Learned {
    listed: Listed,
    belongs: Belongs,
}

impl Learned {
    pub fn learn(catalog: &Catalog, cache: &Cache) -> Learned {
        Learned {
            listed: Listed::new(catalog, cache),
            belongs: Belongs::train(catalog, cache),
        }
    }
}

/// The best `limit` candidates of the arxiv collection, best first, and
/// how many candidates there are: those first submitted on `since` (a day
/// number) or later when given. `since` chooses what is shown, not how it
/// is scored, so a candidate's score is the same whatever the day.
///
/// Every record is scored by its stored vector alone (a scan of the
/// vector files); only the best are read from the store, and those that turn
/// out to be listed (by DOI or title) make way for the next.
///
/// Once `stop` is set (the server's clients all left), the rest of the
/// work is skipped and the answer is an error.
pub fn ranked(
    catalog: &Catalog,
    learned: &Learned,
    rejected: &Rejected,
    open: &OpenIndex,
    since: Option<i64>,
    limit: usize,
    stop: &AtomicBool,
) -> Result<(Vec<Candidate>, usize), Error> {
    let stopped = || match stop.load(Ordering::Relaxed) {
        true => Err(Error::Usage(
            "the inbox was not computed: its clients left".into(),
        )),
        false => Ok(()),
    };
    let fields = Fields::from_schema(&open.index.schema())?;
    let searcher = open.reader.searcher();
    let rejected_vectors = stored_vectors(open, &fields, rejected.ids())?;
    let excluded = (learned.listed.arxiv_ids())
        .chain(rejected.ids())
        .map(identifier_key)
        .collect();
    let keep = Keep { since, excluded };
    let score = Belonging {
        belongs: &learned.belongs,
        rejected: &rejected_vectors,
        rejected_heads: rejected_vectors.iter().map(Head::of).collect(),
        stop,
    };
    let files = VectorFiles::of(&open.path, &searcher);
    let query = exact_query(fields.collection, Collection::Arxiv.as_str());
    // Room for a few listed by DOI or title among the best.
    let mut fetched = limit + 8;
    loop {
        let scan = BestByVector {
            score: &score,
            keep: &keep,
            limit: fetched,
            files: &files,
        };
        let (best, scored) = scan.search(&searcher, &query)?;
        let mut found = Vec::with_capacity(limit);
        let mut listed = 0;
        for &(_, address) in &best {
            stopped()?;
            let doc: TantivyDocument = searcher.doc(address)?;
            let record = Record::from_document(&doc, &fields);
            if learned.listed.find(&record).is_some() {
                listed += 1;
                continue;
            }
            let vector = vector_at(&searcher, &files, address)?.unwrap_or([0.0; DIMS]);
            found.push(super::candidate(
                catalog,
                &learned.belongs,
                record,
                &vector,
                &rejected_vectors,
            ));
        }
        if found.len() >= limit || best.len() < fetched {
            found.sort_by(|a, b| {
                (b.score.total_cmp(&a.score)).then_with(|| a.record.arxiv.cmp(&b.record.arxiv))
            });
            found.truncate(limit);
            return Ok((found, scored - listed));
        }
        fetched *= 4;
    }
}

/// How well a stored vector belongs in the list; nothing once `stop` is
/// set.
struct Belonging<'a> {
    belongs: &'a Belongs,
    rejected: &'a [Vector],
    rejected_heads: Vec<Head>,
    stop: &'a AtomicBool,
}

impl VectorScore for Belonging<'_> {
    fn exact(&self, packed: &[u8]) -> f32 {
        match self.stop.load(Ordering::Relaxed) {
            true => f32::NEG_INFINITY,
            false => self.belongs.score(&unpack(packed), self.rejected),
        }
    }

    fn rough(&self, head: &[i8; HEAD], norm: f32) -> f32 {
        match self.stop.load(Ordering::Relaxed) {
            true => f32::NEG_INFINITY,
            false => self.belongs.rough_score(head, norm, &self.rejected_heads),
        }
    }
}

/// The stored vectors of the imported records of `arxiv` ids (those the
/// index holds).
fn stored_vectors<'a>(
    open: &OpenIndex,
    fields: &Fields,
    arxiv: impl Iterator<Item = &'a str>,
) -> Result<Vec<Vector>, Error> {
    let searcher = open.reader.searcher();
    let files = VectorFiles::of(&open.path, &searcher);
    let mut vectors = Vec::new();
    for id in arxiv {
        let found = searcher.search(&id_query(fields, &arxiv_record_id(id)), &DocSetCollector)?;
        if let Some(address) = found.into_iter().min()
            && let Some(vector) = vector_at(&searcher, &files, address)?
        {
            vectors.push(vector);
        }
    }
    Ok(vectors)
}
