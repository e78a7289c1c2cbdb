//! `index`: fetch what the catalog lacks (unless offline), then rebuild.

use std::io::Write;

use crate::cli::IndexArgs;
use crate::diagnostic;
use crate::error::Error;
use crate::index::{IndexDir, fingerprint, rebuild_keeping};
use crate::inert::inert;
use crate::ingest::{IngestConfig, Report, ingest};
use crate::locations::Locations;
use crate::ready::load_valid_catalog;
use crate::render::text::count;

pub fn run(
    locations: &Locations,
    args: &IndexArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let catalog = load_valid_catalog(locations, false)?;
    let metadata_dir = match args.offline {
        true => None,
        false => Some(locations.metadata_dir().ok_or_else(|| {
            Error::Usage(
                "no folder to keep metadata in (no data folder for this user): pass --catalog DIR or --offline".into(),
            )
        })?),
    };
    // A fetch writes metadata.json: under the catalog's lock, from reading
    // it to its last write, taken before the index's as every writer does.
    let catalog_lock = match &metadata_dir {
        Some(dir) => Some(super::lock_for_writing(dir, err)?),
        None => None,
    };
    let dir = IndexDir::new(&locations.index);
    let lock = dir.lock_waiting(|| {
        diagnostic::note(
            err,
            "another index rebuild is running; waiting for it to finish",
        );
    })?;
    let mut cache = locations.load_cache()?;
    if let Some(metadata_dir) = metadata_dir {
        let config = IngestConfig::from_env(args.refresh, args.verbose)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(Error::Runtime)?;
        let report = runtime.block_on(ingest(
            &catalog,
            &mut cache,
            Some(&metadata_dir),
            &config,
            err,
        ))?;
        summarize(&report, err);
    }
    drop(catalog_lock);
    let inputs = locations.index_inputs()?;
    let print = fingerprint(inputs.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    let harvested = crate::harvest::Store::new(&locations.index);
    let report = rebuild_keeping(&dir, &lock, &catalog, &cache, &print, &harvested)?;
    for warning in crate::index::build_warnings(&report) {
        diagnostic::warning(err, warning);
    }
    writeln!(
        out,
        "indexed {} ({} with abstracts) in {} ms into {}",
        count(report.documents, "entry", "entries"),
        report.with_abstract,
        report.elapsed.as_millis(),
        locations.index.display()
    )
    .map_err(Error::output)?;
    Ok(())
}

/// One summary line, one warning when hosts could not be reached, and the
/// reasons of failures.
fn summarize(report: &Report, err: &mut dyn Write) {
    diagnostic::line(
        err,
        format_args!(
            "metadata: {} cached, {} fetched, {} resolved by title, {} candidates to confirm, {} not found, {} failed ({} requests)",
            report.cached,
            report.fetched,
            report.resolved_by_title,
            report.candidates,
            report.not_found,
            report.failed.len(),
            report.requests
        ),
    );
    if !report.unreachable.is_empty() {
        diagnostic::warning(
            err,
            format_args!(
                "could not reach {} (no network?); {} papers lack metadata; indexing what the cache has",
                report.unreachable.join(", "),
                report.missing
            ),
        );
    }
    for (id, reason) in report.failed.iter().take(10) {
        diagnostic::line(
            err,
            format_args!("  failed {id}: {}", inert(&reason.to_string())),
        );
    }
    if report.failed.len() > 10 {
        let more = report.failed.len() - 10;
        diagnostic::line(err, format_args!("  ... and {more} more failures"));
    }
    for note in &report.notes {
        diagnostic::note(err, note);
    }
}
