//! Endpoints and knobs of the ingester, from the environment (see DESIGN.md).

use std::time::Duration;

use url::Url;

use super::http::HttpConfig;
use crate::environment;
use crate::error::Error;

pub(crate) const ARXIV_API: &str = "https://export.arxiv.org/api/query";
pub(crate) const CROSSREF_API: &str = "https://api.crossref.org";
pub(crate) const OPENALEX_API: &str = "https://api.openalex.org";
/// arXiv asks for one request every three seconds.
pub(crate) const ARXIV_DELAY_MS: u64 = 3000;

#[derive(Debug, Clone)]
pub(crate) struct IngestConfig {
    pub arxiv_api: Url,
    pub crossref_api: Url,
    pub openalex_api: Url,
    pub openalex_key: Option<String>,
    pub arxiv_delay: Duration,
    pub mailto: Option<String>,
    pub http: HttpConfig,
    /// The longest a run may take: the backstop of the per-host failure
    /// budget (`DISTML_INGEST_DEADLINE_S`, default 30 minutes).
    pub deadline: Duration,
    /// Fetch again what the cache already has.
    pub refresh: bool,
    pub verbose: bool,
}

/// A full first run of the shipped catalog at arXiv's pace takes minutes.
const DEADLINE_S: u64 = 30 * 60;

fn var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

pub(crate) fn endpoint(name: &str, default: &str) -> Result<Url, Error> {
    let text = var(name).unwrap_or_else(|| default.to_string());
    Url::parse(&text).map_err(|e| Error::Usage(format!("{name}={text:?} is not a URL: {e}")))
}

/// Appends path segments to a base URL, which may or may not end in `/`.
pub(super) fn push_segments(url: &mut Url, segments: &[&str]) {
    // Only cannot-be-a-base URLs (`mailto:`, `data:`) refuse; no HTTP base is
    // one, and there is nothing sensible to append to them.
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty().extend(segments);
    }
}

impl IngestConfig {
    pub(crate) fn from_env(refresh: bool, verbose: bool) -> Result<IngestConfig, Error> {
        let mailto = var(environment::MAILTO);
        let arxiv_delay = match var(environment::ARXIV_DELAY_MS) {
            None => ARXIV_DELAY_MS,
            Some(v) => v.parse().map_err(|_| {
                Error::Usage(format!(
                    "DISTML_ARXIV_DELAY_MS must be a number of milliseconds, not {v:?}"
                ))
            })?,
        };
        let http = HttpConfig::from_env(mailto.as_deref())?;
        let deadline = match var(environment::INGEST_DEADLINE_S) {
            None => DEADLINE_S,
            Some(v) => v.parse().map_err(|_| {
                Error::Usage(format!(
                    "DISTML_INGEST_DEADLINE_S must be a number of seconds, not {v:?}"
                ))
            })?,
        };
        Ok(IngestConfig {
            arxiv_api: endpoint(environment::ARXIV_API, ARXIV_API)?,
            crossref_api: endpoint(environment::CROSSREF_API, CROSSREF_API)?,
            openalex_api: endpoint(environment::OPENALEX_API, OPENALEX_API)?,
            openalex_key: var(environment::OPENALEX_KEY),
            arxiv_delay: Duration::from_millis(arxiv_delay),
            deadline: Duration::from_secs(deadline),
            mailto,
            http,
            refresh,
            verbose,
        })
    }
}
