//! Crossref REST API: request URLs for one work (by DOI) or a bibliographic
//! title search, and parsers from its JSON into [`PaperRecord`]s.
//!
//! Pure: no network, no I/O. Crossref passes on publisher-deposited JATS XML
//! for abstracts and some titles; [`super::markup`] turns it into plain text.

use serde::Deserialize;
use serde::de::IgnoredAny;
use url::Url;

use super::config::push_segments;
use super::json::{body_snippet, json_body, json_error_parts, nullable};
use super::markup::strip_markup;
use crate::ident;
use crate::model::paper::{PaperRecord, normalize_whitespace};

/// arXiv registers its DOIs with DataCite; Crossref answers 404 for them.
const ARXIV_DOI_PREFIX: &str = "10.48550/";

/// Crossref's documented maximum for `rows`.
const MAX_ROWS: usize = 1000;

/// Why a Crossref response could not be turned into records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CrossrefError {
    /// Crossref's 404 (and proxies' error pages) are plain text or HTML.
    #[error("Crossref did not answer with JSON: \"{snippet}\"")]
    NotJson { snippet: String },
    #[error("malformed Crossref JSON at line {line}, column {column}: {message}")]
    Malformed {
        line: usize,
        column: usize,
        message: String,
    },
    /// A JSON answer with `"status": "failed"` (e.g. a rejected query parameter).
    #[error("Crossref reported a failure ({message_type}): {message}")]
    Failed {
        message_type: String,
        message: String,
    },
    #[error("expected a Crossref `{expected}` message, got {found}")]
    UnexpectedType {
        expected: &'static str,
        found: String,
    },
}

/// `{base}/works/{doi}`, the DOI percent-encoded as one path segment (its
/// `/` too: the DOI suffix may itself contain slashes), plus `mailto=` for
/// Crossref's polite pool.
pub(crate) fn work_url(base: &Url, doi: &str, mailto: Option<&str>) -> Url {
    let mut url = base.clone();
    push_segments(&mut url, &["works", doi]);
    if let Some(mailto) = mailto {
        url.query_pairs_mut().append_pair("mailto", mailto);
    }
    url
}

/// `{base}/works?query.bibliographic=<title>&rows=N` (+ `mailto=`), `rows`
/// clamped to Crossref's 1..=1000.
pub(crate) fn search_url(base: &Url, title: &str, rows: usize, mailto: Option<&str>) -> Url {
    let mut url = base.clone();
    push_segments(&mut url, &["works"]);
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("query.bibliographic", title)
            .append_pair("rows", &rows.clamp(1, MAX_ROWS).to_string());
        if let Some(mailto) = mailto {
            query.append_pair("mailto", mailto);
        }
    }
    url
}

/// Whether `doi` may be looked up at Crossref: a well-formed DOI that is not
/// one of arXiv's own DataCite DOIs (`10.48550/...`).
pub(crate) fn is_crossref_doi(doi: &str) -> bool {
    ident::is_doi(doi) && !doi.starts_with(ARXIV_DOI_PREFIX)
}

/// The record in a `/works/{doi}` response.
pub fn parse_work(body: &str) -> Result<PaperRecord, CrossrefError> {
    parse_message::<Work>(body, "work").map(Work::into_record)
}

/// The records in a `/works?query...` response, in Crossref's order.
pub fn parse_search(body: &str) -> Result<Vec<PaperRecord>, CrossrefError> {
    let list = parse_message::<WorkList>(body, "work-list")?;
    Ok(list.items.into_iter().map(Work::into_record).collect())
}

/// Checks the envelope `{"status", "message-type", "message"}` and returns
/// the typed message. Two passes: the first only validates the JSON and reads
/// the status, so that a failure message (a list of errors) is not reported
/// as a type error of the expected message.
fn parse_message<T: for<'de> Deserialize<'de>>(
    body: &str,
    expected: &'static str,
) -> Result<T, CrossrefError> {
    let body = json_body(body).ok_or_else(|| CrossrefError::NotJson {
        snippet: body_snippet(body),
    })?;
    let head: Head = serde_json::from_str(body).map_err(malformed)?;
    match head.status.as_deref() {
        Some("ok") if head.message_type == expected => {}
        Some("ok") => {
            return Err(CrossrefError::UnexpectedType {
                expected,
                found: format!("`{}`", head.message_type),
            });
        }
        Some(_) => {
            let failure: Failure = serde_json::from_str(body).map_err(malformed)?;
            return Err(CrossrefError::Failed {
                message_type: head.message_type,
                message: failure.message.describe(),
            });
        }
        // JSON, but not a Crossref envelope at all.
        None => {
            return Err(CrossrefError::UnexpectedType {
                expected,
                found: "an object without a status".to_string(),
            });
        }
    }
    let envelope: Envelope<T> = serde_json::from_str(body).map_err(malformed)?;
    Ok(envelope.message)
}

fn malformed(e: serde_json::Error) -> CrossrefError {
    let (line, column, message) = json_error_parts(&e);
    CrossrefError::Malformed {
        line,
        column,
        message,
    }
}

#[derive(Deserialize)]
struct Head {
    status: Option<String>,
    #[serde(rename = "message-type", default)]
    message_type: String,
    // `message` is not read here, but serde_json still parses (and so
    // validates) every field it skips.
}

#[derive(Deserialize)]
struct Envelope<T> {
    message: T,
}

#[derive(Deserialize)]
struct Failure {
    #[serde(default)]
    message: FailureMessage,
}

/// Crossref's failure messages are a list of `{type, value, message}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum FailureMessage {
    Items(Vec<FailureItem>),
    Text(String),
    Other(IgnoredAny),
}

impl Default for FailureMessage {
    fn default() -> Self {
        FailureMessage::Other(IgnoredAny)
    }
}

impl FailureMessage {
    fn describe(self) -> String {
        let text = match self {
            FailureMessage::Items(items) => items
                .into_iter()
                .filter_map(|item| item.message.or(item.kind))
                .collect::<Vec<_>>()
                .join("; "),
            FailureMessage::Text(text) => text,
            FailureMessage::Other(_) => String::new(),
        };
        let text = normalize_whitespace(&text);
        if text.is_empty() {
            "no details given".to_string()
        } else {
            text
        }
    }
}

#[derive(Deserialize)]
struct FailureItem {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct WorkList {
    #[serde(default, deserialize_with = "nullable")]
    items: Vec<Work>,
}

/// The fields of a Crossref work that a [`PaperRecord`] needs.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Work {
    #[serde(deserialize_with = "nullable")]
    title: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    subtitle: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    author: Vec<Author>,
    #[serde(rename = "container-title", deserialize_with = "nullable")]
    container_title: Vec<String>,
    event: Option<ConferenceEvent>,
    #[serde(rename = "published-print")]
    published_print: Option<PartialDate>,
    #[serde(rename = "published-online")]
    published_online: Option<PartialDate>,
    published: Option<PartialDate>,
    issued: Option<PartialDate>,
    #[serde(rename = "DOI")]
    doi: Option<String>,
    #[serde(rename = "abstract")]
    abstract_jats: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Author {
    given: Option<String>,
    family: Option<String>,
    /// Set instead of given/family for organizations and consortia.
    name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ConferenceEvent {
    name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PartialDate {
    /// `[[year, month, day]]` with month and day optional; Crossref writes
    /// `[[null]]` for an unknown date. Kept untyped so that a null or a
    /// stray string skips the date instead of failing the whole work.
    #[serde(rename = "date-parts", deserialize_with = "nullable")]
    date_parts: Vec<Vec<serde_json::Value>>,
}

impl Work {
    fn into_record(self) -> PaperRecord {
        let title = first_text(&self.title);
        let subtitle = first_text(&self.subtitle);
        let venue = first_text(&self.container_title)
            .or_else(|| self.event.and_then(|e| e.name).map(|n| strip_markup(&n)))
            .filter(|v| !v.is_empty());
        let date = [
            &self.published_print,
            &self.published_online,
            &self.published,
            &self.issued,
        ]
        .into_iter()
        .find_map(|d| d.as_ref().and_then(PartialDate::to_date));
        let doi = self
            .doi
            .map(|d| d.trim().to_lowercase())
            .filter(|d| !d.is_empty());
        let abstract_text = self
            .abstract_jats
            .map(|a| strip_markup(&a))
            .filter(|a| !a.is_empty());
        PaperRecord {
            title: join_title(title.unwrap_or_default(), subtitle),
            authors: self.author.iter().filter_map(Author::display).collect(),
            abstract_text,
            year: date.as_ref().map(|d| d.0),
            published: date.map(|d| d.1),
            venue,
            doi,
            ..PaperRecord::default()
        }
    }
}

impl Author {
    fn display(&self) -> Option<String> {
        let parts = [&self.given, &self.family];
        let person = normalize_whitespace(
            &parts
                .iter()
                .filter_map(|p| p.as_deref())
                .collect::<Vec<_>>()
                .join(" "),
        );
        if !person.is_empty() {
            return Some(person);
        }
        let name = normalize_whitespace(self.name.as_deref().unwrap_or_default());
        (!name.is_empty()).then_some(name)
    }
}

impl PartialDate {
    /// The year and the date as `YYYY[-MM[-DD]]`, as precise as given; None
    /// without a plausible year.
    fn to_date(&self) -> Option<(i64, String)> {
        let parts = self.date_parts.first()?;
        let number = |i: usize| -> Option<i64> {
            match parts.get(i)? {
                serde_json::Value::Number(n) => n.as_i64(),
                serde_json::Value::String(s) => s.trim().parse().ok(),
                _ => None,
            }
        };
        let year = number(0).filter(|y| (1..=9999).contains(y))?;
        let Some(month) = number(1).filter(|m| (1..=12).contains(m)) else {
            return Some((year, format!("{year:04}")));
        };
        Some(match number(2).filter(|d| (1..=31).contains(d)) {
            Some(day) => (year, format!("{year:04}-{month:02}-{day:02}")),
            None => (year, format!("{year:04}-{month:02}")),
        })
    }
}

/// The first non-empty entry of a Crossref string list, as plain text.
fn first_text(list: &[String]) -> Option<String> {
    list.iter().map(|s| strip_markup(s)).find(|s| !s.is_empty())
}

/// ACM (and others) deposit "ZeRO" + "Memory Optimizations ..." as title and
/// subtitle; the paper's own title is "Title: Subtitle".
fn join_title(title: String, subtitle: Option<String>) -> String {
    let Some(subtitle) = subtitle else {
        return title;
    };
    if title.is_empty() {
        return subtitle;
    }
    // Some publishers repeat the subtitle inside the title.
    if title.to_lowercase().ends_with(&subtitle.to_lowercase()) {
        return title;
    }
    if title.ends_with([':', '?', '!', '.']) {
        format!("{title} {subtitle}")
    } else {
        format!("{title}: {subtitle}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACM_WORK: &str = include_str!("../../tests/fixtures/crossref/acm-work.json");
    const ORG_AUTHOR_WORK: &str =
        include_str!("../../tests/fixtures/crossref/org-author-work.json");
    const NULL_DATE_WORK: &str = include_str!("../../tests/fixtures/crossref/null-date-work.json");
    const SEARCH: &str = include_str!("../../tests/fixtures/crossref/search.json");
    const NOT_FOUND: &str = include_str!("../../tests/fixtures/crossref/not-found.txt");
    const TRUNCATED: &str = include_str!("../../tests/fixtures/crossref/truncated-work.json");
    const FAILED: &str = include_str!("../../tests/fixtures/crossref/failed-query.json");

    fn base() -> Url {
        Url::parse("https://api.crossref.org").expect("static URL")
    }

    #[test]
    fn acm_title_and_subtitle_are_joined() {
        let record = parse_work(ACM_WORK).expect("fixture parses");
        assert_eq!(
            record.title,
            "A Fictional Study of Pipeline Bubbles: Measuring Idle Time in Imaginary Clusters"
        );
        assert_eq!(record.authors, ["Ada Example", "Bo Placeholder"]);
        assert_eq!(
            record.venue.as_deref(),
            Some("Proceedings of the Imaginary Conference on Distributed Examples")
        );
        assert_eq!(record.doi.as_deref(), Some("10.1145/0000000.0000001"));
        // published-print wins over published-online and issued.
        assert_eq!(record.published.as_deref(), Some("2021-11-14"));
        assert_eq!(record.year, Some(2021));
        assert_eq!(record.arxiv, None);
    }

    #[test]
    fn jats_abstract_is_plain_text() {
        let record = parse_work(ACM_WORK).expect("fixture parses");
        assert_eq!(
            record.abstract_text.as_deref(),
            Some(
                "This fictional abstract describes nothing real. It claims that bubbles < 5% \
                 are rare & costly when micro-batches are small. A second paragraph follows."
            )
        );
    }

    #[test]
    fn organization_author_and_year_only_date() {
        let record = parse_work(ORG_AUTHOR_WORK).expect("fixture parses");
        assert_eq!(
            record.authors,
            ["Ada Example", "The Placeholder Consortium", "Mononym"]
        );
        assert_eq!(record.title, "On H2O Gradients in Invented Settings");
        assert_eq!(record.published.as_deref(), Some("2021"));
        assert_eq!(record.year, Some(2021));
        // No container title: the event names the venue.
        assert_eq!(
            record.venue.as_deref(),
            Some("FAKECONF '21: Workshop on Nonexistent Systems")
        );
        assert_eq!(record.abstract_text, None);
        assert_eq!(record.doi.as_deref(), Some("10.5555/fictional.2021.0002"));
    }

    #[test]
    fn null_date_parts_fall_through_to_the_next_date() {
        let record = parse_work(NULL_DATE_WORK).expect("fixture parses");
        // published-print is [[null]], published-online [[2020, 13]] (bad
        // month), so the month is dropped rather than the date.
        assert_eq!(record.published.as_deref(), Some("2020"));
        assert_eq!(record.year, Some(2020));
        assert_eq!(record.title, "Untitled Fictional Note");
    }

    #[test]
    fn only_null_dates_mean_no_date() {
        let body = r#"{"status":"ok","message-type":"work","message":{
            "title":["Dateless Fiction"],"published-print":{"date-parts":[[null]]},
            "issued":{"date-parts":[[]]},"published":{"date-parts":null}}}"#;
        let record = parse_work(body).expect("parses");
        assert_eq!(record.published, None);
        assert_eq!(record.year, None);
    }

    #[test]
    fn search_results_in_order() {
        let records = parse_search(SEARCH).expect("fixture parses");
        let titles: Vec<_> = records.iter().map(|r| r.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "A Fictional Study of Pipeline Bubbles",
                "Pipeline Bubbles, Considered Imaginary"
            ]
        );
        assert_eq!(records[1].published.as_deref(), Some("2019-03"));
        assert_eq!(records[1].authors, ["Ada Example"]);
    }

    #[test]
    fn not_found_body_is_not_json() {
        let err = parse_work(NOT_FOUND).expect_err("plain text");
        assert_eq!(
            err,
            CrossrefError::NotJson {
                snippet: "Resource not found.".to_string()
            }
        );
        assert_eq!(
            err.to_string(),
            "Crossref did not answer with JSON: \"Resource not found.\""
        );
        assert!(matches!(
            parse_search("").expect_err("empty"),
            CrossrefError::NotJson { .. }
        ));
    }

    #[test]
    fn truncated_json_reports_its_position() {
        match parse_work(TRUNCATED).expect_err("truncated") {
            CrossrefError::Malformed {
                line,
                column,
                message,
            } => {
                assert!(line > 1, "line {line}");
                assert!(column > 0);
                assert_eq!(message, "EOF while parsing a string");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn wrong_shapes_are_errors_not_panics() {
        assert!(matches!(
            parse_work(SEARCH).expect_err("list is not a work"),
            CrossrefError::UnexpectedType {
                expected: "work",
                ..
            }
        ));
        assert_eq!(
            parse_work("{}").expect_err("no envelope").to_string(),
            "expected a Crossref `work` message, got an object without a status"
        );
        assert!(matches!(
            parse_work(r#"{"status":"ok","message-type":"work","message":{"title":"x"}}"#)
                .expect_err("title must be a list"),
            CrossrefError::Malformed { line: 1, .. }
        ));
        assert_eq!(
            parse_search(FAILED).expect_err("failed"),
            CrossrefError::Failed {
                message_type: "validation-failure".to_string(),
                message: "Rows specified as abc must be a positive integer.".to_string()
            }
        );
    }

    #[test]
    fn work_url_encodes_the_doi_as_one_segment() {
        let url = work_url(&base(), "10.1145/0000000.0000001", Some("ada@example.org"));
        assert_eq!(
            url.as_str(),
            "https://api.crossref.org/works/10.1145%2F0000000.0000001?mailto=ada%40example.org"
        );
        let nested = Url::parse("http://127.0.0.1:9/crossref/").expect("static URL");
        assert_eq!(
            work_url(&nested, "10.5555/a/b?c", None).as_str(),
            "http://127.0.0.1:9/crossref/works/10.5555%2Fa%2Fb%3Fc"
        );
    }

    #[test]
    fn search_url_carries_the_title() {
        let url = search_url(&base(), "Pipeline Bubbles & Co", 5, None);
        assert_eq!(
            url.as_str(),
            "https://api.crossref.org/works?query.bibliographic=Pipeline+Bubbles+%26+Co&rows=5"
        );
        let url = search_url(&base(), "x", 0, Some("ada@example.org"));
        assert_eq!(
            url.query(),
            Some("query.bibliographic=x&rows=1&mailto=ada%40example.org")
        );
    }

    #[test]
    fn arxiv_dois_are_not_crossref_dois() {
        assert!(is_crossref_doi("10.1145/0000000.0000001"));
        assert!(!is_crossref_doi("10.48550/arXiv.0000.00001"));
        assert!(!is_crossref_doi("10.48550/arxiv.0000.00001"));
        assert!(!is_crossref_doi("not a doi"));
        assert!(!is_crossref_doi("https://doi.org/10.1145/0000000.0000001"));
    }
}
