//! What a handler answers: work run on a blocking thread (it is CPU work),
//! its value, or its error as `{"error", "status"}` with the CLI's one-line
//! message.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::BoxError;
use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::error::Error;

/// What `work` answers on `state`, as a status and JSON text (which
/// `flight` shares between requests): a bad query is 400, a usage error
/// `usage` (404 for an unknown id), anything else 500. Work not yet started
/// when the request is dropped (its client gone) is skipped.
pub async fn outcome<S: Send + Sync + 'static>(
    state: Arc<S>,
    work: impl FnOnce(&S) -> Result<Value, Error> + Send + 'static,
    usage: StatusCode,
) -> (StatusCode, Bytes) {
    let work = move |state: &S| work(state).map(|value| Bytes::from(value.to_string()));
    outcome_bytes(state, work, usage).await
}

/// [`outcome`] of work that answers bytes of its own (a feed's XML): the
/// bytes with 200, or an error's JSON text with its status.
pub async fn outcome_bytes<S: Send + Sync + 'static>(
    state: Arc<S>,
    work: impl FnOnce(&S) -> Result<Bytes, Error> + Send + 'static,
    usage: StatusCode,
) -> (StatusCode, Bytes) {
    let gone = Arc::new(AtomicBool::new(false));
    let _dropped = SetOnDrop(Arc::clone(&gone));
    let done = tokio::task::spawn_blocking(move || {
        if gone.load(Ordering::Relaxed) {
            return Ok(Err(Error::Usage("the client is gone".into())));
        }
        crate::diagnostic::catch_panic(|| work(&state)).map_err(|panic| {
            Error::Index(format!(
                "internal error ({panic}); `distml-search index` rebuilds the index"
            ))
        })
    })
    .await;
    let (status, value) = match done {
        Ok(Ok(Ok(bytes))) => return (StatusCode::OK, bytes),
        Ok(Ok(Err(e))) | Ok(Err(e)) => {
            let status = match &e {
                Error::Query(_) => StatusCode::BAD_REQUEST,
                Error::Usage(_) => usage,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            (status, error_value(status, e.to_string()))
        }
        Err(join) => {
            let status = StatusCode::INTERNAL_SERVER_ERROR;
            (status, error_value(status, join.to_string()))
        }
    };
    (status, Bytes::from(value.to_string()))
}

/// Sets its flag when dropped: a request's future dropped before its work
/// started.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The rest of the path, percent-decoded; none when that is not UTF-8.
pub fn path_text(path: Result<Path<String>, PathRejection>) -> Option<String> {
    path.ok().map(|Path(text)| text)
}

/// The answer to a path that is not UTF-8 once decoded, as JSON (axum's
/// own is text).
pub fn not_utf8() -> Response {
    error_response(
        StatusCode::BAD_REQUEST,
        "the address is not UTF-8 once percent-decoded".to_string(),
    )
}

/// 503 with `Retry-After`: the server is at its bound; try again shortly.
pub fn busy(message: String, retry_after_s: u32) -> Response {
    let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, message);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_s));
    response
}

/// The answer of a request refused by the cap on requests in flight
/// (tower's load shedding, the only error the layers make).
pub async fn overloaded(_: BoxError) -> Response {
    busy(
        "the server is answering as many requests as it takes at once: try again in a second"
            .to_string(),
        1,
    )
}

/// `{"error": message, "status": code}`.
pub fn error_response(status: StatusCode, message: String) -> Response {
    json_text_response(
        status,
        Bytes::from(error_value(status, message).to_string()),
    )
}

fn error_value(status: StatusCode, message: String) -> Value {
    json!({"error": message, "status": status.as_u16()})
}

pub fn json_text_response(status: StatusCode, body: Bytes) -> Response {
    let mut response = (status, Body::from(body)).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
