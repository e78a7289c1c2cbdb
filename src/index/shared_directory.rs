//! An index other users can search: tantivy writes `meta.json` and
//! `.managed.json` as 0600 temporary files, and takes a lock file to read
//! them, which a folder the user may only read (a shared index, another
//! user's, a read-only mount) refuses. Generations are written once and
//! replaced whole (see `store.rs`), so a reader that cannot take that lock
//! loses nothing by reading without it. Files are written through
//! `write_behind`, whose writeback starts as they grow.

use std::fs::OpenOptions;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::write_behind::WriteBehindFile;
use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};

/// A memory-mapped directory whose atomically written files are readable by
/// others as the umask allows, and whose locks are granted without a lock
/// file when the folder cannot be written.
#[derive(Clone, Debug)]
pub struct SharedDirectory {
    inner: MmapDirectory,
    path: PathBuf,
}

impl SharedDirectory {
    pub fn open(path: &Path) -> Result<Self, OpenDirectoryError> {
        Ok(SharedDirectory {
            inner: MmapDirectory::open(path)?,
            path: path.to_path_buf(),
        })
    }
}

impl Directory for SharedDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    /// A new file, as `MmapDirectory` makes one, whose writeback to disk
    /// starts as it is written (see `write_behind`).
    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.path.join(path))
            .map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => OpenWriteError::FileAlreadyExists(path.into()),
                _ => OpenWriteError::wrap_io_error(e, path.into()),
            })?;
        Ok(BufWriter::new(Box::new(WriteBehindFile::new(file))))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        crate::fsutil::write_atomic(&self.path.join(path), data).map_err(io::Error::other)?;
        self.inner.sync_directory()
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        match self.inner.acquire_lock(lock) {
            Err(LockError::IoError(e)) if cannot_write(&e) => Ok(DirectoryLock::from(Box::new(()))),
            other => other,
        }
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

fn cannot_write(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
    )
}
