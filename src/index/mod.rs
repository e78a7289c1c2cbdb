//! The tantivy index: schema, analyzers, documents and atomic rebuilds. Index
//! and search never touch the network.

mod append;
mod code_distances;
mod document;
mod migrate;
pub mod schema;
mod seen_words;
mod shared_directory;
pub mod stamps;
mod store;
pub mod vector_file;
pub mod vector_spill;
pub mod vectors;
mod write_behind;

#[cfg(test)]
pub(crate) mod shipped;

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use tantivy::{Index, IndexWriter, Term};

pub(crate) use append::add_kept;
pub use append::{Appended, KeptRecords, NoKept, append};
pub use document::{day_number, exact_query, id_query, kind_query};
pub use schema::{Fields, SCHEMA_VERSION, identifier_key, identifier_query, key_query};
pub use seen_words::SeenWords;
pub use stamps::Stamps;
pub use store::{IndexDir, OpenIndex, RebuildLock};

use crate::analysis;
use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::metadata::Cache;
use crate::model::{Collection, Record};
use crate::predict::Predictor;
use migrate::{Carried, carry_imported};

/// Memory for the index writer: ample for the catalog.
const WRITER_MEMORY: usize = 64 * 1024 * 1024;
/// The store's zstd level: see `bench/RESULTS.md` (size and import time at
/// a million records).
const DOCSTORE_ZSTD_LEVEL: i32 = 3;
/// The store's block: twice tantivy's default, since zstd finds more to
/// share in more abstracts at once (see `bench/RESULTS.md`).
const DOCSTORE_BLOCK: usize = 32 * 1024;
/// Memory for bulk imports, shared by the writer's threads: enough that
/// each thread's half of a million records makes one segment, no more,
/// since tantivy sizes a thread's term table by its share (at a million
/// records, 768 MB peaked at 695-716 MB of resident memory, 512 at a
/// median of 644 over seven runs, with the same two segments).
const BULK_WRITER_MEMORY: usize = 512 * 1024 * 1024;

/// What a rebuild has to warn of: an index it set aside, records it left out.
pub fn build_warnings(report: &BuildReport) -> Vec<String> {
    let mut warnings: Vec<String> = report.set_aside.iter().map(SetAside::warning).collect();
    if report.imported_left_out > 0 {
        let why = report
            .carry_failed
            .as_ref()
            .map_or(String::new(), |reason| format!(" ({reason})"));
        warnings.push(format!(
            "the index, written by another version of distml-search, held {} imported arXiv records that could not be carried over{why}; import the snapshot again (distml-search import --arxiv-snapshot FILE) to search them",
            report.imported_left_out
        ));
    }
    warnings
}

#[derive(Debug)]
pub struct BuildReport {
    pub documents: usize,
    pub with_abstract: usize,
    pub elapsed: Duration,
    /// Imported records of an index of another schema that this build
    /// could not carry over, and left out.
    pub imported_left_out: u64,
    /// Imported records carried over from an index of another schema.
    pub carried: u64,
    /// Why carrying them failed, when it did.
    pub carry_failed: Option<String>,
    /// A current index that could not be opened, moved aside.
    pub set_aside: Option<SetAside>,
}

#[derive(Debug)]
pub struct SetAside {
    /// Where it went (`None` when its folder was already gone).
    pub aside: Option<std::path::PathBuf>,
    pub reason: String,
}

impl SetAside {
    pub fn warning(&self) -> String {
        let kept = self.aside.as_ref().map_or(String::new(), |path| {
            format!(" (kept in {})", path.display())
        });
        format!(
            "the index could not be read ({}); it was set aside{kept} and rebuilt from the catalog",
            self.reason
        )
    }
}

/// Identifies the data an index was built from: the catalog files, the cache,
/// the schema and this program's version. A search compares it to decide
/// whether the index is stale.
pub fn fingerprint<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    // xxh3: stable across builds and platforms, unlike std's hasher. Each
    // part is preceded by its length, so that parts cannot run together.
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut eat = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    eat(env!("CARGO_PKG_VERSION").as_bytes());
    eat(&SCHEMA_VERSION.to_le_bytes());
    let mut files: Vec<_> = files.into_iter().collect();
    files.sort();
    for (name, bytes) in files {
        eat(name.as_bytes());
        eat(bytes);
    }
    format!("v{SCHEMA_VERSION}-{:016x}", hasher.digest())
}

/// [`rebuild_keeping`] without kept records.
pub fn rebuild(
    dir: &IndexDir,
    lock: &store::RebuildLock,
    catalog: &Catalog,
    cache: &Cache,
    fingerprint: &str,
) -> Result<BuildReport, Error> {
    rebuild_keeping(dir, lock, catalog, cache, fingerprint, &NoKept)
}

/// Builds a new generation from `catalog`, `cache` and `kept` (records kept
/// beside the generations, such as harvested ones) and makes it current.
/// On any error the previous generation stays current. An index holding an
/// imported arXiv collection is updated in place instead (its catalog
/// documents replaced in one tantivy commit, which is atomic too), so that a
/// catalog edit does not re-import millions of records.
pub fn rebuild_keeping(
    dir: &IndexDir,
    lock: &store::RebuildLock,
    catalog: &Catalog,
    cache: &Cache,
    fingerprint: &str,
    kept: &dyn KeptRecords,
) -> Result<BuildReport, Error> {
    let started = Instant::now();
    // An index that cannot be opened is set aside and built anew from the
    // catalog: else only deleting the folder would recover.
    let (previous, set_aside) = match dir.open() {
        Ok(previous) => (previous, None),
        Err(e) => {
            let aside = dir.set_aside(lock)?;
            (
                None,
                Some(SetAside {
                    aside,
                    reason: e.to_string(),
                }),
            )
        }
    };
    if let Some(open) = &previous
        && open.is_compatible()
        && open.imported_records() > 0
    {
        let (documents, with_abstract) = replace_catalog(open, catalog, cache, fingerprint)?;
        return Ok(BuildReport {
            documents,
            with_abstract,
            elapsed: started.elapsed(),
            imported_left_out: 0,
            carried: 0,
            carry_failed: None,
            set_aside: None,
        });
    }
    // An index of another schema is replaced by the catalog, the kept
    // records and its own imported records, read by field name.
    let imported = previous.as_ref().map_or(0, |open| open.imported_records());
    let carry = previous.as_ref().filter(|_| imported > 0);
    // What the previous generation held keeps the stamp it entered with.
    let stamps = Stamps::after_or_fresh(previous.as_ref(), imported > 0);
    let inputs = (catalog, cache, fingerprint, kept, &stamps);
    let mut generation = dir.new_generation(lock)?;
    let mut result = write_generation(&generation, inputs, carry);
    let mut carry_failed = None;
    if let (Err(e), Some(_)) = (&result, carry) {
        // Old documents that cannot be read must not cost the rebuild.
        carry_failed = Some(e.to_string());
        dir.discard(&generation, lock);
        generation = dir.new_generation(lock)?;
        result = write_generation(&generation, inputs, None);
    }
    match result {
        Ok(written) => {
            dir.publish(&generation, lock)?;
            let imported_left_out = match carry_failed {
                Some(_) => imported.saturating_sub(written.kept),
                None => written.carried.unreadable,
            };
            Ok(BuildReport {
                documents: written.documents,
                with_abstract: written.with_abstract,
                elapsed: started.elapsed(),
                imported_left_out,
                carried: written.carried.records,
                carry_failed,
                set_aside,
            })
        }
        Err(e) => {
            dir.discard(&generation, lock);
            Err(e)
        }
    }
}

/// A writer on a new index in `path`. A bulk writer (snapshot imports) uses
/// every core within a memory budget; otherwise one thread, since the
/// catalog is small and one segment searches fastest.
pub fn open_writer(path: &std::path::Path, bulk: bool) -> Result<IndexWriter, Error> {
    let (schema, _) = schema::build_schema();
    // Stored fields are compressed on the indexing threads: a compressor
    // thread per segment writer only adds switches and locks to cores that
    // the indexing threads already fill (1M import: 14.9 -> 13.5 s).
    // zstd rather than lz4: abstracts are most of the store, and a third
    // smaller; a search decompresses only the blocks of the hits it shows.
    let settings = tantivy::IndexSettings {
        docstore_compress_dedicated_thread: false,
        docstore_blocksize: DOCSTORE_BLOCK,
        docstore_compression: tantivy::store::Compressor::Zstd(tantivy::store::ZstdCompressor {
            compression_level: Some(DOCSTORE_ZSTD_LEVEL),
        }),
        ..Default::default()
    };
    let index = Index::builder()
        .schema(schema)
        .settings(settings)
        // The generation is new and empty: this creates.
        .open_or_create(
            shared_directory::SharedDirectory::open(path)
                .map_err(|e| Error::Index(format!("{}: {e}", path.display())))?,
        )
        .map_err(|e| Error::Index(format!("{}: cannot create index: {e}", path.display())))?;
    analysis::register(&index);
    let writer = if bulk {
        let threads = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(8);
        index.writer_with_num_threads(threads, BULK_WRITER_MEMORY)?
    } else {
        index.writer_with_num_threads(1, WRITER_MEMORY)?
    };
    Ok(writer)
}

fn replace_catalog(
    open: &OpenIndex,
    catalog: &Catalog,
    cache: &Cache,
    fingerprint: &str,
) -> Result<(usize, usize), Error> {
    let fields = Fields::from_schema(&open.index.schema())?;
    // Read before the catalog's documents are deleted: each keeps its stamp.
    let stamps = Stamps::after_or_fresh(Some(open), false);
    let mut writer: IndexWriter = open.index.writer_with_num_threads(1, WRITER_MEMORY)?;
    writer.delete_term(Term::from_field_text(
        fields.collection,
        Collection::Catalog.as_str(),
    ));
    let with_abstract = add_catalog(&writer, &fields, catalog, cache, &stamps)
        .map_err(|e| thread_failure(&mut writer, e))?;
    commit(writer, fingerprint, &open.path, None)?;
    Ok((catalog.entries.len(), with_abstract))
}

/// Adds the catalog's entries, completed by the cache, each with its stamp;
/// returns how many have an abstract.
pub(crate) fn add_catalog(
    writer: &IndexWriter,
    fields: &Fields,
    catalog: &Catalog,
    cache: &Cache,
    stamps: &Stamps,
) -> Result<usize, Error> {
    let mut with_abstract = 0;
    // Entries without curated tags, if any, get predicted tags; the model
    // is learned only then (a valid catalog's entries all have tags).
    let predictor = catalog
        .entries
        .iter()
        .any(|e| e.tags.is_empty())
        .then(|| Predictor::train(catalog, cache));
    for entry in &catalog.entries {
        let mut record = Record::from_entry(entry, cache.get(&entry.id));
        record.added = Some(stamps.entry(&entry.id));
        with_abstract += usize::from(record.abstract_text.is_some());
        let doc = record.to_document(fields, &catalog.vocabulary, None, predictor.as_ref());
        writer.add_document(doc)?;
    }
    Ok(with_abstract)
}

/// What [`write_generation`] wrote.
struct Written {
    documents: usize,
    with_abstract: usize,
    kept: u64,
    carried: Carried,
}

/// What a new generation is written from: the catalog, its cache, the
/// fingerprint, the kept records and the stamps.
type Inputs<'a> = (
    &'a Catalog,
    &'a Cache,
    &'a str,
    &'a dyn KeptRecords,
    &'a Stamps,
);

/// The catalog's documents, the imported records carried from `carry` (an
/// index of another schema) and the kept records, which replace carried
/// records of the same arXiv ids.
fn write_generation(
    path: &std::path::Path,
    inputs: Inputs<'_>,
    carry: Option<&OpenIndex>,
) -> Result<Written, Error> {
    let mut writer = open_writer(path, carry.is_some())?;
    let written =
        add_documents(&writer, inputs, carry).map_err(|e| thread_failure(&mut writer, e))?;
    commit(writer, inputs.2, path, None)?;
    Ok(written)
}

/// What `write_generation` writes, before its commit.
fn add_documents(
    writer: &IndexWriter,
    (catalog, cache, _, kept, stamps): Inputs<'_>,
    carry: Option<&OpenIndex>,
) -> Result<Written, Error> {
    let (schema, fields) = schema::build_schema();
    let mut carried = Carried::default();
    if let Some(old) = carry {
        let predictor = Predictor::train(catalog, cache);
        let listed = entries_by_arxiv(catalog, cache);
        // A panic inside tantivy on a corrupt old document is an error here.
        carried = crate::diagnostic::catch_panic(|| {
            carry_imported(
                old,
                writer,
                (&schema, &fields),
                &catalog.vocabulary,
                &predictor,
                &listed,
                stamps,
            )
        })
        .map_err(|panic| Error::Index(format!("{}: {panic}", old.path.display())))??;
    }
    let with_abstract = add_catalog(writer, &fields, catalog, cache, stamps)?;
    let kept = add_kept(
        writer,
        &fields,
        (catalog, cache),
        kept,
        stamps,
        carried.records > 0,
    )?;
    Ok(Written {
        documents: catalog.entries.len(),
        with_abstract,
        kept,
        carried,
    })
}

/// The arXiv id of every catalog entry that has one (its own, or one a
/// lookup found), to the entry's id.
pub(crate) fn entries_by_arxiv(catalog: &Catalog, cache: &Cache) -> HashMap<String, String> {
    catalog
        .entries
        .iter()
        .filter_map(|e| {
            let id = e.arxiv.clone().or_else(|| {
                cache
                    .get(&e.id)
                    .and_then(|c| c.arxiv.as_ref())
                    .map(|i| i.value.clone())
            })?;
            Some((id, e.id.clone()))
        })
        .collect()
}

/// `error`, or, when tantivy only says that an indexing thread died (a full
/// disk, say), the thread's own error, which the writer gives back when it
/// joins its threads: "File too large" says what "an index writer was
/// killed" does not. Which of the two a failed write reports first is a
/// race between the threads.
pub(crate) fn thread_failure(writer: &mut IndexWriter, error: Error) -> Error {
    if !matches!(
        error,
        Error::Tantivy(tantivy::TantivyError::ErrorInThread(_))
    ) {
        return error;
    }
    match writer.prepare_commit() {
        Err(cause) => cause.into(),
        Ok(_) => error,
    }
}

/// Commits with the fingerprint of the inputs as payload, waits for the
/// merges, so that the index is whole when the writer is gone, and writes
/// the new segments' vector files into the generation at `path` (an
/// import's documents' from what its workers `spilled`).
pub(crate) fn commit(
    mut writer: IndexWriter,
    fingerprint: &str,
    path: &Path,
    spilled: Option<&vector_spill::SpilledVectors>,
) -> Result<(), Error> {
    let mut commit = writer.prepare_commit()?;
    commit.set_payload(fingerprint);
    commit.commit()?;
    let index = writer.index().clone();
    writer.wait_merging_threads()?;
    let reader: tantivy::IndexReader = (index.reader_builder())
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()?;
    let searcher = reader.searcher();
    vector_file::remove_stale(path, &searcher);
    vector_file::write_missing(path, &searcher, spilled)
}
