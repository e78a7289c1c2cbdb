//! The failure budget: when a host is given up for the run, and what giving it up does.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::HttpClient;
use super::hosts::{Gone, Host};
use crate::error::FetchError;

impl HttpClient {
    /// Marks the host unreachable for the rest of the run: requests queued
    /// for it stop waiting, and none is sent to it again.
    pub(super) fn give_up(
        &self,
        host: &Host,
        key: String,
        shown: String,
        gone: Gone,
    ) -> FetchError {
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
    pub(super) fn gives_up(&self, host: &Host, retry_after: Option<Duration>) -> Option<String> {
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
}
