//! The Atom feeds, for a feed reader on this machine: `/feed/search.atom`
//! (a search's matches: `/api/search`'s parameters), `/feed/watch/NAME.atom`
//! (a watch's matches since it was added) and `/feed/inbox.atom` (the
//! inbox's best candidates: `/api/inbox`'s parameters), each newest first
//! (see `search::present::newest`), written by `render::atom`. They pass the same
//! guard as every answer (Host, methods, security headers); their links
//! name the host the request named, which the guard let through.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::app::App;
use super::inbox::shared;
use super::params::{inbox_params, limit_only, search_params};
use super::reply::{error_response, json_text_response, not_utf8, outcome_bytes, path_text};
use super::site::Site;
use crate::error::Error;

/// Entries in a feed when `limit` is not given.
pub const FEED_LIMIT: usize = 50;

const ATOM_TYPE: &str = "application/atom+xml; charset=utf-8";

/// The parameters of `query` without `limit`, each once, sorted: the same
/// search whatever their order, for the feed's id and its page.
pub fn canonical(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .filter(|(name, value)| name != "limit" && !value.trim().is_empty())
        .map(|(name, value)| (name.into_owned(), value.trim().to_string()))
        .collect();
    pairs.sort();
    pairs.dedup();
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// Whether `query` names `limit`.
fn has_limit(query: &str) -> bool {
    url::form_urlencoded::parse(query.as_bytes()).any(|(name, _)| name == "limit")
}

pub async fn search(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let query = query.unwrap_or_default();
    let mut params = match search_params(&query) {
        Ok(params) => params,
        Err(message) => return error_response(StatusCode::BAD_REQUEST, message),
    };
    if !has_limit(&query) {
        params.limit = FEED_LIMIT;
    }
    let limit = app.clamp(params.limit);
    let site = Site::of(&headers);
    let work =
        move |app: &App| app.feed_search(&params, (&query, &canonical(&query)), limit, &site);
    answer(app, work, StatusCode::BAD_REQUEST).await
}

pub async fn watch(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    file: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let Some(file) = path_text(file) else {
        return not_utf8();
    };
    let Some(name) = file.strip_suffix(".atom").map(str::to_string) else {
        return error_response(
            StatusCode::NOT_FOUND,
            format!(
                "no such feed: a watch's feed is /feed/watch/NAME.atom, not /feed/watch/{file}"
            ),
        );
    };
    let limit = match limit_only(query.as_deref().unwrap_or(""), FEED_LIMIT) {
        Ok(limit) => app.clamp(limit),
        Err(message) => return error_response(StatusCode::BAD_REQUEST, message),
    };
    let site = Site::of(&headers);
    let work = move |app: &App| app.feed_watch(&name, limit, &site);
    answer(app, work, StatusCode::NOT_FOUND).await
}

pub async fn inbox(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let mut params = match inbox_params(query.as_deref().unwrap_or("")) {
        Ok(params) => params,
        Err(message) => return error_response(StatusCode::BAD_REQUEST, message),
    };
    params.limit = app.clamp(params.limit);
    let site = Site::of(&headers);
    let flights = app.inbox_flights();
    let key = (params.clone(), Some(site.base().to_string()));
    let work = move |stop: Arc<AtomicBool>| {
        outcome_bytes(
            app,
            move |app: &App| app.feed_inbox(&params, &stop, &site),
            StatusCode::INTERNAL_SERVER_ERROR,
        )
    };
    match shared(&flights, key, work).await {
        Ok((status, body)) => atom_response(status, body),
        Err(busy) => busy,
    }
}

/// Runs `work` off the async threads: its feed, or its error as JSON.
async fn answer(
    app: Arc<App>,
    work: impl FnOnce(&App) -> Result<Bytes, Error> + Send + 'static,
    usage: StatusCode,
) -> Response {
    let (status, body) = outcome_bytes(app, work, usage).await;
    atom_response(status, body)
}

/// A feed with 200; anything else is an error's JSON.
fn atom_response(status: StatusCode, body: Bytes) -> Response {
    if status != StatusCode::OK {
        return json_text_response(status, body);
    }
    let mut response = (status, Body::from(body)).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(ATOM_TYPE));
    response
}

#[cfg(test)]
mod tests {
    use super::canonical;

    #[test]
    fn a_search_is_named_by_its_parameters_in_one_order() {
        assert_eq!(
            canonical("tag=b&q=pipeline+bubble&tag=a&limit=5&year="),
            "q=pipeline+bubble&tag=a&tag=b"
        );
        assert_eq!(canonical("q=x&q=x"), "q=x");
        assert_eq!(canonical(""), "");
    }
}
