//! One ingest run: each paper goes through the same steps as ever (arXiv by
//! id, Crossref by DOI, title search on arXiv then Crossref, OpenAlex for a
//! missing abstract), but each source has its own lane, so the sources are
//! asked at the same time and a run takes about as long as its slowest one.
//! The cache is saved after every answer, so a run cut short keeps what it
//! got.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use super::config::IngestConfig;
use super::http::{HostPolicy, HttpClient, host_key};
use super::lanes::{Job, Lane, Queues};
use super::lookup::{Failure, lookup};
use super::progress::Progress;
use super::state::{Report, Run, Step};
use super::{arxiv, crossref, openalex};
use crate::catalog::{Catalog, Entry, Kind};
use crate::error::Error;
use crate::model::metadata::Cache;
use crate::model::paper::{PaperRecord, Source};

const SEARCH_RESULTS: usize = 5;
/// arXiv asks for one request at a time.
const ARXIV_WORKERS: usize = 1;

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
    let lanes = Lanes {
        run: RefCell::new(Run::new(config, cache, cache_dir, &papers)),
        papers: &papers,
        client,
        queues: Queues::new(),
        progress: Progress::new(err),
    };
    lanes.start();
    // At the deadline the lookups in flight are dropped: every answer
    // before it is already saved, and the next run goes on from the cache.
    let finished = tokio::time::timeout(config.deadline, lanes.work()).await;
    lanes.progress.finish();
    let late = finished.is_err();
    if let Ok(finished) = finished {
        finished?;
    }
    let requests = lanes.client.requests_made();
    let mut report = lanes.run.into_inner().finish(&papers, requests);
    if late {
        report.notes.push(format!(
            "stopped at the run's deadline ({} s, DISTML_INGEST_DEADLINE_S); the next `index` goes on from the cache",
            config.deadline.as_secs()
        ));
    }
    Ok(report)
}

impl Lanes<'_, '_> {
    /// Queues the first lookup of every paper that needs one: arXiv ids in
    /// batches, the rest at their first step.
    fn start(&self) {
        let (with_ids, rest): (Vec<usize>, Vec<usize>) = {
            let run = self.run.borrow();
            (0..self.papers.len())
                .partition(|&i| run.wants(self.papers[i]) && run.arxiv_id(self.papers[i]).is_some())
        };
        for batch in with_ids.chunks(arxiv::MAX_IDS_PER_REQUEST) {
            self.queue(Lookup::ArxivIds(batch.to_vec()));
        }
        for paper in rest {
            self.advance(paper, Step::CrossrefDoi);
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
        for line in self.client.take_log() {
            self.progress.log(&line);
        }
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
