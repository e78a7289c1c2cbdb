//! Per-host state: politeness, each request's turn, a `Retry-After`, and whether a host is gone.

use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use url::Url;

use crate::error::FetchError;

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

#[derive(Debug)]
pub(super) struct Host {
    permits: Arc<Semaphore>,
    min_interval: Duration,
    /// The earliest moment the next request may start. Each request reserves
    /// its slot under the lock, so concurrent callers queue up correctly.
    pub(super) next_start: Mutex<Instant>,
    /// Why the host was given up for the run, once it is: no request is sent
    /// to it again, and those waiting for their turn stop waiting (the turn
    /// of a dead host may be minutes away).
    pub(super) gone: OnceLock<Gone>,
    gone_notice: Notify,
    /// Failed attempts since the last answer.
    pub(super) failures: AtomicU32,
}

/// Why a host was given up, and whether it was because connecting failed.
#[derive(Debug, Clone)]
pub(super) struct Gone {
    pub(super) reason: String,
    pub(super) connect_failed: bool,
}

impl Host {
    pub(super) fn new(policy: HostPolicy, next_start: Instant) -> Self {
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
    pub(super) fn mark_gone(&self, gone: Gone) {
        let _ = self.gone.set(gone);
        self.gone_notice.notify_waiters();
    }

    /// Waits for a free slot and for this request's turn to start. (`None`
    /// would mean a closed semaphore, which this module never closes.)
    pub(super) async fn acquire(&self) -> Option<OwnedSemaphorePermit> {
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
    pub(super) fn defer_until(&self, until: Instant) {
        let mut next = lock(&self.next_start);
        *next = (*next).max(until);
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The guarded maps stay consistent even if a holder panicked.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(super) fn check_reachable(host: &Host, key: &str, shown: &str) -> Result<(), FetchError> {
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
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
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
