//! The JSON API's handlers: parameters checked, the search run on a blocking
//! thread (it is CPU work), errors answered as `{"error", "status"}` with the
//! CLI's one-line message.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::app::App;
use super::params::{DEFAULT_LIMIT, limit, search_params};
use crate::error::Error;

pub async fn search(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    let params = match search_params(query.as_deref().unwrap_or("")) {
        Ok(params) => params,
        Err(message) => return error_response(StatusCode::BAD_REQUEST, message),
    };
    answer(app, move |app| app.search(&params), StatusCode::BAD_REQUEST).await
}

pub async fn entry(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    answer(app, move |app| app.entry(&id), StatusCode::NOT_FOUND).await
}

pub async fn similar(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let limit = match similar_limit(query.as_deref().unwrap_or("")) {
        Ok(limit) => limit,
        Err(message) => return error_response(StatusCode::BAD_REQUEST, message),
    };
    answer(
        app,
        move |app| app.similar(&id, limit),
        StatusCode::NOT_FOUND,
    )
    .await
}

pub async fn not_found() -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        "no such page (the API: /api/search, /api/entry/ID, /api/similar/ID, /api/inbox)".into(),
    )
}

/// `limit=N`, the only parameter of `/api/similar`.
fn similar_limit(query: &str) -> Result<usize, String> {
    let mut found = DEFAULT_LIMIT;
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        match &*name {
            "limit" => found = limit(value.trim())?,
            _ => return Err(format!("unknown parameter `{name}` (parameters: limit)")),
        }
    }
    Ok(found)
}

/// Runs `work` off the async threads and answers its value, or its error:
/// a bad query is 400, a usage error `usage` (404 for an unknown id),
/// anything else 500.
pub async fn answer(
    app: Arc<App>,
    work: impl FnOnce(&App) -> Result<Value, Error> + Send + 'static,
    usage: StatusCode,
) -> Response {
    let done = tokio::task::spawn_blocking(move || {
        crate::diagnostic::catch_panic(|| work(&app)).map_err(|panic| {
            Error::Index(format!(
                "internal error ({panic}); `distml-search index` rebuilds the index"
            ))
        })
    })
    .await;
    match done {
        Ok(Ok(Ok(value))) => json_response(StatusCode::OK, &value),
        Ok(Ok(Err(e))) | Ok(Err(e)) => {
            let status = match &e {
                Error::Query(_) => StatusCode::BAD_REQUEST,
                Error::Usage(_) => usage,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            error_response(status, e.to_string())
        }
        Err(join) => error_response(StatusCode::INTERNAL_SERVER_ERROR, join.to_string()),
    }
}

/// `{"error": message, "status": code}`.
pub fn error_response(status: StatusCode, message: String) -> Response {
    json_response(
        status,
        &json!({"error": message, "status": status.as_u16()}),
    )
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    let mut response = (status, value.to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
