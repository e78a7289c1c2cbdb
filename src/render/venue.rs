//! What kind of work a record is for the citation formats (BibTeX, CSL-JSON,
//! RIS), decided once from its kind and venue, and its venue's full name.
//! The formats differ only in how they spell these.

use crate::model::{Kind, Record};

/// A work as reference managers type it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Genre {
    /// A paper in a conference's proceedings (and any venue not below).
    Proceedings,
    /// A paper in a journal.
    Journal,
    /// A paper on a preprint server.
    Preprint,
    /// A paper whose venue nobody recorded.
    Unplaced,
    /// A project: software.
    Software,
}

/// Venues that are journals rather than proceedings (matched within).
const JOURNALS: &[&str] = &[
    "acm computing surveys",
    "tpds",
    "vldb",
    "pvldb",
    "jmlr",
    "tocs",
    "ieee transactions",
];

/// Preprint servers (matched within a venue) by the names they go by.
const PREPRINT_SERVERS: &[(&str, &str)] = &[
    ("arxiv", "arXiv"),
    ("techrxiv", "TechRxiv"),
    ("biorxiv", "bioRxiv"),
    ("openreview", "OpenReview"),
];

/// The venues of the catalog by the names their proceedings go by, so that a
/// citation says more than an acronym. Others are printed as written.
const PROCEEDINGS: &[(&str, &str)] = &[
    (
        "ACL",
        "Annual Meeting of the Association for Computational Linguistics (ACL)",
    ),
    (
        "ASPLOS",
        "ACM International Conference on Architectural Support for Programming Languages and Operating Systems (ASPLOS)",
    ),
    ("ATC", "USENIX Annual Technical Conference (ATC)"),
    (
        "EuroSys",
        "European Conference on Computer Systems (EuroSys)",
    ),
    (
        "HPCA",
        "IEEE International Symposium on High-Performance Computer Architecture (HPCA)",
    ),
    (
        "ICLR",
        "International Conference on Learning Representations (ICLR)",
    ),
    (
        "ICML",
        "International Conference on Machine Learning (ICML)",
    ),
    (
        "ICS",
        "ACM International Conference on Supercomputing (ICS)",
    ),
    (
        "MLSys",
        "Conference on Machine Learning and Systems (MLSys)",
    ),
    (
        "NeurIPS",
        "Advances in Neural Information Processing Systems (NeurIPS)",
    ),
    (
        "NSDI",
        "USENIX Symposium on Networked Systems Design and Implementation (NSDI)",
    ),
    (
        "OSDI",
        "USENIX Symposium on Operating Systems Design and Implementation (OSDI)",
    ),
    (
        "PPoPP",
        "ACM SIGPLAN Symposium on Principles and Practice of Parallel Programming (PPoPP)",
    ),
    (
        "SC",
        "International Conference for High Performance Computing, Networking, Storage and Analysis (SC)",
    ),
    (
        "SOSP",
        "ACM Symposium on Operating Systems Principles (SOSP)",
    ),
];

/// Journals likewise.
const JOURNAL_NAMES: &[(&str, &str)] = &[
    (
        "TPDS",
        "IEEE Transactions on Parallel and Distributed Systems",
    ),
    ("VLDB", "Proceedings of the VLDB Endowment"),
];

pub fn genre(r: &Record) -> Genre {
    let lower = r.venue.as_deref().unwrap_or_default().to_lowercase();
    if r.kind == Kind::Project {
        Genre::Software
    } else if lower.trim().is_empty() {
        Genre::Unplaced
    } else if PREPRINT_SERVERS.iter().any(|(p, _)| lower.contains(p)) {
        Genre::Preprint
    } else if JOURNALS.iter().any(|j| lower.contains(j)) {
        Genre::Journal
    } else {
        Genre::Proceedings
    }
}

/// The proceedings or journal a paper appeared in, by its full name when
/// known, else as written; none for the other genres.
pub fn container(r: &Record) -> Option<String> {
    let venue = r.venue.as_deref()?;
    match genre(r) {
        Genre::Proceedings => Some(full_name(PROCEEDINGS, venue)),
        Genre::Journal => Some(full_name(JOURNAL_NAMES, venue)),
        _ => None,
    }
}

/// The server of a preprint's venue, by its name (`arxiv` is arXiv).
pub fn server(r: &Record) -> Option<&'static str> {
    let lower = r.venue.as_deref()?.to_lowercase();
    (PREPRINT_SERVERS.iter())
        .find(|(p, _)| lower.contains(p))
        .map(|(_, name)| *name)
}

/// The full name of `venue` in `table`, else the venue as written.
fn full_name(table: &[(&str, &str)], venue: &str) -> String {
    table
        .iter()
        .find(|(short, _)| short.eq_ignore_ascii_case(venue.trim()))
        .map_or_else(|| venue.to_string(), |(_, full)| (*full).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper(venue: Option<&str>) -> Record {
        Record {
            kind: Kind::Paper,
            venue: venue.map(str::to_string),
            ..Record::default()
        }
    }

    #[test]
    fn genres_follow_the_venue() {
        let genres: Vec<Genre> = [
            Some("OSDI"),
            Some("IEEE Transactions on Computers"),
            Some("arxiv"),
            Some("NeurIPS Workshop"),
            None,
        ]
        .into_iter()
        .map(|v| genre(&paper(v)))
        .collect();
        use Genre::*;
        assert_eq!(
            genres,
            [Proceedings, Journal, Preprint, Proceedings, Unplaced]
        );
        let project = Record {
            kind: Kind::Project,
            ..paper(Some("OSDI"))
        };
        assert_eq!(genre(&project), Software);
    }

    #[test]
    fn containers_are_full_names_and_servers_have_theirs() {
        assert_eq!(
            container(&paper(Some("tpds"))).as_deref(),
            Some("IEEE Transactions on Parallel and Distributed Systems")
        );
        assert_eq!(container(&paper(Some("FICT"))).as_deref(), Some("FICT"));
        assert_eq!(container(&paper(Some("arxiv"))), None);
        assert_eq!(server(&paper(Some("techrxiv"))), Some("TechRxiv"));
        assert_eq!(server(&paper(Some("OSDI"))), None);
    }
}
