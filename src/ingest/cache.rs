//! The metadata cache, `<catalog>/metadata.json`: what the ingester learned
//! about each entry, with the source of every field. Deterministic (sorted
//! keys, pretty-printed) so it can be committed and reviewed; written
//! atomically; merged so that a failed or empty answer never replaces data.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::record::Source;
use crate::error::Error;
use crate::fsutil::write_atomic;

pub const CACHE_FILE: &str = "metadata.json";
const FORMAT_VERSION: u32 = 1;

/// A value and the service it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

/// How an identifier was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FoundBy {
    /// Carried by the entry's own URL.
    Url,
    /// Given by another source's record (arXiv's `doi` field, say).
    Record,
    /// A title search whose best candidate matched closely.
    TitleSearch,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Identifier {
    pub value: String,
    pub found_by: FoundBy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Title similarity in 0..=1 for title searches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

/// A title-search result close enough to show a curator, not to apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub source: Source,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    pub title: String,
    pub confidence: f64,
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CachedEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<Identifier>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<Identifier>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Sourced<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authors: Option<Sourced<Vec<String>>>,
    #[serde(default, rename = "abstract", skip_serializing_if = "Option::is_none")]
    pub abstract_text: Option<Sourced<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<Sourced<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<Sourced<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<Sourced<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal_ref: Option<Sourced<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
    /// When a source last answered for this entry (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fetched_at: BTreeMap<Source, String>,
}

impl CachedEntry {
    pub fn is_empty(&self) -> bool {
        self == &CachedEntry::default()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub version: u32,
    pub entries: BTreeMap<String, CachedEntry>,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            version: FORMAT_VERSION,
            entries: BTreeMap::new(),
        }
    }
}

impl Cache {
    pub fn path(catalog_dir: &Path) -> PathBuf {
        catalog_dir.join(CACHE_FILE)
    }

    /// Parses a cache; a syntax error names the line and column.
    pub fn parse(text: &str, path: &Path) -> Result<Cache, Error> {
        serde_json::from_str(text).map_err(|e| {
            Error::Usage(format!(
                "{}:{}:{}: metadata cache is not valid: {e}; fix it or restore it from version control",
                path.display(),
                e.line(),
                e.column()
            ))
        })
    }

    /// The cache of a catalog folder; an absent file is an empty cache.
    pub fn load(catalog_dir: &Path) -> Result<Cache, Error> {
        let path = Cache::path(catalog_dir);
        match std::fs::read_to_string(&path) {
            Ok(text) => Cache::parse(&text, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Cache::default()),
            Err(e) => Err(Error::io(&path, e)),
        }
    }

    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes the cache atomically: a crash leaves the old file or the new one.
    pub fn save(&self, catalog_dir: &Path) -> Result<(), Error> {
        write_atomic(&Cache::path(catalog_dir), self.to_json().as_bytes())
    }

    pub fn get(&self, id: &str) -> Option<&CachedEntry> {
        self.entries.get(id)
    }
}
