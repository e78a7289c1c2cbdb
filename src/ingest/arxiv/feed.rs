//! What a response holds ([`Feed`], [`ArxivEntry`]), and one entry's fields made a paper record.

use crate::ident::{is_arxiv_id, is_doi, strip_version};
use crate::model::paper::{PaperRecord, normalize_whitespace};

/// One arXiv API response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Feed {
    /// The papers, in response order.
    pub entries: Vec<ArxivEntry>,
    /// `<opensearch:totalResults>`: every match, not only this page.
    pub total_results: Option<usize>,
    /// What arXiv reported instead of papers (e.g. a malformed id), and
    /// entries whose `<id>` is neither a paper nor an error.
    pub errors: Vec<String>,
}

/// One paper of a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArxivEntry {
    /// `venue` is always `None`: arXiv only knows the free-text journal_ref.
    pub record: PaperRecord,
    /// The version described, the latest one: 3 for `2006.09503v3`.
    pub version: Option<u32>,
}

/// The raw text of one `<entry>`'s elements.
#[derive(Default)]
pub(super) struct EntryFields {
    pub(super) id: Option<String>,
    pub(super) title: Option<String>,
    pub(super) summary: Option<String>,
    pub(super) published: Option<String>,
    pub(super) updated: Option<String>,
    pub(super) authors: Vec<String>,
    pub(super) doi: Option<String>,
    pub(super) journal_ref: Option<String>,
    pub(super) primary_category: Option<String>,
    pub(super) categories: Vec<String>,
}

impl EntryFields {
    /// Adds the entry to `feed` as a paper or an error. An entry without an
    /// `<id>` is skipped: the old API answered an unknown id with one.
    pub(super) fn finish(self, feed: &mut Feed) {
        let Some(id_url) = self.id.as_deref().map(str::trim) else {
            return;
        };
        let title = self.title.as_deref().map(normalize_whitespace);
        let Some((arxiv, version)) = arxiv_id_and_version(id_url) else {
            let message = if is_error_id(id_url) || title.as_deref() == Some("Error") {
                self.summary
                    .as_deref()
                    .map(normalize_whitespace)
                    .filter(|summary| !summary.is_empty())
                    .unwrap_or_else(|| format!("arXiv reported an error: {id_url}"))
            } else {
                // Reported rather than dropped: if arXiv changed its id
                // format, every paper would otherwise vanish silently.
                format!("entry with an unrecognized id: {id_url:?}")
            };
            feed.errors.push(message);
            return;
        };

        let published = self.published.as_deref().and_then(day);
        let year = published
            .as_deref()
            .and_then(|date| date.get(..4))
            .and_then(|year| year.parse().ok());
        let mut categories: Vec<String> = Vec::new();
        for category in self.primary_category.into_iter().chain(self.categories) {
            if !categories.contains(&category) {
                categories.push(category);
            }
        }
        let record = PaperRecord {
            title: title.unwrap_or_default(),
            authors: self
                .authors
                .iter()
                .map(|name| normalize_whitespace(name))
                .filter(|name| !name.is_empty())
                .collect(),
            abstract_text: non_empty(self.summary.as_deref()),
            published,
            updated: self.updated.as_deref().and_then(day),
            venue: None,
            year,
            arxiv: Some(arxiv),
            // The field sometimes holds several DOIs separated by spaces, and
            // a record has room for one: keep the first well-formed one.
            doi: self.doi.as_deref().and_then(|dois| {
                dois.split_whitespace()
                    .find(|doi| is_doi(doi))
                    .map(str::to_lowercase)
            }),
            categories,
            journal_ref: non_empty(self.journal_ref.as_deref()),
        };
        feed.entries.push(ArxivEntry { record, version });
    }
}

/// `("2006.09503", Some(3))` from `http://arxiv.org/abs/2006.09503v3`;
/// `("hep-th/9901001", Some(1))` from `.../abs/hep-th/9901001v1`.
fn arxiv_id_and_version(id_url: &str) -> Option<(String, Option<u32>)> {
    let url = url::Url::parse(id_url).ok()?;
    let host = url.host_str()?;
    if !(host == "arxiv.org" || host.ends_with(".arxiv.org")) {
        return None;
    }
    let versioned = url.path().strip_prefix("/abs/")?.trim_end_matches('/');
    let id = strip_version(versioned);
    if !is_arxiv_id(id) {
        return None;
    }
    let version = versioned
        .get(id.len()..)
        .and_then(|suffix| suffix.strip_prefix('v'))
        .and_then(|number| number.parse().ok());
    Some((id.to_string(), version))
}

/// `http(s)://arxiv.org/api/errors#...`, the id arXiv gives an error entry.
fn is_error_id(id_url: &str) -> bool {
    url::Url::parse(id_url).is_ok_and(|url| url.path().starts_with("/api/errors"))
}

/// `2020-06-16` from `2020-06-16T20:38:43Z`.
fn day(timestamp: &str) -> Option<String> {
    let date = timestamp.trim().get(..10)?;
    let well_formed = date.bytes().enumerate().all(|(i, b)| match i {
        4 | 7 => b == b'-',
        _ => b.is_ascii_digit(),
    });
    well_formed.then(|| date.to_string())
}

fn non_empty(text: Option<&str>) -> Option<String> {
    text.map(normalize_whitespace)
        .filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_versions_from_entry_urls() {
        let cases = [
            (
                "http://arxiv.org/abs/2006.09503v3",
                Some(("2006.09503", Some(3))),
            ),
            (
                "https://arxiv.org/abs/2006.09503",
                Some(("2006.09503", None)),
            ),
            (
                "http://arxiv.org/abs/hep-th/9901001v1",
                Some(("hep-th/9901001", Some(1))),
            ),
            (
                "http://arxiv.org/abs/math.GT/0309136v2",
                Some(("math.GT/0309136", Some(2))),
            ),
            (
                "http://export.arxiv.org/abs/1604.06174v7",
                Some(("1604.06174", Some(7))),
            ),
            (
                "http://arxiv.org/api/errors#incorrect_id_format_for_x",
                None,
            ),
            ("http://example.org/abs/2006.09503v3", None),
            ("http://arxiv.org/abs/not-an-id", None),
            ("not a url", None),
        ];
        for (url, expected) in cases {
            let got = arxiv_id_and_version(url);
            let got = got.as_ref().map(|(id, v)| (id.as_str(), *v));
            assert_eq!(got, expected, "{url}");
        }
    }

    #[test]
    fn dates_are_reduced_to_days() {
        assert_eq!(day("2020-06-16T20:38:43Z").as_deref(), Some("2020-06-16"));
        assert_eq!(
            day(" 2007-10-12T00:00:00-04:00 ").as_deref(),
            Some("2007-10-12")
        );
        assert_eq!(day("2020-06"), None);
        assert_eq!(day("June 2020, 16"), None);
        assert_eq!(day("2020-06-1é"), None);
    }
}
