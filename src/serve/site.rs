//! The site a request named (its `Host`, which the guard let through), for
//! a feed's links, and records and inbox candidates as a feed's entries.

use axum::http::{HeaderMap, header};

use crate::inbox::Candidate;
use crate::model::Record;
use crate::render::atom::FeedEntry;

#[derive(Debug, Clone)]
pub struct Site {
    base: String,
}

impl Site {
    pub fn of(headers: &HeaderMap) -> Site {
        let host = (headers.get(header::HOST))
            .and_then(|h| h.to_str().ok())
            .unwrap_or("127.0.0.1");
        Site {
            base: format!("http://{host}"),
        }
    }

    /// `http://HOST`, which names the site.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `path` (with its query) on this site.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The page's view of the record `id`.
    pub fn view(&self, id: &str) -> String {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("entry", id)
            .finish();
        self.url(&format!("/?{query}"))
    }

    /// The feed's entries for `records`, newest first as they come.
    pub fn entries(&self, records: Vec<Record>) -> Vec<FeedEntry> {
        (records.into_iter())
            .map(|record| FeedEntry {
                view_url: self.view(&record.id),
                record,
                preface: None,
            })
            .collect()
    }

    /// The inbox's candidates as entries, newest first, each with what is
    /// proposed for it.
    pub fn candidate_entries(&self, mut candidates: Vec<Candidate>) -> Vec<FeedEntry> {
        candidates.sort_by(|a, b| crate::search::newer_first(&a.record, &b.record));
        (candidates.into_iter())
            .map(|c| FeedEntry {
                view_url: self.view(&c.record.id),
                preface: Some(proposal(&c)),
                record: c.record,
            })
            .collect()
    }
}

/// "Proposed for SECTION with tags a, b (score 0.912); why: ...".
fn proposal(c: &Candidate) -> String {
    let mut text = format!("Score {:.3}", c.score);
    if let Some(section) = &c.section {
        text.push_str(&format!("; proposed for {section}"));
    }
    if !c.tags.is_empty() {
        text.push_str(&format!(" with tags {}", c.tags.join(", ")));
    }
    if !c.why.is_empty() {
        text.push_str(&format!("; why: {}", c.why.join(", ")));
    }
    text.push('.');
    text
}
