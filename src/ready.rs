//! The catalog and an index built from exactly it, opened in one step:
//! what every reader of the index (each command that searches, the web
//! server's command, the MCP tools) starts from. A missing or stale index
//! is rebuilt first (offline), so that a search never reads one that
//! disagrees with the catalog.

use std::io::Write;
use std::path::Path;

use crate::catalog::compiled::{self, COMPILED_FILE};
use crate::catalog::{Catalog, validate};
use crate::clock::current_year;
use crate::diagnostic;
use crate::error::Error;
use crate::index::{IndexDir, OpenIndex, fingerprint, rebuild_keeping};
use crate::locations::Locations;

/// The catalog, refusing one with problems: the first is shown with a pointer
/// to `check` for the rest. `curated` also applies the curation rules (tags,
/// notes, identifiers); without it only unreadable data is refused.
pub fn load_valid_catalog(locations: &Locations, curated: bool) -> Result<Catalog, Error> {
    let (catalog, mut problems) = locations.load_catalog()?;
    if curated {
        problems.extend(validate(&catalog, current_year()));
    }
    problems.sort();
    match problems.first() {
        None => Ok(catalog),
        Some(first) => Err(Error::Catalog {
            first: first.to_string(),
            more: problems.len() - 1,
        }),
    }
}

/// The catalog [`load_valid_catalog`] gives (not curated), read from what
/// the index's folder keeps of it when that is of these inputs (`wanted`,
/// their fingerprint), else loaded and kept there for the next command
/// (best effort: an index on a read-only disk keeps none).
fn load_kept_catalog(
    locations: &Locations,
    dir: &IndexDir,
    wanted: &str,
) -> Result<Catalog, Error> {
    let kept = dir.file(COMPILED_FILE);
    if let Some(catalog) = compiled::read(&kept, wanted) {
        return Ok(catalog);
    }
    let catalog = load_valid_catalog(locations, false)?;
    if kept.parent().is_some_and(Path::is_dir) {
        let _ = compiled::write(&kept, wanted, &catalog);
    }
    Ok(catalog)
}

/// The catalog and an index built from exactly it. A missing or stale index is
/// rebuilt first (offline); while another process rebuilds, the previous
/// index answers.
pub fn ready_index(
    locations: &Locations,
    err: &mut dyn Write,
) -> Result<(Catalog, OpenIndex), Error> {
    let inputs = locations.index_inputs()?;
    let wanted = fingerprint(inputs.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    let dir = IndexDir::new(&locations.index);
    let catalog = load_kept_catalog(locations, &dir, &wanted)?;
    // An index that cannot be opened is as good as none: the rebuild below
    // sets it aside.
    let current = match dir.open().ok().flatten() {
        Some(open)
            if open.fingerprint.as_deref() == Some(wanted.as_str()) && open.is_compatible() =>
        {
            dir.remove_leftovers();
            return Ok((catalog, open));
        }
        other => other,
    };
    let free = match (dir.try_lock(), current) {
        (Ok(free), current) => (free, current),
        // A shared index this user may only read: the previous answer beats
        // none.
        (Err(e), Some(open)) if e.is_permission_denied() => {
            diagnostic::warning(
                err,
                format_args!(
                    "the index is older than the catalog and cannot be rebuilt here ({e}); searching it as it is"
                ),
            );
            return Ok((catalog, open));
        }
        (Err(e), _) => return Err(e),
    };
    let lock = match free {
        (Some(lock), current) => (lock, current),
        (None, Some(open)) => {
            diagnostic::note(
                err,
                "another process is rebuilding the index; these results may be stale",
            );
            return Ok((catalog, open));
        }
        (None, None) => (
            dir.lock_waiting(|| {
                diagnostic::note(
                    err,
                    "waiting for another process to finish building the index",
                );
            })?,
            None,
        ),
    };
    let (lock, current) = lock;
    // Another process may have finished the same build while we waited.
    if let Some(open) = dir.open().ok().flatten()
        && open.fingerprint.as_deref() == Some(wanted.as_str())
        && open.is_compatible()
    {
        return Ok((catalog, open));
    }
    let cache = locations.load_cache()?;
    let harvested = crate::harvest::Store::new(&locations.index);
    match rebuild_keeping(&dir, &lock, &catalog, &cache, &wanted, &harvested) {
        Ok(report) => {
            for warning in crate::index::build_warnings(&report) {
                diagnostic::warning(err, warning);
            }
        }
        Err(e) => {
            // A stale answer beats none: the previous generation is intact.
            let Some(open) = current else { return Err(e) };
            diagnostic::warning(
                err,
                format_args!("could not rebuild the index ({e}); searching the previous index"),
            );
            return Ok((catalog, open));
        }
    }
    drop(lock);
    let open = dir
        .open()?
        .ok_or_else(|| Error::Index("the index was built but cannot be opened".into()))?;
    Ok((catalog, open))
}

/// `read` on a ready index. An index found damaged only while it is read
/// (corrupt postings, or a panic inside tantivy on them) is set aside and
/// rebuilt, with one warning, and read again once.
pub fn read_healing<T>(
    locations: &Locations,
    err: &mut dyn Write,
    read: impl Fn(&Catalog, &OpenIndex) -> Result<T, Error>,
) -> Result<(Catalog, OpenIndex, T), Error> {
    let (catalog, open) = ready_index(locations, err)?;
    let reason = match diagnostic::catch_panic(|| read(&catalog, &open)) {
        Ok(Ok(value)) => return Ok((catalog, open, value)),
        Ok(Err(e)) if !e.is_damaged_index() => return Err(e),
        Ok(Err(e)) => e.to_string(),
        Err(panic) => panic,
    };
    drop(open);
    let dir = IndexDir::new(&locations.index);
    let lock = dir.lock_waiting(|| ())?;
    let aside = dir.set_aside(&lock)?;
    drop(lock);
    diagnostic::warning(err, crate::index::SetAside { aside, reason }.warning());
    let (catalog, open) = ready_index(locations, err)?;
    let value = read(&catalog, &open)?;
    Ok((catalog, open, value))
}
