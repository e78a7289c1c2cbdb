//! Streaming a snapshot into a new index generation: the catalog's entries
//! plus every snapshot record that passes the filters. A record whose arXiv id
//! is a catalog entry's is not a second result: its abstract and authors go
//! to the entry (arXiv metadata is CC0). Interrupted, the import leaves the
//! current index as it was.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::thread::ScopedJoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use super::record::parse_line;
use crate::catalog::Catalog;
use crate::diagnostic;
use crate::error::Error;
use crate::index::{Fields, IndexDir, SeenWords, add_catalog, commit, fingerprint, schema};
use crate::model::metadata::{Cache, FoundBy, IdKind, Identifier};
use crate::model::paper::{PaperRecord, Source, normalize_whitespace};

pub struct ImportOptions {
    /// A `.jsonl` or `.jsonl.gz` file, or `-` for standard input.
    pub path: PathBuf,
    /// Keep records with any of these categories (all when empty).
    pub categories: Vec<String>,
    /// Keep records whose first version is from this year or later.
    pub since: Option<i64>,
}

#[derive(Debug, Default)]
pub struct ImportReport {
    pub lines: u64,
    pub indexed: u64,
    pub filtered: u64,
    /// Records that were catalog entries: merged into them, not duplicated.
    pub merged: u64,
    /// (line number, reason) of the first malformed lines.
    pub malformed: Vec<(u64, String)>,
    pub malformed_count: u64,
    pub bytes: u64,
    pub elapsed: Duration,
}

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
    let by_arxiv = entries_by_arxiv(catalog, cache);
    let (input, bar) = open_snapshot(&options.path)?;
    let generation = dir.new_generation(&lock)?;
    let import = Import {
        catalog,
        options,
        by_arxiv,
        started,
    };
    let result = import.write_generation(&generation, input, &bar, cache, cache_dir, index_inputs);
    bar.finish_and_clear();
    // Searches see the new generation only once it is complete.
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

/// The arXiv id of every catalog entry that has one (its own, or one a
/// lookup found), to the entry's id.
fn entries_by_arxiv(catalog: &Catalog, cache: &Cache) -> HashMap<String, String> {
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

/// The snapshot's bytes, decompressed if it is gzipped, and the progress bar
/// that counts them as they are read.
fn open_snapshot(path: &Path) -> Result<(Box<dyn Read>, ProgressBar), Error> {
    let (reader, size) = open(path)?;
    let bar = progress(size);
    let reader = bar.wrap_read(reader);
    let is_gz = path.extension().is_some_and(|x| x == "gz");
    let input: Box<dyn Read> = if is_gz {
        Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(reader)))
    } else {
        Box::new(reader)
    };
    Ok((input, bar))
}

/// What the whole import reads.
struct Import<'a> {
    catalog: &'a Catalog,
    options: &'a ImportOptions,
    /// See [`entries_by_arxiv`].
    by_arxiv: HashMap<String, String>,
    started: Instant,
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
        let writer = crate::index::open_writer(generation, true)?;
        let (_, fields) = schema::build_schema();
        let mut report = ImportReport::default();
        let batches = self.index_records(input, &writer, &fields, &mut report, bar)?;
        self.tally(&mut report, batches, cache);
        if let Some(dir) = cache_dir
            && report.merged > 0
        {
            cache.save(dir)?;
        }
        add_catalog(&writer, &fields, self.catalog, cache)?;
        let inputs = index_inputs()?;
        let print = fingerprint(inputs.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
        commit(writer, &print)?;
        report.elapsed = self.started.elapsed();
        Ok(report)
    }

    /// Reads `input` here in blocks of whole lines, which workers split,
    /// parse, filter and turn into documents; a bounded channel keeps memory
    /// bounded. The first error, a worker's before the reader's, stops it.
    fn index_records(
        &self,
        input: Box<dyn Read>,
        writer: &tantivy::IndexWriter,
        fields: &Fields,
        report: &mut ImportReport,
        bar: &ProgressBar,
    ) -> Result<Vec<Batch>, Error> {
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(8);
        let (sender, receiver) = std::sync::mpsc::sync_channel::<Block>(workers * 2);
        let receiver = Mutex::new(receiver);
        let job = Workers {
            import: self,
            writer,
            fields,
            done: AtomicU64::new(0),
        };
        let outcomes: Vec<Result<Batch, Error>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| scope.spawn(|| job.work(&receiver)))
                .collect();
            let read = read_blocks(
                input,
                &sender,
                &self.options.path,
                report,
                &job.done,
                bar,
                &self.started,
            );
            drop(sender);
            let mut outcomes = join(handles);
            if let Err(e) = read {
                outcomes.push(Err(e));
            }
            outcomes
        });
        outcomes.into_iter().collect()
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

impl ImportOptions {
    /// Whether the filters keep `record`: one of the categories asked for (if
    /// any), and recent enough.
    fn keeps(&self, record: &PaperRecord) -> bool {
        let wanted = self.categories.is_empty()
            || record
                .categories
                .iter()
                .any(|c| self.categories.contains(c));
        let recent = self
            .since
            .is_none_or(|since| record.year.is_some_and(|y| y >= since));
        wanted && recent
    }
}

/// Bytes read per block: enough to keep a worker busy for a while, few
/// enough that the channel holds little.
const BLOCK_BYTES: usize = 1 << 20;

/// Whole lines, and the block's place in the file.
type Block = (usize, Vec<u8>);

/// What one worker did.
#[derive(Default)]
struct Batch {
    indexed: u64,
    filtered: u64,
    /// (block, line within the block, reason) of malformed lines.
    malformed: Vec<(usize, u64, String)>,
    /// (block, lines in it) of every block this worker read.
    lines: Vec<(usize, u64)>,
    /// Records of catalog entries, merged into the cache afterwards.
    merged: Vec<PaperRecord>,
}

/// The number of the first line of each block, and after them one more
/// than the number of lines.
fn first_lines(batches: &[Batch]) -> Vec<u64> {
    let mut counts: Vec<(usize, u64)> = batches
        .iter()
        .flat_map(|b| b.lines.iter().copied())
        .collect();
    counts.sort_unstable();
    let mut first = Vec::with_capacity(counts.len() + 1);
    let mut next = 1;
    for (_, count) in counts {
        first.push(next);
        next += count;
    }
    first.push(next);
    first
}

/// Reads `input` in blocks that end at a line break (or the end), so that
/// no line is copied on its own.
fn read_blocks(
    mut input: Box<dyn Read>,
    sender: &SyncSender<Block>,
    path: &Path,
    report: &mut ImportReport,
    done: &AtomicU64,
    bar: &ProgressBar,
    started: &Instant,
) -> Result<(), Error> {
    let mut pending: Vec<u8> = Vec::with_capacity(BLOCK_BYTES);
    let mut index = 0;
    loop {
        let read = (&mut input)
            .take(BLOCK_BYTES as u64)
            .read_to_end(&mut pending)
            .map_err(|e| Error::io(path, e))?;
        report.bytes += read as u64;
        let end = if read == 0 {
            pending.len()
        } else {
            // A line longer than a block makes the block longer.
            match memchr::memrchr(b'\n', &pending) {
                Some(at) if pending.len() >= BLOCK_BYTES => at + 1,
                _ => continue,
            }
        };
        if end == 0 {
            return Ok(());
        }
        let rest = pending.split_off(end);
        let block = std::mem::replace(&mut pending, rest);
        pending.reserve(BLOCK_BYTES);
        // A closed channel means the workers stopped on an error.
        if sender.send((index, block)).is_err() {
            return Ok(());
        }
        index += 1;
        let records = done.load(Ordering::Relaxed);
        bar.set_message(format!(
            "{records} records, {:.0}/s",
            records as f64 / started.elapsed().as_secs_f64()
        ));
        if read == 0 {
            return Ok(());
        }
    }
}

/// What every worker reads, and the count they share.
struct Workers<'a> {
    import: &'a Import<'a>,
    writer: &'a tantivy::IndexWriter,
    fields: &'a Fields,
    /// Records indexed so far, for the progress bar.
    done: AtomicU64,
}

impl Workers<'_> {
    /// One worker: indexes blocks until the reader closes the channel.
    fn work(&self, receiver: &Mutex<Receiver<Block>>) -> Result<Batch, Error> {
        let mut out = Batch::default();
        let mut seen = SeenWords::default();
        while let Some((block, bytes)) = next_block(receiver)? {
            let indexed_before = out.indexed;
            let count = self.index_block(block, &bytes, &mut out, &mut seen)?;
            out.lines.push((block, count));
            self.done
                .fetch_add(out.indexed - indexed_before, Ordering::Relaxed);
        }
        Ok(out)
    }

    /// Indexes the lines of block number `block`; returns how many it has.
    fn index_block(
        &self,
        block: usize,
        bytes: &[u8],
        out: &mut Batch,
        seen: &mut SeenWords,
    ) -> Result<u64, Error> {
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let mut count = 0;
        for (offset, line) in lines(body).enumerate() {
            count += 1;
            self.index_line(line, (block, offset as u64), out, seen)?;
        }
        Ok(count)
    }

    /// Indexes one line's record, or counts it as merged, filtered out or
    /// malformed (`at`: its block and its line in the block).
    fn index_line(
        &self,
        line: &[u8],
        at: (usize, u64),
        out: &mut Batch,
        seen: &mut SeenWords,
    ) -> Result<(), Error> {
        // Valid UTF-8 is the rule: checked fast, repaired only if not.
        let text = match std::str::from_utf8(line) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(line),
        };
        if text.trim().is_empty() {
            return Ok(());
        }
        let parsed = match parse_line(&text) {
            Ok(parsed) => parsed,
            Err(reason) => {
                out.malformed.push((at.0, at.1, reason));
                return Ok(());
            }
        };
        let record = &parsed.record;
        if record
            .arxiv
            .as_ref()
            .is_some_and(|id| self.import.by_arxiv.contains_key(id))
        {
            out.merged.push(parsed.record);
            return Ok(());
        }
        if !self.import.options.keeps(record) {
            out.filtered += 1;
            return Ok(());
        }
        // Imported records are deleted all together or not at all, so
        // each word needs writing to the typo dictionary only once.
        self.writer.add_document(parsed.into_record().to_document(
            self.fields,
            &self.import.catalog.vocabulary,
            Some(seen),
        ))?;
        out.indexed += 1;
        Ok(())
    }
}

/// The next block, or `None` once the reader has closed the channel.
fn next_block(receiver: &Mutex<Receiver<Block>>) -> Result<Option<Block>, Error> {
    let receiver = receiver
        .lock()
        .map_err(|_| Error::Index("import channel poisoned".into()))?;
    Ok(receiver.recv().ok())
}

/// Each worker's outcome, in order; a panic is an error like any other.
fn join(handles: Vec<ScopedJoinHandle<'_, Result<Batch, Error>>>) -> Vec<Result<Batch, Error>> {
    handles
        .into_iter()
        .map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(Error::Index("an import worker panicked".into())))
        })
        .collect()
}

/// The lines of `body`, found by a vectorized search for line breaks.
fn lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', body)
        .chain(std::iter::once(body.len()))
        .map(move |end| {
            let line = &body[start..end];
            start = end + 1;
            line
        })
}
