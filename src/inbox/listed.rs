//! Whether a record is already in the catalog: the same arXiv id or DOI
//! (an entry's own, its URL's, or one metadata.json found), or a
//! near-identical title (the rule of `check --online`'s duplicates).

use std::collections::HashMap;

use crate::catalog::Catalog;
use crate::catalog::identity::{identifiers, normalize_doi, same_title, title_key};
use crate::ident;
use crate::model::Record;
use crate::model::metadata::Cache;

/// The catalog's works by what identifies them.
pub struct Listed {
    /// `arxiv:ID` and `doi:DOI` keys, to the entry's id.
    by_identifier: HashMap<String, String>,
    /// Each entry's title key and id.
    titles: Vec<(String, String)>,
}

impl Listed {
    pub fn new(catalog: &Catalog, cache: &Cache) -> Listed {
        let mut by_identifier = HashMap::new();
        let mut titles = Vec::with_capacity(catalog.entries.len());
        for entry in &catalog.entries {
            for (key, _) in identifiers(entry, cache) {
                by_identifier.entry(key).or_insert_with(|| entry.id.clone());
            }
            titles.push((title_key(&entry.title), entry.id.clone()));
        }
        Listed {
            by_identifier,
            titles,
        }
    }

    /// The arXiv ids of the catalog's works (without versions).
    pub fn arxiv_ids(&self) -> impl Iterator<Item = &str> {
        (self.by_identifier.keys()).filter_map(|key| key.strip_prefix("arxiv:"))
    }

    /// The entry `record` is, with why: "same arXiv id", "same DOI",
    /// "a near-identical title".
    pub fn find(&self, record: &Record) -> Option<(&str, &'static str)> {
        let arxiv = record
            .arxiv
            .as_deref()
            .map(|a| format!("arxiv:{}", ident::strip_version(a.trim())));
        if let Some(id) = arxiv.and_then(|key| self.by_identifier.get(&key)) {
            return Some((id, "same arXiv id"));
        }
        let doi = record.doi.as_deref().and_then(normalize_doi);
        if let Some(id) = doi.and_then(|d| self.by_identifier.get(&format!("doi:{d}"))) {
            return Some((id, "same DOI"));
        }
        let title = title_key(&record.title);
        self.titles
            .iter()
            .find(|(known, _)| same_title(known, &title))
            .map(|(_, id)| (id.as_str(), "a near-identical title"))
    }
}
