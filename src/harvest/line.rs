//! A harvested record as one line of arXiv's metadata snapshot, field for
//! field, so that the snapshot's parser reads harvested records unchanged
//! and an index built from them matches one built from a snapshot.

use serde::Serialize;

use super::oai::ArxivMetadata;
use crate::ident;

/// The snapshot's fields (its `submitter` and version list are not in the
/// OAI-PMH format; `versions` holds the first version's day, which gives a
/// record its year), plus `deleted` for a record arXiv withdrew.
#[derive(Debug, Serialize)]
struct Line<'a> {
    id: &'a str,
    authors: String,
    title: &'a str,
    comments: Option<&'a str>,
    #[serde(rename = "journal-ref")]
    journal_ref: Option<&'a str>,
    doi: Option<&'a str>,
    #[serde(rename = "report-no")]
    report_no: Option<&'a str>,
    categories: String,
    license: Option<&'a str>,
    #[serde(rename = "abstract")]
    abstract_text: &'a str,
    versions: Vec<Version>,
    /// The OAI-PMH datestamp: the record's last change.
    update_date: &'a str,
    authors_parsed: Vec<[&'a str; 3]>,
}

#[derive(Debug, Serialize)]
struct Version {
    version: &'static str,
    created: String,
}

/// A tombstone: the id, the day, and `deleted`.
#[derive(Debug, Serialize)]
struct Deleted<'a> {
    id: &'a str,
    update_date: &'a str,
    deleted: bool,
}

/// The snapshot line of `metadata`, changed on `datestamp` (no line break).
pub fn record_line(metadata: &ArxivMetadata, datestamp: &str) -> String {
    let authors = metadata
        .authors
        .iter()
        .map(|a| {
            [a.forenames.as_str(), a.keyname.as_str(), a.suffix.as_str()]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(", ");
    let line = Line {
        id: ident::strip_version(metadata.id.trim()),
        authors,
        title: &metadata.title,
        comments: metadata.comments.as_deref(),
        journal_ref: metadata.journal_ref.as_deref(),
        doi: metadata.doi.as_deref(),
        report_no: metadata.report_no.as_deref(),
        categories: metadata.categories.join(" "),
        license: metadata.license.as_deref(),
        abstract_text: &metadata.abstract_text,
        versions: metadata
            .created
            .as_deref()
            .and_then(rfc2822_day)
            .map(|created| Version {
                version: "v1",
                created,
            })
            .into_iter()
            .collect(),
        update_date: datestamp,
        authors_parsed: metadata
            .authors
            .iter()
            .map(|a| [a.keyname.as_str(), a.forenames.as_str(), a.suffix.as_str()])
            .collect(),
    };
    // Serializing strings and numbers cannot fail.
    serde_json::to_string(&line).unwrap_or_default()
}

/// The line that says `id` was deleted on `datestamp`.
pub fn deleted_line(id: &str, datestamp: &str) -> String {
    let line = Deleted {
        id,
        update_date: datestamp,
        deleted: true,
    };
    serde_json::to_string(&line).unwrap_or_default()
}

/// `2007-04-02` as the snapshot writes a version's date:
/// `Mon, 2 Apr 2007 00:00:00 GMT`.
fn rfc2822_day(day: &str) -> Option<String> {
    let ymd = time::format_description::parse_borrowed::<2>("[year]-[month]-[day]").ok()?;
    let date = time::Date::parse(day.get(..10).unwrap_or(day), &ymd).ok()?;
    let shown = time::format_description::parse_borrowed::<2>(
        "[weekday repr:short], [day padding:none] [month repr:short] [year] 00:00:00 GMT",
    )
    .ok()?;
    date.format(&shown).ok()
}

#[cfg(test)]
mod tests {
    use super::super::oai::Author;
    use super::*;
    use crate::snapshot::parse_line;

    fn metadata() -> ArxivMetadata {
        ArxivMetadata {
            id: "1412.80007".into(),
            created: Some("2999-01-02".into()),
            authors: vec![
                Author {
                    keyname: "Example".into(),
                    forenames: "Ada".into(),
                    suffix: String::new(),
                },
                Author {
                    keyname: "Placeholder".into(),
                    forenames: String::new(),
                    suffix: String::new(),
                },
            ],
            title: "Make-Believe Sharding".into(),
            categories: vec!["cs.DC".into(), "cs.LG".into()],
            doi: Some("10.99999/Fict.7".into()),
            journal_ref: Some("Fict. J. 1".into()),
            abstract_text: "  We shard nothing.\n".into(),
            ..ArxivMetadata::default()
        }
    }

    #[test]
    fn the_snapshot_parser_reads_a_harvested_line() {
        let line = record_line(&metadata(), "2999-01-05");
        let parsed = parse_line(&line).unwrap();
        let r = parsed.record;
        assert_eq!(r.arxiv.as_deref(), Some("1412.80007"));
        assert_eq!(r.title, "Make-Believe Sharding");
        assert_eq!(r.authors, ["Ada Example", "Placeholder"]);
        assert_eq!(r.year, Some(2999));
        assert_eq!(r.categories, ["cs.DC", "cs.LG"]);
        assert_eq!(r.doi.as_deref(), Some("10.99999/fict.7"));
        assert_eq!(r.updated.as_deref(), Some("2999-01-05"));
        assert_eq!(r.abstract_text.as_deref(), Some("We shard nothing."));
        assert_eq!(parsed.primary_category.as_deref(), Some("cs.DC"));
        assert!(!line.contains('\n'));
    }

    #[test]
    fn days_as_the_snapshot_writes_them() {
        assert_eq!(
            rfc2822_day("2007-04-02").as_deref(),
            Some("Mon, 2 Apr 2007 00:00:00 GMT")
        );
        assert_eq!(rfc2822_day("someday"), None);
    }

    #[test]
    fn a_tombstone() {
        assert_eq!(
            deleted_line("1412.80002", "2999-01-05"),
            r#"{"id":"1412.80002","update_date":"2999-01-05","deleted":true}"#
        );
    }
}
