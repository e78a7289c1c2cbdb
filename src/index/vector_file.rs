//! A segment's vectors as one flat file beside it
//! (`vectors/<segment id>.v3` in the generation's folder), memory-mapped
//! (the maps of the latest generation read are kept for the process's
//! next scans, as a server makes them): a scan reads them as arrays.
//!
//! A record's vector is made from its texts (see `embed::meaning_of`), so
//! the index keeps no other copy: after every commit, each new segment's
//! file is made from the title, note and abstract its documents store. A
//! segment without a well-formed file (a read-only index, a damaged file)
//! is scored from those texts instead, each match's vector made again.
//!
//! All little-endian: the magic `DMLVEC03`, `max_doc` and `DIMS` (u32
//! each), the mean of the segment's unit vectors (`DIMS` f32), then each
//! document's norm (f32; 0 for no vector), each document's sign code
//! against that mean (see `embed::stored::Code`), the first [`HEAD`]
//! dimensions of every document's bytes, then the rest. Codes and heads
//! each lie together, so that a first pass reads them alone. Each of the
//! four arrays starts at a multiple of 64 bytes (zeros between), so that
//! no row straddles a cache line it need not: rescoring a document reads
//! five lines, where unaligned arrays (the format before) made it seven.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};

use memmap2::Mmap;
use rustc_hash::{FxHashMap, FxHashSet};
use tantivy::index::SegmentId;
use tantivy::schema::Value;
use tantivy::{Searcher, SegmentReader, TantivyDocument};

use super::Fields;
use super::vector_spill::SpilledVectors;
use crate::embed::stored::{Code, HEAD, Packed, code, pack};
use crate::embed::{DIMS, Vector, meaning_of};
use crate::error::Error;

const MAGIC: &[u8; 8] = b"DMLVEC03";
/// The magic, `max_doc`, `DIMS` and the mean.
const HEADER: usize = 16 + 4 * DIMS;
const CODE: usize = std::mem::size_of::<Code>();
const FOLDER: &str = "vectors";
/// What each array's start is a multiple of: a cache line.
const ALIGN: usize = 64;

/// Where a file of `max_doc` documents keeps each array, and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    norms: usize,
    codes: usize,
    heads: usize,
    tails: usize,
    len: usize,
}

impl Layout {
    fn of(max_doc: usize) -> Layout {
        let next =
            |at: usize, bytes_each: usize| (at + bytes_each * max_doc).next_multiple_of(ALIGN);
        let norms = HEADER.next_multiple_of(ALIGN);
        let codes = next(norms, 4);
        let heads = next(codes, CODE);
        let tails = next(heads, HEAD);
        let len = tails + TAIL * max_doc;
        Layout {
            norms,
            codes,
            heads,
            tails,
            len,
        }
    }
}

/// One segment's vectors, mapped.
pub struct SegmentVectors {
    bytes: Arc<Mmap>,
    max_doc: usize,
    layout: Layout,
}

impl SegmentVectors {
    /// The file's bytes if they are a well-formed file of `max_doc`
    /// documents.
    fn parse(bytes: Arc<Mmap>, max_doc: u32) -> Option<SegmentVectors> {
        let max_doc = max_doc as usize;
        let layout = Layout::of(max_doc);
        let header = bytes.get(..16)?;
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().unwrap());
        (&header[..8] == MAGIC
            && word(8) as usize == max_doc
            && word(12) as usize == DIMS
            && bytes.len() == layout.len)
            .then_some(SegmentVectors {
                bytes,
                max_doc,
                layout,
            })
    }

    pub fn max_doc(&self) -> usize {
        self.max_doc
    }

    /// The norm of `doc`'s stored bytes; 0 when it has no vector.
    #[inline(always)]
    pub fn norm(&self, doc: u32) -> f32 {
        let at = self.layout.norms + 4 * doc as usize;
        f32::from_le_bytes(self.bytes[at..at + 4].try_into().unwrap())
    }

    /// The mean of the segment's unit vectors, which codes are taken
    /// against.
    pub fn mean(&self) -> Vector {
        let mut mean = [0f32; DIMS];
        for (i, m) in mean.iter_mut().enumerate() {
            let at = 16 + 4 * i;
            *m = f32::from_le_bytes(self.bytes[at..at + 4].try_into().unwrap());
        }
        mean
    }

    /// Every document's sign code, in document order, as stored: its
    /// words in little-endian order.
    pub fn code_bytes(&self) -> &[u8] {
        let at = self.layout.codes;
        &self.bytes[at..at + CODE * self.max_doc]
    }

    /// `doc`'s sign code.
    #[inline(always)]
    pub fn code(&self, doc: u32) -> Code {
        let at = self.layout.codes + CODE * doc as usize;
        decode_code(&self.bytes[at..at + CODE])
    }

    /// Asks the processor to bring `doc`'s norm and row into its caches,
    /// without waiting for them.
    #[inline(always)]
    pub fn prefetch_row(&self, doc: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let doc = doc as usize;
            let tail = self.layout.tails + TAIL * doc;
            let lines = [self.layout.norms + 4 * doc, self.layout.heads + HEAD * doc]
                .into_iter()
                .chain((tail..tail + TAIL).step_by(ALIGN));
            for at in lines {
                // SAFETY: x86-64 always has SSE; a prefetch is a hint that
                // never faults, and every address is within the map.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(self.bytes.as_ptr().wrapping_add(at).cast()) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = doc;
    }

    /// The first [`HEAD`] dimensions of `doc`'s stored bytes.
    pub fn head(&self, doc: u32) -> &[i8; HEAD] {
        let at = self.layout.heads + HEAD * doc as usize;
        as_i8(&self.bytes[at..at + HEAD]).try_into().unwrap()
    }

    /// `doc`'s stored bytes whole.
    pub fn row(&self, doc: u32) -> Packed {
        let (head, tail) = self.parts(doc);
        let mut row = [0u8; DIMS];
        row[..HEAD].copy_from_slice(head);
        row[HEAD..].copy_from_slice(tail);
        row
    }

    /// `doc`'s stored bytes as the file keeps them: the first [`HEAD`],
    /// and the rest.
    #[inline(always)]
    pub fn parts(&self, doc: u32) -> (&[u8], &[u8]) {
        let at = self.layout.tails + TAIL * doc as usize;
        (bytemuck_u8(self.head(doc)), &self.bytes[at..at + TAIL])
    }
}

/// A code from its `CODE` stored bytes (its words, little-endian).
#[inline(always)]
pub(super) fn decode_code(bytes: &[u8]) -> Code {
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
}

fn as_i8(bytes: &[u8]) -> &[i8] {
    // SAFETY: i8 and u8 have the same size, alignment and validity.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len()) }
}

fn bytemuck_u8(bytes: &[i8]) -> &[u8] {
    // SAFETY: as in `as_i8`.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len()) }
}

fn file_name(segment: SegmentId) -> PathBuf {
    Path::new(FOLDER).join(format!("{}.v3", segment.uuid_string()))
}

/// The extensions of a segment's file in earlier formats, which this one
/// replaces (`v2`: arrays unaligned).
const EARLIER: [&str; 1] = ["v2"];

/// The maps of the generation last scanned, by file name.
/// A generation's folder and its files' maps, by file name.
type Maps = (PathBuf, FxHashMap<PathBuf, Arc<Mmap>>);

static MAPS: Mutex<Option<Maps>> = Mutex::new(None);

/// The vector files of a searcher's segments, by segment ordinal (`None`
/// for a segment without a well-formed file).
pub struct VectorFiles(Vec<Option<SegmentVectors>>);

impl VectorFiles {
    /// Maps the file of each segment of `searcher`, a reader of the
    /// generation at `path`.
    pub fn of(path: &Path, searcher: &Searcher) -> VectorFiles {
        let mut kept = MAPS.lock().unwrap_or_else(|e| e.into_inner());
        if kept
            .as_ref()
            .is_none_or(|(generation, _)| generation != path)
        {
            *kept = Some((path.to_path_buf(), FxHashMap::default()));
        }
        let Some((_, maps)) = kept.as_mut() else {
            unreachable!("set above")
        };
        VectorFiles(
            (searcher.segment_readers().iter())
                .map(|reader| {
                    let name = file_name(reader.segment_id());
                    let map = match maps.get(&name) {
                        Some(map) => Arc::clone(map),
                        None => {
                            let file = File::open(path.join(&name)).ok()?;
                            // SAFETY: a vector file is written whole under
                            // another name and renamed, never changed.
                            let map = Arc::new(unsafe { Mmap::map(&file) }.ok()?);
                            maps.insert(name, Arc::clone(&map));
                            map
                        }
                    };
                    SegmentVectors::parse(map, reader.max_doc())
                })
                .collect(),
        )
    }

    pub fn segment(&self, ordinal: u32) -> Option<&SegmentVectors> {
        self.0.get(ordinal as usize)?.as_ref()
    }
}

/// Writes the file of every segment of the generation at `path` that has
/// none (a failure, a read-only folder or a full disk, leaves scans on the
/// stored texts). Segments are written side by side, a thread each up to the
/// cores: after a bulk import they are the last step, and one at a time
/// left every core but one idle. An import's documents take their vectors
/// from `spilled`, where the import's workers left them.
pub fn write_missing(
    path: &Path,
    searcher: &Searcher,
    spilled: Option<&SpilledVectors>,
) -> Result<(), Error> {
    let missing: Vec<(&SegmentReader, PathBuf)> = (searcher.segment_readers().iter())
        .map(|reader| (reader, path.join(file_name(reader.segment_id()))))
        .filter(|(_, file)| !file.exists())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let folder = path.join(FOLDER);
    fs::create_dir_all(&folder).map_err(|e| Error::io(folder, e))?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for chunk in missing.chunks(threads) {
        std::thread::scope(|scope| {
            let writing: Vec<_> = (chunk.iter())
                .map(|(reader, file)| scope.spawn(move || write_segment(reader, file, spilled)))
                .collect();
            for ((_, file), written) in chunk.iter().zip(writing) {
                match written.join() {
                    Ok(result) => result.map_err(|e| Error::io(file, e))?,
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            Ok::<(), Error>(())
        })?;
    }
    Ok(())
}

/// Removes the files of segments the generation at `path` no longer holds
/// (merged away, or of a failed write): only its writer may, as a reader's
/// segments may be older than the files.
pub fn remove_stale(path: &Path, searcher: &Searcher) {
    let wanted: FxHashSet<PathBuf> = (searcher.segment_readers().iter())
        .map(|r| path.join(file_name(r.segment_id())))
        .collect();
    if let Ok(entries) = fs::read_dir(path.join(FOLDER)) {
        for entry in entries.flatten() {
            if !wanted.contains(&entry.path()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

/// Whether every segment of the generation at `path` has its file.
pub fn complete(path: &Path, searcher: &Searcher) -> bool {
    (searcher.segment_readers().iter()).all(|r| path.join(file_name(r.segment_id())).exists())
}

/// A stored document's vector, in the bytes its file keeps: made from its
/// title, note and abstract as stored, the texts its record's vector was
/// made from when it was written (`Record::to_document`).
pub fn stored_bytes(doc: &TantivyDocument, fields: &Fields) -> Packed {
    let text = |field| doc.get_first(field).and_then(|v| v.as_str());
    let vector = meaning_of(
        text(fields.title).unwrap_or_default(),
        text(fields.note).unwrap_or_default(),
        text(fields.abstract_text),
    );
    pack(&vector)
}

/// One segment's file, written whole under another name and then renamed,
/// so that a reader never maps half of one; its files of earlier formats
/// are removed.
fn write_segment(
    reader: &SegmentReader,
    file: &Path,
    spilled: Option<&SpilledVectors>,
) -> io::Result<()> {
    let folder = file.parent().unwrap_or(Path::new("."));
    let mut temporary = crate::fsutil::temporary_file().tempfile_in(folder)?;
    fill(reader, temporary.as_file_mut(), spilled)?;
    temporary.persist(file).map_err(|e| e.error)?;
    for extension in EARLIER {
        // Replaced: a reader of the earlier format falls back on the
        // stored texts.
        let _ = fs::remove_file(file.with_extension(extension));
    }
    Ok(())
}

/// Rows a file is written and read back by, so that a segment's vectors
/// never lie in memory whole (a bulk import's largest segments hold half a
/// million: 128 MB each, written when the import's memory peaks).
const CHUNK: usize = 4096;
const TAIL: usize = DIMS - HEAD;

/// Each document's vector (see [`each_vector`]) has its rows written in
/// place; the codes, which need the mean of them all, are made from the
/// rows read back.
fn fill(
    reader: &SegmentReader,
    out: &mut File,
    spilled: Option<&SpilledVectors>,
) -> io::Result<()> {
    let max_doc = reader.max_doc() as usize;
    let layout = Layout::of(max_doc);
    out.set_len(layout.len as u64)?;
    let mut norms = vec![0f32; max_doc];
    let (mut sum, mut with_vector) = ([0f32; DIMS], 0usize);
    let mut heads = Vec::with_capacity(HEAD * CHUNK);
    let mut tails = Vec::with_capacity(TAIL * CHUNK);
    let mut first = 0;
    each_vector(reader, spilled, |doc, bytes| {
        let norm = (as_i8(bytes).iter())
            .map(|&x| f32::from(x) * f32::from(x))
            .sum::<f32>()
            .sqrt();
        norms[doc] = norm;
        if norm > 0.0 {
            with_vector += 1;
            for (s, x) in sum
                .iter_mut()
                .zip(unit(&bytes[..HEAD], &bytes[HEAD..], norm))
            {
                *s += x;
            }
        }
        heads.extend_from_slice(&bytes[..HEAD]);
        tails.extend_from_slice(&bytes[HEAD..]);
        if heads.len() == HEAD * CHUNK {
            write_at(out, layout.heads + HEAD * first, &heads)?;
            write_at(out, layout.tails + TAIL * first, &tails)?;
            first = doc + 1;
            heads.clear();
            tails.clear();
        }
        Ok(())
    })?;
    write_at(out, layout.heads + HEAD * first, &heads)?;
    write_at(out, layout.tails + TAIL * first, &tails)?;
    let mean = sum.map(|s| s / with_vector.max(1) as f32);
    let mut codes = Vec::with_capacity(CODE * CHUNK);
    for first in (0..max_doc).step_by(CHUNK) {
        let rows = CHUNK.min(max_doc - first);
        heads.resize(HEAD * rows, 0);
        tails.resize(TAIL * rows, 0);
        read_at(out, layout.heads + HEAD * first, &mut heads)?;
        read_at(out, layout.tails + TAIL * first, &mut tails)?;
        codes.clear();
        for row in 0..rows {
            let norm = norms[first + row];
            let code = match norm > 0.0 {
                true => {
                    let (head, tail) = (&heads[HEAD * row..][..HEAD], &tails[TAIL * row..][..TAIL]);
                    code(&unit(head, tail, norm), &mean)
                }
                false => Code::default(),
            };
            codes.extend(code.iter().flat_map(|word| word.to_le_bytes()));
        }
        write_at(out, layout.codes + CODE * first, &codes)?;
    }
    let mut header = Vec::with_capacity(layout.codes);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&(max_doc as u32).to_le_bytes());
    header.extend_from_slice(&(DIMS as u32).to_le_bytes());
    header.extend(mean.iter().flat_map(|m| m.to_le_bytes()));
    header.resize(layout.norms, 0);
    header.extend(norms.iter().flat_map(|n| n.to_le_bytes()));
    write_at(out, 0, &header)?;
    out.sync_all()
}

/// Hands `each` every document's vector, deleted or not (a row per
/// document id), in order: what `spilled` holds for a live document's arXiv
/// id, else made from the document's stored texts (the store read in order
/// when nothing was spilled).
fn each_vector(
    reader: &SegmentReader,
    spilled: Option<&SpilledVectors>,
    mut each: impl FnMut(usize, &Packed) -> io::Result<()>,
) -> io::Result<()> {
    let fields = Fields::from_schema(reader.schema()).map_err(io::Error::other)?;
    let store = reader.get_store_reader(1).map_err(io::Error::other)?;
    let max_doc = reader.max_doc();
    let Some(spilled) = spilled else {
        let stored = store.iter::<TantivyDocument>(None).take(max_doc as usize);
        for (doc, stored) in stored.enumerate() {
            each(
                doc,
                &stored_bytes(&stored.map_err(io::Error::other)?, &fields),
            )?;
        }
        return Ok(());
    };
    let keys = (reader.fast_fields().u64("arxiv_key")).map_err(io::Error::other)?;
    let alive = reader.alive_bitset();
    for doc in 0..max_doc {
        let found = keys
            .first(doc)
            .filter(|_| alive.is_none_or(|a| a.is_alive(doc)))
            .and_then(|key| spilled.get(key));
        match found {
            Some(bytes) => each(doc as usize, bytes)?,
            None => {
                let stored = store.get(doc).map_err(io::Error::other)?;
                each(doc as usize, &stored_bytes(&stored, &fields))?;
            }
        }
    }
    Ok(())
}

/// The unit vector of a row's bytes, of norm `norm`.
fn unit(head: &[u8], tail: &[u8], norm: f32) -> Vector {
    let mut v = [0f32; DIMS];
    for (x, &b) in v.iter_mut().zip(head.iter().chain(tail)) {
        *x = f32::from(b as i8) / norm;
    }
    v
}

fn write_at(out: &mut File, offset: usize, bytes: &[u8]) -> io::Result<()> {
    out.seek(SeekFrom::Start(offset as u64))?;
    out.write_all(bytes)
}

fn read_at(out: &mut File, offset: usize, bytes: &mut [u8]) -> io::Result<()> {
    out.seek(SeekFrom::Start(offset as u64))?;
    out.read_exact(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::shipped::shipped_index;

    #[test]
    fn each_array_starts_on_a_cache_line_after_the_one_before_it_ends() {
        for max_doc in [0, 1, 3, 15, 16, 17, 477_001, 523_093] {
            let l = Layout::of(max_doc);
            let starts = [l.norms, l.codes, l.heads, l.tails];
            assert!(starts.iter().all(|at| at % ALIGN == 0), "{l:?}");
            let ends = [l.norms + 4 * max_doc, l.codes + CODE * max_doc];
            assert!(HEADER <= l.norms && ends[0] <= l.codes && ends[1] <= l.heads);
            assert!(l.heads + HEAD * max_doc <= l.tails, "{l:?}");
            // No more padding than alignment needs.
            assert!(l.len < HEADER + (4 + CODE + DIMS) * max_doc + 4 * ALIGN);
        }
    }

    #[test]
    fn a_built_index_has_a_file_for_each_segment_that_holds_its_documents_vectors() {
        let (catalog, open, _root) = shipped_index();
        let searcher = open.reader.searcher();
        let fields = Fields::from_schema(&open.index.schema()).unwrap();
        let files = VectorFiles::of(&open.path, &searcher);
        for (ordinal, reader) in searcher.segment_readers().iter().enumerate() {
            let file = files.segment(ordinal as u32).expect("a vector file");
            for doc in 0..reader.max_doc() {
                let address = tantivy::DocAddress::new(ordinal as u32, doc);
                let stored: TantivyDocument = searcher.doc(address).unwrap();
                let id = stored
                    .get_first(fields.id)
                    .and_then(|v| v.as_str())
                    .unwrap();
                let entry = catalog.entries.iter().find(|e| e.id == id).unwrap();
                let record = crate::model::Record::from_entry(entry, None);
                let made = pack(&crate::embed::record_vector(&record));
                assert_eq!(file.row(doc), made, "{id}");
                let row = crate::embed::stored::unpack(&file.row(doc));
                assert_eq!(file.code(doc), code(&row, &file.mean()), "{id}");
                assert!(file.norm(doc) > 0.0);
            }
        }
    }

    /// The file is made from what a document stores, so the texts must
    /// come back as the record gave them, odd spacing and all.
    #[test]
    fn a_documents_stored_texts_mean_what_its_record_meant() {
        let (catalog, _open, _root) = shipped_index();
        let (_, fields) = crate::index::schema::build_schema();
        let record = crate::model::Record {
            title: "Zorblat:  Pipelined  Frobnication\nof Quuxes".to_string(),
            note: String::new(),
            abstract_text: Some(
                "We  frobnicate\n\nquuxes across   many devices, overlapping each stage's  communication with compute. ".repeat(4),
            ),
            ..Default::default()
        };
        let doc = record.to_document(&fields, &catalog.vocabulary, None, None);
        assert_eq!(
            stored_bytes(&doc, &fields),
            pack(&crate::embed::record_vector(&record))
        );
    }
}
