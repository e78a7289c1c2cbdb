//! `check`: every problem of the catalog, or a one-screen summary of it;
//! `check --online`: also the problems found on the network (`health`).

use std::collections::BTreeMap;
use std::io::Write;

use crate::catalog::{Catalog, Entry, Kind, advice, validate};
use crate::cli::CheckArgs;
use crate::clock::current_year;
use crate::diagnostic;
use crate::error::Error;
use crate::health::{
    self,
    apply::{Fix, planned},
};
use crate::ident::arxiv_from_url;
use crate::inert::{inert, inert_json};
use crate::locations::{CatalogSource, Locations};
use crate::model::metadata::{Cache, FoundBy, IdKind, Identifier};
use crate::render::text::count;

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

/// `check --online`: the catalog's problems, then those found on the
/// network; returns whether there are none left (after `--apply`).
pub fn run_online(
    locations: &Locations,
    args: &CheckArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let cache_dir = match &locations.catalog {
        CatalogSource::Dir(dir) => Some(dir.as_path()),
        CatalogSource::BuiltIn if args.apply => {
            return Err(Error::Usage(
                "the built-in catalog is read-only: pass --catalog DIR to apply proposals".into(),
            ));
        }
        CatalogSource::BuiltIn => None,
    };
    let (catalog, mut problems) = locations.load_catalog()?;
    problems.extend(validate(&catalog, current_year()));
    problems.sort();
    problems.dedup();
    for problem in &problems {
        diagnostic::line(err, inert(&problem.to_string()));
    }
    let metadata = locations.load_cache()?;
    let options = health::Options::from_env(args.verbose)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let report = runtime.block_on(health::check_online(
        &catalog, &metadata, cache_dir, &options,
    ))?;
    for line in &report.log {
        diagnostic::line(err, inert(line));
    }
    for warning in &report.warnings {
        diagnostic::warning(err, inert(warning));
    }
    let mut applied = vec![false; report.findings.len()];
    if args.apply
        && let Some(dir) = cache_dir
    {
        applied = apply_fixes(locations, dir, &report.findings, err)?;
    }
    print_findings(&report.findings, args.json, out).map_err(Error::output)?;
    diagnostic::line(
        err,
        format_args!(
            "online: {} ({} from the cache), {} ({} from the cache), {} requests",
            count(report.links, "link", "links"),
            report.links_cached,
            count(report.papers, "arXiv paper", "arXiv papers"),
            report.papers_cached,
            report.requests
        ),
    );
    let left: Vec<&health::Finding> = report
        .findings
        .iter()
        .zip(&applied)
        .filter(|(_, done)| !**done)
        .map(|(f, _)| f)
        .filter(|f| !f.is_advice())
        .collect();
    let advice = report.findings.iter().filter(|f| f.is_advice()).count();
    if advice > 0 {
        diagnostic::warning(
            err,
            format_args!(
                "{} not as arXiv gives {} (advice: the check still passes)",
                count(advice, "title", "titles"),
                if advice == 1 { "it" } else { "them" }
            ),
        );
    }
    let name = locations.describe_catalog();
    if !problems.is_empty() {
        diagnostic::error(
            err,
            format_args!("{} in {name}", count(problems.len(), "problem", "problems")),
        );
    }
    if !left.is_empty() {
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for finding in &left {
            *kinds.entry(finding.problem).or_default() += 1;
        }
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let proposals = left.iter().filter(|f| f.fix.is_some()).count();
        let hint = if proposals > 0 && !args.apply {
            format!(
                "; `check --online --apply` writes {}",
                count(proposals, "proposal", "proposals")
            )
        } else {
            String::new()
        };
        diagnostic::error(
            err,
            format_args!(
                "{} found online in {name} ({}){hint}",
                count(left.len(), "problem", "problems"),
                kinds.join(", ")
            ),
        );
    } else if problems.is_empty() && !args.json {
        writeln!(out, "{name}: ok online").map_err(Error::output)?;
    }
    Ok(problems.is_empty() && left.is_empty())
}

/// Writes the fixes of `findings` into the catalog folder `dir`; which
/// were applied. The catalog and its cache are read again under the
/// catalog's lock (the network check took a while, without it), so that a
/// writer that ran meanwhile keeps its changes.
fn apply_fixes(
    locations: &Locations,
    dir: &std::path::Path,
    findings: &[health::Finding],
    err: &mut dyn Write,
) -> Result<Vec<bool>, Error> {
    if findings.iter().all(|f| f.fix.is_none()) {
        return Ok(vec![false; findings.len()]);
    }
    let _lock = super::lock_for_writing(dir, err)?;
    let (catalog, _) = locations.load_catalog()?;
    let mut metadata = locations.load_cache()?;
    let metadata = &mut metadata;
    let cache_dir = Some(dir);
    let fixes: Vec<(&Entry, Fix)> = findings
        .iter()
        .filter_map(|f| Some((catalog.entry(&f.id)?, f.fix.clone()?)))
        .collect();
    if fixes.is_empty() {
        return Ok(vec![false; findings.len()]);
    }
    let mut writes = planned(dir, &fixes)?;
    // A published version's url no longer carries the arXiv id: keep it.
    let mut kept = false;
    for (entry, fix) in &fixes {
        if let Fix::Published { doi: Some(_), .. } = fix
            && let Some(id) = entry.arxiv.clone().or_else(|| arxiv_from_url(&entry.url))
        {
            let cached = metadata.entries.entry(entry.id.clone()).or_default();
            if cached.arxiv.is_none() {
                cached.identify(
                    IdKind::Arxiv,
                    Identifier {
                        value: id,
                        found_by: FoundBy::Url,
                        source: None,
                        confidence: None,
                    },
                );
                kept = true;
            }
        }
    }
    if kept && let Some(dir) = cache_dir {
        writes.push((Cache::path(dir), metadata.to_json()));
    }
    // The section files and metadata.json at once: a full disk fails
    // before any of them changes.
    crate::fsutil::write_all_atomic(&writes)?;
    let mut files: Vec<String> = fixes
        .iter()
        .map(|(e, _)| e.origin.entry.file.display().to_string())
        .collect();
    files.sort();
    files.dedup();
    diagnostic::note(
        err,
        inert(&format!(
            "applied {} to {}",
            count(fixes.len(), "proposal", "proposals"),
            files.join(", ")
        )),
    );
    Ok(findings
        .iter()
        .map(|f| f.fix.is_some() && catalog.entry(&f.id).is_some())
        .collect())
}

/// JSON Lines, or for each problem its line and, indented, what to do.
fn print_findings(
    findings: &[health::Finding],
    json: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for finding in findings {
        if json {
            let line = serde_json::to_string(finding).map_err(std::io::Error::other)?;
            let line = inert_json(line);
            writeln!(out, "{line}")?;
            continue;
        }
        let head = format!("{}: {}: {}", finding.id, finding.problem, finding.url);
        writeln!(out, "{}", inert(&head))?;
        writeln!(out, "  {}", inert(&finding.detail))?;
        if let Some(suggestion) = &finding.suggestion {
            writeln!(out, "  suggestion: {}", inert(suggestion))?;
        }
    }
    Ok(())
}

fn summary(catalog: &Catalog, name: &str, out: &mut dyn Write) -> std::io::Result<()> {
    let papers = catalog
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Paper)
        .count();
    // The catalog's names, made inert: `check` accepts a catalog that it
    // only warns of (a control character in a section's name).
    writeln!(
        out,
        "{}: ok: {} ({}, {}) in {}, {}",
        inert(name),
        count(catalog.entries.len(), "entry", "entries"),
        count(papers, "paper", "papers"),
        count(catalog.entries.len() - papers, "project", "projects"),
        count(catalog.sections.len(), "section", "sections"),
        count(catalog.vocabulary.tags.len(), "tag", "tags")
    )?;
    writeln!(out)?;
    for (section, entries) in catalog.sections_with_entries() {
        writeln!(out, "  {:<34} {:>3}", inert(&section.name), entries.len())?;
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
    writeln!(out, "  most used primary tags: {}", inert(&top.join(", ")))?;
    // A tag only some work uses is still in use.
    let used: std::collections::HashSet<&str> = catalog
        .entries
        .iter()
        .flat_map(|e| &e.uses)
        .map(String::as_str)
        .collect();
    // So is a tag that only gathers narrower ones (a query of its names
    // finds their works).
    let unused: Vec<&str> = ranked
        .iter()
        .filter(|(t, n)| *n == 0 && !used.contains(t))
        .filter(|(t, _)| catalog.vocabulary.narrower(t).next().is_none())
        .map(|(t, _)| *t)
        .collect();
    if !unused.is_empty() {
        writeln!(out, "  unused tags: {}", inert(&unused.join(", ")))?;
    }
    Ok(())
}
