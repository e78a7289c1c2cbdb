//! The import's pipeline: this thread reads the snapshot in blocks of whole
//! lines, and worker threads parse, filter and index them. What each worker
//! did comes back as a [`Batch`], which the import adds up.

use std::collections::hash_map::Entry;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::thread::ScopedJoinHandle;
use std::time::Instant;

use indicatif::ProgressBar;
use rustc_hash::FxHashMap;

use super::options::{Import, ImportReport, is_gzipped};
use super::record::parse_line;
use crate::embed::Reading;
use crate::embed::stored::pack;
use crate::error::Error;
use crate::index::vector_spill::{SpillWriter, Spilled, SpilledVectors};
use crate::index::{Fields, SeenWords};
use crate::model::paper::PaperRecord;

/// Reads `input` here in blocks of whole lines, which workers split,
/// parse, filter and turn into documents; a bounded channel keeps memory
/// bounded. Each worker spills the vectors of the records it indexes into
/// `generation` (see [`SpilledVectors`]). Of several errors, the first
/// worker's is returned (the reader's last).
pub(super) fn index_records(
    import: &Import,
    (input, generation): (Box<dyn Read>, &Path),
    writer: &tantivy::IndexWriter,
    fields: &Fields,
    report: &mut ImportReport,
    bar: &ProgressBar,
) -> Result<(Vec<Batch>, SpilledVectors), Error> {
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    // Every block in flight, and one per worker, can come back to be read
    // into again.
    let (spare_sender, spare) = std::sync::mpsc::sync_channel::<Vec<u8>>(workers * 3 + 1);
    let shared = Workers {
        import,
        writer,
        fields,
        done: AtomicU64::new(0),
        latest: Latest::default(),
        spare: spare_sender,
        generation,
        workers_started: AtomicUsize::new(0),
    };
    let outcomes = fan_out(
        workers,
        workers * 2,
        |blocks| shared.work(blocks),
        |feed| {
            read_blocks(
                input,
                (feed, &spare),
                &import.options.path,
                report,
                &shared.done,
                bar,
                &import.started,
            )
        },
    );
    let mut batches: Vec<Batch> = outcomes.into_iter().collect::<Result<_, _>>()?;
    let files = (batches.iter_mut())
        .filter_map(|b| b.spill.take())
        .collect();
    let spilled = SpilledVectors::new(files, shared.latest.into_spilled())
        .map_err(|e| Error::io(generation, e))?;
    Ok((batches, spilled))
}

/// Runs `work` on `workers` threads while `read` feeds them, from this
/// thread, through a channel of `capacity` items; returns each worker's
/// outcome, then the reader's error if it had one.
///
/// Each worker owns its end of the channel and drops it when it stops, and
/// one that fails stops the others at their next item: once every worker
/// has stopped, the reader's next send fails at once. (With one receiver
/// shared by all and kept to the end, a full disk that failed every worker
/// left the reader waiting forever for room, holding the rebuild lock.)
fn fan_out<T: Send, R: Send>(
    workers: usize,
    capacity: usize,
    work: impl Fn(Items<'_, T>) -> Result<R, Error> + Sync,
    read: impl FnOnce(&Feed<'_, T>) -> Result<(), Error>,
) -> Vec<Result<R, Error>> {
    let (sender, receiver) = crossbeam_channel::bounded::<T>(capacity);
    let failed = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let items = Items {
                    receiver: receiver.clone(),
                    failed: &failed,
                };
                let (work, failed) = (&work, &failed);
                scope.spawn(move || {
                    let outcome = work(items);
                    if outcome.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    outcome
                })
            })
            .collect();
        drop(receiver);
        let read = read(&Feed {
            sender,
            failed: &failed,
        });
        let mut outcomes = join(handles);
        if let Err(e) = read {
            outcomes.push(Err(e));
        }
        outcomes
    })
}

/// A worker's items: until the reader has sent the last, or a worker fails
/// (the import fails then, so the rest need no work).
pub(super) struct Items<'a, T> {
    receiver: crossbeam_channel::Receiver<T>,
    failed: &'a AtomicBool,
}

impl<T> Iterator for Items<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let item = self.receiver.recv().ok()?;
        (!self.failed.load(Ordering::Relaxed)).then_some(item)
    }
}

/// The reader's end of the channel; dropped when the reader returns.
pub(super) struct Feed<'a, T> {
    sender: crossbeam_channel::Sender<T>,
    failed: &'a AtomicBool,
}

impl<T> Feed<'_, T> {
    /// Sends `item`; false once the workers have stopped (on an error).
    fn send(&self, item: T) -> bool {
        !self.failed.load(Ordering::Relaxed) && self.sender.send(item).is_ok()
    }
}

/// Bytes read per block: enough to keep a worker busy for a while, few
/// enough that the channel holds little.
const BLOCK_BYTES: usize = 1 << 20;

/// Whole lines, and the block's place in the file.
type Block = (usize, Vec<u8>);

/// What one worker did.
#[derive(Default)]
pub(super) struct Batch {
    pub(super) indexed: u64,
    pub(super) filtered: u64,
    /// Records whose arXiv id came again: the newest is kept.
    pub(super) duplicates: u64,
    /// (block, line within the block, reason) of malformed lines.
    pub(super) malformed: Vec<(usize, u64, String)>,
    /// (block, lines in it) of every block this worker read.
    lines: Vec<(usize, u64)>,
    /// Records of catalog entries, merged into the cache afterwards.
    pub(super) merged: Vec<PaperRecord>,
    /// The vectors of the records indexed, by worker number.
    spill: Option<(usize, File)>,
}

/// The number of the first line of each block, and after them one more
/// than the number of lines.
pub(super) fn first_lines(batches: &[Batch]) -> Vec<u64> {
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

/// The longest line read: arXiv's own lines are a few kilobytes (a
/// thousand-author paper some hundreds), so a longer one is not a record,
/// and reading it whole (a file without line breaks) would have no bound.
pub(super) const MAX_LINE_BYTES: usize = 8 << 20;

/// What replaces a line longer than [`MAX_LINE_BYTES`], so that it is
/// counted, numbered and reported like any malformed line. Not JSON, and no
/// line of text holds a NUL.
pub(super) const OVERLONG_LINE: &[u8] = b"\0overlong";

/// Reads `input` in blocks that end at a line break (or the end), so that
/// no line is copied on its own. Blocks are read into the buffers that
/// workers have finished with (`spare`) when there are some: into a buffer
/// allocated afresh for each block, the kernel's copies of the file took four
/// times the minimal program's (`perf`, 200k records: 245 against 60
/// samples), with page faults besides.
fn read_blocks(
    mut input: Box<dyn Read>,
    (feed, spare): (&Feed<'_, Block>, &Receiver<Vec<u8>>),
    path: &Path,
    report: &mut ImportReport,
    done: &AtomicU64,
    bar: &ProgressBar,
    started: &Instant,
) -> Result<(), Error> {
    let counts_progress = !is_gzipped(path);
    let mut pending: Vec<u8> = Vec::with_capacity(BLOCK_BYTES);
    let mut index = 0;
    // Where the line being read starts in `pending`, and whether the rest
    // of an overlong line is being skipped.
    let mut line_start = 0;
    let mut skipping = false;
    loop {
        let before = pending.len();
        let read = (&mut input)
            .take(BLOCK_BYTES as u64)
            .read_to_end(&mut pending)
            .map_err(|e| Error::io(path, e))?;
        report.bytes += read as u64;
        if counts_progress {
            bar.inc(read as u64);
        }
        if let Some(at) = memchr::memrchr(b'\n', &pending[before..]) {
            line_start = before + at + 1;
        }
        if skipping {
            match memchr::memchr(b'\n', &pending[before..]) {
                Some(at) => {
                    pending.drain(before..before + at);
                    skipping = false;
                    line_start = memchr::memrchr(b'\n', &pending).map_or(0, |at| at + 1);
                }
                None => pending.truncate(before),
            }
        } else if pending.len() - line_start > MAX_LINE_BYTES {
            pending.truncate(line_start);
            pending.extend_from_slice(OVERLONG_LINE);
            line_start = pending.len();
            skipping = true;
        }
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
        let mut next = spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(2 * BLOCK_BYTES));
        next.extend_from_slice(&pending[end..]);
        pending.truncate(end);
        let block = std::mem::replace(&mut pending, next);
        line_start = line_start.saturating_sub(end);
        pending.reserve(BLOCK_BYTES);
        // The workers stopped on an error, which they report.
        if !feed.send((index, block)) {
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
    latest: Latest,
    /// Where a worker gives back the buffer of a block it has indexed.
    spare: SyncSender<Vec<u8>>,
    /// The new generation's folder, where vectors are spilled.
    generation: &'a Path,
    /// Workers started so far: the next one's number.
    workers_started: AtomicUsize,
}

/// Shards of the map that keeps one record per arXiv id, so that workers
/// rarely wait for each other.
const LATEST_SHARDS: usize = 64;

/// Which line holds each arXiv id's newest record so far (its update date,
/// then its place in the file: a later line of a concatenated snapshot
/// wins a tie), and where its vector was spilled.
struct Latest {
    shards: [Mutex<FxHashMap<u64, (LineOrder, Spilled)>>; LATEST_SHARDS],
}

impl Latest {
    /// Where each arXiv id's newest record's vector was spilled; each shard
    /// freed once read.
    fn into_spilled(self) -> Vec<(u64, Spilled)> {
        let len = (self.shards.iter())
            .map(|s| s.lock().map_or(0, |s| s.len()))
            .sum();
        let mut spilled = Vec::with_capacity(len);
        for shard in self.shards {
            let shard = shard.into_inner().unwrap_or_else(|e| e.into_inner());
            spilled.extend(shard.into_iter().map(|(key, (_, at))| (key, at)));
        }
        spilled
    }
}

/// (update date, block, line in the block): larger is newer. A block is
/// a megabyte or so, and a line a byte at least: 32 bits hold either, which
/// leaves room for the spilled vector's place in an entry of the old size
/// (the map holds every id of the snapshot).
type LineOrder = (u32, u32, u32);

impl Default for Latest {
    fn default() -> Self {
        Latest {
            shards: std::array::from_fn(|_| Mutex::default()),
        }
    }
}

/// `2021-03-04` as 20210304; 0 when absent or unreadable, so that any dated
/// record is newer.
fn date_order(date: Option<&str>) -> u32 {
    // No digits fold to 0 too; too many overflow to `None`, then 0.
    date.and_then(|d| {
        (d.bytes().filter(u8::is_ascii_digit)).try_fold(0u32, |n, b| {
            n.checked_mul(10)?.checked_add(u32::from(b - b'0'))
        })
    })
    .unwrap_or(0)
}

/// What one worker keeps from record to record.
struct Mine {
    seen: SeenWords,
    spill: SpillWriter,
    /// The record's vector and its word pieces (see `predict::projection`).
    reading: Reading,
}

impl Workers<'_> {
    /// One worker: indexes blocks until the reader has sent the last.
    fn work(&self, blocks: Items<'_, Block>) -> Result<Batch, Error> {
        let mut out = Batch::default();
        let worker = self.workers_started.fetch_add(1, Ordering::Relaxed);
        let mut mine = Mine {
            seen: SeenWords::default(),
            spill: SpillWriter::new(self.generation, worker)?,
            reading: Reading::default(),
        };
        for (block, mut bytes) in blocks {
            let indexed_before = out.indexed;
            let count = self.index_block(block, &bytes, &mut out, &mut mine)?;
            out.lines.push((block, count));
            self.done
                .fetch_add(out.indexed - indexed_before, Ordering::Relaxed);
            bytes.clear();
            // A full pool, or a reader that has finished, drops the buffer.
            let _ = self.spare.try_send(bytes);
        }
        out.spill = Some(mine.spill.finish()?);
        Ok(out)
    }

    /// Indexes the lines of block number `block`; returns how many it has.
    fn index_block(
        &self,
        block: usize,
        bytes: &[u8],
        out: &mut Batch,
        mine: &mut Mine,
    ) -> Result<u64, Error> {
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let mut count = 0;
        for (offset, line) in lines(body).enumerate() {
            count += 1;
            self.index_line(line, (block, offset as u64), out, mine)?;
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
        mine: &mut Mine,
    ) -> Result<(), Error> {
        // Valid UTF-8 is the rule: checked fast, repaired only if not.
        let text = match std::str::from_utf8(line) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(line),
        };
        if text.trim().is_empty() {
            return Ok(());
        }
        if line == OVERLONG_LINE {
            let reason = format!("longer than {} MiB", MAX_LINE_BYTES >> 20);
            out.malformed.push((at.0, at.1, reason));
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
        let key = crate::index::identifier_key(record.arxiv.as_deref().unwrap_or_default());
        let order = (
            date_order(record.updated.as_deref()),
            at.0 as u32,
            at.1 as u32,
        );
        // Imported records are deleted all together or not at all, so
        // each word needs writing to the typo dictionary only once.
        let mut record = parsed.into_record();
        record.added = Some(self.import.stamps.record(key));
        crate::embed::read_record(&record, &mut mine.reading);
        let document = record.to_document_embedded(
            self.fields,
            &self.import.catalog.vocabulary,
            &mut mine.seen,
            (&self.import.predictor, &mine.reading),
        );
        let spilled = mine.spill.push(&pack(&mine.reading.vector))?;
        // Decided and added under the shard's lock, so that of two records
        // with one id the newer is added after the older is deleted.
        let mut shard = self.latest.shards[key as usize % LATEST_SHARDS]
            .lock()
            .map_err(|_| Error::Index("import map poisoned".into()))?;
        match shard.entry(key) {
            Entry::Vacant(first) => {
                first.insert((order, spilled));
                out.indexed += 1;
            }
            Entry::Occupied(mut indexed) => {
                out.duplicates += 1;
                // The one indexed is newer (or this very line): this one goes.
                if indexed.get().0 >= order {
                    return Ok(());
                }
                self.writer
                    .delete_query(crate::index::key_query(self.fields.arxiv_key, key))?;
                indexed.insert((order, spilled));
            }
        }
        self.writer.add_document(document)?;
        Ok(())
    }
}

/// Each worker's outcome, in order; a panic is an error like any other.
fn join<R>(handles: Vec<ScopedJoinHandle<'_, Result<R, Error>>>) -> Vec<Result<R, Error>> {
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// `fan_out` on a thread of its own: its outcomes, or `None` if it has
    /// not returned within ten seconds (it hung).
    fn within_seconds<R: Send + 'static>(run: impl FnOnce() -> R + Send + 'static) -> Option<R> {
        let (done, outcome) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(run()));
        outcome.recv_timeout(Duration::from_secs(10)).ok()
    }

    /// `workers` fed by a reader with no end (a snapshot far larger than
    /// the disk), one of which fails on block 10 as on a full disk, once
    /// the reader is surely waiting for room: the number of blocks sent
    /// after the failure and the errors, or `None` if the reader never
    /// stopped.
    fn failing_on_block_ten(workers: usize) -> Option<(u64, Vec<String>)> {
        within_seconds(move || {
            let sent = AtomicU64::new(0);
            let sent_before = AtomicU64::new(0);
            let outcomes = fan_out(
                workers,
                8,
                |items: Items<'_, u64>| {
                    let mut done = 0;
                    for n in items {
                        if n == 10 {
                            std::thread::sleep(Duration::from_millis(200));
                            sent_before.store(sent.load(Ordering::Relaxed), Ordering::Relaxed);
                            return Err(Error::Index("no space left on device".into()));
                        }
                        done += 1;
                    }
                    Ok(done)
                },
                |feed| {
                    for n in 0.. {
                        if !feed.send(n) {
                            break;
                        }
                        sent.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(())
                },
            );
            let errors = outcomes
                .iter()
                .filter_map(|o| o.as_ref().err().map(ToString::to_string))
                .collect();
            (sent.into_inner() - sent_before.into_inner(), errors)
        })
    }

    #[test]
    fn a_failing_worker_stops_a_reader_that_would_never_end() {
        for workers in [1, 4] {
            let Some((sent, errors)) = failing_on_block_ten(workers) else {
                panic!("{workers} workers: the reader still waits to send after the failure");
            };
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert!(errors[0].contains("no space left on device"), "{errors:?}");
            // Stopped at once: the channel's room and a block per worker
            // more at most.
            assert!(sent <= 8 + 4 + 1, "{sent} blocks sent after the failure");
        }
    }

    #[test]
    fn the_reader_ends_the_workers_and_its_own_error_comes_last() {
        let outcome = within_seconds(|| {
            fan_out(
                3,
                2,
                |items: Items<'_, u64>| Ok(items.count()),
                |feed| {
                    for n in 0..100 {
                        assert!(feed.send(n));
                    }
                    Err(Error::Index(
                        "the snapshot could not be read further".into(),
                    ))
                },
            )
        });
        let outcomes = outcome.expect("the workers never ended");
        assert_eq!(outcomes.len(), 4);
        let counted: usize = outcomes[..3].iter().map(|o| *o.as_ref().unwrap()).sum();
        assert_eq!(counted, 100);
        assert!(outcomes[3].is_err());
    }

    #[test]
    fn an_update_date_orders_as_its_digits_and_an_unreadable_one_as_the_oldest() {
        assert_eq!(date_order(Some("2021-03-04")), 20210304);
        assert!(date_order(Some("2021-03-05")) > date_order(Some("2021-03-04")));
        for unreadable in [None, Some(""), Some("undated"), Some("2021-03-04 12:00:00")] {
            assert_eq!(date_order(unreadable), 0, "{unreadable:?}");
        }
    }
}
