//! `check --online`: the catalog's health on the network. Dead links and
//! permanent redirects (`links`), arXiv ids arXiv does not know and
//! preprints since published (`published`), the same work listed twice
//! (`duplicates`, no network), proposals written on request (`apply`), and
//! what was learned kept for a while (`cache`, `<catalog>/health.json`).
//! Every request goes through the ingester's HTTP client.

pub(crate) mod apply;
pub(crate) mod cache;
pub(crate) mod duplicates;
mod links;
mod published;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use self::apply::{Fix, doi_url};
use self::cache::{HealthCache, LinkResult, PaperResult, Verdict, fresh};
use self::links::Checked;
use self::published::{Paper, Papers};
use crate::catalog::guard::{url_owner, url_refusal, year_refusal};
use crate::catalog::{Catalog, Entry, Kind, normalize_title, url_key};
use crate::environment;
use crate::error::Error;
use crate::ident;
use crate::ingest::IngestConfig;
use crate::ingest::http::{HostPolicy, HttpClient, host_key};
use crate::model::metadata::Cache;
use crate::render::text::count;

/// How long a result is trusted (`DISTML_CHECK_TTL_H`, hours).
const TTL_HOURS: u64 = 7 * 24;
/// The longest a run may take (`DISTML_CHECK_DEADLINE_S`).
const DEADLINE_S: u64 = 10 * 60;

/// Endpoints, the client's settings, the time-to-live and the deadline.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub config: IngestConfig,
    pub ttl: Duration,
    pub deadline: Duration,
}

impl Options {
    pub(crate) fn from_env(verbose: bool) -> Result<Options, Error> {
        let mut config = IngestConfig::from_env(false, verbose)?;
        // A link is not worth minutes of patience: fewer, shorter retries.
        config.http.max_retries = 2;
        config.http.base_backoff = Duration::from_millis(500);
        config.http.max_backoff = Duration::from_secs(30);
        let number = |name: &str, default: u64| -> Result<u64, Error> {
            match std::env::var(name) {
                Ok(v) if !v.trim().is_empty() => v
                    .trim()
                    .parse()
                    .map_err(|_| Error::Usage(format!("{name} must be a whole number, not {v:?}"))),
                _ => Ok(default),
            }
        };
        Ok(Options {
            ttl: Duration::from_secs(
                number(environment::CHECK_TTL_H, TTL_HOURS)?.saturating_mul(3600),
            ),
            deadline: Duration::from_secs(number(environment::CHECK_DEADLINE_S, DEADLINE_S)?),
            config,
        })
    }
}

/// The finding of a title other than its source's: advice, which does
/// not fail the check.
pub(crate) const TITLE_DIFFERS: &str = "title-differs";

/// One problem, as `check --online --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Finding {
    pub id: String,
    pub problem: &'static str,
    pub url: String,
    pub detail: String,
    pub suggestion: Option<String>,
    /// What `--apply` writes, when the suggestion can be applied.
    #[serde(skip)]
    pub fix: Option<Fix>,
}

impl Finding {
    /// Whether it is advice for the curator rather than a problem: it is
    /// reported, and the check still passes.
    pub(crate) fn is_advice(&self) -> bool {
        self.problem == TITLE_DIFFERS
    }
}

/// A run's findings, the warnings about what it could not check, and counts.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub findings: Vec<Finding>,
    pub warnings: Vec<String>,
    pub links: usize,
    pub links_cached: usize,
    pub papers: usize,
    pub papers_cached: usize,
    pub requests: u64,
    /// With `--verbose`, every request and its answer.
    pub log: Vec<String>,
}

/// The arXiv id of an entry: its own, its url's, or one a lookup found.
fn arxiv_id(entry: &Entry, metadata: &Cache) -> Option<String> {
    entry
        .arxiv
        .clone()
        .or_else(|| ident::arxiv_from_url(&entry.url))
        .or_else(|| Some(metadata.get(&entry.id)?.arxiv.as_ref()?.value.clone()))
}

/// A paper listed as a preprint: no venue, or arXiv as its venue.
fn is_preprint(entry: &Entry) -> bool {
    entry.kind == Kind::Paper
        && entry.venue.as_deref().is_none_or(|v| {
            let v = v.trim();
            v.is_empty() || v.eq_ignore_ascii_case("arxiv") || v.eq_ignore_ascii_case("corr")
        })
}

/// Checks `catalog` on the network, using and refreshing the health cache
/// in `cache_dir` (none for the read-only built-in catalog).
pub(crate) async fn check_online(
    catalog: &Catalog,
    metadata: &Cache,
    cache_dir: Option<&Path>,
    options: &Options,
) -> Result<Report, Error> {
    let now = crate::clock::now_rfc3339();
    let mut report = Report::default();
    let mut cache = match cache_dir {
        Some(dir) => {
            let (cache, note) = HealthCache::load(dir)?;
            report.warnings.extend(note);
            cache
        }
        None => HealthCache::default(),
    };
    // arXiv links are checked through arXiv's API, politely, not one by one.
    let mut urls: Vec<&str> = catalog
        .entries
        .iter()
        .filter(|e| ident::arxiv_from_url(&e.url).is_none())
        .map(|e| e.url.as_str())
        .collect();
    urls.sort_unstable();
    urls.dedup();
    let mut papers: BTreeMap<String, Paper> = BTreeMap::new();
    for entry in &catalog.entries {
        if let Some(id) = arxiv_id(entry, metadata) {
            let known_doi = metadata
                .get(&entry.id)
                .and_then(|c| c.doi.as_ref())
                .map(|d| d.value.clone());
            let paper = papers.entry(id.clone()).or_insert(Paper {
                arxiv: id,
                preprint: false,
                known_doi,
            });
            paper.preprint |= is_preprint(entry);
        }
    }
    let ids: Vec<&str> = papers.keys().map(String::as_str).collect();
    cache.retain(&urls, &ids);
    let ask_links: Vec<String> = urls
        .iter()
        .filter(|u| {
            !cache
                .links
                .get(**u)
                .is_some_and(|r| fresh(&r.checked_at, options.ttl))
        })
        .map(|u| (*u).to_owned())
        .collect();
    let ask_papers: Vec<Paper> = papers
        .values()
        .filter(|p| {
            !cache
                .papers
                .get(&p.arxiv)
                .is_some_and(|r| r.is_fresh(options.ttl))
        })
        .cloned()
        .collect();
    report.links = urls.len();
    report.links_cached = urls.len() - ask_links.len();
    report.papers = papers.len();
    report.papers_cached = papers.len() - ask_papers.len();

    let client = HttpClient::new(options.config.http.clone())?;
    client.set_verbose(options.config.verbose);
    if let Some(host) = host_key(&options.config.arxiv_api) {
        let policy = HostPolicy {
            max_concurrent: 1,
            min_interval: options.config.arxiv_delay,
        };
        client.set_policy(&host, policy);
    }
    let mut checked: BTreeMap<String, Checked> = BTreeMap::new();
    let mut answers = Papers::default();
    let work = async {
        tokio::join!(
            links::check_links(&client, ask_links.clone(), &now, &mut checked),
            published::check_papers(&client, &options.config, &ask_papers, &now, &mut answers),
        )
    };
    let late = tokio::time::timeout(options.deadline, work).await.is_err();
    report.requests = client.requests_made();
    report.log = client.take_log();

    let network_up = answers.answered || checked.values().any(|c| matches!(c, Checked::Done(_)));
    // Per host: why, links and papers left unchecked.
    let mut unchecked: BTreeMap<String, (String, usize, usize)> = BTreeMap::new();
    for (url, outcome) in checked.iter() {
        let result = match outcome {
            Checked::Done(result) => result.clone(),
            Checked::ConnectFailed { host, reason } if network_up => LinkResult {
                checked_at: now.clone(),
                verdict: Verdict::Dead,
                status: None,
                location: None,
                detail: Some(format!("cannot connect to {host}: {reason}")),
            },
            Checked::ConnectFailed { host, reason } | Checked::Unchecked { host, reason } => {
                unchecked
                    .entry(host.clone())
                    .or_insert((reason.clone(), 0, 0))
                    .1 += 1;
                continue;
            }
        };
        cache.links.insert(url.clone(), result);
    }
    for (host, (reason, count)) in answers.unreachable {
        unchecked.entry(host).or_insert((reason, 0, 0)).2 += count;
    }
    for (host, (reason, links, papers)) in unchecked {
        let what = match (links, papers) {
            (l, 0) => count(l, "link", "links"),
            (0, p) => count(p, "arXiv paper", "arXiv papers"),
            (l, p) => format!("{l} links and {p} arXiv papers"),
        };
        report.warnings.push(format!(
            "could not reach {host} ({reason}); {what} not checked"
        ));
    }
    report.warnings.extend(answers.failures);
    if late {
        let links = ask_links
            .iter()
            .filter(|u| !checked.contains_key(*u))
            .count();
        let papers = ask_papers
            .iter()
            .filter(|p| !answers.results.contains_key(&p.arxiv))
            .count();
        report.warnings.push(format!(
            "stopped at the run's deadline ({} s, DISTML_CHECK_DEADLINE_S); {} and {} not checked",
            options.deadline.as_secs(),
            count(links, "link", "links"),
            count(papers, "arXiv paper", "arXiv papers")
        ));
    }
    let mut this_run: BTreeMap<String, PaperResult> = BTreeMap::new();
    for (id, result) in answers.results {
        if answers.complete.contains(&id) {
            cache.papers.insert(id.clone(), result.clone());
        }
        this_run.insert(id, result);
    }
    if let Some(dir) = cache_dir {
        cache.save(dir)?;
    }

    let entries: Vec<&Entry> = catalog.entries.iter().collect();
    let mut findings: Vec<(usize, Finding)> = Vec::new();
    let owners = duplicates::doi_owners(&entries, metadata);
    for (i, entry) in entries.iter().enumerate() {
        if let Some(result) = cache.links.get(&entry.url) {
            findings.extend(link_finding(catalog, entry, result).map(|f| (i, f)));
        }
        let Some(id) = arxiv_id(entry, metadata) else {
            continue;
        };
        let Some(result) = this_run.get(&id).or_else(|| cache.papers.get(&id)) else {
            continue;
        };
        let own_id = entry.arxiv.is_some() || ident::arxiv_from_url(&entry.url).is_some();
        if !result.on_arxiv && own_id {
            findings.push((
                i,
                finding(entry, "dead-link", format!("arXiv has no paper {id}"), None),
            ));
        } else if is_preprint(entry) {
            findings.extend(published_finding(entry, &id, result, &owners).map(|f| (i, f)));
        }
        if own_id {
            findings.extend(title_finding(entry, &id, result).map(|f| (i, f)));
        }
    }
    for duplicate in duplicates::find(&entries, metadata) {
        let entry = entries[duplicate.entry];
        let detail = format!(
            "same work as `{}`: {}",
            entries[duplicate.of].id, duplicate.reason
        );
        findings.push((duplicate.entry, finding(entry, "duplicate", detail, None)));
    }
    // Stable: an entry's problems stay in the order found.
    findings.sort_by_key(|(i, _)| *i);
    report.findings = findings.into_iter().map(|(_, f)| f).collect();
    Ok(report)
}

fn finding(entry: &Entry, problem: &'static str, detail: String, fix: Option<Fix>) -> Finding {
    Finding {
        id: entry.id.clone(),
        problem,
        url: entry.url.clone(),
        detail,
        suggestion: None,
        fix,
    }
}

fn link_finding(catalog: &Catalog, entry: &Entry, result: &LinkResult) -> Option<Finding> {
    match result.verdict {
        Verdict::Ok => None,
        Verdict::Dead => {
            let detail = result.detail.clone().unwrap_or_else(|| "dead".into());
            Some(finding(entry, "dead-link", detail, None))
        }
        Verdict::Moved => {
            let status = result.status.unwrap_or(301);
            let reason = crate::ingest::http::status_reason(status);
            let Some(location) = result.location.clone() else {
                return Some(finding(
                    entry,
                    "redirect",
                    format!("{reason}, without a Location"),
                    None,
                ));
            };
            let mut found = finding(entry, "redirect", format!("{reason} to {location}"), None);
            // A server says where a page went; the catalog takes only a
            // web page that no other entry already is.
            let refused = url_refusal(&location)
                .map(|why| format!("not a web page ({why})"))
                .or_else(|| {
                    let owner = url_owner(catalog, &location, &entry.id)?;
                    Some(format!("already the url of `{owner}`"))
                });
            if let Some(why) = refused {
                found.detail.push_str(&format!("; not proposed: {why}"));
                return Some(found);
            }
            found.suggestion = Some(format!("url = {}", quoted(&location)));
            let keeps = keeps_identifiers(entry, &location);
            found.fix = keeps.then_some(Fix::Url(location));
            Some(found)
        }
    }
}

/// Whether `url` still carries the arXiv id and DOI the entry names (a
/// catalog rule): else a redirect is reported but not applied.
fn keeps_identifiers(entry: &Entry, url: &str) -> bool {
    let arxiv_kept = entry.arxiv.is_none() || ident::arxiv_from_url(url) == entry.arxiv;
    let doi_kept = entry.doi.is_none() || ident::doi_from_url(url) == entry.doi;
    url_key(url) == url_key(&entry.url) || (arxiv_kept && doi_kept)
}

fn quoted(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// A title other than the one arXiv gives the entry's own id, once case,
/// punctuation and spacing are set aside: advice, not a problem (a list
/// may shorten a title on purpose), proposed but never applied.
fn title_finding(entry: &Entry, id: &str, result: &PaperResult) -> Option<Finding> {
    if entry.kind != Kind::Paper {
        return None;
    }
    let title = result.title.as_deref().filter(|_| result.on_arxiv)?;
    if normalize_title(title) == normalize_title(&entry.title) {
        return None;
    }
    let detail = format!("arXiv {id} titles it \"{title}\"");
    let mut found = finding(entry, TITLE_DIFFERS, detail, None);
    found.suggestion = Some(format!("title = {}", quoted(title)));
    Some(found)
}

/// A preprint that arXiv says was published: the proposal, or a duplicate
/// when the published DOI is another entry's.
fn published_finding(
    entry: &Entry,
    id: &str,
    result: &PaperResult,
    owners: &BTreeMap<String, String>,
) -> Option<Finding> {
    if result.doi.is_none() && result.journal_ref.is_none() {
        return None;
    }
    let mut said = Vec::new();
    if let Some(doi) = &result.doi {
        said.push(format!("DOI {doi}"));
    }
    if let Some(journal_ref) = &result.journal_ref {
        said.push(format!("journal-ref \"{journal_ref}\""));
    }
    let detail = format!("arXiv {id} has a published version: {}", said.join(", "));
    if let Some(doi) = &result.doi
        && let Some(owner) = owners.get(doi).filter(|o| **o != entry.id)
    {
        let detail = format!("same work as `{owner}`: {detail}, which `{owner}` lists");
        return Some(finding(entry, "duplicate", detail, None));
    }
    let venue = result.venue.clone().or_else(|| result.journal_ref.clone());
    let year = result
        .year
        .or_else(|| published::year_in(result.journal_ref.as_deref()?));
    // What a server says is proposed only where `check` would take it.
    let venue =
        venue.filter(|v| !v.trim().is_empty() && entry.venue.as_deref() != Some(v.as_str()));
    let year = year.filter(|y| entry.year != Some(*y) && year_refusal(*y).is_none());
    let doi = result.doi.clone().filter(|doi| {
        ident::is_doi(doi) && ident::doi_from_url(&doi_url(doi)).as_deref() == Some(doi)
    });
    if venue.is_none() && year.is_none() && doi.is_none() {
        return Some(finding(entry, "published-version", detail, None));
    }
    let mut parts = Vec::new();
    if let Some(venue) = &venue {
        parts.push(format!("venue = {}", quoted(venue)));
    }
    if let Some(year) = year {
        parts.push(format!("year = {year}"));
    }
    if let Some(doi) = &doi {
        parts.push(format!("url = {}", quoted(&doi_url(doi))));
    }
    let fix = Fix::Published { venue, year, doi };
    let mut found = finding(entry, "published-version", detail, Some(fix));
    found.suggestion = (!parts.is_empty()).then(|| parts.join(", "));
    Some(found)
}
