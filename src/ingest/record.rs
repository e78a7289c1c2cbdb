//! What a source says about one paper, before it is merged into the cache.

use serde::{Deserialize, Serialize};

/// A metadata source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Arxiv,
    Crossref,
    Openalex,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Arxiv => "arxiv",
            Source::Crossref => "crossref",
            Source::Openalex => "openalex",
        }
    }
}

/// One paper as a source describes it. Text fields are plain text with
/// whitespace collapsed to single spaces; dates are `YYYY-MM-DD`, `YYYY-MM`
/// or `YYYY` as precise as the source is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaperRecord {
    pub title: String,
    pub authors: Vec<String>,
    pub abstract_text: Option<String>,
    pub published: Option<String>,
    pub updated: Option<String>,
    pub venue: Option<String>,
    pub year: Option<i64>,
    /// Without version suffix.
    pub arxiv: Option<String>,
    /// Lower-case.
    pub doi: Option<String>,
    pub categories: Vec<String>,
    pub journal_ref: Option<String>,
}

/// Collapses runs of whitespace (newlines included) to one space and trims.
pub fn normalize_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
