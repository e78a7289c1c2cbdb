//! The Atom feeds, for a feed reader on this machine: `/feed/search.atom`
//! (a search's matches: `/api/search`'s parameters), `/feed/watch/NAME.atom`
//! (a watch's matches since it was added) and `/feed/inbox.atom` (the
//! inbox's best candidates: `/api/inbox`'s parameters), each newest first
//! (see `search::newest`), written by `render::atom`. They pass the same
//! guard as every answer (Host, methods, security headers); their links
//! name the host the request named, which the guard let through.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::api::{busy, error_response, json_text_response, limit_only, outcome_bytes, path_text};
use super::app::App;
use super::flight::Joined;
use super::inbox::INBOX_COMPUTATIONS;
use super::params::{inbox_params, search_params};
use crate::error::Error;
use crate::inbox::Candidate;
use crate::model::Record;
use crate::render::atom::{Feed, FeedEntry};

/// Entries in a feed when `limit` is not given.
pub const FEED_LIMIT: usize = 50;

const ATOM_TYPE: &str = "application/atom+xml; charset=utf-8";

/// The site a request named (its `Host`), for the feed's links.
#[derive(Debug, Clone)]
pub struct Site {
    base: String,
}

impl Site {
    fn of(headers: &HeaderMap) -> Site {
        let host = (headers.get(header::HOST))
            .and_then(|h| h.to_str().ok())
            .unwrap_or("127.0.0.1");
        Site {
            base: format!("http://{host}"),
        }
    }

    /// `path` (with its query) on this site.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The page's view of the record `id`.
    pub fn view(&self, id: &str) -> String {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("entry", id)
            .finish();
        self.url(&format!("/?{query}"))
    }

    /// The feed's entries for `records`, newest first as they come.
    pub fn entries(&self, records: Vec<Record>) -> Vec<FeedEntry> {
        (records.into_iter())
            .map(|record| FeedEntry {
                view_url: self.view(&record.id),
                record,
                preface: None,
            })
            .collect()
    }

    /// The inbox's candidates as entries, newest first, each with what is
    /// proposed for it.
    pub fn candidate_entries(&self, mut candidates: Vec<Candidate>) -> Vec<FeedEntry> {
        candidates.sort_by(|a, b| crate::search::newer_first(&a.record, &b.record));
        (candidates.into_iter())
            .map(|c| FeedEntry {
                view_url: self.view(&c.record.id),
                preface: Some(proposal(&c)),
                record: c.record,
            })
            .collect()
    }
}

/// "Proposed for SECTION with tags a, b (score 0.912); why: ...".
fn proposal(c: &Candidate) -> String {
    let mut text = format!("Score {:.3}", c.score);
    if let Some(section) = &c.section {
        text.push_str(&format!("; proposed for {section}"));
    }
    if !c.tags.is_empty() {
        text.push_str(&format!(" with tags {}", c.tags.join(", ")));
    }
    if !c.why.is_empty() {
        text.push_str(&format!("; why: {}", c.why.join(", ")));
    }
    text.push('.');
    text
}

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

/// `feed` as the answer.
pub fn atom(feed: &Feed) -> Bytes {
    Bytes::from(crate::render::atom::write(feed))
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
        return super::api::not_utf8();
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
    let key = (params.clone(), Some(site.base.clone()));
    let work = move |stop: Arc<std::sync::atomic::AtomicBool>| {
        outcome_bytes(
            app,
            move |app| app.feed_inbox(&params, &stop, &site),
            StatusCode::INTERNAL_SERVER_ERROR,
        )
    };
    match flights.join(key, work).await {
        Joined::Answer((status, body)) => atom_response(status, body),
        Joined::Busy => busy(
            format!(
                "the inbox is being computed for {INBOX_COMPUTATIONS} other requests: try again in a few seconds"
            ),
            2,
        ),
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
