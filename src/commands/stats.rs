//! `stats`: what the catalog holds and how much metadata the cache adds.

use std::collections::BTreeMap;
use std::io::Write;

use super::load_valid_catalog;
use crate::catalog::Kind;
use crate::error::Error;
use crate::fsutil::dir_size;
use crate::index::IndexDir;
use crate::locations::Locations;
use crate::model::Collection;

/// What the current index holds, without building one.
fn index_summary(locations: &Locations) -> Result<String, Error> {
    let Some(open) = IndexDir::new(&locations.index).open()? else {
        return Ok("index: not built yet (the next search builds it)".into());
    };
    if !open.is_compatible() {
        return Ok(format!(
            "index: written by another version of distml-search (the next search rebuilds it from the catalog; {} imported records would need importing again)",
            open.imported_records()
        ));
    }
    Ok(format!(
        "index: catalog {}, imported from arXiv {}; {:.1} MB in {}",
        open.collection_size(Collection::Catalog),
        open.imported_records(),
        dir_size(&open.path) as f64 / 1e6,
        open.path.display()
    ))
}

pub fn run(locations: &Locations, out: &mut dyn Write) -> Result<(), Error> {
    let catalog = load_valid_catalog(locations, false)?;
    let cache = locations.load_cache()?;
    let papers: Vec<_> = catalog
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Paper)
        .collect();
    let mut text = String::new();
    let mut push = |s: String| {
        text.push_str(&s);
        text.push('\n');
    };
    push(format!(
        "{} entries: {} papers, {} projects, in {} sections; {} tags",
        catalog.entries.len(),
        papers.len(),
        catalog.entries.len() - papers.len(),
        catalog.sections.len(),
        catalog.vocabulary.tags.len()
    ));
    let count = |pick: &dyn Fn(&crate::model::metadata::CachedEntry) -> bool| {
        papers
            .iter()
            .filter(|e| cache.get(&e.id).is_some_and(pick))
            .count()
    };
    let with_abstract = count(&|c| c.abstract_text.is_some());
    let with_authors = count(&|c| c.authors.is_some());
    let with_arxiv = papers
        .iter()
        .filter(|e| e.arxiv.is_some() || cache.get(&e.id).is_some_and(|c| c.arxiv.is_some()))
        .count();
    let with_doi = papers
        .iter()
        .filter(|e| e.doi.is_some() || cache.get(&e.id).is_some_and(|c| c.doi.is_some()))
        .count();
    let percent = |n: usize| {
        if papers.is_empty() {
            0
        } else {
            n * 100 / papers.len()
        }
    };
    push(format!(
        "metadata: abstracts {with_abstract}/{} ({}%), full author lists {with_authors}, arXiv ids {with_arxiv}, DOIs {with_doi}",
        papers.len(),
        percent(with_abstract)
    ));
    push(index_summary(locations)?);
    push(String::new());
    push("by section".into());
    for (section, entries) in catalog.sections_with_entries() {
        push(format!("  {:<34} {:>3}", section.name, entries.len()));
    }
    let mut tags: BTreeMap<&str, usize> = BTreeMap::new();
    for tag in catalog.entries.iter().flat_map(|e| &e.tags) {
        *tags.entry(tag).or_default() += 1;
    }
    let mut tags: Vec<_> = tags.into_iter().collect();
    tags.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    push(String::new());
    push("by tag".into());
    for chunk in tags.chunks(2) {
        let cells: Vec<String> = chunk
            .iter()
            .map(|(t, n)| format!("  {t:<30} {n:>3}"))
            .collect();
        push(cells.join("  "));
    }
    let mut years: BTreeMap<i64, usize> = BTreeMap::new();
    let mut venues: BTreeMap<String, usize> = BTreeMap::new();
    for e in &papers {
        if let Some(y) = e.year {
            *years.entry(y).or_default() += 1;
        }
        if let Some(v) = &e.venue {
            *venues.entry(v.clone()).or_default() += 1;
        }
    }
    push(String::new());
    push("by year".into());
    for (year, n) in &years {
        push(format!("  {year}  {:<3} {}", n, "#".repeat(*n)));
    }
    let mut venues: Vec<_> = venues.into_iter().collect();
    venues.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    push(String::new());
    let top: Vec<String> = venues.iter().map(|(v, n)| format!("{v} {n}")).collect();
    push(format!("by venue: {}", top.join(", ")));
    out.write_all(text.as_bytes()).map_err(Error::output)
}
