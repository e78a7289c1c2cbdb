//! The record of one work as the index holds it and search results show it.

use super::{Collection, Kind, Source};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    pub collection: Collection,
    pub id: String,
    pub kind: Kind,
    pub title: String,
    pub authors: Vec<String>,
    /// `authors` are only the first authors.
    pub et_al: bool,
    pub venue: Option<String>,
    pub year: Option<i64>,
    pub section: String,
    /// What the work is about.
    pub tags: Vec<String>,
    /// What it uses without being about it.
    pub uses: Vec<String>,
    /// Tags a model learned from the catalog predicts, for a record without
    /// curated `tags` (see `predict`), most confident first.
    pub predicted: Vec<PredictedTag>,
    pub url: String,
    pub arxiv: Option<String>,
    pub doi: Option<String>,
    pub note: String,
    pub abstract_text: Option<String>,
    pub abstract_source: Option<Source>,
    /// The day of an imported record's first version (else of its last
    /// change), `YYYY-MM-DD`.
    pub submitted: Option<String>,
    /// When the record entered the index, in milliseconds since the Unix
    /// epoch (`index::stamps`); `None` until a writer stamps it.
    pub added: Option<i64>,
}

/// A tag predicted for a record, with the model's confidence in [0, 1].
#[derive(Debug, Clone, PartialEq)]
pub struct PredictedTag {
    pub tag: String,
    pub confidence: f32,
}

impl Record {
    pub fn is_imported(&self) -> bool {
        self.collection == Collection::Arxiv
    }
}

pub const ARXIV_ID_PREFIX: &str = "arxiv:";

/// The id of an imported record: `arxiv:` and its arXiv id.
pub fn arxiv_record_id(arxiv: &str) -> String {
    format!("{ARXIV_ID_PREFIX}{arxiv}")
}

pub fn arxiv_url(arxiv: &str) -> String {
    format!("https://arxiv.org/abs/{arxiv}")
}
