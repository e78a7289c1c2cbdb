//! An accepted record as a catalog entry: its block in the section's file
//! (URL, arXiv id, title, authors, venue and year from the record; the
//! curator's note and tags), and what metadata.json keeps of where those
//! fields came from, so that `show` says so.

use std::collections::HashSet;
use std::path::PathBuf;

use super::Candidate;
use crate::catalog::{
    Catalog, Entry, Kind, Listing, Origin, propose_id, render_draft, squash, unique_id,
};
use crate::error::Error;
use crate::fsutil::write_all_atomic;
use crate::model::metadata::{Cache, CachedEntry, FoundBy, Identifier, Sourced};
use crate::model::{Source, arxiv_url};

/// Most tags an entry may have (as `check` has it).
const MAX_TAGS: usize = 8;

/// What the curator says on accepting.
#[derive(Debug, Clone, Copy)]
pub struct Decision<'a> {
    pub note: &'a str,
    /// A section's name (any case), instead of the proposed one.
    pub section: Option<&'a str>,
    /// Tag ids or names, instead of the proposed ones.
    pub tags: Option<&'a [String]>,
}

/// An acceptance planned, to be written by [`Accepted::write`].
#[derive(Debug, Clone)]
pub struct Accepted {
    pub entry: Entry,
    /// The section's file and its new text.
    pub file: PathBuf,
    pub text: String,
    /// The entry's metadata: the record's fields, from arXiv.
    pub cached: CachedEntry,
}

/// Plans accepting `candidate` with `decision`: every refusal (an empty
/// note, an unknown section or tag) is one line.
pub fn plan(
    catalog: &Catalog,
    candidate: &Candidate,
    decision: Decision<'_>,
    today: &str,
    now: &str,
) -> Result<Accepted, Error> {
    let note = decision.note.trim();
    if note.is_empty() {
        return Err(Error::Usage(
            "the note is empty: say in one sentence of your own what the work contributes (--note \"...\")"
                .into(),
        ));
    }
    let r = &candidate.record;
    let arxiv = r.arxiv.clone().unwrap_or_default();
    let section_name = match decision.section {
        Some(name) => name,
        None => candidate.section.as_deref().ok_or_else(|| {
            Error::Usage(format!(
                "no section proposed for {arxiv}: give one with --section"
            ))
        })?,
    };
    let section = catalog
        .sections
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(section_name.trim()))
        .ok_or_else(|| {
            Error::Usage(format!(
                "no section named \"{section_name}\": one of {}",
                catalog.section_names().join(", ")
            ))
        })?;
    let tags = match decision.tags {
        Some(given) => resolve_tags(catalog, given)?,
        None => candidate.tags.clone(),
    };
    if tags.is_empty() {
        return Err(Error::Usage(format!(
            "no tags proposed for {arxiv}: give them with --tags TAG,..."
        )));
    }
    if tags.len() > MAX_TAGS {
        return Err(Error::Usage(format!(
            "{} tags given: an entry has at most {MAX_TAGS}",
            tags.len()
        )));
    }
    let mut ids: HashSet<String> = catalog.entries.iter().map(|e| e.id.clone()).collect();
    let entry = Entry {
        id: unique_id(&propose_id(&r.title, Kind::Paper, r.year), &mut ids),
        kind: Kind::Paper,
        title: r.title.clone(),
        url: arxiv_url(&arxiv),
        authors: r.authors.clone(),
        et_al: false,
        venue: Some(r.venue.clone().unwrap_or_else(|| "arXiv".into())),
        year: r.year,
        arxiv: Some(arxiv),
        doi: None,
        tags,
        uses: Vec::new(),
        project: None,
        note: note.to_string(),
        section: section.name.clone(),
        origin: Origin::default(),
    };
    let path = section.file.to_path_buf();
    let mut text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&render_draft(&entry, &Listing::default()));
    Ok(Accepted {
        cached: provenance(candidate, today, now),
        entry,
        file: path,
        text,
    })
}

impl Accepted {
    /// Writes the section's file and the entry's metadata into `cache`
    /// and its file, together (a failure, such as a full disk, keeps both
    /// files as they were, so that the same accept can run again).
    /// Nothing is written when `check` would refuse the entry (a record
    /// without authors, a year out of range, another entry's title).
    pub fn write(&self, cache: &mut Cache, cache_dir: &std::path::Path) -> Result<(), Error> {
        let write = (self.file.clone(), self.text.clone());
        crate::catalog::guard::vet_writes(cache_dir, std::slice::from_ref(&write))?;
        cache
            .entries
            .insert(self.entry.id.clone(), self.cached.clone());
        write_all_atomic(&[write, (Cache::path(cache_dir), cache.to_json())])
    }
}

/// The record's fields as arXiv gave them; its DOI, which the arXiv URL
/// does not carry, as one arXiv's record gave.
fn provenance(candidate: &Candidate, today: &str, now: &str) -> CachedEntry {
    let r = &candidate.record;
    fn arxiv<T>(value: T) -> Sourced<T> {
        Sourced {
            value,
            source: Source::Arxiv,
        }
    }
    let mut cached = CachedEntry {
        doi: r.doi.clone().map(|value| Identifier {
            value,
            found_by: FoundBy::Record,
            source: Some(Source::Arxiv),
            confidence: None,
        }),
        title: Some(arxiv(r.title.clone())),
        authors: Some(arxiv(r.authors.clone())).filter(|a| !a.value.is_empty()),
        abstract_text: r.abstract_text.clone().map(arxiv),
        published: r.submitted.clone().map(arxiv),
        categories: vec![r.section.clone()]
            .into_iter()
            .filter(|c| !c.is_empty())
            .collect(),
        ..CachedEntry::default()
    };
    cached.fetched_at.insert(Source::Arxiv, now.to_string());
    cached
        .other
        .insert("inbox".into(), serde_json::json!({ "accepted": today }));
    cached
}

/// Tag ids, or names of tags (labels, aliases), as ids.
fn resolve_tags(catalog: &Catalog, given: &[String]) -> Result<Vec<String>, Error> {
    let mut tags: Vec<String> = Vec::new();
    for name in given.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        let tag = catalog
            .vocabulary
            .get(name)
            .or_else(|| catalog.vocabulary.named(&squash(name)))
            .ok_or_else(|| {
                Error::Usage(format!(
                    "unknown tag \"{name}\": tags are the ids of tags.toml (`distml-search stats` lists those in use)"
                ))
            })?;
        if !tags.contains(&tag.id) {
            tags.push(tag.id.clone());
        }
    }
    Ok(tags)
}
