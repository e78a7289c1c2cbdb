//! The index folder and its atomic rebuilds.
//!
//! Each rebuild writes a complete index into a fresh `gen-*` folder, commits
//! it, and only then points the `CURRENT` file at it (written atomically). A
//! killed or failed rebuild leaves `CURRENT` on the previous generation, which
//! searches keep using. One rebuild runs at a time, under a file lock.

use crate::model::Collection;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use tantivy::collector::TopDocs;
use tantivy::index::SegmentMeta;
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument};

use crate::analysis;
use crate::error::Error;
use crate::fsutil::write_atomic;

const CURRENT: &str = "CURRENT";
const LOCK: &str = ".lock";
const GENERATION_PREFIX: &str = "gen-";

/// An opened generation of the index (a clone shares its reader).
#[derive(Clone)]
pub struct OpenIndex {
    pub index: Index,
    pub reader: IndexReader,
    pub fingerprint: Option<String>,
    pub path: PathBuf,
}

impl OpenIndex {
    /// Whether the index has this program's schema, field for field and
    /// option for option (another build may have written other fields, or
    /// the same fields analyzed or stored otherwise).
    pub fn is_compatible(&self) -> bool {
        self.index.schema() == super::schema::build_schema().0
    }

    /// This generation with a reader that follows its commits (within a
    /// second): what a harvest adds to it is searched without opening it
    /// again. For a server; a command reads one state of the index.
    pub fn following(&self) -> Result<OpenIndex, Error> {
        let reader = (self.index.reader_builder())
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()?;
        Ok(OpenIndex {
            reader,
            ..self.clone()
        })
    }

    /// How many records the collection (`catalog`, `arxiv`) holds, read by
    /// field name so that an index of an older schema can tell too.
    pub fn collection_size(&self, collection: Collection) -> u64 {
        let Ok(field) = self.index.schema().get_field("collection") else {
            return 0;
        };
        let members = tantivy::query::TermQuery::new(
            tantivy::Term::from_field_text(field, collection.as_str()),
            tantivy::schema::IndexRecordOption::Basic,
        );
        let count = self
            .reader
            .searcher()
            .search(&members, &tantivy::collector::Count);
        count.map_or(0, |n| n as u64)
    }

    /// How many records a snapshot import added.
    pub fn imported_records(&self) -> u64 {
        self.collection_size(Collection::Arxiv)
    }

    /// The stored document with this id (an entry's, or `arxiv:ID`).
    pub fn document(&self, id: &str) -> Result<Option<TantivyDocument>, Error> {
        let searcher = self.reader.searcher();
        let fields = super::Fields::from_schema(&self.index.schema())?;
        let found = searcher.search(
            &super::id_query(&fields, id),
            &TopDocs::with_limit(1).order_by_score(),
        )?;
        match found.first() {
            Some((_, address)) => Ok(Some(searcher.doc(*address)?)),
            None => Ok(None),
        }
    }
}

pub struct IndexDir {
    root: PathBuf,
}

/// Held while a rebuild runs; released on drop (and by the OS if killed).
pub struct RebuildLock {
    _file: File,
}

impl IndexDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        IndexDir { root: root.into() }
    }

    /// The file `name` kept beside the generations (they come and go; it
    /// stays).
    pub fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn current_generation(&self) -> Option<PathBuf> {
        let name = std::fs::read_to_string(self.root.join(CURRENT)).ok()?;
        let name = name.trim();
        let valid = name.starts_with(GENERATION_PREFIX) && !name.contains(['/', '\\']);
        valid.then(|| self.root.join(name))
    }

    /// The current generation, or `None` when no index was ever completed.
    pub fn open(&self) -> Result<Option<OpenIndex>, Error> {
        self.open_with(open_generation)
    }

    fn open_with(
        &self,
        mut open: impl FnMut(&Path) -> Result<OpenIndex, Error>,
    ) -> Result<Option<OpenIndex>, Error> {
        // A rebuild may retire the generation while it is being opened, and
        // tantivy takes some of a segment's missing files for empty ones
        // (positions), which fails searches later. A generation is removed
        // only after CURRENT names another, so one that CURRENT still names
        // once every file is open (and open files stay readable after
        // removal) is whole; otherwise CURRENT names the new one to open.
        let mut last_error = None;
        for _ in 0..5 {
            let Some(path) = self.current_generation() else {
                return Ok(None);
            };
            match open(&path) {
                Ok(opened) if self.current_generation().as_ref() == Some(&path) => {
                    return Ok(Some(opened));
                }
                Ok(_) => {}
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.unwrap_or_else(|| {
            Error::Index(format!(
                "{}: the index kept changing while it was being opened; try again",
                self.root.display()
            ))
        }))
    }

    /// Takes the rebuild lock if it is free; `None` says a rebuild is running.
    pub fn try_lock(&self) -> Result<Option<RebuildLock>, Error> {
        let (file, path) = self.lock_file()?;
        match file.try_lock() {
            Ok(()) => Ok(Some(RebuildLock { _file: file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io(&path, e)),
        }
    }

    /// Takes the rebuild lock, calling `waiting` first if another rebuild
    /// holds it and then blocking until that one ends.
    pub fn lock_waiting(&self, waiting: impl FnOnce()) -> Result<RebuildLock, Error> {
        if let Some(lock) = self.try_lock()? {
            return Ok(lock);
        }
        waiting();
        let (file, path) = self.lock_file()?;
        file.lock().map_err(|e| Error::io(&path, e))?;
        Ok(RebuildLock { _file: file })
    }

    fn lock_file(&self) -> Result<(File, PathBuf), Error> {
        crate::fsutil::lock_file(&self.root, LOCK)
    }

    /// A new, empty generation folder to build into.
    pub fn new_generation(&self, _lock: &RebuildLock) -> Result<PathBuf, Error> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path = self
            .root
            .join(format!("{GENERATION_PREFIX}{nanos}-{}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        Ok(path)
    }

    /// Makes `generation` current and removes every other generation,
    /// including those left by killed rebuilds.
    pub fn publish(&self, generation: &Path, _lock: &RebuildLock) -> Result<(), Error> {
        let name = generation
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| Error::Index(format!("bad generation path {}", generation.display())))?;
        write_atomic(&self.root.join(CURRENT), format!("{name}\n").as_bytes())?;
        self.remove_generations_except(Some(generation));
        Ok(())
    }

    /// Moves the current generation out of the way (renamed, not deleted:
    /// what is left of a damaged index may be worth a look) and forgets it,
    /// so that the next build starts afresh. Returns where it went.
    pub fn set_aside(&self, _lock: &RebuildLock) -> Result<Option<PathBuf>, Error> {
        let Some(current) = self.current_generation() else {
            return Ok(None);
        };
        let name = current
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        let aside = self
            .root
            .join(format!("set-aside-{}", name.unwrap_or_default()));
        let moved = std::fs::rename(&current, &aside).is_ok();
        let pointer = self.root.join(CURRENT);
        std::fs::remove_file(&pointer).map_err(|e| Error::io(&pointer, e))?;
        Ok(moved.then_some(aside))
    }

    /// Removes what killed rebuilds left behind, when no rebuild is running
    /// (one that is holds the lock, and its generation is not stray). Costs
    /// a directory listing when there is nothing to remove.
    pub fn remove_leftovers(&self) {
        let current = self.current_generation();
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return;
        };
        let stray = entries.flatten().any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(GENERATION_PREFIX)
                && Some(e.path()) != current
        });
        if stray && let Ok(Some(_lock)) = self.try_lock() {
            self.remove_generations_except(None);
        }
    }

    /// Removes a generation that failed to build (and any other stray ones).
    pub fn discard(&self, generation: &Path, _lock: &RebuildLock) {
        let _ = std::fs::remove_dir_all(generation);
    }

    /// Best effort: a generation still open by a search stays readable on
    /// Unix after removal, and a leftover is removed by the next rebuild.
    fn remove_generations_except(&self, keep: Option<&Path>) {
        let current = self.current_generation();
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let is_generation = entry
                .file_name()
                .to_string_lossy()
                .starts_with(GENERATION_PREFIX);
            if is_generation && Some(path.as_path()) != keep && Some(&path) != current.as_ref() {
                let _ = std::fs::remove_dir_all(&path);
            }
        }
    }
}

/// From this many documents, a query's segments are searched on threads of
/// their own: its latency is then the slowest segment's, not their sum.
const PARALLEL_SEARCH_MIN_DOCS: u64 = 20_000;

fn search_segments_in_parallel(index: &mut Index, segments: &[SegmentMeta]) -> Result<(), Error> {
    let docs: u64 = segments.iter().map(|s| u64::from(s.num_docs())).sum();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cores.min(segments.len());
    if threads > 1 && docs >= PARALLEL_SEARCH_MIN_DOCS {
        index.set_multithread_executor(threads)?;
    }
    Ok(())
}

fn open_generation(path: &Path) -> Result<OpenIndex, Error> {
    let cannot_open = |e: &dyn std::fmt::Display| {
        Error::Index(format!("{}: cannot open index: {e}", path.display()))
    };
    let directory =
        super::shared_directory::SharedDirectory::open(path).map_err(|e| cannot_open(&e))?;
    let mut index = Index::open(directory).map_err(|e| cannot_open(&e))?;
    analysis::register(&index);
    let metas = index.load_metas().ok();
    if let Some(metas) = &metas {
        search_segments_in_parallel(&mut index, &metas.segments)?;
    }
    let fingerprint = metas.and_then(|m| m.payload);
    let reader: IndexReader = index
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()?;
    // A generation written before vector files (or whose files a write
    // left out): scans fall back on the column until it has them, and a
    // folder that cannot be written stays so.
    let searcher = reader.searcher();
    if !super::vector_file::complete(path, &searcher) {
        let _ = super::vector_file::write_missing(path, &searcher, None);
    }
    Ok(OpenIndex {
        index,
        reader,
        fingerprint,
        path: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A committed, empty generation.
    fn generation(dir: &IndexDir, lock: &RebuildLock) -> PathBuf {
        let path = dir.new_generation(lock).unwrap();
        let writer = super::super::open_writer(&path, false).unwrap();
        super::super::commit(writer, "test", &path, None).unwrap();
        path
    }

    #[test]
    fn a_generation_retired_while_it_opens_is_not_used() {
        let root = tempfile::tempdir().unwrap();
        let dir = IndexDir::new(root.path());
        let lock = dir.try_lock().unwrap().unwrap();
        let first = generation(&dir, &lock);
        dir.publish(&first, &lock).unwrap();
        let second = generation(&dir, &lock);
        let mut opened = Vec::new();
        let open = dir
            .open_with(|path| {
                let open = open_generation(path);
                if opened.is_empty() {
                    // A rebuild publishes and removes the first generation
                    // while it is being opened.
                    dir.publish(&second, &lock).unwrap();
                }
                opened.push(path.to_path_buf());
                open
            })
            .unwrap()
            .unwrap();
        assert_eq!(open.path, second);
        assert_eq!(opened, [first, second]);
    }
}
