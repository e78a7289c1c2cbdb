//! The catalog folder's lock, held by a command that writes the catalog
//! from before it reads what it changes until it has written it: two
//! writers run one after the other, and neither writes over the other's
//! change with what it read before it. The same lock as the index's
//! rebuild lock (`File::lock` on a file beside what it guards), released
//! on drop and by the OS when a process is killed.

use std::path::Path;

use crate::error::Error;

/// Neither a `.toml` file nor `metadata.json`: loading, checking and the
/// index's fingerprint never read it.
const LOCK: &str = ".lock";

/// Held while a command writes the catalog.
pub struct CatalogLock {
    _file: std::fs::File,
}

/// Takes the lock of the catalog folder `dir`, calling `waiting` first if
/// another command holds it and then blocking until that one ends.
pub fn lock_catalog(dir: &Path, waiting: impl FnOnce()) -> Result<CatalogLock, Error> {
    let (file, path) = crate::fsutil::lock_file(dir, LOCK)?;
    match file.try_lock() {
        Ok(()) => return Ok(CatalogLock { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => {}
        Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
    }
    waiting();
    file.lock().map_err(|e| Error::io(&path, e))?;
    Ok(CatalogLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_catalog(dir.path(), || panic!("nobody holds it yet")).unwrap();
        let (told, waited) = std::sync::mpsc::channel();
        let path = dir.path().to_path_buf();
        let second = std::thread::spawn(move || {
            let lock = lock_catalog(&path, || told.send(()).unwrap()).unwrap();
            drop(lock);
        });
        waited.recv().unwrap();
        drop(first);
        second.join().unwrap();
        assert!(dir.path().join(LOCK).is_file());
    }
}
