//! The metadata cache, `<catalog>/metadata.json`: what the ingester learned
//! about each entry, with the source of every field. Deterministic (sorted
//! keys, pretty-printed) so it can be committed and reviewed; written
//! atomically; merged so that a failed or empty answer never replaces data.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::fsutil::write_atomic;
use crate::model::paper::Source;

pub(crate) const CACHE_FILE: &str = "metadata.json";
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
    /// When a source last said it has no such paper; asked again later.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub not_found: BTreeMap<Source, String>,
    /// Fields this build does not know (a curator's annotations, a newer
    /// build's data), kept as they are through every rewrite.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// Which source is preferred for a field: arXiv's metadata (CC0) for text,
/// the publisher's for where and when it appeared.
fn rank(source: Source, publication: bool) -> u8 {
    match (source, publication) {
        (Source::Arxiv, false) | (Source::Crossref, true) => 3,
        (Source::Crossref, false) | (Source::Openalex, true) => 2,
        (Source::Openalex, false) | (Source::Arxiv, true) => 1,
    }
}

/// Replaces `slot` only with a non-empty value from a source at least as
/// preferred: a failed or empty answer never overwrites data.
fn offer<T: PartialEq>(
    slot: &mut Option<Sourced<T>>,
    value: Option<T>,
    source: Source,
    publication: bool,
    empty: impl Fn(&T) -> bool,
) {
    let Some(value) = value.filter(|v| !empty(v)) else {
        return;
    };
    let better = slot
        .as_ref()
        .is_none_or(|s| rank(source, publication) >= rank(s.source, publication));
    if better {
        *slot = Some(Sourced { value, source });
    }
}

impl CachedEntry {
    /// Takes what `record` adds. Good data is never replaced by an empty
    /// value, and the arXiv abstract is kept over a publisher's.
    pub(crate) fn absorb(&mut self, record: &crate::model::PaperRecord, source: Source, now: &str) {
        let text = |s: &String| s.trim().is_empty();
        offer(
            &mut self.title,
            Some(record.title.clone()),
            source,
            false,
            text,
        );
        offer(
            &mut self.authors,
            Some(record.authors.clone()),
            source,
            false,
            Vec::is_empty,
        );
        offer(
            &mut self.abstract_text,
            record.abstract_text.clone(),
            source,
            false,
            text,
        );
        offer(&mut self.venue, record.venue.clone(), source, true, text);
        offer(
            &mut self.published,
            record.published.clone(),
            source,
            true,
            text,
        );
        offer(
            &mut self.updated,
            record.updated.clone(),
            source,
            true,
            text,
        );
        offer(
            &mut self.journal_ref,
            record.journal_ref.clone(),
            source,
            true,
            text,
        );
        if !record.categories.is_empty() {
            self.categories = record.categories.clone();
        }
        self.fetched_at.insert(source, now.to_string());
        self.not_found.remove(&source);
    }

    /// Sets an identifier unless one was already known.
    pub(crate) fn identify(&mut self, kind: IdKind, identifier: Identifier) {
        let slot = match kind {
            IdKind::Arxiv => &mut self.arxiv,
            IdKind::Doi => &mut self.doi,
        };
        if slot.is_none() {
            *slot = Some(identifier);
        }
    }

    pub(crate) fn has_metadata(&self) -> bool {
        self.authors.is_some() || self.abstract_text.is_some()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdKind {
    Arxiv,
    Doi,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub version: u32,
    pub entries: BTreeMap<String, CachedEntry>,
    /// Top-level fields this build does not know, kept.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            version: FORMAT_VERSION,
            entries: BTreeMap::new(),
            other: BTreeMap::new(),
        }
    }
}

impl Cache {
    pub(crate) fn path(catalog_dir: &Path) -> PathBuf {
        catalog_dir.join(CACHE_FILE)
    }

    /// Parses a cache; a syntax error names the line and column, and a
    /// format this build does not know is refused rather than misread.
    pub fn parse(text: &str, path: &Path) -> Result<Cache, Error> {
        let cache: Cache = serde_json::from_str(text).map_err(|e| {
            Error::Usage(format!(
                "{}:{}:{}: metadata cache is not valid: {e}; fix it or restore it from version control",
                path.display(),
                e.line(),
                e.column()
            ))
        })?;
        if cache.version != FORMAT_VERSION {
            return Err(Error::Usage(format!(
                "{}: metadata cache has format version {}, but this distml-search reads version {FORMAT_VERSION}; use a matching distml-search or restore the file from version control",
                path.display(),
                cache.version
            )));
        }
        Ok(cache)
    }

    /// The cache of a catalog folder; an absent file is an empty cache.
    pub(crate) fn load(catalog_dir: &Path) -> Result<Cache, Error> {
        let path = Cache::path(catalog_dir);
        let Some(bytes) = crate::fsutil::read_regular_file(&path)? else {
            return Ok(Cache::default());
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::Usage(format!(
                "{}: metadata cache is not valid UTF-8 (byte {}); fix it or restore it from version control",
                path.display(),
                e.utf8_error().valid_up_to()
            ))
        })?;
        Cache::parse(&text, &path)
    }

    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes the cache atomically: a crash leaves the old file or the new one.
    pub(crate) fn save(&self, catalog_dir: &Path) -> Result<(), Error> {
        write_atomic(&Cache::path(catalog_dir), self.to_json().as_bytes())
    }

    pub(crate) fn get(&self, id: &str) -> Option<&CachedEntry> {
        self.entries.get(id)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_this_build_does_not_know_survive_a_rewrite() {
        let text = r#"{
  "curator": "kept",
  "entries": {
    "wobble-2021": {
      "title": { "value": "Wobble", "source": "arxiv" },
      "reviewed": { "by": "someone", "ok": true }
    }
  },
  "version": 1
}
"#;
        let cache = Cache::parse(text, Path::new("metadata.json")).unwrap();
        let again: serde_json::Value = serde_json::from_str(&cache.to_json()).unwrap();
        let original: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(again, original);
    }

    #[test]
    fn a_number_the_cache_does_not_know_is_written_back_as_read() {
        // Found by the `cache` fuzz target: without serde_json's exact float
        // parsing, a long number came back a digit off at each rewrite.
        let long = format!("{}0.9", "8".repeat(86));
        let text = format!(
            r#"{{"version": 1, "entries": {{"wobble-2021": {{"score": {long}, "ratio": 0.30000000000000004}}}}}}"#
        );
        let cache = Cache::parse(&text, Path::new("metadata.json")).unwrap();
        let written = cache.to_json();
        let again = Cache::parse(&written, Path::new("metadata.json")).unwrap();
        assert_eq!(again.to_json(), written);
        assert!(written.contains("0.30000000000000004"), "{written}");
    }

    use super::*;
    use crate::model::paper::PaperRecord;

    fn record(abstract_text: Option<&str>, authors: &[&str]) -> PaperRecord {
        PaperRecord {
            title: "T".into(),
            authors: authors.iter().map(|a| a.to_string()).collect(),
            abstract_text: abstract_text.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn empty_answers_never_replace_data() {
        let mut entry = CachedEntry::default();
        entry.absorb(&record(Some("from arXiv"), &["A B"]), Source::Arxiv, "t1");
        entry.absorb(&record(None, &[]), Source::Arxiv, "t2");
        assert_eq!(entry.abstract_text.as_ref().unwrap().value, "from arXiv");
        assert_eq!(entry.authors.as_ref().unwrap().value, ["A B"]);
    }

    #[test]
    fn the_arxiv_abstract_is_kept_over_a_publishers() {
        let mut entry = CachedEntry::default();
        entry.absorb(&record(Some("publisher"), &["A B"]), Source::Crossref, "t1");
        entry.absorb(&record(Some("arxiv"), &["A B"]), Source::Arxiv, "t2");
        entry.absorb(&record(Some("openalex"), &["A B"]), Source::Openalex, "t3");
        let abstract_text = entry.abstract_text.unwrap();
        assert_eq!(
            (abstract_text.value.as_str(), abstract_text.source),
            ("arxiv", Source::Arxiv)
        );
    }

    #[test]
    fn the_file_is_deterministic() {
        let mut cache = Cache::default();
        for id in ["b", "a"] {
            let mut entry = CachedEntry::default();
            entry.absorb(
                &record(Some("x"), &["A B"]),
                Source::Arxiv,
                "2026-01-01T00:00:00Z",
            );
            cache.entries.insert(id.into(), entry);
        }
        let text = cache.to_json();
        assert!(text.find("\"a\"").unwrap() < text.find("\"b\"").unwrap());
        assert_eq!(
            Cache::parse(&text, Path::new("m.json")).unwrap().to_json(),
            text
        );
    }

    #[test]
    fn an_unknown_format_version_is_refused() {
        let newer = r#"{"version": 2, "entries": {}}"#;
        let message = Cache::parse(newer, Path::new("m.json"))
            .expect_err("version 2")
            .to_string();
        assert!(
            message.starts_with("m.json: metadata cache has format version 2"),
            "{message}"
        );
        let current = r#"{"version": 1, "entries": {}}"#;
        assert_eq!(
            Cache::parse(current, Path::new("m.json")).unwrap(),
            Cache::default()
        );
    }
}
