//! `import FILE.md`: merge an awesome list into the catalog folder.

use std::io::{Read, Write};
use std::path::Path;

use crate::catalog::markdown::parse_list;
use crate::catalog::{Catalog, load_dir, merge_import};
use crate::cli::ImportArgs;
use crate::error::Error;
use crate::locations::Locations;

pub fn run(locations: &Locations, args: &ImportArgs, out: &mut dyn Write) -> Result<(), Error> {
    let dir = locations.catalog_dir()?;
    let markdown = read_input(&args.file)?;
    let list = parse_list(&markdown);
    if list.entry_count() == 0 {
        return Err(Error::Usage(format!(
            "{}: no list items with links found; is it an awesome-list Markdown file?",
            args.file.display()
        )));
    }
    // An import may start a catalog from nothing.
    let catalog = if dir.is_dir() {
        load_dir(dir)?.0
    } else {
        Catalog::default()
    };
    let merge = merge_import(dir, &catalog, &list)?;
    let report = &merge.report;
    let io = |e| Error::io("<stdout>", e);
    for (path, entry) in &report.added {
        writeln!(out, "+ {}: {} ({})", path.display(), entry.id, entry.title).map_err(io)?;
    }
    let verb = if args.dry_run { "would add" } else { "added" };
    writeln!(
        out,
        "{verb} {} entries ({} new section files); {} already in the catalog, unchanged",
        report.added.len(),
        report.new_files.len(),
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
