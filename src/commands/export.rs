//! `export --format markdown`: the catalog as an awesome-list README.

use std::io::Write;

use crate::catalog::markdown::export_markdown;
use crate::cli::{ExportArgs, ExportFormat};
use crate::error::Error;
use crate::fsutil::write_atomic;
use crate::locations::Locations;

pub fn run(locations: &Locations, args: &ExportArgs, out: &mut dyn Write) -> Result<(), Error> {
    let catalog = super::load_valid_catalog(locations, false)?;
    let text = match args.format {
        ExportFormat::Markdown => export_markdown(&catalog, &args.title),
    };
    match &args.output {
        Some(path) => write_atomic(path, text.as_bytes()),
        None => out
            .write_all(text.as_bytes())
            .map_err(|e| Error::io("<stdout>", e)),
    }
}
