//! A segment's vectors as one flat file beside it
//! (`vectors/<segment id>.v2` in the generation's folder), memory-mapped
//! (the maps of the latest generation read are kept for the process's
//! next scans, as a server makes them): a scan reads them as arrays instead
//! of looking each document's up in the bytes column's dictionary, which
//! took seconds a million.
//!
//! The bytes column stays the record's vector of record (carried across
//! schemas, healed with the index); the file is derived from it after every
//! commit, and a segment without a well-formed file is scanned through the
//! column instead (a read-only index, a damaged file).
//!
//! All little-endian: the magic `DMLVEC02`, `max_doc` and `DIMS` (u32
//! each), the mean of the segment's unit vectors (`DIMS` f32), then each
//! document's norm (f32; 0 for no vector), each document's sign code
//! against that mean (see `embed::stored::Code`), the first [`HEAD`]
//! dimensions of every document's bytes, then the rest. Codes and heads
//! each lie together, so that a first pass reads them alone.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};

use memmap2::Mmap;
use rustc_hash::{FxHashMap, FxHashSet};
use tantivy::index::SegmentId;
use tantivy::{Searcher, SegmentReader};

use crate::embed::stored::{Code, HEAD, Packed, code};
use crate::embed::{DIMS, Vector};
use crate::error::Error;

const MAGIC: &[u8; 8] = b"DMLVEC02";
/// The magic, `max_doc`, `DIMS` and the mean.
const HEADER: usize = 16 + 4 * DIMS;
const CODE: usize = std::mem::size_of::<Code>();
const FOLDER: &str = "vectors";

/// One segment's vectors, mapped.
pub struct SegmentVectors {
    bytes: Arc<Mmap>,
    max_doc: usize,
}

impl SegmentVectors {
    /// The file's bytes if they are a well-formed file of `max_doc`
    /// documents.
    fn parse(bytes: Arc<Mmap>, max_doc: u32) -> Option<SegmentVectors> {
        let max_doc = max_doc as usize;
        let header = bytes.get(..16)?;
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().unwrap());
        (&header[..8] == MAGIC
            && word(8) as usize == max_doc
            && word(12) as usize == DIMS
            && bytes.len() == file_len(max_doc))
        .then_some(SegmentVectors { bytes, max_doc })
    }

    pub fn max_doc(&self) -> usize {
        self.max_doc
    }

    /// The norm of `doc`'s stored bytes; 0 when it has no vector.
    #[inline(always)]
    pub fn norm(&self, doc: u32) -> f32 {
        let at = HEADER + 4 * doc as usize;
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

    /// `doc`'s sign code.
    #[inline(always)]
    pub fn code(&self, doc: u32) -> Code {
        let at = HEADER + 4 * self.max_doc + CODE * doc as usize;
        let word = |i: usize| u64::from_le_bytes(self.bytes[at + 8 * i..][..8].try_into().unwrap());
        std::array::from_fn(word)
    }

    /// The first [`HEAD`] dimensions of `doc`'s stored bytes.
    pub fn head(&self, doc: u32) -> &[i8; HEAD] {
        let at = HEADER + (4 + CODE) * self.max_doc + HEAD * doc as usize;
        as_i8(&self.bytes[at..at + HEAD]).try_into().unwrap()
    }

    /// `doc`'s stored bytes whole.
    pub fn row(&self, doc: u32) -> Packed {
        let tail = DIMS - HEAD;
        let at = HEADER + (4 + CODE + HEAD) * self.max_doc + tail * doc as usize;
        let mut row = [0u8; DIMS];
        row[..HEAD].copy_from_slice(bytemuck_u8(self.head(doc)));
        row[HEAD..].copy_from_slice(&self.bytes[at..at + tail]);
        row
    }
}

fn as_i8(bytes: &[u8]) -> &[i8] {
    // SAFETY: i8 and u8 have the same size, alignment and validity.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len()) }
}

fn bytemuck_u8(bytes: &[i8]) -> &[u8] {
    // SAFETY: as in `as_i8`.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len()) }
}

fn file_len(max_doc: usize) -> usize {
    HEADER + (4 + CODE + DIMS) * max_doc
}

fn file_name(segment: SegmentId) -> PathBuf {
    Path::new(FOLDER).join(format!("{}.v2", segment.uuid_string()))
}

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
/// column). Segments are written side by side, a thread each up to the
/// cores: after a bulk import they are the last step, and one at a time
/// left every core but one idle.
pub fn write_missing(path: &Path, searcher: &Searcher) -> Result<(), Error> {
    let missing: Vec<(&SegmentReader, PathBuf)> = (searcher.segment_readers().iter())
        .map(|reader| (reader, path.join(file_name(reader.segment_id()))))
        .filter(|(_, file)| !file.exists())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    fs::create_dir_all(path.join(FOLDER)).map_err(|e| Error::io(&path.join(FOLDER), e))?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for chunk in missing.chunks(threads) {
        std::thread::scope(|scope| {
            let writing: Vec<_> = (chunk.iter())
                .map(|(reader, file)| scope.spawn(move || write_segment(reader, file)))
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

/// One segment's file, written whole under another name and then renamed,
/// so that a reader never maps half of one. The column's dictionary is
/// read once, in order; each document's vector is put in place by its
/// ordinal, in memory a segment at a time (what the file will hold).
fn write_segment(reader: &SegmentReader, file: &Path) -> io::Result<()> {
    let folder = file.parent().unwrap_or(Path::new("."));
    let mut temporary = crate::fsutil::temporary_file().tempfile_in(folder)?;
    fill(reader, temporary.as_file_mut())?;
    temporary.persist(file).map_err(|e| e.error)?;
    Ok(())
}

fn fill(reader: &SegmentReader, out: &mut File) -> io::Result<()> {
    let max_doc = reader.max_doc() as usize;
    let mut norms = vec![0f32; max_doc];
    let mut heads = vec![0u8; HEAD * max_doc];
    let mut tails = vec![0u8; (DIMS - HEAD) * max_doc];
    let column = (reader.fast_fields().bytes("vector")).map_err(io::Error::other)?;
    if let Some(column) = column {
        let mut by_ordinal: Vec<(u64, u32)> = (0..max_doc as u32)
            .filter_map(|doc| Some((column.term_ords(doc).next()?, doc)))
            .collect();
        by_ordinal.sort_unstable();
        let mut next = by_ordinal.iter().peekable();
        let mut stream = column.dictionary().stream()?;
        while stream.advance() {
            let ordinal = stream.term_ord();
            while let Some(&&(_, doc)) = next.peek().filter(|(o, _)| *o == ordinal) {
                next.next();
                let bytes = stream.key();
                if bytes.len() != DIMS {
                    continue;
                }
                let doc = doc as usize;
                norms[doc] = as_i8(bytes)
                    .iter()
                    .map(|&x| f32::from(x) * f32::from(x))
                    .sum::<f32>()
                    .sqrt();
                heads[HEAD * doc..HEAD * (doc + 1)].copy_from_slice(&bytes[..HEAD]);
                let tail = DIMS - HEAD;
                tails[tail * doc..tail * (doc + 1)].copy_from_slice(&bytes[HEAD..]);
            }
        }
    }
    let tail = DIMS - HEAD;
    let unit = |doc: usize| -> Vector {
        let mut v = [0f32; DIMS];
        let bytes = heads[HEAD * doc..HEAD * (doc + 1)]
            .iter()
            .chain(&tails[tail * doc..tail * (doc + 1)]);
        for (x, &b) in v.iter_mut().zip(bytes) {
            *x = f32::from(b as i8) / norms[doc];
        }
        v
    };
    let with_vector: Vec<usize> = (0..max_doc).filter(|&d| norms[d] > 0.0).collect();
    let mut mean = [0f32; DIMS];
    for &doc in &with_vector {
        for (m, x) in mean.iter_mut().zip(unit(doc)) {
            *m += x;
        }
    }
    mean.iter_mut()
        .for_each(|m| *m /= with_vector.len().max(1) as f32);
    let mut out = BufWriter::new(out);
    out.write_all(MAGIC)?;
    out.write_all(&(max_doc as u32).to_le_bytes())?;
    out.write_all(&(DIMS as u32).to_le_bytes())?;
    for m in &mean {
        out.write_all(&m.to_le_bytes())?;
    }
    for norm in &norms {
        out.write_all(&norm.to_le_bytes())?;
    }
    for (doc, &norm) in norms.iter().enumerate() {
        let code = match norm > 0.0 {
            true => code(&unit(doc), &mean),
            false => Code::default(),
        };
        for word in code {
            out.write_all(&word.to_le_bytes())?;
        }
    }
    out.write_all(&heads)?;
    out.write_all(&tails)?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::shipped::shipped_index;
    use crate::index::vectors::document_vector;

    #[test]
    fn a_built_index_has_a_file_for_each_segment_that_holds_the_column() {
        let (_, open, _root) = shipped_index();
        let searcher = open.reader.searcher();
        let files = VectorFiles::of(&open.path, &searcher);
        for (ordinal, reader) in searcher.segment_readers().iter().enumerate() {
            let file = files.segment(ordinal as u32).expect("a vector file");
            for doc in 0..reader.max_doc() {
                let address = tantivy::DocAddress::new(ordinal as u32, doc);
                let column = document_vector(&searcher, address).unwrap().unwrap();
                let row = crate::embed::stored::unpack(&file.row(doc));
                assert_eq!(row, column, "document {doc}");
                assert_eq!(file.code(doc), code(&row, &file.mean()), "document {doc}");
                assert!(file.norm(doc) > 0.0);
            }
        }
    }
}
