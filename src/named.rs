//! The work an id names, as a user types it (an entry's id or its start,
//! `arxiv:ID`, `doi:DOI`, a pasted URL, a work's name): a catalog entry or
//! a record of the index. `show`, `similar`, watches and the server's
//! entry and similar answers all resolve ids here, so that an unknown id
//! gets the same message everywhere.

use crate::catalog::{Catalog, Entry, squash};
use crate::diagnostic;
use crate::error::Error;
use crate::index::OpenIndex;
use crate::model::metadata::{Cache, CachedEntry};
use crate::model::{ARXIV_ID_PREFIX, Record};

/// A typed id as the catalog and index spell it: a pasted arXiv or DOI
/// (doi.org, ACM) URL becomes `arxiv:ID` or `doi:DOI`.
fn typed_id(id: &str) -> String {
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
fn entry_by_identifier<'c>(catalog: &'c Catalog, cache: &Cache, id: &str) -> Option<&'c Entry> {
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

/// The id of the work `id` names (an id, `arxiv:ID` or `doi:DOI`) in the
/// catalog or the index; an unknown one is a usage error.
pub fn known_id(
    catalog: &Catalog,
    cache: &Cache,
    open: &OpenIndex,
    id: &str,
) -> Result<String, Error> {
    let id = &typed_id(id);
    let known =
        entry_by_identifier(catalog, cache, id).map_or_else(|| id.to_string(), |e| e.id.clone());
    if catalog.entry(&known).is_none() && open.document(&known)?.is_none() {
        let ids = catalog.entries.iter().map(|e| e.id.as_str());
        return Err(Error::Usage(diagnostic::unknown_id(id, ids)));
    }
    Ok(known)
}

/// What `show` shows: a catalog entry with its cached metadata, or a record
/// of an imported collection.
pub enum Shown<'c> {
    Entry(&'c Entry, Record, Option<&'c CachedEntry>),
    Imported(Record),
}

impl Shown<'_> {
    pub fn record(&self) -> &Record {
        match self {
            Shown::Entry(_, record, _) | Shown::Imported(record) => record,
        }
    }
}

/// The entry `id` names (its id, `arxiv:ID` or `doi:DOI`), else the imported
/// record that `indexed` finds for an `arxiv:` id; an unknown id is a usage
/// error that suggests the closest ones. `indexed` reads a document of the
/// index by id: an entry without curated tags has its predicted ones there.
pub fn find<'c>(
    catalog: &'c Catalog,
    cache: &'c Cache,
    id: &str,
    indexed: impl Fn(&str) -> Result<Option<Record>, Error>,
) -> Result<Shown<'c>, Error> {
    let id = &typed_id(id);
    let unknown = || {
        let ids = catalog.entries.iter().map(|e| e.id.as_str());
        Error::Usage(diagnostic::unknown_id(id, ids))
    };
    let by_identifier = entry_by_identifier(catalog, cache, id);
    let Some(entry) = by_identifier.or_else(|| catalog.entry(id)) else {
        if !id.starts_with(ARXIV_ID_PREFIX) {
            return Err(unknown());
        }
        return Ok(Shown::Imported(indexed(id)?.ok_or_else(unknown)?));
    };
    let cached = cache.get(&entry.id);
    let mut record = Record::from_entry(entry, cached);
    if record.tags.is_empty() {
        record.predicted = indexed(&entry.id)?.map_or_else(Vec::new, |r| r.predicted);
    }
    Ok(Shown::Entry(entry, record, cached))
}
