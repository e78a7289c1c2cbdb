//! One module per subcommand: each resolves its inputs, calls the library and
//! writes to the given output. Exit statuses are decided in `lib.rs`.

pub mod check;
pub mod export;
pub mod harvest;
pub mod import;
pub mod inbox;
pub mod index;
pub mod list;
pub mod mcp;
pub mod search;
pub mod serve;
pub mod show;
pub mod stats;
pub mod watch;

use std::io::Write;

use crate::catalog::{Catalog, Entry, squash, validate};
use crate::clock::current_year;
use crate::diagnostic;
use crate::error::Error;
use crate::index::{IndexDir, OpenIndex, fingerprint, rebuild_keeping};
use crate::locations::Locations;
use crate::model::metadata::Cache;

/// The catalog folder's lock, for a command that writes the catalog; a note
/// says so when it waits for another writer.
pub(crate) fn lock_for_writing(
    dir: &std::path::Path,
    err: &mut dyn Write,
) -> Result<crate::catalog::CatalogLock, Error> {
    crate::catalog::lock_catalog(dir, || {
        diagnostic::note(
            err,
            "another command is writing the catalog; waiting for it to finish",
        )
    })
}

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
    let catalog = load_valid_catalog(locations, false)?;
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

/// A typed id as the catalog and index spell it: a pasted arXiv or DOI
/// (doi.org, ACM) URL becomes `arxiv:ID` or `doi:DOI`.
pub fn typed_id(id: &str) -> String {
    let id = id.trim();
    if let Some(arxiv) = crate::ident::arxiv_from_url(id) {
        return format!("arxiv:{arxiv}");
    }
    if let Some(doi) = crate::ident::doi_from_url(id) {
        return format!("doi:{doi}");
    }
    id.to_string()
}

/// The catalog entry `id` names when it is not an entry's id: the one
/// whose URL it is, whose id it starts ("gpipe": gpipe-2019), or whose
/// work's name it is ("Megatron-LM"), when only one does.
fn entry_by_name<'c>(catalog: &'c Catalog, id: &str) -> Option<&'c Entry> {
    let only = |mut found: Vec<&'c Entry>| (found.len() == 1).then(|| found.remove(0));
    let url = id.trim_end_matches('/');
    let by_url = (catalog.entries.iter())
        .filter(|e| e.url.trim_end_matches('/').eq_ignore_ascii_case(url))
        .collect();
    let starting = format!("{}-", id.to_lowercase());
    let by_start = (catalog.entries.iter())
        .filter(|e| e.id.starts_with(&starting))
        .collect();
    let name = squash(id);
    let by_name = (catalog.lookups().works.iter())
        .filter(|(work, _)| *work == name)
        .filter_map(|(_, id)| catalog.entry(id))
        .collect();
    only(by_url)
        .or_else(|| only(by_start))
        .or_else(|| only(by_name))
}

/// The catalog entry an `arxiv:ID` or `doi:DOI` names, by its own identifier
/// or one a lookup found, else the one [`entry_by_name`] finds when no
/// entry has the id.
pub fn entry_by_identifier<'c>(catalog: &'c Catalog, cache: &Cache, id: &str) -> Option<&'c Entry> {
    let wanted = |own: Option<&str>, found: Option<&str>, value: &str| {
        own.or(found)
            .is_some_and(|known| known.eq_ignore_ascii_case(value))
    };
    let (arxiv, doi) = match (id.strip_prefix("arxiv:"), id.strip_prefix("doi:")) {
        (Some(arxiv), _) => (Some(crate::ident::strip_version(arxiv)), None),
        (_, Some(doi)) => (None, Some(doi)),
        _ if catalog.entry(id).is_some() => return None,
        _ => return entry_by_name(catalog, id),
    };
    catalog.entries.iter().find(|e| {
        let cached = cache.get(&e.id);
        let cached_arxiv = cached
            .and_then(|c| c.arxiv.as_ref())
            .map(|i| i.value.as_str());
        let cached_doi = cached
            .and_then(|c| c.doi.as_ref())
            .map(|i| i.value.as_str());
        arxiv.is_some_and(|a| wanted(e.arxiv.as_deref(), cached_arxiv, a))
            || doi.is_some_and(|d| wanted(e.doi.as_deref(), cached_doi, d))
    })
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
