//! One line of arXiv's public metadata snapshot (JSON Lines, field for field
//! as arXiv publishes it), parsed into what the index needs.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};

use crate::ident;
use crate::model::{
    Collection, Kind, PaperRecord, Record, Source, arxiv_record_id, arxiv_url,
    normalize_whitespace, push_normalized,
};

/// Fields borrow from the line where it has no escapes: most of a record is
/// read once, not copied.
#[derive(Debug, Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(default, borrow)]
    title: Cow<'a, str>,
    #[serde(default, borrow, rename = "abstract")]
    abstract_text: Cow<'a, str>,
    #[serde(default, borrow)]
    authors: Cow<'a, str>,
    #[serde(default)]
    authors_parsed: Vec<ParsedName>,
    #[serde(default, borrow)]
    categories: Cow<'a, str>,
    #[serde(default, borrow)]
    doi: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "journal-ref")]
    journal_ref: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    versions: FirstVersion<'a>,
    #[serde(default, borrow)]
    update_date: Option<Cow<'a, str>>,
}

#[derive(Debug, Deserialize)]
struct Version<'a> {
    #[serde(default, borrow)]
    created: Cow<'a, str>,
}

/// `versions`, of which only the first is read (the date of submission);
/// the others are skipped without being built.
#[derive(Debug, Default)]
struct FirstVersion<'a>(Option<Version<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for FirstVersion<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct First<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for First<'a> {
            type Value = FirstVersion<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of versions")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let first = seq.next_element::<Version<'a>>()?;
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(FirstVersion(first))
            }
        }
        deserializer.deserialize_seq(First(std::marker::PhantomData))
    }
}

/// One author of `authors_parsed` (`[last, first, suffix, ...]`) read
/// straight into "First Last": no vector per author, no string per part (a
/// thousand-author paper has as many). Empty when both parts are.
#[derive(Debug)]
struct ParsedName(String);

impl<'de> Deserialize<'de> for ParsedName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl<'de> Visitor<'de> for Name {
            type Value = ParsedName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an author's name parts")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let last: Option<Part> = seq.next_element()?;
                let first: Option<Part> = seq.next_element()?;
                if first.is_some() {
                    while seq.next_element::<IgnoredAny>()?.is_some() {}
                }
                let (last, first) = (
                    last.as_ref().map_or("", |p| p.0.trim()),
                    first.as_ref().map_or("", |p| p.0.trim()),
                );
                let mut name = String::with_capacity(first.len() + last.len() + 1);
                push_normalized(&mut name, first);
                push_normalized(&mut name, last);
                Ok(ParsedName(name))
            }
        }
        deserializer.deserialize_seq(Name)
    }
}

/// A part of a name, borrowed from the line unless it holds escapes.
struct Part<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Part<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text;
        impl<'de> Visitor<'de> for Text {
            type Value = Part<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Part(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Part(Cow::Owned(text.to_string())))
            }
        }
        deserializer.deserialize_str(Text)
    }
}

/// A snapshot record: the paper, and the year of its first version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotRecord {
    pub record: PaperRecord,
    pub primary_category: Option<String>,
}

/// arXiv caps abstracts at 1,920 characters and titles are a line or two:
/// a longer field is kept only this far, so that one record cannot make
/// every search that matches it slow (snippets read the whole abstract).
const MAX_ABSTRACT_BYTES: usize = 16 << 10;
const MAX_TITLE_BYTES: usize = 2 << 10;

/// `text` cut to at most `max` bytes, at a character boundary.
fn bounded(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let end = (0..=max)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    &text[..end]
}

/// Parses one line; the error says what is wrong (serde's message, with the
/// column).
pub fn parse_line(line: &str) -> Result<SnapshotRecord, String> {
    let raw: Line =
        serde_json::from_str(line).map_err(|e| format!("column {}: {e}", e.column()))?;
    let id = ident::strip_version(raw.id.trim()).to_string();
    if !ident::is_arxiv_id(&id) {
        return Err(format!("`id` {:?} is not an arXiv id", raw.id));
    }
    let parsed: Vec<String> = (raw.authors_parsed.into_iter())
        .map(|name| name.0)
        .filter(|name| !name.is_empty())
        .collect();
    let authors: Vec<String> = if parsed.is_empty() {
        raw.authors
            .split(", ")
            .map(normalize_whitespace)
            .filter(|a| !a.is_empty())
            .collect()
    } else {
        parsed
    };
    let categories: Vec<String> = raw
        .categories
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let primary_category = categories.first().cloned();
    let first_version = raw.versions.0;
    let year = first_version
        .as_ref()
        .and_then(|v| year_of(&v.created))
        .or_else(|| year_of_id(&id));
    let record = PaperRecord {
        title: normalize_whitespace(bounded(&raw.title, MAX_TITLE_BYTES)),
        authors,
        // Kept as published (line breaks and all): words are words to the
        // index, and whitespace is collapsed where an abstract is shown, which
        // is cheaper than for each of a million records.
        abstract_text: Some(bounded(raw.abstract_text.trim(), MAX_ABSTRACT_BYTES).to_string())
            .filter(|a| !a.is_empty()),
        published: first_version
            .filter(|v| !v.created.is_empty())
            .map(|v| v.created.to_string()),
        updated: raw.update_date.map(Cow::into_owned),
        venue: raw.journal_ref.as_deref().map(normalize_whitespace),
        year,
        arxiv: Some(id),
        doi: raw
            .doi
            .map(|d| d.trim().to_lowercase())
            .filter(|d| ident::is_doi(d)),
        journal_ref: raw.journal_ref.map(Cow::into_owned),
        categories,
    };
    Ok(SnapshotRecord {
        record,
        primary_category,
    })
}

/// The year in an RFC 2822 date such as "Mon, 2 Apr 2007 19:18:42 GMT".
fn year_of(date: &str) -> Option<i64> {
    date.split_whitespace()
        .find(|w| w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|w| w.parse().ok())
}

/// The day of an RFC 2822 date ("Mon, 2 Apr 2007 19:18:42 GMT") as
/// `YYYY-MM-DD`.
fn day_of(date: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let words: Vec<&str> = date.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let at = words.iter().position(|w| MONTHS.contains(w))?;
    let month = MONTHS.iter().position(|m| *m == words[at])? as u8 + 1;
    let day: u8 = words.get(at.checked_sub(1)?)?.parse().ok()?;
    let year: i32 = words.get(at + 1)?.parse().ok()?;
    let month = time::Month::try_from(month).ok()?;
    let date = time::Date::from_calendar_date(year, month, day).ok()?;
    Some(format!(
        "{:04}-{:02}-{:02}",
        date.year(),
        u8::from(date.month()),
        date.day()
    ))
}

/// Whether `day` is a real day written `YYYY-MM-DD`.
fn day_of_iso(day: &str) -> bool {
    day.len() == 10
        && time::Date::parse(day, &time::format_description::well_known::Iso8601::DATE).is_ok()
}

/// New-style ids start with YYMM: 0704.0001 is from 2007.
fn year_of_id(id: &str) -> Option<i64> {
    let yy: i64 = id.get(..2)?.parse().ok()?;
    id.contains('.')
        .then_some(if yy >= 91 { 1900 + yy } else { 2000 + yy })
}

impl SnapshotRecord {
    /// The record to index: a paper of the `arxiv` collection.
    pub fn into_record(self) -> Record {
        let r = self.record;
        let arxiv = r.arxiv.unwrap_or_default();
        Record {
            collection: Collection::Arxiv,
            id: arxiv_record_id(&arxiv),
            kind: Kind::Paper,
            title: r.title,
            authors: r.authors,
            et_al: false,
            venue: Some(r.journal_ref.unwrap_or_else(|| "arXiv".to_string())),
            year: r.year,
            section: self.primary_category.unwrap_or_default(),
            tags: Vec::new(),
            uses: Vec::new(),
            predicted: Vec::new(),
            url: arxiv_url(&arxiv),
            abstract_source: r.abstract_text.as_ref().map(|_| Source::Arxiv),
            submitted: r
                .published
                .as_deref()
                .and_then(day_of)
                .or_else(|| r.updated.filter(|d| day_of_iso(d))),
            abstract_text: r.abstract_text,
            arxiv: Some(arxiv),
            doi: r.doi,
            note: String::new(),
            added: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A fictional record, in the snapshot's layout field for field.
    const LINE: &str = r#"{"id":"1412.99998","submitter":"Ada Example","authors":"Ada Example and Bob Placeholder","title":"A Fictional Study of\n  Pipeline Bubbles","comments":"12 pages","journal-ref":"Journal of Fictional Systems 1 (2015)","doi":"10.1000/EXAMPLE.1","report-no":null,"categories":"cs.DC cs.LG","license":"http://creativecommons.org/licenses/by/4.0/","abstract":"  We study\nzorblats.\n","versions":[{"version":"v1","created":"Wed, 31 Dec 2014 23:59:59 GMT"},{"version":"v2","created":"Mon, 5 Jan 2015 10:00:00 GMT"}],"update_date":"2015-01-06","authors_parsed":[["Example","Ada",""],["Placeholder","Bob",""]]}"#;

    #[test]
    fn a_snapshot_line() {
        let r = parse_line(LINE).unwrap();
        assert_eq!(r.record.title, "A Fictional Study of Pipeline Bubbles");
        assert_eq!(r.record.authors, ["Ada Example", "Bob Placeholder"]);
        assert_eq!(
            r.record.abstract_text.as_deref(),
            Some("We study\nzorblats.")
        );
        assert_eq!(r.record.year, Some(2014));
        assert_eq!(
            r.clone().into_record().submitted.as_deref(),
            Some("2014-12-31")
        );
        assert_eq!(r.record.doi.as_deref(), Some("10.1000/example.1"));
        assert_eq!(r.primary_category.as_deref(), Some("cs.DC"));
    }

    #[test]
    fn names_are_read_from_their_parts_escaped_or_not() {
        let line = r#"{"id":"1412.99997","authors":"ignored","authors_parsed":[["M\u00fcller-Fictus","  Ada\n B.","Jr."],[],["Placeholder"],["",""]],"versions":[{"created":"Tue, 2 Dec 2014 10:00:00 GMT"},{"created":"x"},{"created":"y"}]}"#;
        let r = parse_line(line).unwrap();
        assert_eq!(r.record.authors, ["Ada B. Müller-Fictus", "Placeholder"]);
        assert_eq!(r.record.year, Some(2014));
        assert!(parse_line(r#"{"id":"1412.99997","authors_parsed":[[3]]}"#).is_err());
    }

    #[test]
    fn bad_lines_say_why() {
        assert!(parse_line("{\"id\": 3}").unwrap_err().starts_with("column"));
        assert!(
            parse_line("{\"id\": \"nonsense\"}")
                .unwrap_err()
                .contains("not an arXiv id")
        );
        assert!(parse_line("not json").is_err());
        assert_eq!(year_of_id("0704.0001"), Some(2007));
        assert_eq!(day_of("Fri, 31 Feb 2014 10:00:00 GMT"), None);
        assert_eq!(day_of("2 Apr 2007").as_deref(), Some("2007-04-02"));
    }
}
