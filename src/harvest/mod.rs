//! Harvesting new arXiv metadata through OAI-PMH into the `arxiv`
//! collection: page by page, each page stored durably beside the index
//! (`store.rs`) and then added to the current index generation in one
//! commit (`index::append`), so that a killed harvest resumes where it
//! stopped and a finished one tells the next where to start.
//!
//! Parsing is pure (`oai.rs`, `line.rs`); the network is the ingester's
//! HTTP client (`run.rs`).

mod guard;
mod line;
pub mod oai;
mod run;
mod store;

use crate::predict::{Predictor, SAVED_MODEL_FILE};
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

pub use run::Endpoint;
pub use store::Store;
use store::{Appender, HarvestLock, Known, Run, State};

use crate::catalog::Catalog;
use crate::diagnostic;
use crate::error::Error;
use crate::index::IndexDir;
use crate::model::metadata::Cache;

/// The field by default: distributed computing, machine learning, hardware
/// architecture and performance (all in the `cs` set).
pub const DEFAULT_CATEGORIES: &[&str] = &["cs.DC", "cs.LG", "cs.AR", "cs.PF"];

/// The archives arXiv exposes as sets of their own; the physics archives
/// are sub-sets of `physics` (`physics:hep-th`).
const TOP_LEVEL_SETS: &[&str] = &[
    "cs", "econ", "eess", "math", "nlin", "q-bio", "q-fin", "stat",
];

pub struct HarvestOptions {
    pub from: Option<String>,
    pub until: Option<String>,
    /// Categories (`cs.DC`) or whole archives (`cs`), as given.
    pub categories: Vec<String>,
    /// The longest the harvest may take (`DISTML_HARVEST_DEADLINE_S`): the
    /// backstop of the loop guard and the HTTP client's failure budget.
    pub deadline: Duration,
}

/// What a harvest did, over all its sets.
#[derive(Debug, Default)]
pub struct Summary {
    /// Each set, and the day it was asked from (`None`: its first record).
    pub sets: Vec<(String, Option<String>)>,
    /// Whether an unfinished harvest was resumed.
    pub resumed: bool,
    pub pages: u64,
    pub received: u64,
    pub new: u64,
    pub updated: u64,
    /// Received again, with no change since they were harvested.
    pub unchanged: u64,
    pub filtered: u64,
    pub deleted: u64,
    /// Skipped: their identifier is not an arXiv id.
    pub not_arxiv: u64,
    /// Skipped: their datestamp is unreadable or after the response's date.
    pub misdated: u64,
    /// The latest datestamp harvested, of every set.
    pub latest: Option<String>,
    pub added_to_index: u64,
    pub index_time: Duration,
    pub requests: u64,
    pub elapsed: Duration,
}

/// The OAI-PMH set holding `category` (`cs.DC` is in `cs`, `hep-th` in
/// `physics:hep-th`).
pub fn set_of(category: &str) -> String {
    let archive = category.split('.').next().unwrap_or(category);
    if TOP_LEVEL_SETS.contains(&archive) {
        archive.to_string()
    } else {
        format!("physics:{archive}")
    }
}

/// Whether `category` is one of `wanted` (a category, or a whole archive).
fn wanted(wanted: &[String], category: &str) -> bool {
    wanted.iter().any(|w| {
        category == w
            || (!w.contains('.')
                && category
                    .strip_prefix(w.as_str())
                    .is_some_and(|rest| rest.starts_with('.')))
    })
}

/// What a harvest reads and writes.
pub struct Harvest<'a> {
    pub store: &'a Store,
    pub index: &'a IndexDir,
    pub catalog: &'a Catalog,
    pub cache: &'a Cache,
    pub endpoint: &'a Endpoint,
}

/// One harvest under way: its lock, state and counts, shared by its pages.
struct Session<'a> {
    harvest: &'a Harvest<'a>,
    lock: HarvestLock,
    state: State,
    records: Appender,
    known: Known,
    in_catalog: HashSet<String>,
    /// Tags for the records, learned from the catalog once per harvest.
    predictor: Predictor,
    categories: &'a [String],
    summary: &'a mut Summary,
    bar: ProgressBar,
}

impl Harvest<'_> {
    /// Harvests the sets of `options.categories`, one after the other.
    /// On an error, what was stored stays, and the next run resumes there;
    /// the summary says what was done before it.
    pub async fn run(
        &self,
        options: &HarvestOptions,
        err: &mut dyn Write,
    ) -> (Summary, Result<(), Error>) {
        let started = Instant::now();
        let mut summary = Summary::default();
        let result = self.run_into(options, err, &mut summary).await;
        summary.requests = self.endpoint.requests();
        summary.elapsed = started.elapsed();
        (summary, result)
    }

    async fn run_into(
        &self,
        options: &HarvestOptions,
        err: &mut dyn Write,
        summary: &mut Summary,
    ) -> Result<(), Error> {
        let lock = self.store.lock()?;
        let mut state = self.store.load_state()?;
        let records = self.store.open_records(&lock, &mut state)?;
        let known = self.store.known(state.stored_bytes)?;
        let mut session = Session {
            harvest: self,
            lock,
            state,
            records,
            known,
            in_catalog: crate::snapshot::entries_by_arxiv(self.catalog, self.cache)
                .into_keys()
                .collect(),
            predictor: Predictor::train_reusing(
                self.catalog,
                self.cache,
                &self.index.file(SAVED_MODEL_FILE),
            ),
            categories: &options.categories,
            summary,
            bar: progress_bar(),
        };
        // What a killed harvest stored but did not index.
        session.index_pending()?;
        let mut sets: Vec<String> = Vec::new();
        for set in options.categories.iter().map(|c| set_of(c)) {
            if !sets.contains(&set) {
                sets.push(set);
            }
        }
        let mut result = Ok(());
        let mut notes = Vec::new();
        let deadline = tokio::time::Instant::now() + options.deadline;
        for set in sets {
            let mut run = session.start(set, options, err);
            session
                .summary
                .sets
                .push((run.set.clone(), run.from.clone()));
            // Pages are stored between requests, never while one is
            // awaited: what the deadline cuts short is a request.
            let listed = tokio::time::timeout_at(
                deadline,
                run::list_records(
                    self.endpoint,
                    &mut run,
                    &mut |page, run| session.take_page(page, run),
                    &mut |text| notes.push(text),
                ),
            )
            .await;
            result = listed.unwrap_or_else(|_| {
                Err(Error::Usage(format!(
                    "harvest: stopped at the run's deadline ({} s, DISTML_HARVEST_DEADLINE_S); what was harvested is kept, and the next `distml-search harvest` resumes where this one stopped",
                    options.deadline.as_secs()
                )))
            });
            if result.is_err() {
                break;
            }
            session.finish_run(&run)?;
        }
        session.bar.finish_and_clear();
        for text in notes {
            diagnostic::note(err, text);
        }
        result
    }
}

impl Session<'_> {
    /// The run of `set`: the unfinished one if it is this set's and the
    /// window asked for is its own; else a new one, from `--from` or the
    /// latest datestamp the set was harvested to.
    fn start(&mut self, set: String, options: &HarvestOptions, err: &mut dyn Write) -> Run {
        if let Some(run) = self.state.run.take() {
            let same_window =
                |asked: &Option<String>, had: &Option<String>| asked.is_none() || asked == had;
            if run.set == set
                && same_window(&options.from, &run.from)
                && same_window(&options.until, &run.until)
            {
                self.summary.resumed = true;
                return run;
            }
            diagnostic::note(
                err,
                format_args!(
                    "an unfinished harvest of set {} (from {}) is left; its records are kept",
                    run.set,
                    run.from.as_deref().unwrap_or("its first record")
                ),
            );
        }
        let from = options
            .from
            .clone()
            .or_else(|| self.state.latest.get(&set).cloned());
        Run {
            set,
            from,
            until: options.until.clone(),
            ..Run::default()
        }
    }

    /// Keeps the page's records in the categories and newer than what the
    /// store has, stores them and the run's new position, then indexes them.
    fn take_page(&mut self, page: &oai::Page, run: &mut Run) -> Result<(), Error> {
        if self.bar.length().is_none()
            && let Some(size) = page.token.as_ref().and_then(|t| t.complete_list_size)
        {
            self.bar.set_length(size);
        }
        let mut lines = Vec::new();
        let latest_day = guard::latest_day(page.response_date.as_deref());
        for record in &page.records {
            self.summary.received += 1;
            // Kept, such a record's datestamp would be where the next
            // harvest starts (or make every later version look older).
            if !guard::dated_by(&record.datestamp, latest_day) {
                self.summary.misdated += 1;
                continue;
            }
            if run.latest_seen.as_deref() < Some(record.datestamp.as_str()) {
                run.latest_seen = Some(record.datestamp.clone());
            }
            if let Some(line) = self.keep(record) {
                lines.push(line);
            }
        }
        self.state.stored_bytes = self.records.append(&lines)?;
        self.summary.pages += 1;
        self.state.run = Some(run.clone());
        self.harvest.store.save_state(&self.lock, &self.state)?;
        self.index_pending()?;
        self.bar.inc(page.records.len() as u64);
        self.bar.set_message(format!(
            "{} new, {} updated",
            self.summary.new, self.summary.updated
        ));
        Ok(())
    }

    /// The store line for `record`, if it is kept: in the categories, and
    /// newer than the store's version (a record is received again when a
    /// harvest starts on the day the last one ended, or asks again after
    /// an expired token).
    fn keep(&mut self, record: &oai::OaiRecord) -> Option<String> {
        // Another id would be stored but never indexed (or name a path).
        let Some(id) = record.arxiv_id() else {
            self.summary.not_arxiv += 1;
            return None;
        };
        let stored = self.known.get(&id);
        let newer = stored.is_none_or(|(day, _)| record.datestamp.as_str() > day.as_str());
        if record.deleted {
            // Only what the store holds can be withdrawn from it.
            if !newer || !stored.is_some_and(|(_, at)| at.is_some()) {
                return None;
            }
            self.summary.deleted += 1;
            self.known
                .insert(id.clone(), (record.datestamp.clone(), None));
            return Some(line::deleted_line(&id, &record.datestamp));
        }
        let metadata = record.metadata.as_ref()?;
        if !metadata
            .categories
            .iter()
            .any(|c| wanted(self.categories, c))
        {
            self.summary.filtered += 1;
            return None;
        }
        if !newer {
            self.summary.unchanged += 1;
            return None;
        }
        match stored {
            Some((_, Some(_))) => self.summary.updated += 1,
            _ => self.summary.new += 1,
        }
        // Within a harvest only whether the id is withdrawn matters, not
        // where its line is.
        self.known.insert(id, (record.datestamp.clone(), Some(0)));
        Some(line::record_line(metadata, &record.datestamp))
    }

    /// Adds what the store holds beyond what the index has, in one commit.
    fn index_pending(&mut self) -> Result<(), Error> {
        let (from, to) = (self.state.indexed_bytes, self.state.stored_bytes);
        if from >= to {
            return Ok(());
        }
        let (mut records, removed) = self.harvest.store.read_range(from, to)?;
        records.retain(|r| {
            r.arxiv
                .as_ref()
                .is_none_or(|id| !self.in_catalog.contains(id))
        });
        let index = self.harvest.index;
        let lock = index.lock_waiting(|| ())?;
        let appended = crate::index::append(
            index,
            &lock,
            &self.harvest.catalog.vocabulary,
            &self.predictor,
            &records,
            &removed,
        )?;
        drop(lock);
        self.summary.added_to_index += appended.added as u64;
        self.summary.index_time += appended.elapsed;
        self.state.indexed_bytes = to;
        self.harvest.store.save_state(&self.lock, &self.state)
    }

    /// The run is complete: the set's latest datestamp moves on.
    fn finish_run(&mut self, run: &Run) -> Result<(), Error> {
        if let Some(seen) = &run.latest_seen {
            let latest = self.state.latest.entry(run.set.clone()).or_default();
            if seen > latest {
                *latest = seen.clone();
            }
        }
        if let Some(latest) = self.state.latest.get(&run.set)
            && self.summary.latest.as_ref().is_none_or(|l| latest > l)
        {
            self.summary.latest = Some(latest.clone());
        }
        self.state.run = None;
        self.harvest.store.save_state(&self.lock, &self.state)
    }
}

/// A bar on a terminal, counting records against the list's size.
fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::no_length();
    let style = ProgressStyle::with_template("harvest [{bar:30}] {pos}/{len} records {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_of_categories() {
        assert_eq!(set_of("cs.DC"), "cs");
        assert_eq!(set_of("stat.ML"), "stat");
        assert_eq!(set_of("hep-th"), "physics:hep-th");
        assert_eq!(set_of("cs"), "cs");
    }

    #[test]
    fn categories_and_archives() {
        let asked = vec!["cs.DC".to_string(), "stat".to_string()];
        assert!(wanted(&asked, "cs.DC"));
        assert!(wanted(&asked, "stat.ML"));
        assert!(!wanted(&asked, "cs.LG"));
        assert!(!wanted(&asked, "statistics.X"));
    }
}
