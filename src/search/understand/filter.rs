//! Filters: what `year:2021` in a query and `--year 2021` on the command line
//! both mean, typed once. Values that need no index (years, kinds,
//! collections) are checked where they are read, so that an error points at
//! the query's column or names the flag.

use std::fmt;
use std::str::FromStr;

use crate::model::{Collection, Kind};

/// A selection that does not change the ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// A tag id or one of its names; resolved against the vocabulary.
    /// Works about the technique and works that only use it.
    Tag(String),
    /// As `Tag`, but only the works about the technique: their primary
    /// (curated) tags hold it, or, for a record without them, their
    /// predicted tags; not those that only list it in `uses`.
    About(String),
    /// A section's name or a prefix of it, or an imported record's category.
    Section(String),
    Author(String),
    Venue(String),
    Kind(Kind),
    Year(YearRange),
    Id(String),
    Arxiv(String),
    Doi(String),
    Collection(Collection),
    /// Records that entered the index after this stamp (milliseconds since
    /// the Unix epoch; see `index::stamps`): what `watch` adds to a watch's
    /// query to find what is new. No query field writes it.
    Added(i64),
}

/// Where a filter was written, for its error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// In the query, at this column (1-based, in characters).
    Column(usize),
    /// A command-line flag such as `--tag`.
    Flag(&'static str),
}

impl Filter {
    /// The name of the query field that writes this filter.
    pub fn field(&self) -> &'static str {
        match self {
            Filter::Tag(_) => "tag",
            Filter::About(_) => "about",
            Filter::Section(_) => "section",
            Filter::Author(_) => "author",
            Filter::Venue(_) => "venue",
            Filter::Kind(_) => "kind",
            Filter::Year(_) => "year",
            Filter::Id(_) => "id",
            Filter::Arxiv(_) => "arxiv",
            Filter::Doi(_) => "doi",
            Filter::Collection(_) => "collection",
            Filter::Added(_) => "added",
        }
    }

    /// The filter written as `field:value` in a query; `None` for a field
    /// that is not a filter. The error says what the value should be.
    pub fn from_field(field: &str, value: &str) -> Option<Result<Filter, String>> {
        let text = || value.to_string();
        let parsed = match field {
            "tag" => Ok(Filter::Tag(text())),
            "about" => Ok(Filter::About(text())),
            "section" => Ok(Filter::Section(text())),
            "author" => Ok(Filter::Author(text())),
            "venue" => Ok(Filter::Venue(text())),
            "kind" => value.parse().map(Filter::Kind),
            "year" => value.parse().map(Filter::Year),
            "id" => Ok(Filter::Id(text())),
            "arxiv" => Ok(Filter::Arxiv(text())),
            "doi" => Ok(Filter::Doi(text())),
            "collection" => value.parse().map(Filter::Collection),
            _ => return None,
        };
        Some(parsed)
    }

    /// The value as written after `field:`.
    pub fn value(&self) -> String {
        match self {
            Filter::Tag(v)
            | Filter::About(v)
            | Filter::Section(v)
            | Filter::Author(v)
            | Filter::Venue(v)
            | Filter::Id(v)
            | Filter::Arxiv(v)
            | Filter::Doi(v) => v.clone(),
            Filter::Kind(kind) => kind.to_string(),
            Filter::Year(years) => years.to_string(),
            Filter::Collection(collection) => collection.to_string(),
            Filter::Added(after) => format!(">{after}"),
        }
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{:?}", self.field(), self.value())
    }
}

impl Origin {
    /// `what`, said of `filter` where it was written.
    pub fn problem(self, filter: &Filter, what: &str) -> String {
        match self {
            Origin::Column(column) => format!(
                "{}:{} at column {column}: {what}",
                filter.field(),
                filter.value()
            ),
            Origin::Flag(flag) => format!("{flag} {}: {what}", filter.value()),
        }
    }
}

impl From<i64> for YearRange {
    fn from(year: i64) -> YearRange {
        YearRange {
            from: Some(year),
            to: Some(year),
        }
    }
}

/// Years from `from` to `to`, inclusive; either end may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YearRange {
    pub from: Option<i64>,
    pub to: Option<i64>,
}

const YEAR_HINT: &str = "expected a year such as 2021, or a range such as 2020..2023";

/// "2021", "2020..2023", "..2020", "2020..", "2020-2023".
impl FromStr for YearRange {
    type Err = String;

    fn from_str(value: &str) -> Result<YearRange, String> {
        let year = |s: &str| -> Result<Option<i64>, String> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            match s.parse::<i64>() {
                Ok(y) if (1000..=9999).contains(&y) => Ok(Some(y)),
                _ => Err(YEAR_HINT.to_string()),
            }
        };
        let value = value.trim();
        let (from, to) = match value.split_once("..").or_else(|| value.split_once('-')) {
            Some((a, b)) => (year(a)?, year(b)?),
            None => {
                let y = year(value)?;
                (y, y)
            }
        };
        match (from, to) {
            (None, None) => Err(YEAR_HINT.to_string()),
            (Some(a), Some(b)) if a > b => {
                Err(format!("the range {a}..{b} runs backwards: write {b}..{a}"))
            }
            (from, to) => Ok(YearRange { from, to }),
        }
    }
}

impl fmt::Display for YearRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.from, self.to) {
            (Some(a), Some(b)) if a == b => write!(f, "{a}"),
            (a, b) => {
                let end = |y: Option<i64>| y.map_or(String::new(), |y| y.to_string());
                write!(f, "{}..{}", end(a), end(b))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn years(value: &str) -> Result<(Option<i64>, Option<i64>), String> {
        value.parse::<YearRange>().map(|r| (r.from, r.to))
    }

    #[test]
    fn year_ranges() {
        assert_eq!(years("2021"), Ok((Some(2021), Some(2021))));
        assert_eq!(years("2020..2023"), Ok((Some(2020), Some(2023))));
        assert_eq!(years("..2020"), Ok((None, Some(2020))));
        assert_eq!(years("2020.."), Ok((Some(2020), None)));
        assert_eq!(years("2020-2023"), Ok((Some(2020), Some(2023))));
    }

    #[test]
    fn bad_years_say_what_is_expected() {
        assert_eq!(years("soon"), Err(YEAR_HINT.to_string()));
        assert_eq!(years(".."), Err(YEAR_HINT.to_string()));
        assert_eq!(years("21"), Err(YEAR_HINT.to_string()));
        assert_eq!(
            years("2023..2020"),
            Err("the range 2023..2020 runs backwards: write 2020..2023".to_string())
        );
    }

    #[test]
    fn ranges_are_shown_as_they_are_written() {
        for text in ["2021", "2020..2023", "..2020", "2020.."] {
            assert_eq!(text.parse::<YearRange>().unwrap().to_string(), text);
        }
        assert_eq!(
            "2020-2023".parse::<YearRange>().unwrap().to_string(),
            "2020..2023"
        );
    }

    #[test]
    fn errors_name_the_column_or_the_flag() {
        let tag = Filter::Tag("moe".into());
        assert_eq!(
            Origin::Column(7).problem(&tag, "unknown tag"),
            "tag:moe at column 7: unknown tag"
        );
        assert_eq!(
            Origin::Flag("--tag").problem(&tag, "unknown tag"),
            "--tag moe: unknown tag"
        );
    }

    #[test]
    fn fields_that_are_not_filters_are_left_to_the_caller() {
        assert!(Filter::from_field("title", "x").is_none());
        assert_eq!(
            Filter::from_field("kind", "projects"),
            Some(Ok(Filter::Kind(Kind::Project)))
        );
        assert_eq!(
            Filter::from_field("collection", "all"),
            Some(Err("expected catalog or arxiv".to_string()))
        );
    }
}
