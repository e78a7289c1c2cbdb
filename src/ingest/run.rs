//! One ingest run: which entries need what, asked of which source, merged into
//! the cache, saved after every answer so that a run cut short keeps what it
//! got. Phases: arXiv by id, Crossref by DOI, title search for the rest, then
//! OpenAlex for abstracts still missing.

use std::collections::BTreeMap;
use std::path::Path;

use super::cache::{Cache, CachedEntry, Candidate, FoundBy, IdKind, Identifier};
use super::config::IngestConfig;
use super::http::{FetchError, HostPolicy, HttpClient, host_key};
use super::progress::Phase;
use super::resolve::{Verdict, best};
use super::{arxiv, crossref, openalex};
use crate::catalog::{Catalog, Entry, Kind};
use crate::clock::{days_since, now_rfc3339};
use crate::error::Error;
use crate::model::paper::{PaperRecord, Source};

/// "Not found" is asked again after this many days.
const NOT_FOUND_DAYS: i64 = 30;
const SEARCH_RESULTS: usize = 5;

#[derive(Debug, Default)]
pub struct Report {
    /// Papers whose metadata was already cached and not asked again.
    pub cached: usize,
    /// Papers that got metadata in this run.
    pub fetched: usize,
    pub resolved_by_title: usize,
    pub candidates: usize,
    pub not_found: usize,
    /// (entry id, reason).
    pub failed: Vec<(String, String)>,
    pub requests: u64,
    pub unreachable: Vec<String>,
    /// Papers still without metadata at the end.
    pub missing: usize,
    pub notes: Vec<String>,
}

struct Run<'a> {
    config: &'a IngestConfig,
    client: HttpClient,
    cache: &'a mut Cache,
    cache_dir: Option<&'a Path>,
    report: Report,
    now: String,
    fetched: std::collections::BTreeSet<String>,
    /// Whether the cache holds anything this run learned (an offline run
    /// leaves the file untouched).
    dirty: bool,
}

/// Fills `cache` for the papers of `catalog`, saving it in `cache_dir` after
/// each answer (a read-only built-in catalog passes `None`).
pub async fn ingest(
    catalog: &Catalog,
    cache: &mut Cache,
    cache_dir: Option<&Path>,
    config: &IngestConfig,
) -> Result<Report, Error> {
    let client = HttpClient::new(config.http.clone()).map_err(|e| Error::Network(e.to_string()))?;
    client.set_verbose(config.verbose);
    if let Some(host) = host_key(&config.arxiv_api) {
        client.set_policy(
            &host,
            HostPolicy {
                max_concurrent: 1,
                min_interval: config.arxiv_delay,
            },
        );
    }
    let mut run = Run {
        config,
        client,
        cache,
        cache_dir,
        report: Report::default(),
        now: now_rfc3339(),
        fetched: Default::default(),
        dirty: false,
    };
    let papers: Vec<&Entry> = catalog
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Paper)
        .collect();
    for entry in &papers {
        run.seed_identifiers(entry);
    }
    run.report.cached = papers.iter().filter(|e| !run.wants(e)).count();
    run.arxiv_by_id(&papers).await?;
    run.crossref_by_doi(&papers).await?;
    run.by_title(&papers).await?;
    run.openalex_abstracts(&papers).await?;
    run.report.fetched = run.fetched.len();
    run.report.requests = run.client.requests_made();
    run.report.missing = papers
        .iter()
        .filter(|e| !run.cache.get(&e.id).is_some_and(CachedEntry::has_metadata))
        .count();
    Ok(run.report)
}

impl Run<'_> {
    fn entry_mut(&mut self, id: &str) -> &mut CachedEntry {
        self.cache.entries.entry(id.to_string()).or_default()
    }

    /// Something was learned (a record, a candidate, a "not found").
    fn learned(&mut self, id: &str) -> &mut CachedEntry {
        self.dirty = true;
        self.entry_mut(id)
    }

    fn save(&mut self) -> Result<(), Error> {
        match self.cache_dir {
            Some(dir) if self.dirty => {
                self.dirty = false;
                self.cache.save(dir)
            }
            _ => Ok(()),
        }
    }

    /// Identifiers the entry's own URL carries are recorded as such.
    fn seed_identifiers(&mut self, entry: &Entry) {
        let url_id = |value: &str| Identifier {
            value: value.to_string(),
            found_by: FoundBy::Url,
            source: None,
            confidence: None,
        };
        if let Some(arxiv) = &entry.arxiv {
            self.entry_mut(&entry.id)
                .identify(IdKind::Arxiv, url_id(arxiv));
        }
        if let Some(doi) = &entry.doi {
            self.entry_mut(&entry.id)
                .identify(IdKind::Doi, url_id(&doi.to_lowercase()));
        }
    }

    /// Whether this run should ask about `entry` at all.
    fn wants(&self, entry: &Entry) -> bool {
        self.config.refresh
            || !self
                .cache
                .get(&entry.id)
                .is_some_and(CachedEntry::has_metadata)
    }

    fn recently_missed(&self, entry: &Entry, source: Source) -> bool {
        !self.config.refresh
            && self
                .cache
                .get(&entry.id)
                .and_then(|c| c.not_found.get(&source))
                .and_then(|at| days_since(at))
                .is_some_and(|days| days < NOT_FOUND_DAYS)
    }

    fn arxiv_id(&self, entry: &Entry) -> Option<String> {
        self.cache
            .get(&entry.id)
            .and_then(|c| c.arxiv.as_ref())
            .map(|i| i.value.clone())
    }

    fn doi(&self, entry: &Entry) -> Option<String> {
        self.cache
            .get(&entry.id)
            .and_then(|c| c.doi.as_ref())
            .map(|i| i.value.clone())
    }

    /// Records a failure; an unreachable host is reported once, not per entry.
    fn failed(&mut self, ids: &[&str], error: &FetchError) {
        if let FetchError::HostUnreachable { host, .. } = error {
            if !self.report.unreachable.contains(host) {
                self.report.unreachable.push(host.clone());
            }
            return;
        }
        for id in ids {
            self.report.failed.push((id.to_string(), error.to_string()));
        }
    }

    fn absorb(&mut self, id: &str, record: &PaperRecord, source: Source) {
        let now = self.now.clone();
        let entry = self.learned(id);
        entry.absorb(record, source, &now);
        if let Some(doi) = &record.doi {
            entry.identify(
                IdKind::Doi,
                Identifier {
                    value: doi.clone(),
                    found_by: FoundBy::Record,
                    source: Some(source),
                    confidence: None,
                },
            );
        }
        self.fetched.insert(id.to_string());
    }

    async fn arxiv_by_id(&mut self, papers: &[&Entry]) -> Result<(), Error> {
        let todo: Vec<(&Entry, String)> = papers
            .iter()
            .filter(|e| self.wants(e))
            .filter_map(|e| self.arxiv_id(e).map(|id| (*e, id)))
            .collect();
        let phase = Phase::start("arXiv", todo.len());
        for batch in todo.chunks(arxiv::MAX_IDS_PER_REQUEST) {
            let ids: Vec<String> = batch.iter().map(|(_, id)| id.clone()).collect();
            let entry_ids: Vec<&str> = batch.iter().map(|(e, _)| e.id.as_str()).collect();
            let feed = match self.arxiv_feed(&ids).await {
                Ok(feed) => feed,
                Err(e) => {
                    self.failed(&entry_ids, &e);
                    continue;
                }
            };
            let by_id: BTreeMap<String, PaperRecord> = feed
                .entries
                .into_iter()
                .filter_map(|e| e.record.arxiv.clone().map(|id| (id, e.record)))
                .collect();
            for (entry, id) in batch {
                match by_id.get(id) {
                    Some(record) => self.absorb(&entry.id, record, Source::Arxiv),
                    None => {
                        let now = self.now.clone();
                        self.learned(&entry.id).not_found.insert(Source::Arxiv, now);
                        self.report.not_found += 1;
                    }
                }
                phase.step(&entry.id);
            }
            for message in feed.errors {
                self.report
                    .failed
                    .push((entry_ids.join(","), format!("arXiv: {message}")));
            }
            self.save()?;
        }
        phase.finish("");
        Ok(())
    }

    /// A batch from arXiv; a page that comes back short with no error entry
    /// is asked once more (the API sometimes answers empty under load).
    async fn arxiv_feed(&mut self, ids: &[String]) -> Result<arxiv::Feed, FetchError> {
        let url = arxiv::id_list_url(&self.config.arxiv_api, ids);
        let mut last = None;
        for _ in 0..2 {
            let response = self.client.get(&url).await?;
            if response.status != 200 {
                return Err(FetchError::Status {
                    status: response.status,
                    url: url.to_string(),
                    body_excerpt: String::new(),
                });
            }
            match arxiv::parse_feed(&response.body) {
                Ok(feed) if feed.entries.len() + feed.errors.len() >= ids.len() => return Ok(feed),
                Ok(feed) => last = Some(Ok(feed)),
                Err(e) => {
                    last = Some(Err(FetchError::Request {
                        url: url.to_string(),
                        reason: e.to_string(),
                    }))
                }
            }
        }
        last.unwrap_or_else(|| {
            Err(FetchError::Request {
                url: url.to_string(),
                reason: "no answer".into(),
            })
        })
    }

    async fn crossref_by_doi(&mut self, papers: &[&Entry]) -> Result<(), Error> {
        let todo: Vec<(&Entry, String)> = papers
            .iter()
            .filter(|e| self.wants(e) && !self.fetched.contains(&e.id))
            .filter(|e| !self.recently_missed(e, Source::Crossref))
            .filter_map(|e| self.doi(e).map(|d| (*e, d)))
            .filter(|(_, d)| crossref::is_crossref_doi(d))
            .collect();
        let phase = Phase::start("Crossref", todo.len());
        for (entry, doi) in todo {
            let url = crossref::work_url(
                &self.config.crossref_api,
                &doi,
                self.config.mailto.as_deref(),
            );
            match self.client.get(&url).await {
                Ok(r) if r.status == 404 || r.status == 410 => {
                    // ACM's 10.5555 DOIs are not registered: title search follows.
                    let now = self.now.clone();
                    self.learned(&entry.id)
                        .not_found
                        .insert(Source::Crossref, now);
                    if !doi.starts_with("10.5555/") {
                        self.report.not_found += 1;
                    }
                }
                Ok(r) => match crossref::parse_work(&r.body) {
                    Ok(record) if !record.title.is_empty() => {
                        self.absorb(&entry.id, &record, Source::Crossref)
                    }
                    Ok(_) => self
                        .report
                        .failed
                        .push((entry.id.clone(), format!("Crossref: {doi} has no title"))),
                    Err(e) => self
                        .report
                        .failed
                        .push((entry.id.clone(), format!("Crossref {doi}: {e}"))),
                },
                Err(e) => self.failed(&[entry.id.as_str()], &e),
            }
            phase.step(&entry.id);
            self.save()?;
        }
        phase.finish("");
        Ok(())
    }

    /// Papers still without metadata: arXiv title search, then Crossref's.
    async fn by_title(&mut self, papers: &[&Entry]) -> Result<(), Error> {
        let todo: Vec<&Entry> = papers
            .iter()
            .filter(|e| self.wants(e) && !self.fetched.contains(&e.id))
            .filter(|e| self.arxiv_id(e).is_none())
            .copied()
            .collect();
        let phase = Phase::start("resolve", todo.len());
        for entry in todo {
            let mut resolved = false;
            if !self.recently_missed(entry, Source::Arxiv) {
                let url =
                    arxiv::title_search_url(&self.config.arxiv_api, &entry.title, SEARCH_RESULTS);
                match self.client.get(&url).await {
                    Ok(r) => match arxiv::parse_feed(&r.body) {
                        Ok(feed) => {
                            let records: Vec<PaperRecord> =
                                feed.entries.into_iter().map(|e| e.record).collect();
                            resolved = self.consider(entry, &records, Source::Arxiv);
                        }
                        Err(e) => self
                            .report
                            .failed
                            .push((entry.id.clone(), format!("arXiv search: {e}"))),
                    },
                    Err(e) => self.failed(&[entry.id.as_str()], &e),
                }
            }
            if !resolved && !self.recently_missed(entry, Source::Crossref) {
                let url = crossref::search_url(
                    &self.config.crossref_api,
                    &entry.title,
                    SEARCH_RESULTS,
                    self.config.mailto.as_deref(),
                );
                match self.client.get(&url).await {
                    Ok(r) => match crossref::parse_search(&r.body) {
                        Ok(records) => resolved = self.consider(entry, &records, Source::Crossref),
                        Err(e) => self
                            .report
                            .failed
                            .push((entry.id.clone(), format!("Crossref search: {e}"))),
                    },
                    Err(e) => self.failed(&[entry.id.as_str()], &e),
                }
            }
            let _ = resolved;
            phase.step(&entry.id);
            self.save()?;
        }
        phase.finish("");
        Ok(())
    }

    /// Applies the best accepted search result, or records a candidate.
    fn consider(&mut self, entry: &Entry, records: &[PaperRecord], source: Source) -> bool {
        match best(entry, records) {
            Some((record, Verdict::Accept { similarity })) => {
                let record = record.clone();
                let found = |value: String| Identifier {
                    value,
                    found_by: FoundBy::TitleSearch,
                    source: Some(source),
                    confidence: Some(round(similarity)),
                };
                if let Some(id) = &record.arxiv {
                    self.entry_mut(&entry.id)
                        .identify(IdKind::Arxiv, found(id.clone()));
                }
                if let Some(doi) = &record.doi {
                    self.entry_mut(&entry.id)
                        .identify(IdKind::Doi, found(doi.clone()));
                }
                self.absorb(&entry.id, &record, source);
                self.report.resolved_by_title += 1;
                true
            }
            Some((record, Verdict::Candidate { similarity, reason })) => {
                let candidate = Candidate {
                    source,
                    arxiv: record.arxiv.clone(),
                    doi: record.doi.clone(),
                    title: record.title.clone(),
                    confidence: round(similarity),
                    reason,
                };
                let now = self.now.clone();
                let cached = self.learned(&entry.id);
                if !cached.candidates.contains(&candidate) {
                    cached.candidates.push(candidate);
                }
                // Asked and answered: not asked again until the miss expires.
                cached.not_found.insert(source, now);
                self.report.candidates += 1;
                false
            }
            _ => {
                let now = self.now.clone();
                self.learned(&entry.id).not_found.insert(source, now);
                false
            }
        }
    }

    /// OpenAlex fills abstracts the others lacked; it wants an API key.
    async fn openalex_abstracts(&mut self, papers: &[&Entry]) -> Result<(), Error> {
        let todo: Vec<(&Entry, String)> = papers
            .iter()
            .filter(|e| {
                let has_abstract = self
                    .cache
                    .get(&e.id)
                    .is_some_and(|c| c.abstract_text.is_some());
                self.config.refresh || !has_abstract
            })
            .filter(|e| !self.recently_missed(e, Source::Openalex))
            .filter_map(|e| self.doi(e).map(|d| (*e, d)))
            .collect();
        let Some(key) = self.config.openalex_key.clone() else {
            if !todo.is_empty() {
                self.report.notes.push(format!(
                    "OpenAlex skipped for {} abstracts: set DISTML_OPENALEX_KEY to use it",
                    todo.len()
                ));
            }
            return Ok(());
        };
        let phase = Phase::start("OpenAlex", todo.len());
        for (entry, doi) in todo {
            let url = openalex::work_by_doi_url(
                &self.config.openalex_api,
                &doi,
                &key,
                self.config.mailto.as_deref(),
            );
            match self.client.get(&url).await {
                Ok(r) if r.status == 404 => {
                    let now = self.now.clone();
                    self.learned(&entry.id)
                        .not_found
                        .insert(Source::Openalex, now);
                }
                Ok(r) => match openalex::parse_work(&r.body) {
                    Ok(record) => self.absorb(&entry.id, &record, Source::Openalex),
                    Err(e) => self
                        .report
                        .failed
                        .push((entry.id.clone(), format!("OpenAlex {doi}: {e}"))),
                },
                Err(e) => self.failed(&[entry.id.as_str()], &e),
            }
            phase.step(&entry.id);
            self.save()?;
        }
        phase.finish("");
        Ok(())
    }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
