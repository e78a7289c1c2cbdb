//! `import FILE.md`: merge an awesome list into the catalog folder.

use std::io::{Read, Write};
use std::path::Path;

use crate::catalog::markdown::parse_list;
use crate::catalog::{Catalog, load_dir, merge_import};
use crate::cli::ImportArgs;
use crate::diagnostic;
use crate::error::Error;
use crate::index::IndexDir;
use crate::locations::{CatalogSource, Locations, builtin_files};
use crate::render::text::{count, inert};
use crate::snapshot::{ImportOptions, import_snapshot};

pub fn run(
    locations: &Locations,
    args: &ImportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    if let Some(snapshot) = &args.arxiv_snapshot {
        return run_snapshot(locations, args, snapshot, out, err);
    }
    let Some(file) = &args.file else {
        return Err(Error::Usage(
            "give a Markdown file, or --arxiv-snapshot FILE".into(),
        ));
    };
    let markdown = read_input(file)?;
    let list = parse_list(&markdown);
    if list.entry_count() == 0 {
        return Err(Error::Usage(format!(
            "{}: no list items with links found; is it an awesome-list Markdown file?",
            file.display()
        )));
    }
    // A dry run writes nothing, so without a catalog folder it compares
    // with the built-in catalog. Planning a merge reads the section files it
    // would append to, so the built-in files are laid out in a temporary
    // folder first, and shown by their built-in names.
    let builtin_copy = match (&locations.catalog, args.dry_run) {
        (CatalogSource::BuiltIn, true) => Some(builtin_copy()?),
        _ => None,
    };
    let dir = match &builtin_copy {
        Some(copy) => copy.path(),
        None => locations.catalog_dir()?,
    };
    // An import may start a catalog from nothing.
    let catalog = if dir.is_dir() {
        load_dir(dir)?.0
    } else {
        Catalog::default()
    };
    let merge = merge_import(dir, &catalog, &list)?;
    let report = &merge.report;
    let io = Error::output;
    let shown = |path: &Path| match path.strip_prefix(dir) {
        Ok(name) if builtin_copy.is_some() => Path::new("<built-in>").join(name),
        _ => path.to_path_buf(),
    };
    for (path, entry) in &report.added {
        writeln!(
            out,
            "+ {}: {} ({})",
            shown(path).display(),
            entry.id,
            entry.title
        )
        .map_err(io)?;
    }
    let verb = if args.dry_run { "would add" } else { "added" };
    writeln!(
        out,
        "{verb} {} ({}); {} already in the catalog, unchanged",
        count(report.added.len(), "entry", "entries"),
        count(
            report.new_files.len(),
            "new section file",
            "new section files"
        ),
        report.unchanged
    )
    .map_err(io)?;
    if !args.dry_run && !report.added.is_empty() {
        merge.apply()?;
        writeln!(
            out,
            "new entries have no tags or note yet: curate them, then run `distml-search check`"
        )
        .map_err(io)?;
    }
    Ok(())
}

/// The built-in catalog's TOML files in a temporary folder.
fn builtin_copy() -> Result<tempfile::TempDir, Error> {
    let copy = tempfile::tempdir().map_err(|e| Error::io(std::env::temp_dir(), e))?;
    for file in builtin_files() {
        let name = file.path.file_name().unwrap_or_default();
        let path = copy.path().join(name);
        std::fs::write(&path, &file.text).map_err(|e| Error::io(&path, e))?;
    }
    Ok(copy)
}

fn read_input(path: &Path) -> Result<String, Error> {
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Error::io("<stdin>", e))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| Error::io(path, e))?
    };
    String::from_utf8(bytes).map_err(|e| {
        Error::Usage(format!(
            "{}: not valid UTF-8 (at byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

fn run_snapshot(
    locations: &Locations,
    args: &ImportArgs,
    path: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let catalog = super::load_valid_catalog(locations, false)?;
    let mut cache = locations.load_cache()?;
    let dir = IndexDir::new(&locations.index);
    let options = ImportOptions {
        path: path.to_path_buf(),
        categories: args.categories.clone(),
        since: args.since,
        allow_empty: args.allow_empty,
        kept: Some(Box::new(crate::harvest::Store::new(&locations.index))),
    };
    let cache_dir = locations.catalog_dir().ok();
    let report = import_snapshot(
        &dir,
        &catalog,
        &mut cache,
        cache_dir,
        || locations.index_inputs(),
        &options,
        err,
    )?;
    for (line, reason) in &report.malformed {
        let place = format!("{}:{line}", path.display());
        diagnostic::line(
            err,
            inert(&format!("{place}: skipped malformed record: {reason}")),
        );
    }
    let seconds = report.elapsed.as_secs_f64().max(1e-9);
    let size = crate::fsutil::dir_size(&locations.index);
    writeln!(
        out,
        "imported {} ({} merged into catalog entries, {} filtered out, {} skipped) from {} in {:.1} s ({:.0} records/s); index {:.1} MB",
        count(report.indexed as usize, "record", "records"),
        report.merged,
        report.filtered,
        count(report.malformed_count as usize, "malformed line", "malformed lines"),
        count(report.lines as usize, "line", "lines"),
        seconds,
        report.lines as f64 / seconds,
        size as f64 / 1e6
    )
    .map_err(Error::output)?;
    Ok(())
}
