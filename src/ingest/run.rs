//! One ingest run: which entries need what, asked of which source, merged into
//! the cache, saved after every answer so that a run cut short keeps what it
//! got. Each paper goes through the same steps as ever (arXiv by id, Crossref
//! by DOI, title search on arXiv then Crossref, OpenAlex for a missing
//! abstract), but each source has its own lane, so the sources are asked at
//! the same time and a run takes about as long as its slowest source.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use super::cache::{Cache, CachedEntry, Candidate, FoundBy, IdKind, Identifier};
use super::config::IngestConfig;
use super::http::{FetchError, HostPolicy, HttpClient, host_key};
use super::lanes::{Job, Lane, Queues};
use super::lookup::{Failure, lookup};
use super::progress::Progress;
use super::record::{PaperRecord, Source};
use super::resolve::{Verdict, best};
use super::{arxiv, crossref, openalex};
use crate::catalog::{Catalog, Entry, Kind};
use crate::clock::{days_since, now_rfc3339};
use crate::error::Error;

/// "Not found" is asked again after this many days.
const NOT_FOUND_DAYS: i64 = 30;
const SEARCH_RESULTS: usize = 5;
/// Workers per lane: as many as the client lets in flight to that host.
const ARXIV_WORKERS: usize = 1;

#[derive(Debug, Default)]
pub(crate) struct Report {
    /// Papers whose metadata was already cached and not asked again.
    pub cached: usize,
    /// Papers that got metadata in this run.
    pub fetched: usize,
    pub resolved_by_title: usize,
    pub candidates: usize,
    pub not_found: usize,
    /// (entry id, why), by entry id. One failure of a batch is shared by
    /// the entries it was about.
    pub failed: Vec<(String, Arc<Failure>)>,
    pub requests: u64,
    /// Hosts that could not be reached, sorted.
    pub unreachable: Vec<String>,
    /// Papers still without metadata at the end.
    pub missing: usize,
    pub notes: Vec<String>,
}

/// What the run knows, shared by the lanes' workers.
struct Run<'a> {
    config: &'a IngestConfig,
    cache: &'a mut Cache,
    cache_dir: Option<&'a Path>,
    report: Report,
    now: String,
    fetched: BTreeSet<String>,
    /// Papers that would have gone to OpenAlex, had there been a key.
    openalex_skipped: usize,
    /// Whether the cache holds anything this run learned (an offline run
    /// leaves the file untouched).
    dirty: bool,
}

/// A paper's steps after arXiv by id, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    CrossrefDoi,
    ArxivTitle,
    CrossrefTitle,
    Openalex,
}

/// One lookup; the numbers index the run's papers.
enum Lookup {
    ArxivIds(Vec<usize>),
    CrossrefDoi(usize),
    ArxivTitle(usize),
    CrossrefTitle(usize),
    Openalex(usize),
}

impl Job for Lookup {
    fn lane(&self) -> Lane {
        match self {
            Lookup::ArxivIds(_) | Lookup::ArxivTitle(_) => Lane::Arxiv,
            Lookup::CrossrefDoi(_) | Lookup::CrossrefTitle(_) => Lane::Crossref,
            Lookup::Openalex(_) => Lane::Openalex,
        }
    }
}

/// The lanes and what their workers share.
struct Lanes<'r, 'a> {
    run: RefCell<Run<'a>>,
    papers: &'r [&'a Entry],
    client: HttpClient,
    queues: Queues<Lookup>,
    progress: Progress<'r>,
}

/// Fills `cache` for the papers of `catalog`, saving it in `cache_dir` after
/// each answer (a read-only built-in catalog passes `None`). Progress goes to
/// `err`.
pub(crate) async fn ingest(
    catalog: &Catalog,
    cache: &mut Cache,
    cache_dir: Option<&Path>,
    config: &IngestConfig,
    err: &mut dyn Write,
) -> Result<Report, Error> {
    let client = HttpClient::new(config.http.clone())?;
    client.set_verbose(config.verbose);
    if let Some(host) = host_key(&config.arxiv_api) {
        let policy = HostPolicy {
            max_concurrent: ARXIV_WORKERS,
            min_interval: config.arxiv_delay,
        };
        client.set_policy(&host, policy);
    }
    let papers: Vec<&Entry> = catalog
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Paper)
        .collect();
    let mut run = Run {
        config,
        cache,
        cache_dir,
        report: Report::default(),
        now: now_rfc3339(),
        fetched: BTreeSet::new(),
        openalex_skipped: 0,
        dirty: false,
    };
    for entry in &papers {
        run.seed_identifiers(entry);
    }
    run.report.cached = papers.iter().filter(|e| !run.wants(e)).count();
    let lanes = Lanes {
        run: RefCell::new(run),
        papers: &papers,
        client,
        queues: Queues::new(),
        progress: Progress::new(err),
    };
    lanes.start();
    let finished = lanes.work().await;
    lanes.progress.finish();
    finished?;
    let requests = lanes.client.requests_made();
    Ok(lanes.run.into_inner().finish(&papers, requests))
}

impl Lanes<'_, '_> {
    /// Queues the first lookup of every paper that needs one: arXiv ids in
    /// batches, the rest at their first step.
    fn start(&self) {
        let with_ids: Vec<usize> = {
            let run = self.run.borrow();
            (0..self.papers.len())
                .filter(|&i| run.wants(self.papers[i]) && run.arxiv_id(self.papers[i]).is_some())
                .collect()
        };
        for batch in with_ids.chunks(arxiv::MAX_IDS_PER_REQUEST) {
            self.queue(Lookup::ArxivIds(batch.to_vec()));
        }
        for i in (0..self.papers.len()).filter(|i| !with_ids.contains(i)) {
            self.advance(i, Step::CrossrefDoi);
        }
        self.progress.start();
    }

    fn queue(&self, lookup: Lookup) {
        let papers = match &lookup {
            Lookup::ArxivIds(batch) => batch.len(),
            _ => 1,
        };
        self.progress.queued(lookup.lane(), papers);
        self.queues.push(lookup);
    }

    /// Queues the paper's first step from `from` on that it still needs.
    fn advance(&self, paper: usize, from: Step) {
        let next = self.run.borrow_mut().next_step(self.papers[paper], from);
        let lookup = match next {
            Some(Step::CrossrefDoi) => Lookup::CrossrefDoi(paper),
            Some(Step::ArxivTitle) => Lookup::ArxivTitle(paper),
            Some(Step::CrossrefTitle) => Lookup::CrossrefTitle(paper),
            Some(Step::Openalex) => Lookup::Openalex(paper),
            None => return,
        };
        self.queue(lookup);
    }

    /// Every lane's workers at once, as many per lane as the client lets in
    /// flight to its host (one for arXiv, two otherwise); the first error (a
    /// cache that cannot be saved) ends the run.
    async fn work(&self) -> Result<(), Error> {
        tokio::try_join!(
            self.worker(Lane::Arxiv),
            self.worker(Lane::Crossref),
            self.worker(Lane::Crossref),
            self.worker(Lane::Openalex),
            self.worker(Lane::Openalex),
        )
        .map(|_| ())
    }

    async fn worker(&self, lane: Lane) -> Result<(), Error> {
        while let Some(lookup) = self.queues.next(lane).await {
            let done = self.perform(lookup).await;
            self.queues.done();
            done?;
        }
        Ok(())
    }

    /// One lookup, its answer merged and saved, and each paper's next step.
    async fn perform(&self, lookup: Lookup) -> Result<(), Error> {
        let lane = lookup.lane();
        let (papers, then) = match lookup {
            Lookup::ArxivIds(batch) => {
                self.arxiv_by_id(&batch).await;
                (batch, Some(Step::CrossrefDoi))
            }
            Lookup::CrossrefDoi(paper) => {
                self.crossref_by_doi(paper).await;
                (vec![paper], Some(Step::ArxivTitle))
            }
            Lookup::ArxivTitle(paper) => {
                self.title_search(paper, Source::Arxiv).await;
                (vec![paper], Some(Step::CrossrefTitle))
            }
            Lookup::CrossrefTitle(paper) => {
                self.title_search(paper, Source::Crossref).await;
                (vec![paper], Some(Step::Openalex))
            }
            Lookup::Openalex(paper) => {
                self.openalex_abstract(paper).await;
                (vec![paper], None)
            }
        };
        self.run.borrow_mut().save()?;
        for paper in papers {
            self.progress.step(lane, &self.papers[paper].id);
            if let Some(step) = then {
                self.advance(paper, step);
            }
        }
        Ok(())
    }

    async fn arxiv_by_id(&self, batch: &[usize]) {
        let (entries, ids): (Vec<&Entry>, Vec<String>) = {
            let run = self.run.borrow();
            let papers = batch.iter().map(|&i| self.papers[i]);
            papers.filter_map(|e| Some((e, run.arxiv_id(e)?))).unzip()
        };
        let url = arxiv::id_list_url(&self.run.borrow().config.arxiv_api, &ids);
        // A page that comes back short with no error entry, or unreadable,
        // is asked once more (the API sometimes answers so under load).
        let mut answer = Ok(None);
        for _ in 0..2 {
            answer = lookup(&self.client, &url, "arXiv", arxiv::parse_feed).await;
            match &answer {
                Ok(Some(feed)) if feed.entries.len() + feed.errors.len() < ids.len() => {}
                Err(Failure::Unreadable { .. }) => {}
                _ => break,
            }
        }
        let mut run = self.run.borrow_mut();
        let feed = match answer {
            Ok(feed) => feed.unwrap_or_default(),
            Err(failure) => return run.failed(&entries, failure),
        };
        let by_id: BTreeMap<String, PaperRecord> = feed
            .entries
            .into_iter()
            .filter_map(|e| e.record.arxiv.clone().map(|id| (id, e.record)))
            .collect();
        for (entry, id) in entries.iter().zip(&ids) {
            match by_id.get(id) {
                Some(record) => run.absorb(&entry.id, record, Source::Arxiv),
                None => run.missed(&entry.id, Source::Arxiv, true),
            }
        }
        let joined = entries.iter().map(|e| e.id.as_str()).collect::<Vec<_>>();
        for problem in feed.errors {
            let failure = Failure::Unusable {
                asked: "arXiv".into(),
                problem,
            };
            run.report
                .failed
                .push((joined.join(","), Arc::new(failure)));
        }
    }

    async fn crossref_by_doi(&self, paper: usize) {
        let entry = self.papers[paper];
        let (url, doi) = {
            let run = self.run.borrow();
            let doi = run.doi(entry).unwrap_or_default();
            let config = run.config;
            let url = crossref::work_url(&config.crossref_api, &doi, config.mailto.as_deref());
            (url, doi)
        };
        let asked = format!("Crossref {doi}");
        let answer = lookup(&self.client, &url, &asked, crossref::parse_work).await;
        let mut run = self.run.borrow_mut();
        match answer {
            Ok(Some(record)) if !record.title.is_empty() => {
                run.absorb(&entry.id, &record, Source::Crossref)
            }
            Ok(Some(_)) => run.failed(
                &[entry],
                Failure::Unusable {
                    asked,
                    problem: "no title".into(),
                },
            ),
            // ACM's 10.5555 DOIs are not registered: title search follows,
            // so that miss is not counted.
            Ok(None) => run.missed(&entry.id, Source::Crossref, !doi.starts_with("10.5555/")),
            Err(failure) => run.failed(&[entry], failure),
        }
    }

    /// A title search on arXiv or Crossref; the best result is applied or
    /// kept as a candidate by [`Run::consider`].
    async fn title_search(&self, paper: usize, source: Source) {
        let entry = self.papers[paper];
        let answer = {
            let config = self.run.borrow().config;
            if source == Source::Arxiv {
                let url = arxiv::title_search_url(&config.arxiv_api, &entry.title, SEARCH_RESULTS);
                let parse = |body: &str| {
                    arxiv::parse_feed(body)
                        .map(|f| f.entries.into_iter().map(|e| e.record).collect())
                };
                lookup(&self.client, &url, "arXiv search", parse).await
            } else {
                let mailto = config.mailto.as_deref();
                let url = crossref::search_url(
                    &config.crossref_api,
                    &entry.title,
                    SEARCH_RESULTS,
                    mailto,
                );
                lookup(
                    &self.client,
                    &url,
                    "Crossref search",
                    crossref::parse_search,
                )
                .await
            }
        };
        let mut run = self.run.borrow_mut();
        match answer {
            Ok(records) => run.consider(entry, &records.unwrap_or_default(), source),
            Err(failure) => run.failed(&[entry], failure),
        }
    }

    async fn openalex_abstract(&self, paper: usize) {
        let entry = self.papers[paper];
        let (url, doi) = {
            let run = self.run.borrow();
            let config = run.config;
            let doi = run.doi(entry).unwrap_or_default();
            let key = config.openalex_key.as_deref().unwrap_or_default();
            let url = openalex::work_by_doi_url(
                &config.openalex_api,
                &doi,
                key,
                config.mailto.as_deref(),
            );
            (url, doi)
        };
        let asked = format!("OpenAlex {doi}");
        let answer = lookup(&self.client, &url, &asked, openalex::parse_work).await;
        let mut run = self.run.borrow_mut();
        match answer {
            Ok(Some(record)) => run.absorb(&entry.id, &record, Source::Openalex),
            Ok(None) => run.missed(&entry.id, Source::Openalex, false),
            Err(failure) => run.failed(&[entry], failure),
        }
    }
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

    /// The first step from `from` on that `entry` still needs, by what the
    /// cache knows now. OpenAlex without a key is skipped and counted.
    fn next_step(&mut self, entry: &Entry, from: Step) -> Option<Step> {
        let open = self.wants(entry) && !self.fetched.contains(&entry.id);
        let untitled = open && self.arxiv_id(entry).is_none();
        let needs = |run: &Self, step| match step {
            Step::CrossrefDoi => {
                open && !run.recently_missed(entry, Source::Crossref)
                    && run
                        .doi(entry)
                        .is_some_and(|d| crossref::is_crossref_doi(&d))
            }
            Step::ArxivTitle => untitled && !run.recently_missed(entry, Source::Arxiv),
            Step::CrossrefTitle => untitled && !run.recently_missed(entry, Source::Crossref),
            Step::Openalex => {
                let has_abstract = run
                    .cache
                    .get(&entry.id)
                    .is_some_and(|c| c.abstract_text.is_some());
                (run.config.refresh || !has_abstract)
                    && !run.recently_missed(entry, Source::Openalex)
                    && run.doi(entry).is_some()
            }
        };
        let steps = [
            Step::CrossrefDoi,
            Step::ArxivTitle,
            Step::CrossrefTitle,
            Step::Openalex,
        ];
        let step = steps
            .into_iter()
            .filter(|&s| s >= from)
            .find(|&s| needs(self, s))?;
        if step == Step::Openalex && self.config.openalex_key.is_none() {
            self.openalex_skipped += 1;
            return None;
        }
        Some(step)
    }

    /// Records a failure; an unreachable host is reported once, not per entry.
    fn failed(&mut self, entries: &[&Entry], failure: Failure) {
        if let Failure::Fetch(FetchError::HostUnreachable { host, .. }) = &failure {
            if !self.report.unreachable.contains(host) {
                self.report.unreachable.push(host.clone());
            }
            return;
        }
        let failure = Arc::new(failure);
        for entry in entries {
            self.report
                .failed
                .push((entry.id.clone(), Arc::clone(&failure)));
        }
    }

    /// The source does not know the paper; asked again after a while.
    fn missed(&mut self, id: &str, source: Source, count: bool) {
        let now = self.now.clone();
        self.learned(id).not_found.insert(source, now);
        if count {
            self.report.not_found += 1;
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

    /// Applies the best accepted search result, or records a candidate.
    fn consider(&mut self, entry: &Entry, records: &[PaperRecord], source: Source) {
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
                let cached = self.learned(&entry.id);
                if !cached.candidates.contains(&candidate) {
                    cached.candidates.push(candidate);
                }
                // Asked and answered: not asked again until the miss expires.
                self.missed(&entry.id, source, false);
                self.report.candidates += 1;
            }
            _ => self.missed(&entry.id, source, false),
        }
    }

    /// The report, in an order that does not depend on which lane was first.
    fn finish(mut self, papers: &[&Entry], requests: u64) -> Report {
        let mut report = std::mem::take(&mut self.report);
        report.failed.sort_by(|a, b| a.0.cmp(&b.0));
        report.unreachable.sort();
        report.fetched = self.fetched.len();
        report.requests = requests;
        report.missing = papers
            .iter()
            .filter(|e| !self.cache.get(&e.id).is_some_and(CachedEntry::has_metadata))
            .count();
        if self.openalex_skipped > 0 {
            report.notes.push(format!(
                "OpenAlex skipped for {} abstracts: set DISTML_OPENALEX_KEY to use it",
                self.openalex_skipped
            ));
        }
        report
    }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
