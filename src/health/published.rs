//! arXiv papers of the catalog on the network: whether arXiv knows each id,
//! and for a preprint whether it has since been published. arXiv's own
//! record says so with its `doi` and `journal_ref`; the DOI's Crossref
//! record (else OpenAlex's, with a key) gives the venue and year.

use std::collections::{BTreeMap, BTreeSet};

use super::cache::PaperResult;
use crate::ingest::IngestConfig;
use crate::ingest::http::{FetchError, HttpClient};
use crate::ingest::lookup::{Failure, lookup};
use crate::ingest::{arxiv, crossref, openalex};
use crate::model::PaperRecord;

/// One arXiv paper to ask about.
#[derive(Debug, Clone)]
pub(crate) struct Paper {
    pub arxiv: String,
    /// Listed as a preprint, so a published version is worth looking for.
    pub preprint: bool,
    /// A DOI the ingester found already (metadata.json).
    pub known_doi: Option<String>,
}

/// What the lookups taught, filled as answers arrive.
#[derive(Debug, Default)]
pub(crate) struct Papers {
    pub results: BTreeMap<String, PaperResult>,
    /// Results every lookup of which answered: those are cached.
    pub complete: BTreeSet<String>,
    /// Hosts given up, with why and how many papers they left unchecked.
    pub unreachable: BTreeMap<String, (String, usize)>,
    /// Other failures, one line each.
    pub failures: Vec<String>,
    /// Whether any service answered at all (the network is up).
    pub answered: bool,
}

impl Papers {
    fn failed(&mut self, failure: Failure, papers: usize) {
        match failure {
            Failure::Fetch(FetchError::HostUnreachable { host, reason, .. }) => {
                self.unreachable.entry(host).or_insert((reason, 0)).1 += papers;
            }
            other => self.failures.push(other.to_string()),
        }
    }
}

/// Asks arXiv about `papers` in batches, and Crossref or OpenAlex about
/// the DOI of each preprint that has one.
pub(crate) async fn check_papers(
    client: &HttpClient,
    config: &IngestConfig,
    papers: &[Paper],
    now: &str,
    out: &mut Papers,
) {
    for batch in papers.chunks(arxiv::MAX_IDS_PER_REQUEST) {
        let ids: Vec<String> = batch.iter().map(|p| p.arxiv.clone()).collect();
        let feed = match arxiv_records(client, config, &ids).await {
            Ok(feed) => feed,
            Err(failure) => {
                out.failed(failure, batch.len());
                continue;
            }
        };
        out.answered = true;
        for paper in batch {
            let record = feed.records.get(&paper.arxiv);
            if record.is_none() && !feed.errors.is_empty() {
                // arXiv reported a problem with the batch: nothing is known.
                continue;
            }
            let mut result = PaperResult {
                checked_at: now.to_owned(),
                on_arxiv: record.is_some(),
                doi: record
                    .and_then(|r| r.doi.clone())
                    .filter(|doi| crossref::is_crossref_doi(doi))
                    .or_else(|| paper.known_doi.clone()),
                journal_ref: record.and_then(|r| r.journal_ref.clone()),
                title: record
                    .map(|r| r.title.trim().to_owned())
                    .filter(|t| !t.is_empty()),
                ..PaperResult::default()
            };
            let mut complete = true;
            if paper.preprint
                && let Some(doi) = result.doi.clone()
            {
                match published_record(client, config, &doi).await {
                    Ok(Some(published)) => {
                        result.venue = published.venue.filter(|v| !v.trim().is_empty());
                        result.year = published.year;
                    }
                    Ok(None) => {}
                    Err(failure) => {
                        complete = false;
                        out.failed(failure, 1);
                    }
                }
            }
            if complete {
                out.complete.insert(paper.arxiv.clone());
            }
            out.results.insert(paper.arxiv.clone(), result);
        }
        for problem in feed.errors {
            out.failures.push(format!("arXiv: {problem}"));
        }
    }
}

struct Records {
    records: BTreeMap<String, PaperRecord>,
    errors: Vec<String>,
}

/// One batch from arXiv's API. A page that comes back short with no error
/// entry, or unreadable, is asked once more, as the ingester does (the
/// API sometimes answers so under load).
async fn arxiv_records(
    client: &HttpClient,
    config: &IngestConfig,
    ids: &[String],
) -> Result<Records, Failure> {
    let url = arxiv::id_list_url(&config.arxiv_api, ids);
    let mut answer = Ok(None);
    for _ in 0..2 {
        answer = lookup(client, &url, "arXiv", arxiv::parse_feed).await;
        match &answer {
            Ok(Some(feed)) if feed.entries.len() + feed.errors.len() < ids.len() => {}
            Err(Failure::Unreadable { .. }) => {}
            _ => break,
        }
    }
    let feed = answer?.unwrap_or_default();
    let records = feed
        .entries
        .into_iter()
        .filter_map(|e| Some((e.record.arxiv.clone()?, e.record)))
        .collect();
    Ok(Records {
        records,
        errors: feed.errors,
    })
}

/// The published record of `doi`: Crossref's, else OpenAlex's when a key
/// is configured. `Ok(None)` when neither knows it.
async fn published_record(
    client: &HttpClient,
    config: &IngestConfig,
    doi: &str,
) -> Result<Option<PaperRecord>, Failure> {
    let mailto = config.mailto.as_deref();
    let url = crossref::work_url(&config.crossref_api, doi, mailto);
    let asked = format!("Crossref {doi}");
    if let Some(record) = lookup(client, &url, &asked, crossref::parse_work).await? {
        return Ok(Some(record));
    }
    let Some(key) = config.openalex_key.as_deref() else {
        return Ok(None);
    };
    let url = openalex::work_by_doi_url(&config.openalex_api, doi, key, mailto);
    let asked = format!("OpenAlex {doi}");
    lookup(client, &url, &asked, openalex::parse_work).await
}

/// The last plausible year in a free-text journal reference
/// ("J. Fict. Syst. 12 (2031) 1-9" gives 2031).
pub(crate) fn year_in(journal_ref: &str) -> Option<i64> {
    journal_ref
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| w.len() == 4)
        .filter_map(|w| w.parse::<i64>().ok())
        .rfind(|y| (1990..=2100).contains(y))
}

#[cfg(test)]
mod tests {
    use super::year_in;

    #[test]
    fn the_year_of_a_journal_reference() {
        assert_eq!(year_in("J. Fict. Syst. 12 (2031) 1-9"), Some(2031));
        assert_eq!(year_in("Proc. of FooConf 2030, pp. 1200-1210"), Some(2030));
        assert_eq!(year_in("Fictional Letters 7, 1234"), None);
    }
}
