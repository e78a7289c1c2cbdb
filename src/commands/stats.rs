//! `stats`: what the catalog holds and how much metadata the cache adds, as
//! text or (`--json`) as one object of the same counts.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{Value, json};

use crate::catalog::{Catalog, Kind};
use crate::cli::StatsArgs;
use crate::error::Error;
use crate::fsutil::dir_size;
use crate::index::IndexDir;
use crate::inert::{inert, inert_json};
use crate::locations::Locations;
use crate::model::Collection;
use crate::model::metadata::Cache;
use crate::ready::load_valid_catalog;
use crate::render::text::count;

/// What the current index holds, without building one.
enum IndexState {
    Missing,
    /// Written by another version; how many imported records it held.
    Incompatible {
        imported: u64,
    },
    Built {
        catalog: u64,
        imported: u64,
        bytes: u64,
        path: String,
    },
}

fn index_state(locations: &Locations) -> Result<IndexState, Error> {
    let Some(open) = IndexDir::new(&locations.index).open()? else {
        return Ok(IndexState::Missing);
    };
    if !open.is_compatible() {
        return Ok(IndexState::Incompatible {
            imported: open.imported_records(),
        });
    }
    Ok(IndexState::Built {
        catalog: open.collection_size(Collection::Catalog),
        imported: open.imported_records(),
        bytes: dir_size(&open.path),
        path: open.path.display().to_string(),
    })
}

/// Every count that `stats` prints, in the order it prints them.
struct Counts {
    entries: usize,
    papers: usize,
    sections: usize,
    tags: usize,
    abstracts: usize,
    full_author_lists: usize,
    arxiv_ids: usize,
    dois: usize,
    index: IndexState,
    /// In list order.
    by_section: Vec<(String, usize)>,
    /// Works about each tag (their primary `tags` hold it), most first,
    /// then by name; with the works that only use it (in `uses` alone).
    by_tag: Vec<(String, usize, usize)>,
    by_year: BTreeMap<i64, usize>,
    /// Most used first, then by name.
    by_venue: Vec<(String, usize)>,
}

fn counts(catalog: &Catalog, cache: &Cache, index: IndexState) -> Counts {
    let papers: Vec<_> = catalog
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Paper)
        .collect();
    let cached = |pick: &dyn Fn(&crate::model::metadata::CachedEntry) -> bool| {
        papers
            .iter()
            .filter(|e| cache.get(&e.id).is_some_and(pick))
            .count()
    };
    let most_used_first = |map: BTreeMap<String, usize>| {
        let mut list: Vec<_> = map.into_iter().collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        list
    };
    let mut tags: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for entry in &catalog.entries {
        for tag in &entry.tags {
            tags.entry(tag.clone()).or_default().0 += 1;
        }
        for tag in entry.uses.iter().filter(|t| !entry.tags.contains(t)) {
            tags.entry(tag.clone()).or_default().1 += 1;
        }
    }
    let mut by_tag: Vec<(String, usize, usize)> = tags
        .into_iter()
        .map(|(t, (about, uses))| (t, about, uses))
        .collect();
    by_tag.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
    let mut by_year = BTreeMap::new();
    let mut venues: BTreeMap<String, usize> = BTreeMap::new();
    for e in &papers {
        if let Some(y) = e.year {
            *by_year.entry(y).or_default() += 1;
        }
        if let Some(v) = &e.venue {
            *venues.entry(v.clone()).or_default() += 1;
        }
    }
    Counts {
        entries: catalog.entries.len(),
        papers: papers.len(),
        sections: catalog.sections.len(),
        tags: catalog.vocabulary.tags.len(),
        abstracts: cached(&|c| c.abstract_text.is_some()),
        full_author_lists: cached(&|c| c.authors.is_some()),
        arxiv_ids: papers
            .iter()
            .filter(|e| e.arxiv.is_some() || cache.get(&e.id).is_some_and(|c| c.arxiv.is_some()))
            .count(),
        dois: papers
            .iter()
            .filter(|e| e.doi.is_some() || cache.get(&e.id).is_some_and(|c| c.doi.is_some()))
            .count(),
        index,
        by_section: catalog
            .sections_with_entries()
            .into_iter()
            .map(|(section, entries)| (section.name.clone(), entries.len()))
            .collect(),
        by_tag,
        by_year,
        by_venue: most_used_first(venues),
    }
}

pub fn run(locations: &Locations, args: &StatsArgs, out: &mut dyn Write) -> Result<(), Error> {
    let catalog = load_valid_catalog(locations, false)?;
    let cache = locations.load_cache()?;
    let counts = counts(&catalog, &cache, index_state(locations)?);
    let text = if args.json {
        inert_json(format!("{:#}\n", json_view(&counts)))
    } else {
        text_view(&counts)
    };
    out.write_all(text.as_bytes()).map_err(Error::output)
}

fn text_view(c: &Counts) -> String {
    let mut text = String::new();
    let mut push = |s: String| {
        text.push_str(&s);
        text.push('\n');
    };
    push(format!(
        "{}: {}, {}, in {}; {}",
        count(c.entries, "entry", "entries"),
        count(c.papers, "paper", "papers"),
        count(c.entries - c.papers, "project", "projects"),
        count(c.sections, "section", "sections"),
        count(c.tags, "tag", "tags"),
    ));
    let percent = (c.abstracts * 100).checked_div(c.papers).unwrap_or(0);
    push(format!(
        "metadata: abstracts {}/{} ({percent}%), full author lists {}, arXiv ids {}, DOIs {}",
        c.abstracts, c.papers, c.full_author_lists, c.arxiv_ids, c.dois
    ));
    push(match &c.index {
        IndexState::Missing => "index: not built yet (the next search builds it)".into(),
        IndexState::Incompatible { imported } => format!(
            "index: written by another version of distml-search (the next search rebuilds it, carrying over its {imported} imported records)"
        ),
        IndexState::Built {
            catalog,
            imported,
            bytes,
            path,
        } => format!(
            "index: catalog {catalog}, imported from arXiv {imported}; {:.1} MB in {}",
            *bytes as f64 / 1e6,
            inert(path)
        ),
    });
    push(String::new());
    push("by section".into());
    for (name, n) in &c.by_section {
        push(format!("  {:<34} {n:>3}", inert(name)));
    }
    push(String::new());
    // What `search --about` selects, and what `--tag` adds to it.
    push("by tag: works about it (primary tags), +works that only use it".into());
    for chunk in c.by_tag.chunks(2) {
        let cells: Vec<String> = chunk
            .iter()
            .map(|(t, n, uses)| {
                let uses = if *uses > 0 {
                    format!("+{uses}")
                } else {
                    String::new()
                };
                format!("  {:<28} {n:>3} {uses:<3}", inert(t))
            })
            .collect();
        push(cells.join("  ").trim_end().to_string());
    }
    push(String::new());
    push("by year".into());
    for (year, n) in &c.by_year {
        push(format!("  {year}  {n:<3} {}", "#".repeat(*n)));
    }
    push(String::new());
    // Names from the catalog: made inert, as on every path to a terminal.
    let top: Vec<String> = (c.by_venue.iter())
        .map(|(v, n)| format!("{} {n}", inert(v)))
        .collect();
    push(format!("by venue: {}", top.join(", ")));
    text
}

/// The fields are listed in docs/searching.md (`stats --json`).
fn json_view(c: &Counts) -> Value {
    let pairs = |list: &[(String, usize)], key: &str| -> Vec<Value> {
        list.iter()
            .map(|(name, n)| json!({ key: name, "entries": n }))
            .collect()
    };
    let index = match &c.index {
        IndexState::Missing => json!({ "state": "missing" }),
        IndexState::Incompatible { imported } => {
            json!({ "state": "incompatible", "imported": imported })
        }
        IndexState::Built {
            catalog,
            imported,
            bytes,
            path,
        } => json!({
            "state": "built", "catalog": catalog, "imported": imported,
            "bytes": bytes, "path": path,
        }),
    };
    json!({
        "entries": c.entries,
        "papers": c.papers,
        "projects": c.entries - c.papers,
        "sections": c.sections,
        "tags": c.tags,
        "metadata": {
            "abstracts": c.abstracts,
            "full_author_lists": c.full_author_lists,
            "arxiv_ids": c.arxiv_ids,
            "dois": c.dois,
        },
        "index": index,
        "by_section": pairs(&c.by_section, "section"),
        "by_tag": c.by_tag.iter().map(|(t, n, uses)| json!({ "tag": t, "entries": n, "uses": uses })).collect::<Vec<_>>(),
        "by_year": c.by_year.iter().map(|(y, n)| json!({ "year": y, "entries": n })).collect::<Vec<_>>(),
        "by_venue": pairs(&c.by_venue, "venue"),
    })
}
