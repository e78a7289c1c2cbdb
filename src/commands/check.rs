//! `check`: every problem of the catalog, or a one-screen summary of it.

use std::collections::BTreeMap;
use std::io::Write;

use crate::catalog::{Catalog, Kind, advice, validate};
use crate::clock::current_year;
use crate::diagnostic;
use crate::error::Error;
use crate::locations::Locations;
use crate::render::text::{count, inert};

/// Returns whether the catalog is free of problems.
pub fn run(locations: &Locations, out: &mut dyn Write, err: &mut dyn Write) -> Result<bool, Error> {
    let (catalog, mut problems) = locations.load_catalog()?;
    problems.extend(validate(&catalog, current_year()));
    problems.sort();
    problems.dedup();
    for advice in advice(&catalog) {
        let (place, message) = (&advice.location, &advice.message);
        diagnostic::line(err, inert(&format!("{place}: warning: {message}")));
    }
    if !problems.is_empty() {
        for problem in &problems {
            // A file name or id may hold escape sequences.
            diagnostic::line(err, inert(&problem.to_string()));
        }
        diagnostic::error(
            err,
            format_args!(
                "{} problem{} in {}",
                problems.len(),
                if problems.len() == 1 { "" } else { "s" },
                locations.describe_catalog()
            ),
        );
        return Ok(false);
    }
    summary(&catalog, &locations.describe_catalog(), out).map_err(Error::output)?;
    Ok(true)
}

fn summary(catalog: &Catalog, name: &str, out: &mut dyn Write) -> std::io::Result<()> {
    let papers = catalog
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Paper)
        .count();
    writeln!(
        out,
        "{name}: ok: {} ({}, {}) in {}, {}",
        count(catalog.entries.len(), "entry", "entries"),
        count(papers, "paper", "papers"),
        count(catalog.entries.len() - papers, "project", "projects"),
        count(catalog.sections.len(), "section", "sections"),
        count(catalog.vocabulary.tags.len(), "tag", "tags")
    )?;
    writeln!(out)?;
    for (section, entries) in catalog.sections_with_entries() {
        writeln!(out, "  {:<34} {:>3}", section.name, entries.len())?;
    }
    let mut uses: BTreeMap<&str, usize> = catalog
        .vocabulary
        .tags
        .iter()
        .map(|t| (t.id.as_str(), 0))
        .collect();
    for tag in catalog.entries.iter().flat_map(|e| &e.tags) {
        *uses.entry(tag).or_default() += 1;
    }
    let mut ranked: Vec<(&str, usize)> = uses.iter().map(|(t, n)| (*t, *n)).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    writeln!(out)?;
    let top: Vec<String> = ranked
        .iter()
        .take(12)
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    writeln!(out, "  most used primary tags: {}", top.join(", "))?;
    // A tag only some work uses is still in use.
    let used: std::collections::HashSet<&str> = catalog
        .entries
        .iter()
        .flat_map(|e| &e.uses)
        .map(String::as_str)
        .collect();
    let unused: Vec<&str> = ranked
        .iter()
        .filter(|(t, n)| *n == 0 && !used.contains(t))
        .map(|(t, _)| *t)
        .collect();
    if !unused.is_empty() {
        writeln!(out, "  unused tags: {}", unused.join(", "))?;
    }
    Ok(())
}
