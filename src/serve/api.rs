//! The JSON API's handlers: parameters checked, then the `App`'s answer,
//! computed on a blocking thread (`reply`).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use super::app::App;
use super::inbox::shared;
use super::params::{DEFAULT_LIMIT, inbox_params, limit_only, search_params};
use super::reply::{error_response, json_text_response, not_utf8, outcome, path_text};
use crate::error::Error;

pub async fn search(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    let params = match search_params(query.as_deref().unwrap_or("")) {
        Ok(params) => params,
        Err(message) => return error_response(StatusCode::BAD_REQUEST, message),
    };
    answer(app, move |app| app.search(&params), StatusCode::BAD_REQUEST).await
}

pub async fn entry(
    State(app): State<Arc<App>>,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let Some(id) = path_text(id) else {
        return not_utf8();
    };
    answer(app, move |app| app.entry(&id), StatusCode::NOT_FOUND).await
}

pub async fn similar(
    State(app): State<Arc<App>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let Some(id) = path_text(id) else {
        return not_utf8();
    };
    // `limit=N` is its only parameter.
    let limit = match limit_only(query.as_deref().unwrap_or(""), DEFAULT_LIMIT) {
        Ok(limit) => app.clamp(limit),
        Err(message) => return error_response(StatusCode::BAD_REQUEST, message),
    };
    answer(
        app,
        move |app| app.similar(&id, limit),
        StatusCode::NOT_FOUND,
    )
    .await
}

/// `/api/inbox`: one computation for every concurrent request with the
/// same parameters (`inbox::shared`).
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
            move |app: &App| app.inbox(&params, &stop),
            StatusCode::INTERNAL_SERVER_ERROR,
        )
    };
    match shared(&flights, key, work).await {
        Ok((status, body)) => json_text_response(status, body),
        Err(busy) => busy,
    }
}

pub async fn not_found() -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        "no such page (the API: /api/search, /api/entry/ID, /api/similar/ID, /api/inbox; the feeds: /feed/search.atom, /feed/watch/NAME.atom, /feed/inbox.atom)".into(),
    )
}

/// Runs `work` off the async threads and answers its value, or its error
/// (a usage error is `usage`).
async fn answer(
    app: Arc<App>,
    work: impl FnOnce(&App) -> Result<Value, Error> + Send + 'static,
    usage: StatusCode,
) -> Response {
    let (status, body) = outcome(app, work, usage).await;
    json_text_response(status, body)
}
