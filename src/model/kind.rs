//! What a record is (a paper or a project) and which collection holds it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A catalog entry is a paper or a project; imported records are papers.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    #[default]
    Paper,
    Project,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Paper, Kind::Project];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Paper => "paper",
            Kind::Project => "project",
        }
    }

    /// The spelling the catalog files use, exactly.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// As a user types it: any case, singular or plural.
impl FromStr for Kind {
    type Err = String;

    fn from_str(s: &str) -> Result<Kind, String> {
        let lower = s.to_lowercase();
        let singular = lower.strip_suffix('s').unwrap_or(&lower);
        Kind::parse(singular).ok_or_else(|| "expected paper or project".to_string())
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The curated catalog, or the papers imported from arXiv beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Collection {
    #[default]
    Catalog,
    Arxiv,
}

impl Collection {
    pub const ALL: [Collection; 2] = [Collection::Catalog, Collection::Arxiv];

    /// The name in the index and in `--json` output.
    pub fn as_str(self) -> &'static str {
        match self {
            Collection::Catalog => "catalog",
            Collection::Arxiv => "arxiv",
        }
    }
}

impl FromStr for Collection {
    type Err = String;

    fn from_str(s: &str) -> Result<Collection, String> {
        let lower = s.to_lowercase();
        Collection::ALL
            .into_iter()
            .find(|c| c.as_str() == lower)
            .ok_or_else(|| "expected catalog or arxiv".to_string())
    }
}

impl fmt::Display for Collection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_read_as_typed_but_written_exactly() {
        assert_eq!("Papers".parse::<Kind>(), Ok(Kind::Paper));
        assert_eq!("project".parse::<Kind>(), Ok(Kind::Project));
        assert!("tool".parse::<Kind>().is_err());
        assert_eq!(Kind::parse("Paper"), None);
    }

    #[test]
    fn collections_by_name() {
        assert_eq!("ArXiv".parse::<Collection>(), Ok(Collection::Arxiv));
        assert_eq!(
            "all".parse::<Collection>(),
            Err("expected catalog or arxiv".to_string())
        );
    }
}
