//! `harvest`: new arXiv records of the field, through OAI-PMH, into the
//! arxiv collection of the index.

use std::io::Write;
use std::time::Duration;

use crate::cli::HarvestArgs;
use crate::diagnostic;
use crate::environment;
use crate::error::Error;
use crate::harvest::{Endpoint, Harvest, HarvestOptions, Store, Summary};
use crate::index::IndexDir;
use crate::ingest::IngestConfig;
use crate::ingest::config::endpoint;
use crate::ingest::http::FetchError;
use crate::locations::Locations;

/// arXiv's OAI-PMH base URL (since 2025; it was export.arxiv.org/oai2).
pub const OAI_API: &str = "https://oaipmh.arxiv.org/oai";

/// A first harvest of a whole archive at arXiv's pace takes about an hour;
/// a harvest stopped at the deadline is resumed by the next.
const DEADLINE_S: u64 = 4 * 60 * 60;

pub fn run(locations: &Locations, args: &HarvestArgs, err: &mut dyn Write) -> Result<(), Error> {
    if let (Some(from), Some(until)) = (&args.from, &args.until)
        && from > until
    {
        return Err(Error::Usage(format!(
            "--from {from} is after --until {until}: no day is in that window"
        )));
    }
    let config = IngestConfig::from_env(false, false)?;
    let deadline = deadline()?;
    let base = endpoint(environment::OAI_API, OAI_API)?;
    // The records join an index built from the catalog as it is now.
    let (catalog, open) = crate::ready::ready_index(locations, err)?;
    drop(open);
    let cache = locations.load_cache()?;
    let store = Store::new(&locations.index);
    let index = IndexDir::new(&locations.index);
    let endpoint = Endpoint::new(base, config.http, config.arxiv_delay)?;
    let harvest = Harvest {
        store: &store,
        index: &index,
        catalog: &catalog,
        cache: &cache,
        endpoint: &endpoint,
    };
    let options = HarvestOptions {
        from: args.from.clone(),
        until: args.until.clone(),
        categories: args.categories.clone(),
        deadline,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let (summary, result) = runtime.block_on(harvest.run(&options, err));
    if result.is_ok() || summary.pages > 0 {
        let line = with_watches(summary_line(&summary), locations, &catalog, err);
        diagnostic::line(err, line);
    }
    result.map_err(stopped)
}

/// The summary line, and how many new matches each watch has now.
fn with_watches(
    line: String,
    locations: &Locations,
    catalog: &crate::catalog::Catalog,
    err: &mut dyn Write,
) -> String {
    match super::watch::harvest_note(locations, catalog) {
        Ok(Some(note)) => format!("{line}; {note}"),
        Ok(None) => line,
        Err(e) => {
            diagnostic::warning(
                err,
                format_args!("could not count the watches' new matches: {e}"),
            );
            line
        }
    }
}

/// `DISTML_HARVEST_DEADLINE_S`, or the default.
fn deadline() -> Result<Duration, Error> {
    let seconds = match std::env::var(environment::HARVEST_DEADLINE_S) {
        Ok(v) if !v.trim().is_empty() => v.trim().parse().map_err(|_| {
            Error::Usage(format!(
                "DISTML_HARVEST_DEADLINE_S must be a whole number of seconds, not {v:?}"
            ))
        })?,
        _ => DEADLINE_S,
    };
    Ok(Duration::from_secs(seconds))
}

/// A failure says that what was harvested is kept and where the next run
/// starts.
fn stopped(error: Error) -> Error {
    const RESUMES: &str = "what was harvested is kept, and the next `distml-search harvest` resumes where this one stopped";
    match error {
        Error::Fetch(FetchError::HostUnreachable { host, reason, .. }) => Error::Usage(format!(
            "harvest: could not reach {host} ({reason}); {RESUMES}"
        )),
        Error::Fetch(e) => Error::Usage(format!("harvest: {e}; {RESUMES}")),
        e @ Error::OaiStatus { .. } => Error::Usage(format!("harvest: {e}; {RESUMES}")),
        other => other,
    }
}

/// `harvest: set cs from 2999-01-01: 3 pages, ...`: one line.
pub fn summary_line(s: &Summary) -> String {
    let sets: Vec<String> = s
        .sets
        .iter()
        .map(|(set, from)| {
            let from = from.as_deref().unwrap_or("its first record");
            let resumed = if s.resumed { " (resumed)" } else { "" };
            format!("set {set} from {from}{resumed}")
        })
        .collect();
    let mut skipped = String::new();
    for (count, why) in [
        (s.not_arxiv, "not an arXiv id"),
        (
            s.misdated,
            "datestamp unreadable or after the response's date",
        ),
    ] {
        if count > 0 {
            skipped.push_str(&format!("; {count} skipped: {why}"));
        }
    }
    let latest = s
        .latest
        .as_deref()
        .map_or(String::new(), |l| format!("; latest datestamp {l}"));
    format!(
        "harvest: {}: {} pages, {} records: {} new, {} updated, {} unchanged, {} outside the categories, {} withdrawn{skipped}; {} added to the index in {} ms{latest} ({} requests, {:.1} s)",
        sets.join(", "),
        s.pages,
        s.received,
        s.new,
        s.updated,
        s.unchanged,
        s.filtered,
        s.deleted,
        s.added_to_index,
        s.index_time.as_millis(),
        s.requests,
        s.elapsed.as_secs_f64()
    )
}
