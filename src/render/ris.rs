//! RIS, the tagged lines EndNote, Zotero and Mendeley import: `TAG  - value`
//! a field, from `TY` to `ER`, typed by the same rules as BibTeX's entries
//! (`venue::genre`). Every value is made inert, so that it stays one line.
//! No crate is kept for so simple a format.

use std::fmt::Write;

use super::names;
use super::venue::{self, Genre};
use crate::inert::inert;
use crate::model::Record;

/// The records, each ending with its `ER` line, a blank line between two.
pub fn records<'r>(records: impl IntoIterator<Item = &'r Record>) -> String {
    records
        .into_iter()
        .map(record)
        .collect::<Vec<_>>()
        .join("\n")
}

fn record(r: &Record) -> String {
    let genre = venue::genre(r);
    let mut out = String::new();
    let mut line = |tag: &str, value: &str| {
        let value = inert(value);
        if !value.is_empty() {
            let _ = writeln!(out, "{tag}  - {value}");
        }
    };
    line(
        "TY",
        match genre {
            Genre::Proceedings => "CPAPER",
            Genre::Journal => "JOUR",
            Genre::Preprint => "UNPB",
            Genre::Unplaced => "GEN",
            Genre::Software => "COMP",
        },
    );
    line("ID", &super::bibtex::key(r));
    line("TI", &r.title);
    // An `et_al` record names only its first authors: nobody is invented.
    for author in &r.authors {
        line("AU", &author_name(&inert(author)));
    }
    if let Some(year) = r.year {
        line("PY", &year.to_string());
    }
    // The conference's name for CPAPER, the journal's for JOUR (JO is read
    // as the journal's abbreviation by Zotero).
    if let Some(container) = venue::container(r) {
        line("T2", &container);
    }
    // An arXiv id is an accession number (AN) in a database (DB) named arXiv;
    // a preprint without one names its server alone.
    match (&r.arxiv, venue::server(r)) {
        (Some(arxiv), _) => {
            line("DB", "arXiv");
            line("AN", arxiv);
        }
        (None, Some(server)) => line("DB", server),
        (None, None) => {}
    }
    if let Some(doi) = &r.doi {
        line("DO", doi);
    }
    line("UR", &r.url);
    // The spec's end line, its trailing space included.
    out.push_str("ER  - \n");
    out
}

/// "Family, Given", the particle after the given names ("Example, Ada van"),
/// as it is dropped in sorting.
fn author_name(full: &str) -> String {
    let n = names::split(full);
    let given = [n.given, n.particle]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if given.is_empty() {
        n.family
    } else {
        format!("{}, {given}", n.family)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Kind;

    #[test]
    fn a_record_is_tagged_lines_from_ty_to_er() {
        let r = Record {
            id: "wobble-2021".into(),
            kind: Kind::Paper,
            title: "Wobble:\u{1b}[31m Pretend\nPipelines".into(),
            authors: vec!["Ada van Example".into(), "Placeholder".into()],
            venue: Some("TPDS".into()),
            year: Some(2021),
            doi: Some("10.5555/fictional.1".into()),
            url: "https://example.org/wobble".into(),
            ..Record::default()
        };
        assert_eq!(
            records([&r]),
            "TY  - JOUR
ID  - example2021wobble
TI  - Wobble:\u{FFFD}[31m Pretend Pipelines
AU  - Example, Ada van
AU  - Placeholder
PY  - 2021
T2  - IEEE Transactions on Parallel and Distributed Systems
DO  - 10.5555/fictional.1
UR  - https://example.org/wobble
ER  - \n"
        );
    }

    #[test]
    fn preprints_and_software() {
        let preprint = Record {
            kind: Kind::Paper,
            title: "Pretend".into(),
            venue: Some("techrxiv".into()),
            ..Record::default()
        };
        let text = records([&preprint]);
        assert!(text.starts_with("TY  - UNPB\n"), "{text}");
        assert!(text.contains("DB  - TechRxiv\n"), "{text}");
        let software = Record {
            id: "gizmo".into(),
            kind: Kind::Project,
            title: "Gizmo".into(),
            ..Record::default()
        };
        let text = records([&preprint, &software]);
        assert!(
            text.contains("ER  - \n\nTY  - COMP\nID  - gizmo\n"),
            "{text}"
        );
    }
}
