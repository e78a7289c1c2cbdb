//! `import FILE.md`: merge an awesome list into the catalog folder, or
//! (`--sync`) follow what changed in the list it was imported from.

use std::io::{Read, Write};
use std::path::Path;

use crate::catalog::builtin::builtin_files;
use crate::catalog::markdown::{ListLayout, parse_list};
use crate::catalog::{
    Catalog, Change, ChangeKind, ItemReport, LIST_FILE, MergeReport, Outcome, Shown, load_dir,
    merge_import, plan_sync,
};
use crate::cli::ImportArgs;
use crate::diagnostic;
use crate::error::Error;
use crate::index::IndexDir;
use crate::inert::{inert, inert_json};
use crate::locations::{CatalogSource, Locations};
use crate::render::text::count;
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
    if list.item_count() == 0 {
        return Err(Error::Usage(format!(
            "{}: no list items with links found; is it an awesome-list Markdown file?",
            file.display()
        )));
    }
    if args.sync {
        return run_sync(locations, args, file, &markdown, out, err);
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
    // Held from reading the catalog to writing it: two imports at once
    // would each write over the other's additions.
    let _lock = match args.dry_run {
        true => None,
        false => Some(super::lock_for_writing(dir, err)?),
    };
    // An import may start a catalog from nothing.
    let catalog = if dir.is_dir() {
        load_dir(dir)?.0
    } else {
        Catalog::default()
    };
    let mut merge = merge_import(dir, &catalog, &list)?;
    // A catalog started from this list keeps its text, for export.
    if catalog.entries.is_empty() && !merge.report.added.is_empty() {
        let layout = ListLayout::new(&markdown, &merge.report);
        merge.also_write(dir.join(LIST_FILE), layout.to_toml());
    }
    let report = &merge.report;
    // Written before anything says so: a write refused or failed leaves
    // the catalog as it was and says only why.
    let written = !args.dry_run && !report.added.is_empty();
    if written {
        merge.apply()?;
    }
    for (line, note) in &report.notes {
        diagnostic::warning(err, inert(&format!("{}:{line}: {note}", file.display())));
    }
    let io = Error::output;
    if args.json {
        for item in &report.items {
            writeln!(out, "{}", inert_json(item_json(item).to_string())).map_err(io)?;
        }
    } else {
        let shown = |path: &Path| match path.strip_prefix(dir) {
            Ok(name) if builtin_copy.is_some() => Path::new("<built-in>").join(name),
            _ => path.to_path_buf(),
        };
        print_plan(
            report,
            &shown,
            &file.display().to_string(),
            args.dry_run,
            out,
        )?;
    }
    if builtin_copy.is_some() {
        diagnostic::note(
            err,
            "compared with the built-in catalog; to import, pass --catalog DIR (a new folder starts a catalog from this list)",
        );
    }
    if written && !args.json {
        writeln!(
            out,
            "new entries are drafts (`draft = true`): curate them; `distml-search check` says what each needs"
        )
        .map_err(io)?;
    }
    Ok(())
}

/// The text form of a plan: each addition, each item that is neither added
/// nor already listed (by line, with the reason), then the counts.
fn print_plan(
    report: &MergeReport,
    shown: &dyn Fn(&Path) -> std::path::PathBuf,
    file: &str,
    dry_run: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let io = Error::output;
    for (path, entry) in &report.added {
        let line = format!(
            "+ {}: {} ({})",
            shown(path).display(),
            entry.id,
            entry.title
        );
        writeln!(out, "{}", inert(&line)).map_err(io)?;
    }
    if let Some(path) = &report.vocabulary {
        writeln!(
            out,
            "+ {}: the shipped tag vocabulary",
            shown(path).display()
        )
        .map_err(io)?;
    }
    let mut navigation = 0;
    for item in &report.items {
        let reason = item.reason.as_deref().unwrap_or_default();
        match item.outcome {
            Outcome::Add | Outcome::AlreadyListed => {}
            // Tables of contents are expected: `--json` lists them.
            Outcome::Skipped if reason.starts_with("a link within the page") => navigation += 1,
            outcome => {
                let line = format!(
                    "{file}:{}: {}: {reason} ({})",
                    item.line,
                    outcome.as_str(),
                    item.title
                );
                writeln!(out, "{}", inert(&line)).map_err(io)?
            }
        }
    }
    let verb = if dry_run { "would add" } else { "added" };
    let mut summary = format!(
        "{verb} {} ({}); {} already in the catalog, unchanged",
        count(report.added.len(), "entry", "entries"),
        count(
            report.new_files.len(),
            "new section file",
            "new section files"
        ),
        report.unchanged
    );
    let duplicates = report.count(Outcome::DuplicateInFile);
    let skipped = report.count(Outcome::Skipped) - navigation;
    if duplicates > 0 {
        summary.push_str(&format!("; {duplicates} repeated in the file"));
    }
    if skipped > 0 {
        summary.push_str(&format!("; {skipped} skipped"));
    }
    writeln!(out, "{summary}").map_err(io)
}

/// One item of the plan as the `--json` contract has it.
fn item_json(item: &ItemReport) -> serde_json::Value {
    let mut value = serde_json::json!({
        "line": item.line,
        "outcome": item.outcome.as_str(),
        "title": item.title,
        "url": item.url,
    });
    if let serde_json::Value::Object(map) = &mut value {
        if let Some(reason) = &item.reason {
            map.insert("reason".into(), reason.clone().into());
        }
        if let Some(id) = &item.id {
            map.insert("id".into(), id.clone().into());
        }
    }
    value
}

/// `import --sync FILE`: what changed upstream since the catalog was
/// imported from the list, one line (or JSON object) a change; `--apply`
/// makes the changes.
fn run_sync(
    locations: &Locations,
    args: &ImportArgs,
    file: &Path,
    markdown: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let dir = locations.catalog_dir()?;
    let _lock = match args.apply {
        true => Some(super::lock_for_writing(dir, err)?),
        false => None,
    };
    let Some(layout) = ListLayout::load(dir)? else {
        return Err(Error::Usage(format!(
            "{}: no {LIST_FILE}, which records the entries that came from a list: --sync compares a list with the one the catalog was imported from (an import into an empty folder keeps it)",
            dir.display()
        )));
    };
    // Entries of a file that did not load would look removed upstream.
    let (catalog, problems) = load_dir(dir)?;
    if let Some(first) = problems.first() {
        return Err(Error::Usage(format!(
            "{first}: the catalog must load before a sync ({}; `distml-search check` lists them)",
            count(problems.len(), "problem", "problems")
        )));
    }
    let sync = plan_sync(dir, &catalog, &layout, markdown, args.allow_emptied)?;
    let name = file.display().to_string();
    // Applied before anything says so, as a plain import.
    if args.apply {
        sync.apply()?;
    }
    // A change upstream the catalog does not take: what it was, and why not.
    let upstream = |line: usize,
                    kind: ChangeKind,
                    id: &str,
                    old: &Option<Shown>,
                    new: &Option<Shown>,
                    why: &str| {
        format!(
            "{name}:{line}: {} upstream for `{id}` ({} -> {}){why}",
            kind.as_str(),
            shown(old.as_ref()),
            shown(new.as_ref()),
        )
    };
    for kept in &sync.kept {
        let why = format!(
            ", but the catalog has {}, edited since: kept",
            shown(kept.catalog.as_ref())
        );
        let (old, new) = (&kept.upstream_old, &kept.upstream_new);
        let line = upstream(kept.line, kept.kind, &kept.id, old, new, &why);
        diagnostic::warning(err, line);
    }
    for refused in &sync.refused {
        let why = format!(" not applied: {}", inert(&refused.why));
        let (old, new) = (&refused.old, &refused.new);
        let line = upstream(refused.line, refused.kind, &refused.id, old, new, &why);
        diagnostic::warning(err, line);
    }
    for (line, note) in &sync.notes {
        diagnostic::warning(err, inert(&format!("{name}:{line}: {note}")));
    }
    let io = Error::output;
    if args.json {
        for change in &sync.changes {
            writeln!(out, "{}", inert_json(change_json(change).to_string())).map_err(io)?;
        }
    } else {
        for change in &sync.changes {
            writeln!(out, "{}", inert(&change_line(&name, change))).map_err(io)?;
        }
        writeln!(out, "{}", sync_summary(&sync, &name, args.apply)).map_err(io)?;
    }
    if args.apply && !args.json && sync.count(ChangeKind::New) > 0 {
        writeln!(
            out,
            "new entries are drafts (`draft = true`): curate them; `distml-search check` says what each needs"
        )
        .map_err(io)?;
    }
    Ok(())
}

/// `FILE:LINE: KIND: ID: OLD -> NEW`; a new entry shows its title, a
/// removed one its title and its line in the list before.
fn change_line(file: &str, change: &Change) -> String {
    let (kind, id) = (change.kind.as_str(), &change.id);
    match change.kind {
        ChangeKind::New => format!(
            "{file}:{}: {kind}: {id}: {}",
            change.line,
            shown(change.new.as_ref())
        ),
        ChangeKind::Removed => format!(
            "{file}: {kind}: {id}: {} (line {} of the list before)",
            shown(change.old.as_ref()),
            change.line
        ),
        _ => format!(
            "{file}:{}: {kind}: {id}: {} -> {}",
            change.line,
            shown(change.old.as_ref()),
            shown(change.new.as_ref())
        ),
    }
}

/// A value in a line of text: quoted text, a bare year, or `none`.
fn shown(value: Option<&Shown>) -> String {
    match value {
        Some(Shown::Text(text)) => format!("\"{}\"", inert(text)),
        Some(Shown::Year(year)) => year.to_string(),
        None => "none".into(),
    }
}

fn change_json(change: &Change) -> serde_json::Value {
    let value = |v: &Option<Shown>| match v {
        Some(Shown::Text(text)) => serde_json::Value::from(text.as_str()),
        Some(Shown::Year(year)) => serde_json::Value::from(*year),
        None => serde_json::Value::Null,
    };
    serde_json::json!({
        "line": change.line,
        "change": change.kind.as_str(),
        "id": change.id,
        "old": value(&change.old),
        "new": value(&change.new),
    })
}

fn sync_summary(sync: &crate::catalog::Sync, file: &str, applied: bool) -> String {
    let mut summary = if sync.changes.is_empty() && !sync.refused.is_empty() {
        String::from("no change to make")
    } else if sync.changes.is_empty() {
        let mut text = format!("no changes: the catalog is in sync with {file}");
        if sync.list_changed {
            text.push_str(if applied {
                "; list.toml now holds its text, for export"
            } else {
                "; --apply keeps its text in list.toml, for export"
            });
        }
        text
    } else {
        let kinds = [
            ChangeKind::New,
            ChangeKind::Removed,
            ChangeKind::Retitled,
            ChangeKind::UrlChanged,
            ChangeKind::AuthorsChanged,
            ChangeKind::VenueChanged,
            ChangeKind::YearChanged,
        ];
        let counts: Vec<String> = kinds
            .iter()
            .filter(|k| sync.count(**k) > 0)
            .map(|k| format!("{} {}", sync.count(*k), k.as_str()))
            .collect();
        let changes = count(sync.changes.len(), "change", "changes");
        match applied {
            true => format!("applied {changes} ({})", counts.join(", ")),
            false => format!("{changes} ({}); --apply makes them", counts.join(", ")),
        }
    };
    if !sync.kept.is_empty() {
        summary.push_str(&format!(
            "; {} to fields edited in the catalog not applied (see the warnings)",
            count(sync.kept.len(), "change", "changes")
        ));
    }
    if !sync.refused.is_empty() {
        summary.push_str(&format!(
            "; {} refused (see the warnings; list.toml keeps the list before, so that the next sync proposes {} again)",
            count(sync.refused.len(), "change", "changes"),
            if sync.refused.len() == 1 { "it" } else { "them" }
        ));
    }
    summary
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
    let cache_dir = locations.metadata_dir();
    // The import merges what the snapshot says of catalog entries into
    // metadata.json: the catalog's lock is held from reading it to writing
    // it, taken before the index's as every writer does.
    let _lock = match &cache_dir {
        Some(dir) => Some(super::lock_for_writing(dir, err)?),
        None => None,
    };
    let catalog = crate::ready::load_valid_catalog(locations, false)?;
    let mut cache = locations.load_cache()?;
    let dir = IndexDir::new(&locations.index);
    let options = ImportOptions {
        path: path.to_path_buf(),
        categories: args.categories.clone(),
        since: args.since,
        allow_empty: args.allow_empty,
        kept: Some(Box::new(crate::harvest::Store::new(&locations.index))),
    };
    let report = import_snapshot(
        &dir,
        &catalog,
        &mut cache,
        cache_dir.as_deref(),
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
        "imported {} ({} merged into catalog entries, {} filtered out, {} skipped{}) from {} in {:.1} s ({:.0} records/s); index {:.1} MB",
        count(report.indexed as usize, "record", "records"),
        report.merged,
        report.filtered,
        count(report.malformed_count as usize, "malformed line", "malformed lines"),
        match report.duplicates {
            0 => String::new(),
            n => format!(", {} of an id already read (the newest kept)", count(n as usize, "record", "records")),
        },
        count(report.lines as usize, "line", "lines"),
        seconds,
        report.lines as f64 / seconds,
        size as f64 / 1e6
    )
    .map_err(Error::output)?;
    Ok(())
}
