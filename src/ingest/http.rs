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
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use url::Url;

use super::status::{Meaning, meaning};

mod probe;
pub use probe::{Probe, ProbeMethod};

/// The environment variable that overrides the per-request timeout.
pub(crate) const TIMEOUT_ENV: &str = crate::environment::HTTP_TIMEOUT_MS;

/// How many characters of an error response's body go into a message.
const EXCERPT_CHARS: usize = 200;

/// Settings for an [`HttpClient`].
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Sent with every request; build it with [`user_agent`].
    pub user_agent: String,
    /// Whole-request limit, body included.
    pub timeout: Duration,
    /// Kept short so that an offline machine fails in seconds.
    pub connect_timeout: Duration,
    /// A longer body is refused, unread, with [`FetchError::TooLarge`].
    pub max_body_bytes: usize,
    /// Retries after the first attempt, for transient failures only.
    pub max_retries: u32,
    /// First backoff step; it doubles with each retry.
    pub base_backoff: Duration,
    /// Cap on the backoff; a server whose `Retry-After` asks for longer is
    /// given up for the run.
    pub max_backoff: Duration,
    /// Consecutive failed attempts (5xx, timeouts, resets) after which a
    /// host is given up for the run: a broken service must not hold a run
    /// for many minutes, request after request.
    pub failure_budget: u32,
}

impl Default for HttpConfig {
    /// The defaults, without looking at the environment.
    fn default() -> Self {
        Self {
            user_agent: user_agent(None),
            timeout: Duration::from_secs(20),
            connect_timeout: Duration::from_secs(5),
            max_body_bytes: 8 * 1024 * 1024,
            max_retries: 4,
            base_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(60),
            failure_budget: 6,
        }
    }
}

impl HttpConfig {
    /// The defaults with the contact address in the User-Agent (the APIs'
    /// "polite pool" wants one) and the timeout from `DISTML_HTTP_TIMEOUT_MS`.
    pub(crate) fn from_env(mailto: Option<&str>) -> Result<Self, FetchError> {
        let mut config = Self {
            user_agent: user_agent(mailto),
            ..Self::default()
        };
        if let Ok(value) = std::env::var(TIMEOUT_ENV) {
            config.timeout = parse_timeout_ms(&value).ok_or_else(|| {
                FetchError::Config(format!(
                    "{TIMEOUT_ENV} must be a positive number of milliseconds, not {value:?}"
                ))
            })?;
        }
        Ok(config)
    }
}

fn parse_timeout_ms(value: &str) -> Option<Duration> {
    match value.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Some(Duration::from_millis(ms)),
        _ => None,
    }
}

/// `distml-search/<version> (+https://github.com/distml-search; mailto:x@y)`.
/// Characters that cannot appear in a header are dropped from `mailto`.
pub fn user_agent(mailto: Option<&str>) -> String {
    let mut agent = format!(
        "distml-search/{} (+https://github.com/distml-search",
        env!("CARGO_PKG_VERSION")
    );
    let mailto: String = mailto
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_graphic)
        .collect();
    if !mailto.is_empty() {
        let _ = write!(agent, "; mailto:{mailto}");
    }
    agent.push(')');
    agent
}

/// Limits for one host. Unknown hosts get the [`Default`]: two requests in
/// flight, no spacing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostPolicy {
    /// Requests in flight at once (0 is treated as 1).
    pub max_concurrent: usize,
    /// Minimum time between the starts of two requests.
    pub min_interval: Duration,
}

impl Default for HostPolicy {
    fn default() -> Self {
        Self {
            max_concurrent: 2,
            min_interval: Duration::ZERO,
        }
    }
}

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

/// Why a GET failed. URLs in here are strings with `api_key` values redacted.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("HTTP configuration: {0}")]
    Config(String),
    #[error("cannot fetch {url}: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// A status that retrying will not fix (400, 401, 403, ...).
    #[error("GET {url} returned HTTP {status}: {body_excerpt}")]
    Status {
        status: u16,
        url: String,
        body_excerpt: String,
    },
    /// Connecting failed (refused, DNS, connect timeout, TLS), or the host
    /// was given up (its failure budget spent, or a `Retry-After` too long),
    /// now or earlier in this client's life; nothing more is sent to `host`.
    #[error("GET {url}: host {host} is unreachable ({reason}); skipping it from now on")]
    HostUnreachable {
        host: String,
        url: String,
        reason: String,
        /// Whether connecting failed, rather than the host being given up:
        /// a link checker reports the first as a dead link, the second as
        /// links left unchecked.
        connect_failed: bool,
    },
    #[error("GET {url}: response body is larger than the {limit}-byte limit")]
    TooLarge { url: String, limit: usize },
    /// Transient failures outlasted the retries; `reason` is the last one.
    #[error("GET {url} failed after {attempts} attempts: {reason}")]
    Exhausted {
        url: String,
        attempts: u32,
        reason: String,
    },
    /// A failure retrying will not fix, such as a redirect loop.
    #[error("GET {url} failed: {reason}")]
    Request { url: String, reason: String },
}

/// The key under which policies and reachability are kept: the host, with
/// `:port` when the URL names a non-default port (`export.arxiv.org`,
/// `127.0.0.1:8080`).
pub fn host_key(url: &Url) -> Option<String> {
    let host = url.host_str()?;
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    })
}

/// Replaces every `api_key=` value in `text` (a URL or a message holding
/// one) with `***`.
pub(crate) fn redact(text: &str) -> String {
    const KEY: &str = "api_key=";
    // ASCII lowercasing keeps byte offsets, so positions carry over.
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(found) = lower[from..].find(KEY) {
        let start = from + found;
        let value = start + KEY.len();
        from = value;
        let at_boundary = start == 0 || matches!(text.as_bytes()[start - 1], b'?' | b'&' | b';');
        if !at_boundary {
            continue;
        }
        let end = text[value..]
            .find(|c: char| matches!(c, '&' | '#' | ';' | ')' | '"' | '\'') || c.is_whitespace())
            .map_or(text.len(), |n| value + n);
        out.push_str(&text[copied..value]);
        out.push_str("***");
        copied = end;
        from = end;
    }
    out.push_str(&text[copied..]);
    out
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

#[derive(Debug)]
struct Host {
    permits: Arc<Semaphore>,
    min_interval: Duration,
    /// The earliest moment the next request may start. Each request reserves
    /// its slot under the lock, so concurrent callers queue up correctly.
    next_start: Mutex<Instant>,
    /// Why the host was given up for the run, once it is: no request is sent
    /// to it again, and those waiting for their turn stop waiting (the turn
    /// of a dead host may be minutes away).
    gone: OnceLock<Gone>,
    gone_notice: Notify,
    /// Failed attempts since the last answer.
    failures: AtomicU32,
}

/// Why a host was given up, and whether it was because connecting failed.
#[derive(Debug, Clone)]
struct Gone {
    reason: String,
    connect_failed: bool,
}

impl Host {
    fn new(policy: HostPolicy, next_start: Instant) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(policy.max_concurrent.max(1))),
            min_interval: policy.min_interval,
            next_start: Mutex::new(next_start),
            gone: OnceLock::new(),
            gone_notice: Notify::new(),
            failures: AtomicU32::new(0),
        }
    }

    /// The first reason stays: it is what made the host go.
    fn mark_gone(&self, gone: Gone) {
        let _ = self.gone.set(gone);
        self.gone_notice.notify_waiters();
    }

    /// Waits for a free slot and for this request's turn to start. (`None`
    /// would mean a closed semaphore, which this module never closes.)
    async fn acquire(&self) -> Option<OwnedSemaphorePermit> {
        let permit = self.permits.clone().acquire_owned().await.ok()?;
        let start = {
            let mut next = lock(&self.next_start);
            let start = (*next).max(Instant::now());
            *next = start + self.min_interval;
            start
        };
        // Registered before the flag is read, so a host found dead in
        // between still wakes this request.
        let notice = self.gone_notice.notified();
        tokio::pin!(notice);
        notice.as_mut().enable();
        if self.gone.get().is_none() {
            tokio::select! {
                () = tokio::time::sleep_until(start) => {}
                () = notice => {}
            }
        }
        Some(permit)
    }

    /// Holds back every request to this host until `until` (a server asked
    /// us to slow down, so the whole host waits, not just one request).
    fn defer_until(&self, until: Instant) {
        let mut next = lock(&self.next_start);
        *next = (*next).max(until);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The guarded maps stay consistent even if a holder panicked.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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

    /// Sends `attempt` until it is done, under the host's limits, retrying
    /// transient failures and giving the host up when it is gone.
    /// (`send` takes the redacted URL by value: an `AsyncFn(&str)` would
    /// make the future not `Send`, for want of higher-ranked bounds.)
    async fn politely<T, Attempt>(
        &self,
        url: &Url,
        send: impl Fn(String) -> Attempt,
    ) -> Result<T, FetchError>
    where
        Attempt: Future<Output = Outcome<T>>,
    {
        let shown = redact(url.as_str());
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::InvalidUrl {
                url: shown,
                reason: format!("unsupported scheme {:?}", url.scheme()),
            });
        }
        let Some(key) = host_key(url) else {
            return Err(FetchError::InvalidUrl {
                url: shown,
                reason: "no host".to_owned(),
            });
        };
        let config = &self.inner.config;
        let mut attempt: u32 = 0;
        loop {
            let host = self.host(&key);
            check_reachable(&host, &key, &shown)?;
            let outcome = {
                let permit = host.acquire().await;
                // Another request may have found the host dead while we queued.
                check_reachable(&host, &key, &shown)?;
                let outcome = send(shown.clone()).await;
                drop(permit);
                outcome
            };
            match outcome {
                Outcome::Done(response) => {
                    host.failures.store(0, Ordering::SeqCst);
                    return Ok(response);
                }
                Outcome::Fatal(error) => return Err(error),
                Outcome::Unreachable(reason) => {
                    let gone = Gone {
                        reason,
                        connect_failed: true,
                    };
                    return Err(self.give_up(&host, key, shown, gone));
                }
                Outcome::Retry {
                    reason,
                    retry_after,
                } => {
                    if let Some(why) = self.gives_up(&host, retry_after) {
                        let gone = Gone {
                            reason: format!("{reason}; {why}"),
                            connect_failed: false,
                        };
                        return Err(self.give_up(&host, key, shown, gone));
                    }
                    if attempt >= config.max_retries {
                        return Err(FetchError::Exhausted {
                            url: shown,
                            attempts: attempt + 1,
                            reason,
                        });
                    }
                    match retry_after {
                        Some(delay) => host.defer_until(Instant::now() + delay),
                        None => tokio::time::sleep(self.backoff(attempt)).await,
                    }
                    attempt += 1;
                }
            }
        }
    }

    /// Marks the host unreachable for the rest of the run: requests queued
    /// for it stop waiting, and none is sent to it again.
    fn give_up(&self, host: &Host, key: String, shown: String, gone: Gone) -> FetchError {
        host.mark_gone(gone.clone());
        FetchError::HostUnreachable {
            host: key,
            url: shown,
            reason: gone.reason,
            connect_failed: gone.connect_failed,
        }
    }

    /// Why a host that just failed again is given up for the run, if it is:
    /// its failure budget is spent, or it asked to wait longer than we would.
    fn gives_up(&self, host: &Host, retry_after: Option<Duration>) -> Option<String> {
        let config = &self.inner.config;
        let failures = host.failures.fetch_add(1, Ordering::SeqCst) + 1;
        match retry_after {
            Some(wait) if wait > config.max_backoff => Some(format!(
                "it asked to wait {} s, more than the {} s this run waits",
                wait.as_secs(),
                config.max_backoff.as_secs()
            )),
            _ if failures >= config.failure_budget.max(1) => Some(format!(
                "{failures} failed requests in a row; not asking it again this run"
            )),
            _ => None,
        }
    }

    fn host(&self, key: &str) -> Arc<Host> {
        lock(&self.inner.hosts)
            .entry(key.to_owned())
            .or_insert_with(|| Arc::new(Host::new(HostPolicy::default(), Instant::now())))
            .clone()
    }

    /// Full jitter: uniform in [0, min(base * 2^attempt, max)], so that
    /// clients that failed together do not retry together.
    fn backoff(&self, attempt: u32) -> Duration {
        let config = &self.inner.config;
        let ceiling = config
            .base_backoff
            .saturating_mul(1u32 << attempt.min(20))
            .min(config.max_backoff);
        let ms = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(rand::random_range(0..=ms))
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

fn check_reachable(host: &Host, key: &str, shown: &str) -> Result<(), FetchError> {
    match host.gone.get() {
        Some(gone) => Err(FetchError::HostUnreachable {
            host: key.to_owned(),
            url: shown.to_owned(),
            reason: gone.reason.clone(),
            connect_failed: gone.connect_failed,
        }),
        None => Ok(()),
    }
}

/// A response's `Retry-After`, if it has one that can be read.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()))
}

/// `Retry-After` as a delay: delta-seconds or an HTTP-date. Anything else
/// is ignored and the ordinary backoff applies.
fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_api_key_values_only() {
        assert_eq!(
            redact("https://x.org/w?api_key=s3cret&q=1#f"),
            "https://x.org/w?api_key=***&q=1#f"
        );
        assert_eq!(
            redact("GET https://x.org/w?q=1&API_KEY=abc failed"),
            "GET https://x.org/w?q=1&API_KEY=*** failed"
        );
        assert_eq!(
            redact("https://x.org/?my_api_key=v"),
            "https://x.org/?my_api_key=v"
        );
        assert_eq!(redact("no key here"), "no key here");
    }

    #[test]
    fn user_agent_names_version_and_contact() {
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(
            user_agent(Some("a@b.org")),
            format!("distml-search/{version} (+https://github.com/distml-search; mailto:a@b.org)")
        );
        assert_eq!(
            user_agent(Some(" \n")),
            format!("distml-search/{version} (+https://github.com/distml-search)")
        );
    }

    #[test]
    fn retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_770);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        // 1994-11-06T08:49:37Z is 784111777.
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            parse_retry_after(
                "Sun, 06 Nov 1994 08:49:37 GMT",
                now + Duration::from_secs(60)
            ),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(
            parse_retry_after("Sun, 32 Nov 1994 08:49:37 GMT", now),
            None
        );
    }

    #[test]
    fn timeout_env_values() {
        assert_eq!(
            parse_timeout_ms(" 1500 "),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_timeout_ms("0"), None);
        assert_eq!(parse_timeout_ms("2s"), None);
    }

    #[test]
    fn host_key_keeps_explicit_ports() {
        let key = |s: &str| Url::parse(s).ok().and_then(|u| host_key(&u));
        assert_eq!(
            key("https://export.arxiv.org/api/query").as_deref(),
            Some("export.arxiv.org")
        );
        assert_eq!(
            key("http://127.0.0.1:8080/x").as_deref(),
            Some("127.0.0.1:8080")
        );
        assert_eq!(
            key("https://api.crossref.org:443/").as_deref(),
            Some("api.crossref.org")
        );
    }
}
