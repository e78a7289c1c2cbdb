//! An import's vectors, made once. Each import worker embeds a record for
//! its predicted tags anyway: it appends the vector's bytes to a file of its
//! own as it goes, and the new segments' vector files are then written from
//! those files, found by arXiv id, instead of from the stored texts (read
//! back, decompressed and embedded a second time: most of the files' cost,
//! a sixth of a million-record import).
//!
//! The files are anonymous temporary files in the generation's folder: gone
//! with the import, whatever becomes of it.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rustc_hash::FxHashSet;

use crate::embed::stored::Packed;
use crate::error::Error;

/// Where a vector was spilled: its worker's file (high bits) and its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spilled(u64);

/// One worker's file, being written; its errors name the folder it is in.
pub struct SpillWriter {
    file: BufWriter<File>,
    folder: PathBuf,
    worker: u64,
    rows: u64,
}

impl SpillWriter {
    /// The file of worker number `worker`, in `folder`.
    pub fn new(folder: &Path, worker: usize) -> Result<SpillWriter, Error> {
        let file = tempfile::tempfile_in(folder).map_err(|e| Error::io(folder, e))?;
        Ok(SpillWriter {
            file: BufWriter::with_capacity(1 << 16, file),
            folder: folder.to_path_buf(),
            worker: worker as u64,
            rows: 0,
        })
    }

    /// Appends `bytes`; where they went.
    pub fn push(&mut self, bytes: &Packed) -> Result<Spilled, Error> {
        (self.file.write_all(bytes)).map_err(|e| Error::io(&self.folder, e))?;
        self.rows += 1;
        Ok(Spilled(self.worker << 40 | (self.rows - 1)))
    }

    /// The file, written whole.
    pub fn finish(self) -> Result<(usize, File), Error> {
        let file = (self.file.into_inner()).map_err(|e| Error::io(&self.folder, e.into_error()))?;
        Ok((self.worker as usize, file))
    }
}

/// The workers' files, mapped, and which record's vector lies where, by
/// the key of its arXiv id ([`crate::index::identifier_key`]), in the order
/// of the keys: 16 bytes a record, held while the index commits, when an
/// import's memory peaks (a hash map held twice as much).
pub struct SpilledVectors {
    files: Vec<Option<Mmap>>,
    at: Vec<(u64, Spilled)>,
    forgotten: FxHashSet<u64>,
}

impl SpilledVectors {
    /// `files` by worker number, and where each key's vector is (a key
    /// once).
    pub fn new(
        files: Vec<(usize, File)>,
        mut at: Vec<(u64, Spilled)>,
    ) -> io::Result<SpilledVectors> {
        at.sort_unstable_by_key(|&(key, _)| key);
        let mut maps: Vec<Option<Mmap>> = Vec::new();
        for (worker, file) in files {
            if maps.len() <= worker {
                maps.resize_with(worker + 1, || None);
            }
            if file.metadata()?.len() > 0 {
                // SAFETY: the file is anonymous and no longer written.
                maps[worker] = Some(unsafe { Mmap::map(&file) }?);
            }
        }
        Ok(SpilledVectors {
            files: maps,
            at,
            forgotten: FxHashSet::default(),
        })
    }

    /// Forgets `key`'s vector: a document added after the workers' (a kept
    /// record replacing the snapshot's version, say) has its own.
    pub fn forget(&mut self, key: u64) {
        self.forgotten.insert(key);
    }

    /// The vector spilled for the record whose arXiv id has `key`.
    pub fn get(&self, key: u64) -> Option<&Packed> {
        if self.forgotten.contains(&key) {
            return None;
        }
        let found = self.at.binary_search_by_key(&key, |&(key, _)| key).ok()?;
        let Spilled(at) = self.at[found].1;
        let (worker, row) = ((at >> 40) as usize, (at & ((1 << 40) - 1)) as usize);
        let bytes = self.files.get(worker)?.as_ref()?;
        bytes.get(row * size_of::<Packed>()..)?.first_chunk()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(value: u8) -> Packed {
        [value; size_of::<Packed>()]
    }

    #[test]
    fn each_key_finds_the_row_its_worker_wrote_and_a_forgotten_key_none() {
        let folder = tempfile::tempdir().unwrap();
        let mut writers: Vec<SpillWriter> = (0..3)
            .map(|w| SpillWriter::new(folder.path(), w).unwrap())
            .collect();
        let mut at = Vec::new();
        for key in (0..100u64).rev() {
            let worker = (key % 2) as usize * 2;
            at.push((key, writers[worker].push(&row(key as u8)).unwrap()));
        }
        // Worker 1 wrote nothing: its empty file is not mapped.
        let files = writers.into_iter().map(|w| w.finish().unwrap()).collect();
        let mut spilled = SpilledVectors::new(files, at).unwrap();
        for key in 0..100u64 {
            assert_eq!(spilled.get(key), Some(&row(key as u8)), "key {key}");
        }
        assert_eq!(spilled.get(100), None);
        spilled.forget(7);
        assert_eq!(spilled.get(7), None);
        assert_eq!(spilled.get(8), Some(&row(8)));
    }
}
