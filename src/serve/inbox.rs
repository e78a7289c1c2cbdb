//! `/api/inbox`: the curator's inbox as `inbox --json` lists it (the same
//! code makes both). Read-only: accepting and rejecting stay commands, which
//! the page shows to copy. The model is learned on the first request and
//! kept, since the catalog it learns from does not change under the server
//! (the records it scores are read from the index at each request); the
//! rejections are read at each request, so a `reject` shows at the next
//! one. The feed (`feed.rs`) shares these computations, by parameters and
//! host.
//! Concurrent requests with the same parameters share one computation, and
//! at most `INBOX_COMPUTATIONS` run at once (`flight`): more are refused
//! with 503; one whose clients all left stops.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use super::api::{busy, error_response, json_text_response, outcome};
use super::app::App;
use super::flight::{Flights, Joined};
use super::params::{InboxParams, inbox_params};
use crate::catalog::Catalog;
use crate::error::Error;
use crate::inbox::{Candidate, Learned, Rejected, ranked};
use crate::index::OpenIndex;
use crate::model::metadata::Cache;
use crate::render::json::candidate_value;

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

    /// `{"candidates": [...], "total": N}`: the best `limit` candidates,
    /// each the object `inbox --json` prints, and how many there are.
    pub fn list(
        &self,
        catalog: &Catalog,
        cache: &Cache,
        open: &OpenIndex,
        params: &InboxParams,
        stop: &AtomicBool,
    ) -> Result<Value, Error> {
        let (found, total) = self.candidates(catalog, cache, open, params, stop)?;
        let candidates: Vec<Value> = found
            .iter()
            .enumerate()
            .map(|(rank, candidate)| candidate_value(rank + 1, candidate))
            .collect();
        Ok(json!({ "candidates": candidates, "total": total }))
    }
}

pub async fn inbox(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    let mut params = match inbox_params(query.as_deref().unwrap_or("")) {
        Ok(params) => params,
        Err(message) => return error_response(StatusCode::BAD_REQUEST, message),
    };
    params.limit = app.clamp(params.limit);
    let flights = app.inbox_flights();
    let key = (params.clone(), None);
    // The parameters were checked: a usage error now is the catalog
    // folder's (a broken `inbox.toml`), not the request's.
    let work = move |stop: Arc<AtomicBool>| {
        outcome(
            app,
            move |app| app.inbox_list(&params, &stop),
            StatusCode::INTERNAL_SERVER_ERROR,
        )
    };
    match flights.join(key, work).await {
        Joined::Answer((status, body)) => json_text_response(status, body),
        Joined::Busy => busy(
            format!(
                "the inbox is being computed for {INBOX_COMPUTATIONS} other requests: try again in a few seconds"
            ),
            2,
        ),
    }
}
