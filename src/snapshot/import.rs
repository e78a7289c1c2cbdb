//! Streaming a snapshot into a new index generation: the catalog's entries
//! plus every snapshot record that passes the filters. A record whose arXiv id
//! is a catalog entry's is not a second result: its abstract and authors go
//! to the entry (arXiv metadata is CC0). Interrupted, the import leaves the
//! current index as it was.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufReader, IsTerminal, Read, Write};
use std::path::Path;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use super::options::{Import, ImportOptions, ImportReport, is_gzipped};
use super::workers::{Batch, first_lines, index_records};
use crate::catalog::Catalog;
use crate::diagnostic;
use crate::error::Error;
use crate::index::vector_spill::SpilledVectors;
use crate::index::{
    IndexDir, KeptRecords, Stamps, add_catalog, add_kept, commit, entries_by_arxiv, fingerprint,
    identifier_key, schema, thread_failure,
};
use crate::model::Record;
use crate::model::metadata::{Cache, FoundBy, IdKind, Identifier};
use crate::model::paper::{PaperRecord, Source, normalize_whitespace};
use crate::predict::{Predictor, SAVED_MODEL_FILE};

const MALFORMED_SHOWN: usize = 20;

fn open(path: &Path) -> Result<(Box<dyn Read>, Option<u64>), Error> {
    if path == Path::new("-") {
        return Ok((Box::new(std::io::stdin()), None));
    }
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file.metadata().ok().map(|m| m.len());
    Ok((Box::new(file), size))
}

fn progress(size: Option<u64>) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let (bar, template) = match size {
        Some(size) => (
            ProgressBar::new(size),
            "{bar:30} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta} {msg}",
        ),
        None => (
            ProgressBar::new_spinner(),
            "{spinner} {bytes} {bytes_per_sec} {msg}",
        ),
    };
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Imports the snapshot and the catalog into a new generation, merging
/// records of catalog entries into `cache` (saved to `cache_dir` first).
pub fn import_snapshot(
    dir: &IndexDir,
    catalog: &Catalog,
    cache: &mut Cache,
    cache_dir: Option<&Path>,
    index_inputs: impl Fn() -> Result<Vec<(String, Vec<u8>)>, Error>,
    options: &ImportOptions,
    err: &mut dyn Write,
) -> Result<ImportReport, Error> {
    let started = Instant::now();
    let lock = dir.lock_waiting(|| {
        diagnostic::note(
            err,
            "another index rebuild is running; waiting for it to finish",
        )
    })?;
    let previous = dir.open().ok().flatten();
    // What an import that keeps nothing would throw away.
    let before = previous.as_ref().map_or(0, |open| open.imported_records());
    // A record the index held keeps the stamp it entered with: only what
    // is new to the index is new to a watch.
    let stamps = Stamps::after_or_fresh(previous.as_ref(), true);
    drop(previous);
    let by_arxiv = entries_by_arxiv(catalog, cache);
    let (input, bar) = open_snapshot(&options.path)?;
    let generation = dir.new_generation(&lock)?;
    let import = Import {
        catalog,
        options,
        by_arxiv,
        // Learned once (or kept from the last run), from the catalog as it
        // is before the import merges records into the cache (a merge adds
        // abstracts, not tags).
        predictor: Predictor::train_reusing(catalog, cache, &dir.file(SAVED_MODEL_FILE)),
        stamps,
        started,
    };
    let result = import.write_generation(&generation, input, &bar, cache, cache_dir, index_inputs);
    bar.finish_and_clear();
    // Searches see the new generation only once it is complete.
    let result = result.and_then(|report| keeps_something(report, before, options));
    match result {
        Ok(report) => {
            dir.publish(&generation, &lock)?;
            Ok(report)
        }
        Err(e) => {
            dir.discard(&generation, &lock);
            Err(e)
        }
    }
}

/// An empty input, or one whose every line is malformed or filtered out,
/// would replace the imported records with none: refused, unless asked.
fn keeps_something(
    report: ImportReport,
    before: u64,
    options: &ImportOptions,
) -> Result<ImportReport, Error> {
    if report.indexed > 0 || before == 0 || options.allow_empty {
        return Ok(report);
    }
    Err(Error::Usage(format!(
        "{}: no record imported ({} lines, {} malformed, {} filtered out); the index keeps its {before} imported records (pass --allow-empty to replace them with none)",
        options.path.display(),
        report.lines,
        report.malformed_count,
        report.filtered
    )))
}

/// The snapshot's bytes, decompressed if it is gzipped, and its progress
/// bar. A gzipped file's bar counts the compressed bytes as the decoder
/// reads them; any other input's is moved by the reader (see
/// [`is_gzipped`]), which then reads straight from the file: a counting
/// wrapper would have every block zeroed before each read (std's
/// `read_buf`, which only the standard library's readers override).
fn open_snapshot(path: &Path) -> Result<(Box<dyn Read>, ProgressBar), Error> {
    let (reader, size) = open(path)?;
    let bar = progress(size);
    let input: Box<dyn Read> = if is_gzipped(path) {
        let reader = bar.wrap_read(reader);
        Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(reader)))
    } else {
        reader
    };
    Ok((input, bar))
}

/// A record added after the snapshot's has a vector of its own, not the
/// one spilled for its arXiv id.
fn forget(spilled: &RefCell<SpilledVectors>, arxiv: Option<&str>) {
    if let Some(id) = arxiv {
        spilled.borrow_mut().forget(identifier_key(id));
    }
}

/// Kept records, each forgotten by the spilled vectors as it is added.
struct Forgetting<'a> {
    kept: &'a dyn KeptRecords,
    spilled: &'a RefCell<SpilledVectors>,
}

impl KeptRecords for Forgetting<'_> {
    fn each_record(
        &self,
        catalog: &Catalog,
        cache: &Cache,
        add: &mut dyn FnMut(Record) -> Result<(), Error>,
    ) -> Result<u64, Error> {
        self.kept.each_record(catalog, cache, &mut |record| {
            forget(self.spilled, record.arxiv.as_deref());
            add(record)
        })
    }
}

impl Import<'_> {
    /// Writes the snapshot's records and the catalog's entries into
    /// `generation`, which is left unpublished.
    fn write_generation(
        &self,
        generation: &Path,
        input: Box<dyn Read>,
        bar: &ProgressBar,
        cache: &mut Cache,
        cache_dir: Option<&Path>,
        index_inputs: impl Fn() -> Result<Vec<(String, Vec<u8>)>, Error>,
    ) -> Result<ImportReport, Error> {
        let mut writer = crate::index::open_writer(generation, true)?;
        let mut report = ImportReport::default();
        let spilled = (self.add_documents(
            &writer,
            (input, generation),
            bar,
            cache,
            cache_dir,
            &mut report,
        ))
        .map_err(|e| thread_failure(&mut writer, e))?;
        let inputs = index_inputs()?;
        let print = fingerprint(inputs.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
        commit(writer, &print, generation, Some(&spilled))?;
        report.elapsed = self.started.elapsed();
        Ok(report)
    }

    /// The snapshot's records, then the catalog's entries and the kept
    /// records, added to `writer` (not yet committed); the vectors the
    /// snapshot's records were indexed with, for the documents that are
    /// still theirs.
    fn add_documents(
        &self,
        writer: &tantivy::IndexWriter,
        (input, generation): (Box<dyn Read>, &Path),
        bar: &ProgressBar,
        cache: &mut Cache,
        cache_dir: Option<&Path>,
        report: &mut ImportReport,
    ) -> Result<SpilledVectors, Error> {
        let (_, fields) = schema::build_schema();
        let (batches, spilled) =
            index_records(self, (input, generation), writer, &fields, report, bar)?;
        let spilled = RefCell::new(spilled);
        self.tally(report, batches, cache);
        if let Some(dir) = cache_dir
            && report.merged > 0
        {
            cache.save(dir)?;
        }
        // The catalog's documents need nothing forgotten: a record with a
        // catalog entry's arXiv id is merged into the entry, never indexed
        // (or spilled) by the workers.
        add_catalog(writer, &fields, self.catalog, cache, &self.stamps)?;
        if let Some(kept) = &self.options.kept {
            let inputs = (self.catalog, &*cache);
            let kept = Forgetting {
                kept: kept.as_ref(),
                spilled: &spilled,
            };
            add_kept(writer, &fields, inputs, &kept, &self.stamps, true)?;
        }
        Ok(spilled.into_inner())
    }

    /// Adds the workers' batches up into `report`, numbering malformed lines
    /// by their place in the file, and merges the records of catalog entries
    /// into `cache`.
    fn tally(&self, report: &mut ImportReport, batches: Vec<Batch>, cache: &mut Cache) {
        let now = crate::clock::now_rfc3339();
        let first_lines = first_lines(&batches);
        report.lines = first_lines.last().copied().unwrap_or(1) - 1;
        for batch in batches {
            report.indexed += batch.indexed;
            report.filtered += batch.filtered;
            report.duplicates += batch.duplicates;
            report.malformed_count += batch.malformed.len() as u64;
            report.malformed.extend(
                batch
                    .malformed
                    .into_iter()
                    .map(|(block, offset, why)| (first_lines[block] + offset, why)),
            );
            for record in batch.merged {
                if self.merge(record, cache, &now) {
                    report.merged += 1;
                }
            }
        }
        report.malformed.sort();
        report.malformed.truncate(MALFORMED_SHOWN);
    }

    /// Merges `record` into the cached metadata of the catalog entry with its
    /// arXiv id; false when no entry has it.
    fn merge(&self, mut record: PaperRecord, cache: &mut Cache, now: &str) -> bool {
        let arxiv_id = record.arxiv.clone().unwrap_or_default();
        let Some(entry_id) = self.by_arxiv.get(&arxiv_id) else {
            return false;
        };
        let cached = cache.entries.entry(entry_id.clone()).or_default();
        cached.identify(
            IdKind::Arxiv,
            Identifier {
                value: arxiv_id,
                found_by: FoundBy::Record,
                source: Some(Source::Arxiv),
                confidence: None,
            },
        );
        record.abstract_text = record.abstract_text.map(|a| normalize_whitespace(&a));
        cached.absorb(&record, Source::Arxiv, now);
        true
    }
}
