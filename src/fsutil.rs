//! Small file-system helpers: atomic replacement of a file, and folder sizes.

use std::io::Write;
use std::path::Path;

use crate::error::Error;

/// Writes `bytes` to a temporary file beside `path`, syncs it, then renames it
/// over `path`: readers see the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    staged(path, bytes)?
        .persist(path)
        .map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Writes several files as [`write_atomic`] does, in order, but only once
/// every one of them is written and synced beside its place: a full disk
/// fails before any file is replaced, so that the files never disagree
/// (an entry in its section file without its metadata, half an import).
pub fn write_all_atomic<P: AsRef<Path>, B: AsRef<[u8]>>(files: &[(P, B)]) -> Result<(), Error> {
    let mut ready = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        ready.push((path.as_ref(), staged(path.as_ref(), bytes.as_ref())?));
    }
    // Renames only: a full disk has failed the writes above, if any.
    for (path, tmp) in ready {
        tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    }
    Ok(())
}

/// `bytes` in a synced temporary file beside `path`, removed if dropped.
fn staged(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile, Error> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut tmp = temporary_file()
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    // A replaced file keeps its mode (a shared index stays readable by all).
    if let Ok(existing) = std::fs::metadata(path) {
        tmp.as_file()
            .set_permissions(existing.permissions())
            .map_err(|e| Error::io(path, e))?;
    }
    tmp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    Ok(tmp)
}

/// The lock file `name` in `dir` (both made if missing), open to be locked
/// with `File::lock` or `File::try_lock`.
pub fn lock_file(dir: &Path, name: &str) -> Result<(std::fs::File, std::path::PathBuf), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = dir.join(name);
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    Ok((file, path))
}

/// A temporary file that becomes a new file as any other would: read-write
/// for all, less the umask (the 0600 of a temporary file would lock other
/// users out of a shared index).
pub(crate) fn temporary_file() -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder
}

/// The most a catalog folder's file may hold: far more than any real
/// catalog or metadata cache, far less than a machine's memory.
pub const MAX_CATALOG_FILE: u64 = 64 * 1024 * 1024;

/// A regular file's bytes (through symlinks), or `None` for anything else
/// (a FIFO would block the read forever, a device never end it). A file over
/// `MAX_CATALOG_FILE` is an error that says so.
pub fn read_regular_file(path: &Path) -> Result<Option<Vec<u8>>, Error> {
    use std::io::Read;
    let size = match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => meta.len(),
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // `take` hides the file's size from `read_to_end`, which would then
    // read it in doubling chunks from 32 bytes: a system call each.
    let mut bytes = Vec::with_capacity(size.min(MAX_CATALOG_FILE) as usize + 1);
    file.take(MAX_CATALOG_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_CATALOG_FILE {
        return Err(Error::Usage(format!(
            "{}: file is larger than {} MiB; a catalog file that large is not one",
            path.display(),
            MAX_CATALOG_FILE / (1024 * 1024)
        )));
    }
    Ok(Some(bytes))
}

/// The bytes of every file below `path` (0 where it cannot be read).
pub fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::{write_all_atomic, write_atomic};

    fn mode(path: &std::path::Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_file_is_readable_by_others_as_the_umask_allows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("CURRENT");
        write_atomic(&path, b"gen-1\n").unwrap();
        // Whatever the umask, not the 0600 of a temporary file (unless the
        // umask itself says 077).
        let expected = {
            let probe = dir.path().join("probe");
            std::fs::write(&probe, b"").unwrap();
            mode(&probe)
        };
        assert_eq!(mode(&path), expected);
    }

    #[test]
    fn files_written_together_change_none_when_one_cannot_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("section.toml");
        std::fs::write(&first, b"old").unwrap();
        // A folder that cannot be made (a file holds its name) fails the
        // second write as a full disk would.
        std::fs::write(dir.path().join("blocked"), b"").unwrap();
        let second = dir.path().join("blocked").join("metadata.json");
        let files = [(first.clone(), "new"), (second, "new")];
        assert!(write_all_atomic(&files).is_err());
        assert_eq!(std::fs::read(&first).unwrap(), b"old");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 2, "a temporary file was left: {left:?}");
        write_all_atomic(&[(first.clone(), "new")]).unwrap();
        assert_eq!(std::fs::read(&first).unwrap(), b"new");
    }

    #[test]
    fn a_replaced_file_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metadata.json");
        std::fs::write(&path, b"{}").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"{\"entries\": {}}").unwrap();
        assert_eq!(mode(&path), 0o640);
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"entries\": {}}");
    }
}
