//! `list`: catalog entries in list order, optionally filtered.

use std::io::Write;

use super::search::{filters, search_catalog};
use crate::cli::{CollectionArg, Format, ListArgs};
use crate::error::Error;
use crate::inert::{inert, inert_json};
use crate::locations::Locations;
use crate::model::{Collection, Record};
use crate::ready::read_healing;
use crate::render::Style;
use crate::render::json::record_value;
use crate::render::table::byline;
use crate::search::{Filter, Mode, Origin, SearchRequest};

/// Returns whether any entry was listed.
pub fn run(
    locations: &Locations,
    args: &ListArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let records = records(locations, args, err)?;
    let format = args.output.format();
    let text = match format.citations() {
        Some(citations) => citations.of(&records),
        None if format == Format::Json => records
            .iter()
            .map(|r| format!("{}\n", inert_json(record_value(r).to_string())))
            .collect(),
        None => table_lines(&records, &style),
    };
    out.write_all(text.as_bytes()).map_err(Error::output)?;
    Ok(!records.is_empty())
}

/// The catalog entries `args` ask for, in list order.
pub fn records(
    locations: &Locations,
    args: &ListArgs,
    err: &mut dyn Write,
) -> Result<Vec<Record>, Error> {
    if args.filters.collection == CollectionArg::Arxiv {
        return Err(Error::Usage(
            "list shows catalog entries; find imported records with `search --collection arxiv`"
                .into(),
        ));
    }
    let mut filters = filters(&args.filters);
    filters.push((
        Filter::Collection(Collection::Catalog),
        Origin::Flag("--collection"),
    ));
    let (catalog, open, outcome) = read_healing(locations, err, |catalog, open| {
        let request = SearchRequest {
            query: "",
            filters: filters.clone(),
            limit: catalog.entries.len().max(1),
            explain: None,
            exhaustive: false,
            mode: Mode::Keyword,
        };
        search_catalog(locations, catalog, open, &request)
    })?;
    // List order: sections as in the list, entries as in their file.
    let positions: std::collections::HashMap<&str, usize> = (catalog.in_list_order().iter())
        .enumerate()
        .map(|(position, e)| (e.id.as_str(), position))
        .collect();
    let order = |id: &str| positions.get(id).copied().unwrap_or(usize::MAX);
    let mut records: Vec<_> = outcome.hits.into_iter().map(|h| h.record).collect();
    records.sort_by_key(|r| order(&r.id));
    records.truncate(args.output.limit_or(records.len()));
    drop(positions);
    super::left_at_exit((catalog, open));
    Ok(records)
}

/// Two lines an entry, id and title, then the byline under the title, all
/// within the width. The id column fits the longest id of up to a third of
/// the width; a longer id takes a line of its own.
fn table_lines(records: &[Record], style: &Style) -> String {
    const GAP: usize = 2;
    let fits = style.width / 3;
    let column = records
        .iter()
        .map(|r| r.id.chars().count())
        .filter(|&n| n <= fits)
        .max()
        .unwrap_or(GAP)
        + GAP;
    let room = style.width.saturating_sub(column);
    let mut text = String::new();
    for r in records {
        let id_len = r.id.chars().count();
        let id = style.bold(&inert(&r.id));
        if id_len + GAP > column {
            text.push_str(&format!("{id}\n{:column$}", ""));
        } else {
            text.push_str(&format!("{id}{:pad$}", "", pad = column - id_len));
        }
        text.push_str(&format!(
            "{}\n{:column$}{}\n",
            style.fit(&inert(&r.title), room),
            "",
            style.dim(&style.fit(&byline(r), room))
        ));
    }
    text
}
