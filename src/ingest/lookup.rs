//! One lookup, the same for every source: a GET, what its status means for
//! the paper asked about, and the body parsed, with typed failures.
//!
//! The status table lives here and nowhere else; the HTTP client retries
//! what it calls transient and hands the rest back.

use url::Url;

use super::arxiv::ArxivError;
use super::crossref::CrossrefError;
use super::http::{FetchError, HttpClient};
use super::openalex::OpenAlexError;
use super::status::{Meaning, meaning};

/// A source's answer that its parser could not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ParseError {
    #[error(transparent)]
    Arxiv(#[from] ArxivError),
    #[error(transparent)]
    Crossref(#[from] CrossrefError),
    #[error(transparent)]
    OpenAlex(#[from] OpenAlexError),
}

/// Why a lookup taught nothing; the run reports it and keeps the cache.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The request failed, after the client's retries.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The source answered with a body its parser rejected.
    #[error("{asked}: {source}")]
    Unreadable { asked: String, source: ParseError },
    /// The source answered, but not with what was asked for.
    #[error("{asked}: {problem}")]
    Unusable { asked: String, problem: String },
}

/// GETs `url` and parses an answer with `parse`. `Ok(None)` is a definite
/// miss; `asked` names the lookup in a failure ("Crossref 10.1000/x").
pub(crate) async fn lookup<T, E: Into<ParseError>>(
    client: &HttpClient,
    url: &Url,
    asked: &str,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<Option<T>, Failure> {
    let response = client.get(url).await?;
    match meaning(response.status) {
        Meaning::Answer => parse(&response.body)
            .map(Some)
            .map_err(|e| Failure::Unreadable {
                asked: asked.to_owned(),
                source: e.into(),
            }),
        Meaning::Miss => Ok(None),
        // The client turns these into errors itself; this is a backstop.
        Meaning::Transient | Meaning::Refused => Err(Failure::Fetch(FetchError::Status {
            status: response.status,
            url: super::http::redact(url.as_str()),
            body_excerpt: String::new(),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_name_the_lookup_and_keep_their_cause() {
        let cause = CrossrefError::NotJson {
            snippet: "Oops".into(),
        };
        let failure = Failure::Unreadable {
            asked: "Crossref 10.1000/x".into(),
            source: cause.clone().into(),
        };
        assert_eq!(
            failure.to_string(),
            "Crossref 10.1000/x: Crossref did not answer with JSON: \"Oops\""
        );
        let source = std::error::Error::source(&failure).expect("a cause");
        assert_eq!(source.to_string(), cause.to_string());
    }
}
