//! The API's query parameters, read as the CLI reads its flags: the same
//! filters, limits and messages (each names the flag the parameter stands
//! for, so that the CLI's documentation answers for both).

use crate::cli::MAX_LIMIT;
use crate::inbox::DEFAULT_LIMIT as INBOX_LIMIT;
use crate::index::day_number;
use crate::model::{Collection, Kind};
use crate::search::understand::fields::FLAGS;
use crate::search::understand::query::MAX_QUERY_CHARS;
use crate::search::{Filter, Origin, YearRange};

/// Hits when `limit` is not given, as on the command line.
pub const DEFAULT_LIMIT: usize = 10;

/// `limit=N` as the only parameter, `default` without it.
pub fn limit_only(query: &str, default: usize) -> Result<usize, String> {
    let mut found = default;
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        match &*name {
            "limit" => found = limit(value.trim())?,
            _ => return Err(format!("unknown parameter `{name}` (parameters: limit)")),
        }
    }
    Ok(found)
}

/// A search's parameters, checked.
#[derive(Debug, PartialEq)]
pub struct SearchParams {
    pub q: String,
    pub limit: usize,
    pub filters: Vec<(Filter, Origin)>,
}

/// The parameters `/api/search` takes: the query, a limit, and the
/// filter flags of `search`.
const PARAMETERS: [&str; 2 + FLAGS.len()] = {
    let mut out = ["q"; 2 + FLAGS.len()];
    out[1] = "limit";
    let mut i = 0;
    while i < FLAGS.len() {
        out[2 + i] = FLAGS[i];
        i += 1;
    }
    out
};

/// Reads `query` (the URL's, after `?`). An empty value is as if absent;
/// only `tag` and `about` may repeat (all of the tags, as `--tag` does).
pub fn search_params(query: &str) -> Result<SearchParams, String> {
    let mut params = SearchParams {
        q: String::new(),
        limit: DEFAULT_LIMIT,
        filters: Vec::new(),
    };
    let mut seen: Vec<String> = Vec::new();
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        if !PARAMETERS.contains(&&*name) {
            return Err(format!(
                "unknown parameter `{name}` (parameters: {})",
                PARAMETERS.join(", ")
            ));
        }
        if name != "tag" && name != "about" && seen.iter().any(|s| *s == name) {
            return Err(format!("the parameter `{name}` is given more than once"));
        }
        seen.push(name.to_string());
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        let filter = match &*name {
            "q" => {
                if value.chars().count() > MAX_QUERY_CHARS {
                    return Err(format!(
                        "the query is longer than {MAX_QUERY_CHARS} characters: shorten it"
                    ));
                }
                params.q = value.to_string();
                continue;
            }
            "limit" => {
                params.limit = limit(value)?;
                continue;
            }
            "tag" => Filter::Tag(value.to_string()),
            "about" => Filter::About(value.to_string()),
            "section" => Filter::Section(value.to_string()),
            "venue" => Filter::Venue(value.to_string()),
            "author" => Filter::Author(value.to_string()),
            "year" => Filter::Year(typed::<YearRange>(value, "--year <YEARS>")?),
            "kind" => Filter::Kind(typed::<Kind>(value, "--kind <KIND>")?),
            _ => match value {
                "all" => continue,
                _ => Filter::Collection(typed::<Collection>(value, "--collection <COLLECTION>")?),
            },
        };
        params.filters.push((filter, Origin::Flag(flag(&name))));
    }
    Ok(params)
}

/// `limit=N`, 1 to `MAX_LIMIT` as `--limit` takes.
pub fn limit(value: &str) -> Result<usize, String> {
    match value.parse::<u64>() {
        Ok(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n as usize),
        _ => Err(format!(
            "invalid value '{value}' for '--limit <N>': expected 1 to {MAX_LIMIT}"
        )),
    }
}

/// `/api/inbox`'s parameters, checked: as `inbox --limit N --since DAY`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InboxParams {
    pub limit: usize,
    /// The day as a number (YYYYMMDD).
    pub since: Option<i64>,
}

/// Reads `/api/inbox`'s query: `limit` and `since`, each at most once; an
/// empty value is as if absent.
pub fn inbox_params(query: &str) -> Result<InboxParams, String> {
    let mut params = InboxParams {
        limit: INBOX_LIMIT,
        since: None,
    };
    let mut seen: Vec<String> = Vec::new();
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        if name != "limit" && name != "since" {
            return Err(format!(
                "unknown parameter `{name}` (parameters: limit, since)"
            ));
        }
        if seen.iter().any(|s| *s == name) {
            return Err(format!("the parameter `{name}` is given more than once"));
        }
        seen.push(name.to_string());
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        if name == "limit" {
            params.limit = limit(value)?;
        } else {
            crate::cli::parse_day(value)
                .map_err(|e| format!("invalid value '{value}' for '--since <DATE>': {e}"))?;
            params.since = day_number(value);
        }
    }
    Ok(params)
}

/// A value parsed as clap parses its flag, with clap's wording.
fn typed<T: std::str::FromStr<Err = String>>(value: &str, flag: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|e| format!("invalid value '{value}' for '{flag}': {e}"))
}

/// The flag a filter parameter stands for, named in its errors.
fn flag(name: &str) -> &'static str {
    match name {
        "tag" => "--tag",
        "about" => "--about",
        "section" => "--section",
        "venue" => "--venue",
        "author" => "--author",
        "year" => "--year",
        "kind" => "--kind",
        _ => "--collection",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_follow_the_flags_and_tags_repeat() {
        let params =
            search_params("q=pipeline+bubble&tag=moe&tag=zero&year=2020..2022&kind=paper&limit=5")
                .unwrap();
        assert_eq!(
            params,
            SearchParams {
                q: "pipeline bubble".into(),
                limit: 5,
                filters: vec![
                    (Filter::Tag("moe".into()), Origin::Flag("--tag")),
                    (Filter::Tag("zero".into()), Origin::Flag("--tag")),
                    (
                        Filter::Year(YearRange {
                            from: Some(2020),
                            to: Some(2022)
                        }),
                        Origin::Flag("--year")
                    ),
                    (Filter::Kind(Kind::Paper), Origin::Flag("--kind")),
                ],
            }
        );
    }

    #[test]
    fn the_inbox_takes_a_limit_and_a_day() {
        assert_eq!(
            inbox_params("limit=5&since=2026-11-16"),
            Ok(InboxParams {
                limit: 5,
                since: Some(20261116)
            })
        );
        assert_eq!(
            inbox_params("since="),
            Ok(InboxParams {
                limit: INBOX_LIMIT,
                since: None
            })
        );
        assert_eq!(
            inbox_params("since=2026-13-01").unwrap_err(),
            "invalid value '2026-13-01' for '--since <DATE>': expected a day such as 2024-03-31 (YYYY-MM-DD)"
        );
        assert_eq!(
            inbox_params("q=x").unwrap_err(),
            "unknown parameter `q` (parameters: limit, since)"
        );
    }

    #[test]
    fn empty_values_and_all_collections_are_no_filter() {
        let params = search_params("q=&section=&collection=all").unwrap();
        assert_eq!(params.filters, Vec::new());
        assert_eq!(params.limit, DEFAULT_LIMIT);
    }

    #[test]
    fn bad_parameters_say_what_is_wrong() {
        let error = |q: &str| search_params(q).unwrap_err();
        assert_eq!(
            error("limit=0"),
            "invalid value '0' for '--limit <N>': expected 1 to 10000"
        );
        assert_eq!(
            error("section=a&section=b"),
            "the parameter `section` is given more than once"
        );
        assert!(error("kind=poem").starts_with("invalid value 'poem' for '--kind <KIND>': "));
        assert!(error("sort=year").starts_with("unknown parameter `sort` (parameters: q, "));
        let long = format!("q={}", "a".repeat(MAX_QUERY_CHARS + 1));
        assert_eq!(
            error(&long),
            "the query is longer than 4096 characters: shorten it"
        );
    }
}
