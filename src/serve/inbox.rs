//! `/api/inbox`: the curator's inbox as `inbox --json` lists it (the same
//! code makes both). Read-only: accepting and rejecting stay commands, which
//! the page shows to copy. The model is learned on the first request and
//! kept, since the index does not change under the server; the rejections
//! are read at each request, so a `reject` shows at the next one.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use super::api::{answer, error_response};
use super::app::App;
use super::params::{InboxParams, inbox_params};
use crate::catalog::Catalog;
use crate::commands::inbox::{Learned, candidate_value, ranked, rejections};
use crate::error::Error;
use crate::index::OpenIndex;
use crate::model::metadata::Cache;

/// Where the rejections are, and the inbox's model once learned (the
/// catalog, cache and index are the server's).
pub struct Inbox {
    /// Where `inbox.toml` is; none for the built-in catalog.
    catalog_dir: Option<PathBuf>,
    learned: OnceLock<Learned>,
}

impl Inbox {
    pub fn new(catalog_dir: Option<PathBuf>) -> Inbox {
        Inbox {
            catalog_dir,
            learned: OnceLock::new(),
        }
    }

    /// `{"candidates": [...], "total": N}`: the best `limit` candidates,
    /// each the object `inbox --json` prints, and how many there are.
    pub fn list(
        &self,
        catalog: &Catalog,
        cache: &Cache,
        open: &OpenIndex,
        params: &InboxParams,
    ) -> Result<Value, Error> {
        let learned = self.learned.get_or_init(|| Learned::learn(catalog, cache));
        let rejected = rejections(self.catalog_dir.as_deref())?;
        let (found, total) = ranked(
            catalog,
            learned,
            &rejected,
            open,
            params.since,
            params.limit,
        )?;
        let candidates: Vec<Value> = found
            .iter()
            .enumerate()
            .map(|(rank, candidate)| candidate_value(rank + 1, candidate))
            .collect();
        Ok(json!({ "candidates": candidates, "total": total }))
    }
}

pub async fn inbox(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    let params = match inbox_params(query.as_deref().unwrap_or("")) {
        Ok(params) => params,
        Err(message) => return error_response(StatusCode::BAD_REQUEST, message),
    };
    // The parameters were checked: a usage error now is the catalog
    // folder's (a broken `inbox.toml`), not the request's.
    answer(
        app,
        move |app| app.inbox_list(&params),
        StatusCode::INTERNAL_SERVER_ERROR,
    )
    .await
}
