//! The page and its script and styles, compiled into the binary: the page
//! loads nothing from elsewhere and works offline.

use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::reply::{error_response, not_utf8, path_text};

const PAGE: &str = include_str!("assets/index.html");

/// (name, content type, content) of every file under `/assets/`.
const ASSETS: [(&str, &str, &str); 2] = [
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/app.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("assets/style.css"),
    ),
];

/// The page, whatever its parameters: the script reads them from the URL.
pub async fn page() -> Response {
    with_type("text/html; charset=utf-8", PAGE)
}

pub async fn asset(name: Result<Path<String>, PathRejection>) -> Response {
    let Some(name) = path_text(name) else {
        return not_utf8();
    };
    match ASSETS.iter().find(|(known, _, _)| *known == name) {
        Some((_, content_type, content)) => with_type(content_type, content),
        None => error_response(StatusCode::NOT_FOUND, format!("no asset named {name:?}")),
    }
}

fn with_type(content_type: &'static str, content: &'static str) -> Response {
    let mut response = content.into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}
