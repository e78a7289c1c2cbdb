//! The one place the program speaks HTTP: a GET-only client that is polite to
//! arXiv, Crossref and OpenAlex and fails fast when the network is absent.
//!
//! Politeness is per host: a cap on requests in flight and a minimum spacing
//! between request starts. Robustness: transient failures (408, 429, 5xx,
//! timeouts, dropped connections) are retried with jittered exponential
//! backoff, honouring a `Retry-After`, a failed connection marks its
//! host unreachable for the rest of the run, and bodies are read under a cap.
//! Error messages are one line, name the URL, and never show an `api_key`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use url::Url;

use super::status::{Meaning, meaning};

mod budget;
mod config;
mod hosts;
mod probe;
mod retry;

pub use crate::error::FetchError;
pub(crate) use crate::error::redact;
pub use config::{HttpConfig, user_agent};
use hosts::{Host, lock, retry_after};
pub use hosts::{HostPolicy, host_key};
pub use probe::{Probe, ProbeMethod};

/// How many characters of an error response's body go into a message.
const EXCERPT_CHARS: usize = 200;

/// A fetched page. Statuses 2xx, 404 and 410 arrive here (see
/// [`super::status::meaning`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Decoded as UTF-8, invalid sequences replaced.
    pub body: String,
    /// The final URL, after redirects.
    pub url: Url,
}

/// A polite, retrying HTTP GET client. Cloning is cheap and clones share
/// limits, reachability and counters.
#[derive(Debug, Clone)]
pub struct HttpClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    client: reqwest::Client,
    /// Follows no redirect, for [`HttpClient::probe`]: a link checker
    /// reports where a link moved.
    direct: reqwest::Client,
    config: HttpConfig,
    hosts: Mutex<HashMap<String, Arc<Host>>>,
    requests: AtomicU64,
    verbose: AtomicBool,
    /// The verbose log's lines not yet written: the client runs inside
    /// tasks that cannot hold the command's stderr, so its caller writes them
    /// (see [`HttpClient::take_log`]).
    log: Mutex<Vec<String>>,
}

/// What one attempt came to.
enum Outcome<T> {
    Done(T),
    Fatal(FetchError),
    Unreachable(String),
    Retry {
        reason: String,
        retry_after: Option<Duration>,
    },
}

impl HttpClient {
    pub fn new(config: HttpConfig) -> Result<Self, FetchError> {
        // reqwest is built without a default TLS provider; whoever installs
        // one first wins, so an error here just means it is already done.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let build = |redirects: reqwest::redirect::Policy| {
            reqwest::Client::builder()
                .user_agent(config.user_agent.as_str())
                .timeout(config.timeout)
                .connect_timeout(config.connect_timeout)
                // Retries are ours, so that each one is counted, spaced and logged.
                .retry(reqwest::retry::never())
                .redirect(redirects)
                .build()
                .map_err(|e| FetchError::Config(describe(e)))
        };
        let client = build(reqwest::redirect::Policy::default())?;
        let direct = build(reqwest::redirect::Policy::none())?;
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                direct,
                config,
                hosts: Mutex::new(HashMap::new()),
                requests: AtomicU64::new(0),
                verbose: AtomicBool::new(false),
                log: Mutex::new(Vec::new()),
            }),
        })
    }

    /// Sets the limits for `host` (as [`host_key`] spells it). Requests
    /// already in flight keep the old concurrency limit; spacing carries over.
    pub fn set_policy(&self, host: &str, policy: HostPolicy) {
        let mut hosts = lock(&self.inner.hosts);
        let old = hosts.get(host);
        let next_start = old.map_or_else(Instant::now, |old| *lock(&old.next_start));
        let replacement = Host::new(policy, next_start);
        if let Some(gone) = old.and_then(|old| old.gone.get()) {
            replacement.mark_gone(gone.clone());
        }
        hosts.insert(host.to_owned(), Arc::new(replacement));
    }

    /// When on, each request logs `GET <url> -> <status> (<ms> ms)`.
    pub(crate) fn set_verbose(&self, on: bool) {
        self.inner.verbose.store(on, Ordering::Relaxed);
    }

    /// Requests handed to the network, retries included; a request whose
    /// connection failed counts, one refused because its host is already
    /// known to be unreachable does not.
    pub fn requests_made(&self) -> u64 {
        self.inner.requests.load(Ordering::Relaxed)
    }

    /// Fetches `url`, retrying transient failures; see the module doc.
    pub async fn get(&self, url: &Url) -> Result<Response, FetchError> {
        self.politely(url, |shown| async move { self.attempt(url, &shown).await })
            .await
    }

    fn host(&self, key: &str) -> Arc<Host> {
        lock(&self.inner.hosts)
            .entry(key.to_owned())
            .or_insert_with(|| Arc::new(Host::new(HostPolicy::default(), Instant::now())))
            .clone()
    }

    /// One request: send, classify, read the body.
    async fn attempt(&self, url: &Url, shown: &str) -> Outcome<Response> {
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        let response = match self.inner.client.get(url.clone()).send().await {
            Ok(response) => response,
            Err(error) => {
                let outcome = self.classify(error, shown);
                self.log(
                    "GET",
                    shown,
                    &format!("error: {}", summary(&outcome)),
                    started,
                );
                return outcome;
            }
        };
        let status = response.status().as_u16();
        // What a status means is decided once, in `status::meaning`.
        let answered = matches!(meaning(status), Meaning::Answer | Meaning::Miss);
        let outcome = match meaning(status) {
            Meaning::Answer | Meaning::Miss => self.read_success(response, shown).await,
            Meaning::Transient => Outcome::Retry {
                reason: status_reason(status),
                retry_after: retry_after(response.headers()),
            },
            Meaning::Refused => Outcome::Fatal(FetchError::Status {
                status,
                url: shown.to_owned(),
                body_excerpt: excerpt(response).await,
            }),
        };
        // Only reading the body can fail after an answer's status line.
        let result = match &outcome {
            Outcome::Done(_) => status.to_string(),
            _ if answered => format!("{status}, then {}", summary(&outcome)),
            _ => status.to_string(),
        };
        self.log("GET", shown, &result, started);
        outcome
    }

    async fn read_success(
        &self,
        mut response: reqwest::Response,
        shown: &str,
    ) -> Outcome<Response> {
        let status = response.status().as_u16();
        let limit = self.inner.config.max_body_bytes;
        match read_capped(&mut response, limit).await {
            Ok(Some(bytes)) => Outcome::Done(Response {
                status,
                body: String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
                url: response.url().clone(),
            }),
            // Dropping the response closes the connection: the rest is never read.
            Ok(None) => Outcome::Fatal(FetchError::TooLarge {
                url: shown.to_owned(),
                limit,
            }),
            Err(error) => self.classify(error, shown),
        }
    }

    fn classify<T>(&self, error: reqwest::Error, shown: &str) -> Outcome<T> {
        // A connect timeout is both; it is the connection that failed.
        if error.is_connect() {
            Outcome::Unreachable(describe(error))
        } else if error.is_timeout() {
            Outcome::Retry {
                reason: format!(
                    "timed out after {} ms",
                    self.inner.config.timeout.as_millis()
                ),
                retry_after: None,
            }
        } else if error.is_redirect() || error.is_builder() {
            Outcome::Fatal(FetchError::Request {
                url: shown.to_owned(),
                reason: describe(error),
            })
        } else {
            // Resets, connections closed mid-response, bad gzip: the server
            // was there, so another try may well work.
            Outcome::Retry {
                reason: describe(error),
                retry_after: None,
            }
        }
    }

    fn log(&self, method: &str, shown: &str, result: &str, started: Instant) {
        if self.inner.verbose.load(Ordering::Relaxed) {
            let ms = started.elapsed().as_millis();
            lock(&self.inner.log).push(format!("{method} {shown} -> {result} ({ms} ms)"));
        }
    }

    /// The verbose log's lines since the last call, oldest first.
    pub(crate) fn take_log(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.inner.log))
    }
}

/// An attempt's result for the verbose log.
fn summary<T>(outcome: &Outcome<T>) -> String {
    match outcome {
        Outcome::Done(_) => "done".to_owned(),
        Outcome::Fatal(FetchError::TooLarge { limit, .. }) => {
            format!("body over the {limit}-byte limit")
        }
        Outcome::Fatal(error) => error.to_string(),
        Outcome::Unreachable(reason) | Outcome::Retry { reason, .. } => reason.clone(),
    }
}

pub(crate) fn status_reason(status: u16) -> String {
    match reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(text) => format!("HTTP {status} {text}"),
        None => format!("HTTP {status}"),
    }
}

/// The body, or `None` as soon as it grows past `limit`.
async fn read_capped(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    // A declared length over the limit needs no reading at all. (With gzip
    // the declared length is unknown and the loop below enforces the cap.)
    let declared = response.content_length().unwrap_or(0);
    if usize::try_from(declared).map_or(true, |n| n > limit) {
        return Ok(None);
    }
    let mut body = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// The start of an error response's body, on one line.
async fn excerpt(mut response: reqwest::Response) -> String {
    let mut bytes = Vec::new();
    // Four bytes per char at most; a failure here only shortens the excerpt.
    while bytes.len() < EXCERPT_CHARS * 4 {
        match response.chunk().await {
            Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
            _ => break,
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(EXCERPT_CHARS)
        .collect();
    if line.is_empty() {
        line.push_str("(empty body)");
    }
    redact(&line)
}

/// The error and its causes on one line, without the URL reqwest would add
/// (the caller's message names it, redacted) and without the wrappers that
/// say nothing ("error sending request: client error (Connect): ...").
fn describe(error: reqwest::Error) -> String {
    const WRAPPERS: [&str; 3] = [
        "error sending request",
        "client error (",
        "request or response body error",
    ];
    let error = error.without_url();
    let mut all: Vec<String> = Vec::new();
    let mut current: Option<&dyn std::error::Error> = Some(&error);
    while let Some(e) = current {
        let text = e.to_string();
        if !text.is_empty() && !all.iter().any(|p| p.contains(&text)) {
            all.push(text);
        }
        current = e.source();
    }
    let telling: Vec<String> = all
        .iter()
        .filter(|p| !WRAPPERS.iter().any(|w| p.starts_with(w)))
        .cloned()
        .collect();
    let parts = if telling.is_empty() { all } else { telling };
    redact(
        &parts
            .join(": ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    )
}
