//! OpenAlex API: the request URL for one work (by DOI), and parsers from its
//! JSON (a work, a search's results) into [`PaperRecord`]s.
//!
//! Pure: no network, no I/O. OpenAlex ships abstracts as an inverted index
//! (word → positions), which is turned back into text here.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use url::Url;

use super::config::push_segments;
use super::json::{body_snippet, json_body, json_error_parts, nullable};
use super::markup::strip_markup;
use crate::ident;
use crate::model::paper::{PaperRecord, normalize_whitespace};

/// Abstract positions beyond this are taken as corrupt and skipped; real
/// abstracts are a few hundred words.
const MAX_POSITION: u64 = 100_000;

/// How OpenAlex writes the `doi` field.
const DOI_URL_PREFIXES: [&str; 4] = [
    "https://doi.org/",
    "http://doi.org/",
    "https://dx.doi.org/",
    "http://dx.doi.org/",
];

/// Why an OpenAlex response could not be turned into records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenAlexError {
    /// Gateways and some error pages answer with plain text or HTML.
    #[error("OpenAlex did not answer with JSON: \"{snippet}\"")]
    NotJson { snippet: String },
    #[error("malformed OpenAlex JSON at line {line}, column {column}: {message}")]
    Malformed {
        line: usize,
        column: usize,
        message: String,
    },
    /// A JSON error object `{"error": ..., "message": ...}`.
    #[error("OpenAlex reported an error: {error}: {message}")]
    Api { error: String, message: String },
}

/// `{base}/works/doi:{doi}?api_key=...` (+ `mailto=`). The DOI keeps its
/// slashes, as in OpenAlex's documented `/works/doi:10.7717/peerj.4375`; an
/// empty `api_key` is left out.
pub(crate) fn work_by_doi_url(base: &Url, doi: &str, api_key: &str, mailto: Option<&str>) -> Url {
    let mut url = base.clone();
    let id = format!("doi:{doi}");
    let segments: Vec<&str> = std::iter::once("works").chain(id.split('/')).collect();
    push_segments(&mut url, &segments);
    {
        let mut query = url.query_pairs_mut();
        if !api_key.is_empty() {
            query.append_pair("api_key", api_key);
        }
        if let Some(mailto) = mailto {
            query.append_pair("mailto", mailto);
        }
    }
    // Without a key or mailto the query is empty: no bare `?`.
    if url.query() == Some("") {
        url.set_query(None);
    }
    url
}

/// The record in a `/works/{id}` response.
pub fn parse_work(body: &str) -> Result<PaperRecord, OpenAlexError> {
    parse::<Work>(body).map(Work::into_record)
}

/// Two passes: the first validates the JSON and spots an error object, so
/// that it is not reported as a work with no title.
fn parse<T: for<'de> Deserialize<'de>>(body: &str) -> Result<T, OpenAlexError> {
    let body = json_body(body).ok_or_else(|| OpenAlexError::NotJson {
        snippet: body_snippet(body),
    })?;
    let probe: ErrorProbe = serde_json::from_str(body).map_err(malformed)?;
    if let Some(error) = probe.error {
        return Err(OpenAlexError::Api {
            error: error.describe(),
            message: probe.message.map(ErrorText::describe).unwrap_or_default(),
        });
    }
    serde_json::from_str(body).map_err(malformed)
}

fn malformed(e: serde_json::Error) -> OpenAlexError {
    let (line, column, message) = json_error_parts(&e);
    OpenAlexError::Malformed {
        line,
        column,
        message,
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorProbe {
    error: Option<ErrorText>,
    message: Option<ErrorText>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ErrorText {
    Text(String),
    Other(serde_json::Value),
}

impl ErrorText {
    fn describe(self) -> String {
        match self {
            ErrorText::Text(text) => normalize_whitespace(&text),
            ErrorText::Other(value) => body_snippet(&value.to_string()),
        }
    }
}

/// The fields of an OpenAlex work that a [`PaperRecord`] needs. `ids.arxiv`
/// is deliberately absent: OpenAlex's arXiv matches are not reliable.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Work {
    title: Option<String>,
    display_name: Option<String>,
    #[serde(deserialize_with = "nullable")]
    authorships: Vec<Authorship>,
    publication_year: Option<i64>,
    publication_date: Option<String>,
    doi: Option<String>,
    primary_location: Option<Location>,
    abstract_inverted_index: Option<BTreeMap<String, Option<Vec<Position>>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Authorship {
    author: Option<Named>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Location {
    source: Option<Named>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Named {
    display_name: Option<String>,
}

/// A word position; anything but a non-negative integer is skipped rather
/// than failing the whole work.
#[derive(Deserialize)]
#[serde(untagged)]
enum Position {
    Index(u64),
    Other(IgnoredAny),
}

impl Work {
    fn into_record(self) -> PaperRecord {
        let title = [self.title, self.display_name]
            .into_iter()
            .flatten()
            .map(|t| strip_markup(&t))
            .find(|t| !t.is_empty())
            .unwrap_or_default();
        let authors = self
            .authorships
            .into_iter()
            .filter_map(|a| a.author?.display_name)
            .map(|name| normalize_whitespace(&name))
            .filter(|name| !name.is_empty())
            .collect();
        let published = self
            .publication_date
            .map(|d| d.trim().to_string())
            .filter(|d| is_date(d));
        let year = self.publication_year.or_else(|| {
            published
                .as_deref()
                .and_then(|d| d.get(..4))
                .and_then(|y| y.parse().ok())
        });
        let venue = self
            .primary_location
            .and_then(|l| l.source?.display_name)
            .map(|v| strip_markup(&v))
            .filter(|v| !v.is_empty());
        PaperRecord {
            title,
            authors,
            abstract_text: self
                .abstract_inverted_index
                .as_ref()
                .and_then(rebuild_abstract),
            published,
            venue,
            year,
            doi: self.doi.as_deref().and_then(bare_doi),
            ..PaperRecord::default()
        }
    }
}

/// The text of an inverted index: every word at each of its positions, in
/// position order; gaps are skipped. Memory follows the index's size, never
/// its largest position.
fn rebuild_abstract(index: &BTreeMap<String, Option<Vec<Position>>>) -> Option<String> {
    let mut placed: Vec<(u64, &str)> = index
        .iter()
        .flat_map(|(word, positions)| {
            positions.iter().flatten().filter_map(move |p| match p {
                Position::Index(i) if *i <= MAX_POSITION => Some((*i, word.as_str())),
                _ => None,
            })
        })
        .collect();
    // Sorting by word too makes a (corrupt) shared position deterministic.
    placed.sort_unstable();
    placed.dedup_by_key(|(position, _)| *position);
    let words: Vec<&str> = placed.into_iter().map(|(_, word)| word).collect();
    let text = normalize_whitespace(&words.join(" "));
    (!text.is_empty()).then_some(text)
}

/// `https://doi.org/10.1145/X` → `10.1145/x`; None if not a DOI.
fn bare_doi(doi: &str) -> Option<String> {
    let doi = doi.trim().to_lowercase();
    let bare = DOI_URL_PREFIXES
        .iter()
        .find_map(|prefix| doi.strip_prefix(prefix))
        .unwrap_or(&doi);
    ident::is_doi(bare).then(|| bare.to_string())
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
fn is_date(date: &str) -> bool {
    let mut parts = date.split('-');
    let shape_ok = [4, 2, 2]
        .iter()
        .zip(parts.by_ref())
        .all(|(len, part)| part.len() == *len && part.bytes().all(|b| b.is_ascii_digit()));
    shape_ok && parts.next().is_none() && !date.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORK: &str = include_str!("../../tests/fixtures/openalex/work.json");
    const NULL_ABSTRACT: &str =
        include_str!("../../tests/fixtures/openalex/null-abstract-work.json");
    const ERROR: &str = include_str!("../../tests/fixtures/openalex/error.json");
    const TRUNCATED: &str = include_str!("../../tests/fixtures/openalex/truncated-work.json");

    fn base() -> Url {
        Url::parse("https://api.openalex.org").expect("static URL")
    }

    #[test]
    fn work_fields() {
        let record = parse_work(WORK).expect("fixture parses");
        assert_eq!(record.title, "A Fictional Study of Pipeline Bubbles");
        assert_eq!(record.authors, ["Ada Example", "Bo Placeholder"]);
        assert_eq!(record.year, Some(2021));
        assert_eq!(record.published.as_deref(), Some("2021-11-14"));
        assert_eq!(record.doi.as_deref(), Some("10.1145/0000000.0000001"));
        assert_eq!(
            record.venue.as_deref(),
            Some("Proceedings of the Imaginary Conference on Distributed Examples")
        );
        // ids.arxiv is in the fixture and must not be trusted.
        assert_eq!(record.arxiv, None);
    }

    #[test]
    fn inverted_index_is_rebuilt_in_position_order() {
        let record = parse_work(WORK).expect("fixture parses");
        // "bubbles" sits at three positions; position 9 is missing; 250000
        // is absurd and skipped.
        assert_eq!(
            record.abstract_text.as_deref(),
            Some(
                "Pipeline bubbles are imaginary here: we count bubbles that never existed \
                 and bubbles that never will."
            )
        );
    }

    #[test]
    fn null_abstract_and_display_name_fallback() {
        let record = parse_work(NULL_ABSTRACT).expect("fixture parses");
        assert_eq!(record.abstract_text, None);
        assert_eq!(record.title, "On H2O Gradients in Invented Settings");
        assert_eq!(record.authors, ["Ada Example"]);
        assert_eq!(record.venue, None);
        assert_eq!(record.doi, None);
        assert_eq!(record.published.as_deref(), Some("2020-02-01"));
        assert_eq!(record.year, Some(2020));
    }

    #[test]
    fn rebuild_edge_cases() {
        let index = |json: &str| -> BTreeMap<String, Option<Vec<Position>>> {
            serde_json::from_str(json).expect("test JSON")
        };
        assert_eq!(rebuild_abstract(&index("{}")), None);
        assert_eq!(rebuild_abstract(&index(r#"{"a": [], "b": null}"#)), None);
        assert_eq!(
            rebuild_abstract(&index(r#"{"far": [18446744073709551615], "near": [3]}"#)).as_deref(),
            Some("near")
        );
        assert_eq!(
            rebuild_abstract(&index(r#"{"x": [1, -2, 1.5, "3", null], "y": [0]}"#)).as_deref(),
            Some("y x")
        );
        assert_eq!(
            rebuild_abstract(&index(r#"{"b": [0], "a": [0], "c": [1]}"#)).as_deref(),
            Some("a c")
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_work("<html><body>502 Bad Gateway</body></html>\n"),
            Err(OpenAlexError::NotJson {
                snippet: "<html><body>502 Bad Gateway</body></html>".to_string()
            })
        );
        assert_eq!(
            parse_work(ERROR),
            Err(OpenAlexError::Api {
                error: "Invalid query parameters error.".to_string(),
                message: "per_page is a fictional test value here.".to_string()
            })
        );
        match parse_work(TRUNCATED) {
            Err(OpenAlexError::Malformed { line, column, .. }) => {
                assert!(line > 1 && column > 0, "{line}:{column}");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            parse_work(r#"{"title": 3}"#),
            Err(OpenAlexError::Malformed { line: 1, .. })
        ));
    }

    #[test]
    fn doi_forms() {
        assert_eq!(
            bare_doi("https://doi.org/10.1145/ABC.1").as_deref(),
            Some("10.1145/abc.1")
        );
        assert_eq!(bare_doi("10.5555/x").as_deref(), Some("10.5555/x"));
        assert_eq!(bare_doi("https://example.org/10.5555/x"), None);
        assert!(is_date("2021") && is_date("2021-11") && is_date("2021-11-14"));
        assert!(!is_date("") && !is_date("21-11-14") && !is_date("2021-11-14-1"));
    }

    #[test]
    fn work_url_keeps_the_doi_path() {
        let url = work_by_doi_url(
            &base(),
            "10.1145/0000000.0000001",
            "KEY",
            Some("ada@example.org"),
        );
        assert_eq!(
            url.as_str(),
            "https://api.openalex.org/works/doi:10.1145/0000000.0000001?api_key=KEY&mailto=ada%40example.org"
        );
        let nested = Url::parse("http://127.0.0.1:9/openalex/").expect("static URL");
        assert_eq!(
            work_by_doi_url(&nested, "10.5555/a b#c", "", None).as_str(),
            "http://127.0.0.1:9/openalex/works/doi:10.5555/a%20b%23c"
        );
    }
}
