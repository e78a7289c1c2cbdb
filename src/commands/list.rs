//! `list`: catalog entries in list order, optionally filtered.

use std::io::Write;

use super::ready_index;
use super::search::{filters, search_catalog};
use crate::cli::CollectionArg;
use crate::cli::ListArgs;
use crate::error::Error;
use crate::locations::Locations;
use crate::model::Collection;
use crate::render::Style;
use crate::render::json::record_value;
use crate::render::table::byline;
use crate::render::text::{inert, truncate};
use crate::search::{Filter, Origin, SearchRequest};

/// Returns whether any entry was listed.
pub fn run(
    locations: &Locations,
    args: &ListArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    if args.filters.collection == CollectionArg::Arxiv {
        return Err(Error::Usage(
            "list shows catalog entries; find imported records with `search --collection arxiv`"
                .into(),
        ));
    }
    let (catalog, open) = ready_index(locations, err)?;
    let mut filters = filters(&args.filters);
    filters.push((
        Filter::Collection(Collection::Catalog),
        Origin::Flag("--collection"),
    ));
    let request = SearchRequest {
        query: "",
        filters,
        limit: catalog.entries.len().max(1),
        explain: false,
        exhaustive: false,
    };
    let outcome = search_catalog(locations, &catalog, &open, &request)?;
    // List order: sections as in the list, entries as in their file.
    let order = |id: &str| {
        let position = catalog
            .entries
            .iter()
            .position(|e| e.id == id)
            .unwrap_or(usize::MAX);
        let section = catalog
            .entries
            .get(position)
            .and_then(|e| catalog.sections.iter().find(|s| s.name == e.section))
            .map_or(i64::MAX, |s| s.order);
        (section, position)
    };
    let mut records: Vec<_> = outcome.hits.into_iter().map(|h| h.record).collect();
    records.sort_by_key(|r| order(&r.id));
    for r in &records {
        let line = if args.json {
            record_value(r).to_string()
        } else {
            let id = format!("{:<28}", r.id);
            let room = style.width.saturating_sub(30);
            format!(
                "{} {}\n{:30}{}",
                style.bold(&id),
                truncate(&inert(&r.title), room),
                "",
                style.dim(&truncate(&byline(r), room))
            )
        };
        writeln!(out, "{line}").map_err(Error::output)?;
    }
    Ok(!records.is_empty())
}
