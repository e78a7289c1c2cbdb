//! The server's inbox, as `inbox --json` lists it (the same code makes
//! both). The model is learned on the first request and kept, since the
//! catalog it learns from does not change under the server (the records it
//! scores are read from the index at each request); the rejections are
//! read at each request, so a `reject` shows at the next one. Read-only:
//! accepting and rejecting stay commands, which the page shows to copy.
//! Concurrent requests with the same parameters (and, for the feed, host)
//! share one computation, and at most `INBOX_COMPUTATIONS` run at once
//! (`flight`): more are refused with 503; one whose clients all left stops.

use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use axum::response::Response;

use super::flight::{Answer, Flights, Joined};
use super::params::InboxParams;
use super::reply::busy;
use crate::catalog::Catalog;
use crate::error::Error;
use crate::inbox::{Candidate, Learned, Rejected, ranked};
use crate::index::OpenIndex;
use crate::model::metadata::Cache;

/// Where the rejections are, and the inbox's model once learned (the
/// catalog, cache and index are the server's).
pub struct Inbox {
    /// Where `inbox.toml` is; none for the built-in catalog.
    catalog_dir: Option<PathBuf>,
    learned: OnceLock<Learned>,
    flights: Arc<Flights<InboxKey>>,
}

/// What one inbox computation answers: its parameters, and for the feed
/// the site its links name (`None`: `/api/inbox`'s JSON).
pub type InboxKey = (InboxParams, Option<String>);

/// Different inbox computations at once: each scans every record's vector.
pub const INBOX_COMPUTATIONS: usize = 2;

impl Inbox {
    pub fn new(catalog_dir: Option<PathBuf>) -> Inbox {
        Inbox {
            catalog_dir,
            learned: OnceLock::new(),
            flights: Arc::new(Flights::new(INBOX_COMPUTATIONS)),
        }
    }

    pub fn flights(&self) -> Arc<Flights<InboxKey>> {
        Arc::clone(&self.flights)
    }

    /// The best `limit` candidates, best first, and how many there are.
    pub fn candidates(
        &self,
        catalog: &Catalog,
        cache: &Cache,
        open: &OpenIndex,
        params: &InboxParams,
        stop: &AtomicBool,
    ) -> Result<(Vec<Candidate>, usize), Error> {
        let learned = self.learned.get_or_init(|| Learned::learn(catalog, cache));
        let rejected = Rejected::of_catalog(self.catalog_dir.as_deref())?;
        ranked(
            catalog,
            learned,
            &rejected,
            open,
            params.since,
            params.limit,
            stop,
        )
    }
}

/// The answer of `key`'s computation: the one running, or `work` (given
/// its stop flag) started now; 503 while `INBOX_COMPUTATIONS` others run.
pub async fn shared<F>(
    flights: &Arc<Flights<InboxKey>>,
    key: InboxKey,
    work: impl FnOnce(Arc<AtomicBool>) -> F,
) -> Result<Answer, Response>
where
    F: Future<Output = Answer> + Send + 'static,
{
    match flights.join(key, work).await {
        Joined::Answer(answer) => Ok(answer),
        Joined::Busy => Err(busy(
            format!(
                "the inbox is being computed for {INBOX_COMPUTATIONS} other requests: try again in a few seconds"
            ),
            2,
        )),
    }
}
