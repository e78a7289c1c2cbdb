//! Probing a link: a HEAD or a GET whose status (and `Location`) is the
//! answer, not its body. Redirects are not followed, so that a permanent
//! one can be reported with where it leads. Politeness, retries and the
//! failure budget are the client's, as for every other request.

use std::fmt;
use std::sync::atomic::Ordering;

use reqwest::header::LOCATION;
use tokio::time::Instant;
use url::Url;

use super::hosts::retry_after;
use super::{FetchError, HttpClient, Outcome, status_reason};
use crate::ingest::status::{Meaning, meaning};

/// The request a probe sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeMethod {
    Head,
    Get,
}

impl fmt::Display for ProbeMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProbeMethod::Head => "HEAD",
            ProbeMethod::Get => "GET",
        })
    }
}

/// What a server answered to a probe: any status but a transient one
/// (408, 429, 5xx are retried, and end as [`FetchError::Exhausted`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub status: u16,
    /// The `Location` header as sent (it may be relative).
    pub location: Option<String>,
}

impl HttpClient {
    /// Asks for `url` with `method`, without following redirects or
    /// reading the body.
    pub async fn probe(&self, method: ProbeMethod, url: &Url) -> Result<Probe, FetchError> {
        self.politely(url, |shown| async move {
            self.probe_once(method, url, &shown).await
        })
        .await
    }

    async fn probe_once(&self, method: ProbeMethod, url: &Url, shown: &str) -> Outcome<Probe> {
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        let request = match method {
            ProbeMethod::Head => self.inner.direct.head(url.clone()),
            ProbeMethod::Get => self.inner.direct.get(url.clone()),
        };
        let method = method.to_string();
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                let outcome = self.classify(error, shown);
                let summary = super::summary(&outcome);
                self.log(&method, shown, &format!("error: {summary}"), started);
                return outcome;
            }
        };
        let status = response.status().as_u16();
        self.log(&method, shown, &status.to_string(), started);
        // The body is never read: dropping the response closes the connection.
        if meaning(status) == Meaning::Transient {
            return Outcome::Retry {
                reason: status_reason(status),
                retry_after: retry_after(response.headers()),
            };
        }
        let location = response
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Outcome::Done(Probe { status, location })
    }
}
