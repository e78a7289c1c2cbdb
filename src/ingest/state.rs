//! What one ingest run knows: the cache it fills and saves, the report it
//! keeps, and which step each paper needs next. No network here.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use super::config::IngestConfig;
use super::crossref;
use super::http::FetchError;
use super::lookup::Failure;
use super::resolve::{Verdict, best};
use crate::catalog::Entry;
use crate::clock::{days_since, now_rfc3339};
use crate::error::Error;
use crate::model::metadata::{Cache, CachedEntry, Candidate, FoundBy, IdKind, Identifier};
use crate::model::paper::{PaperRecord, Source};

/// "Not found" is asked again after this many days.
const NOT_FOUND_DAYS: i64 = 30;

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

/// What the run knows; the lanes' workers share it.
pub(super) struct Run<'a> {
    pub(super) config: &'a IngestConfig,
    cache: &'a mut Cache,
    cache_dir: Option<&'a Path>,
    pub(super) report: Report,
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
pub(super) enum Step {
    CrossrefDoi,
    ArxivTitle,
    CrossrefTitle,
    Openalex,
}

impl<'a> Run<'a> {
    /// A run over `cache`, with the identifiers the papers' URLs carry.
    pub(super) fn new(
        config: &'a IngestConfig,
        cache: &'a mut Cache,
        cache_dir: Option<&'a Path>,
        papers: &[&Entry],
    ) -> Self {
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
        for entry in papers {
            run.seed_identifiers(entry);
        }
        run.report.cached = papers.iter().filter(|e| !run.wants(e)).count();
        run
    }

    fn entry_mut(&mut self, id: &str) -> &mut CachedEntry {
        self.cache.entries.entry(id.to_string()).or_default()
    }

    /// Something was learned (a record, a candidate, a "not found").
    fn learned(&mut self, id: &str) -> &mut CachedEntry {
        self.dirty = true;
        self.entry_mut(id)
    }

    pub(super) fn save(&mut self) -> Result<(), Error> {
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
    pub(super) fn wants(&self, entry: &Entry) -> bool {
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

    pub(super) fn arxiv_id(&self, entry: &Entry) -> Option<String> {
        self.cache
            .get(&entry.id)
            .and_then(|c| c.arxiv.as_ref())
            .map(|i| i.value.clone())
    }

    pub(super) fn doi(&self, entry: &Entry) -> Option<String> {
        self.cache
            .get(&entry.id)
            .and_then(|c| c.doi.as_ref())
            .map(|i| i.value.clone())
    }

    /// The first step from `from` on that `entry` still needs, by what the
    /// cache knows now. OpenAlex without a key is skipped and counted.
    pub(super) fn next_step(&mut self, entry: &Entry, from: Step) -> Option<Step> {
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
    pub(super) fn failed(&mut self, entries: &[&Entry], failure: Failure) {
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
    pub(super) fn missed(&mut self, id: &str, source: Source, count: bool) {
        let now = self.now.clone();
        self.learned(id).not_found.insert(source, now);
        if count {
            self.report.not_found += 1;
        }
    }

    pub(super) fn absorb(&mut self, id: &str, record: &PaperRecord, source: Source) {
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
    pub(super) fn consider(&mut self, entry: &Entry, records: &[PaperRecord], source: Source) {
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
    pub(super) fn finish(mut self, papers: &[&Entry], requests: u64) -> Report {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Kind, Origin};
    use crate::ingest::http::HttpConfig;

    fn config(openalex_key: Option<&str>) -> IngestConfig {
        let url = |s: &str| url::Url::parse(s).expect("static URL");
        IngestConfig {
            arxiv_api: url("http://127.0.0.1:9/arxiv"),
            crossref_api: url("http://127.0.0.1:9/crossref"),
            openalex_api: url("http://127.0.0.1:9/openalex"),
            openalex_key: openalex_key.map(str::to_owned),
            arxiv_delay: std::time::Duration::ZERO,
            deadline: std::time::Duration::from_secs(60),
            mailto: None,
            http: HttpConfig::default(),
            refresh: false,
            verbose: false,
        }
    }

    fn paper(doi: &str) -> Entry {
        Entry {
            id: "fictional-2020".into(),
            kind: Kind::Paper,
            title: "A Fictional Paper".into(),
            url: "https://example.org/fictional.pdf".into(),
            authors: vec!["Ada Example".into()],
            et_al: false,
            venue: None,
            year: Some(2020),
            arxiv: None,
            doi: Some(doi.into()),
            tags: vec![],
            uses: vec![],
            project: None,
            note: String::new(),
            section: "Papers".into(),
            origin: Origin::default(),
        }
    }

    #[test]
    fn a_crossref_miss_skips_crossrefs_title_search_and_openalex_wants_a_key() {
        let entry = paper("10.5555/fictional.1");
        for (key, last) in [(None, None), (Some("k"), Some(Step::Openalex))] {
            let config = config(key);
            let mut cache = Cache::default();
            let mut run = Run::new(&config, &mut cache, None, &[&entry]);
            assert_eq!(
                run.next_step(&entry, Step::CrossrefDoi),
                Some(Step::CrossrefDoi)
            );
            run.missed(&entry.id, Source::Crossref, false);
            assert_eq!(
                run.next_step(&entry, Step::ArxivTitle),
                Some(Step::ArxivTitle)
            );
            run.missed(&entry.id, Source::Arxiv, false);
            assert_eq!(run.next_step(&entry, Step::CrossrefTitle), last);
            assert_eq!(run.openalex_skipped, usize::from(key.is_none()));
        }
    }

    #[test]
    fn arxivs_own_dois_are_not_asked_of_crossref() {
        let entry = paper("10.48550/arxiv.0000.00001");
        let config = config(None);
        let mut cache = Cache::default();
        let mut run = Run::new(&config, &mut cache, None, &[&entry]);
        assert_eq!(
            run.next_step(&entry, Step::CrossrefDoi),
            Some(Step::ArxivTitle)
        );
    }
}
