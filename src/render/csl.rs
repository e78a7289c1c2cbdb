//! CSL-JSON, what pandoc's citeproc, Zotero and papis read: one array of
//! items, keyed by the BibTeX key and typed by the same rules as BibTeX's
//! entries (`venue::genre`). Every text from data is made inert first.
//!
//! arXiv ids follow Zotero's conventions: a preprint's is its `number`
//! ("arXiv:ID", the repository its `publisher`), as Zotero writes a
//! preprint's Archive ID; a published paper's is a `note` line
//! ("arXiv: ID"), as Zotero keeps it in Extra.

use serde::Serialize;

use super::names;
use super::venue::{self, Genre};
use crate::inert::inert;
use crate::model::Record;

#[derive(Serialize)]
struct Item {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    title: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    author: Vec<Name>,
    #[serde(skip_serializing_if = "Option::is_none")]
    issued: Option<Date>,
    #[serde(rename = "container-title", skip_serializing_if = "Option::is_none")]
    container_title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    publisher: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    number: Option<String>,
    #[serde(rename = "DOI", skip_serializing_if = "Option::is_none")]
    doi: Option<String>,
    #[serde(rename = "URL", skip_serializing_if = "String::is_empty")]
    url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Serialize)]
struct Name {
    #[serde(skip_serializing_if = "String::is_empty")]
    family: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    given: String,
    #[serde(rename = "dropping-particle", skip_serializing_if = "String::is_empty")]
    particle: String,
}

#[derive(Serialize)]
struct Date {
    #[serde(rename = "date-parts")]
    parts: [[i64; 1]; 1],
}

/// The records as one pretty-printed JSON array (`[]` for none), with a
/// final newline.
pub fn items<'r>(records: impl IntoIterator<Item = &'r Record>) -> String {
    let items: Vec<Item> = records.into_iter().map(item).collect();
    let mut text = serde_json::to_string_pretty(&items).expect("plain data serializes");
    text.push('\n');
    text
}

fn item(r: &Record) -> Item {
    let genre = venue::genre(r);
    let arxiv = r.arxiv.as_deref().map(inert);
    let preprint = matches!(genre, Genre::Preprint | Genre::Unplaced);
    Item {
        id: inert(&super::bibtex::key(r)),
        kind: match genre {
            Genre::Proceedings => "paper-conference",
            Genre::Journal => "article-journal",
            Genre::Preprint | Genre::Unplaced => "article",
            Genre::Software => "software",
        },
        title: inert(&r.title),
        // An `et_al` record names only its first authors: nobody is invented.
        author: r.authors.iter().map(|a| name(a)).collect(),
        issued: r.year.map(|year| Date { parts: [[year]] }),
        container_title: venue::container(r).map(|c| inert(&c)),
        publisher: match genre {
            Genre::Preprint => venue::server(r).map(str::to_string),
            Genre::Unplaced => arxiv.as_ref().map(|_| "arXiv".to_string()),
            _ => None,
        },
        number: arxiv
            .as_ref()
            .filter(|_| preprint)
            .map(|id| format!("arXiv:{id}")),
        doi: r.doi.as_deref().map(inert),
        url: inert(&r.url),
        note: arxiv.filter(|_| !preprint).map(|id| format!("arXiv: {id}")),
    }
}

fn name(full: &str) -> Name {
    let parts = names::split(&inert(full));
    Name {
        family: parts.family,
        given: parts.given,
        particle: parts.particle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Kind;
    use serde_json::{Value, json};

    fn parsed(r: &Record) -> Value {
        serde_json::from_str(&items([r])).unwrap()
    }

    #[test]
    fn a_published_paper_with_an_arxiv_id_notes_it() {
        let r = Record {
            id: "wobble-2021".into(),
            kind: Kind::Paper,
            title: "Wobble\u{202E}: Pretend\n Pipelines".into(),
            authors: vec!["Ada van Example".into()],
            et_al: true,
            venue: Some("OSDI".into()),
            year: Some(2021),
            arxiv: Some("1412.99990".into()),
            url: "https://example.org/wobble".into(),
            ..Record::default()
        };
        assert_eq!(
            parsed(&r),
            json!([{
                "id": "example2021wobble",
                "type": "paper-conference",
                "title": "Wobble\u{FFFD}: Pretend Pipelines",
                "author": [{"family": "Example", "given": "Ada", "dropping-particle": "van"}],
                "issued": {"date-parts": [[2021]]},
                "container-title": "USENIX Symposium on Operating Systems Design and Implementation (OSDI)",
                "URL": "https://example.org/wobble",
                "note": "arXiv: 1412.99990",
            }])
        );
    }

    #[test]
    fn a_preprint_is_numbered_by_its_server() {
        let r = Record {
            kind: Kind::Paper,
            title: "Pretend".into(),
            venue: Some("arxiv".into()),
            arxiv: Some("1412.99990".into()),
            ..Record::default()
        };
        let item = &parsed(&r)[0];
        assert_eq!(item["type"], "article");
        assert_eq!(item["publisher"], "arXiv");
        assert_eq!(item["number"], "arXiv:1412.99990");
        assert_eq!(item.get("note"), None);
        assert_eq!(items(Vec::<&Record>::new()), "[]\n");
    }
}
