//! The health cache, `<catalog>/health.json`: what `check --online` learned
//! about each link and each arXiv paper, with when, so that a run within
//! the time-to-live asks the network nothing. Deterministic (sorted keys,
//! pretty-printed) and written atomically, as metadata.json is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::clock::seconds_since;
use crate::error::Error;
use crate::fsutil::{read_regular_file, write_atomic};

pub(crate) const HEALTH_FILE: &str = "health.json";
const FORMAT_VERSION: u32 = 1;

/// What a link came to. Links left unchecked (their host gone, the run's
/// deadline) are not kept: the next run asks again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    Ok,
    /// 301 or 308, to `location` (absolute).
    Moved,
    Dead,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LinkResult {
    pub checked_at: String,
    pub verdict: Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Why a dead link is dead, as the report says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What arXiv (and, for its DOI, Crossref or OpenAlex) said about one paper.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PaperResult {
    pub checked_at: String,
    /// Whether arXiv knows the id at all.
    pub on_arxiv: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal_ref: Option<String>,
    /// The published venue and year, from Crossref or OpenAlex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<i64>,
    /// The title arXiv gives the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl PaperResult {
    /// Fresh, and holding all that this build asks for: a paper cached by
    /// a build that did not keep titles is asked again.
    pub(crate) fn is_fresh(&self, ttl: Duration) -> bool {
        fresh(&self.checked_at, ttl) && (self.title.is_some() || !self.on_arxiv)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct HealthCache {
    pub version: u32,
    /// By URL as the catalog writes it.
    #[serde(default)]
    pub links: BTreeMap<String, LinkResult>,
    /// By arXiv id.
    #[serde(default)]
    pub papers: BTreeMap<String, PaperResult>,
}

impl Default for HealthCache {
    fn default() -> Self {
        Self {
            version: FORMAT_VERSION,
            links: BTreeMap::new(),
            papers: BTreeMap::new(),
        }
    }
}

/// Whether a result checked at `checked_at` is still fresh.
pub(crate) fn fresh(checked_at: &str, ttl: Duration) -> bool {
    let ttl = i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX);
    seconds_since(checked_at).is_some_and(|age| (0..ttl).contains(&age))
}

impl HealthCache {
    pub(crate) fn path(catalog_dir: &Path) -> PathBuf {
        catalog_dir.join(HEALTH_FILE)
    }

    /// The cache of a catalog folder. An absent file is an empty cache; so
    /// is one this build cannot read, with the reason returned: it only
    /// saves requests, and the run rewrites it.
    pub(crate) fn load(catalog_dir: &Path) -> Result<(HealthCache, Option<String>), Error> {
        let path = HealthCache::path(catalog_dir);
        let Some(bytes) = read_regular_file(&path)? else {
            return Ok((HealthCache::default(), None));
        };
        let parsed = serde_json::from_slice::<HealthCache>(&bytes);
        Ok(match parsed {
            Ok(cache) if cache.version == FORMAT_VERSION => (cache, None),
            Ok(cache) => (
                HealthCache::default(),
                Some(format!(
                    "{}: format version {} is not {FORMAT_VERSION}; starting afresh",
                    path.display(),
                    cache.version
                )),
            ),
            Err(e) => (
                HealthCache::default(),
                Some(format!(
                    "{}: unreadable ({e}); starting afresh",
                    path.display()
                )),
            ),
        })
    }

    pub(crate) fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    pub(crate) fn save(&self, catalog_dir: &Path) -> Result<(), Error> {
        write_atomic(&HealthCache::path(catalog_dir), self.to_json().as_bytes())
    }

    /// Forgets what no entry links to or names any more.
    pub(crate) fn retain(&mut self, urls: &[&str], arxiv_ids: &[&str]) {
        self.links.retain(|url, _| urls.contains(&url.as_str()));
        self.papers.retain(|id, _| arxiv_ids.contains(&id.as_str()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freshness_follows_the_time_to_live() {
        let now = crate::clock::now_rfc3339();
        assert!(fresh(&now, Duration::from_secs(3600)));
        assert!(!fresh(&now, Duration::ZERO));
        assert!(!fresh("2000-01-01T00:00:00Z", Duration::from_secs(3600)));
        assert!(!fresh("not a time", Duration::from_secs(3600)));
    }

    #[test]
    fn the_file_is_deterministic_and_reads_back() {
        let mut cache = HealthCache::default();
        for url in ["https://b.example/", "https://a.example/"] {
            cache.links.insert(
                url.into(),
                LinkResult {
                    checked_at: "2030-01-01T00:00:00Z".into(),
                    verdict: Verdict::Ok,
                    status: Some(200),
                    location: None,
                    detail: None,
                },
            );
        }
        let text = cache.to_json();
        assert!(text.find("a.example").unwrap() < text.find("b.example").unwrap());
        let again: HealthCache = serde_json::from_str(&text).unwrap();
        assert_eq!(again.to_json(), text);
    }
}
