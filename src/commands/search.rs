//! `search` and `similar`: ranked hits in the chosen format.

use std::io::Write;

use super::ready_index;
use crate::catalog::{Catalog, squash};
use crate::cli::{FilterArgs, Format, SearchArgs, SimilarArgs};
use crate::diagnostic;
use crate::error::Error;
use crate::index::OpenIndex;
use crate::locations::Locations;
use crate::render::{Style, bibtex, json, table};
use crate::search::{
    Boosts, Expansion, Filter, Hit, Origin, SearchOutcome, SearchRequest, search, similar,
};

/// Returns whether anything was found.
pub fn run(
    locations: &Locations,
    args: &SearchArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let (catalog, open) = ready_index(locations, err)?;
    let query = args.query.join(" ");
    let filters = filters(&args.filters);
    // Filter flags alone list their matches, as filters alone in a query do.
    if query.trim().is_empty() && filters.is_empty() {
        return Err(Error::Query("the query has no words to search for".into()));
    }
    let request = SearchRequest {
        query: &query,
        filters,
        limit: args.output.limit,
        explain: args.explain,
        exhaustive: args.exhaustive,
    };
    let outcome = search_catalog(locations, &catalog, &open, &request)?;
    let format = args.output.format();
    report_rewrites(&outcome, args.explain, format, err);
    print_hits(&outcome.hits, format, style, out)?;
    if outcome.hits.is_empty() && format == Format::Table {
        diagnostic::line(
            err,
            format_args!("no results for {query:?}: try fewer words, or a technique's common name"),
        );
    } else if format == Format::Table && outcome.more {
        let shown = outcome.hits.len();
        diagnostic::line(
            err,
            format_args!(
                "{}",
                style.dim(&format!(
                    "{shown} result{} shown; more with --limit {}",
                    if shown == 1 { "" } else { "s" },
                    shown * 2
                ))
            ),
        );
    }
    Ok(!outcome.hits.is_empty())
}

pub fn run_similar(
    locations: &Locations,
    args: &SimilarArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let (_, open) = ready_index(locations, err)?;
    let hits = similar(&open, &args.id, args.output.limit)?;
    let format = args.output.format();
    print_hits(&hits, format, style, out)?;
    Ok(!hits.is_empty())
}

/// Runs `request` with the catalog's sections and the ranking weights of
/// its folder (shared by `search` and `list`).
pub fn search_catalog(
    locations: &Locations,
    catalog: &Catalog,
    open: &OpenIndex,
    request: &SearchRequest<'_>,
) -> Result<SearchOutcome, Error> {
    let boosts = Boosts::load(locations.catalog_dir().ok())?;
    search(
        open,
        &catalog.vocabulary,
        &catalog.section_names(),
        request,
        boosts,
    )
}

/// The filter flags, typed; each remembers its flag for error messages.
pub fn filters(args: &FilterArgs) -> Vec<(Filter, Origin)> {
    let text = |value: &str| value.trim().to_string();
    let mut filters: Vec<(Filter, Origin)> = args
        .tag
        .iter()
        .map(|t| (Filter::Tag(text(t)), Origin::Flag("--tag")))
        .collect();
    let flagged = [
        (
            args.section.as_deref().map(|v| Filter::Section(text(v))),
            "--section",
        ),
        (args.year.map(Filter::Year), "--year"),
        (
            args.venue.as_deref().map(|v| Filter::Venue(text(v))),
            "--venue",
        ),
        (
            args.author.as_deref().map(|v| Filter::Author(text(v))),
            "--author",
        ),
        (
            args.collection.only().map(Filter::Collection),
            "--collection",
        ),
        (args.kind.map(Filter::Kind), "--kind"),
    ];
    filters.extend(
        flagged
            .into_iter()
            .filter_map(|(filter, flag)| Some((filter?, Origin::Flag(flag)))),
    );
    filters
}

/// Corrections and expansions go to stderr, so that stdout stays data.
fn report_rewrites(outcome: &SearchOutcome, explain: bool, format: Format, err: &mut dyn Write) {
    let rewrites = &outcome.rewrites;
    for note in &outcome.notes {
        diagnostic::note(err, note);
    }
    if !rewrites.corrections.is_empty() {
        let fixes: Vec<String> = rewrites
            .corrections
            .iter()
            .map(|(from, to)| format!("{to} (not {from})"))
            .collect();
        diagnostic::line(err, format_args!("searched for {}", fixes.join(", ")));
    }
    if explain {
        diagnostic::line(err, format_args!("query: {}", outcome.parsed));
        diagnostic::line(err, format_args!("ranking: {}", outcome.ranking));
        for Expansion { span, tag, others } in &rewrites.expansions {
            diagnostic::line(
                err,
                format_args!(
                    "expanded {span:?} to tag {tag} and {}",
                    if others.is_empty() {
                        "no other names".to_string()
                    } else {
                        others.join(", ")
                    }
                ),
            );
        }
        if !rewrites.ignored.is_empty() {
            diagnostic::line(
                err,
                format_args!(
                    "ignored (no searchable words): {}",
                    rewrites.ignored.join(", ")
                ),
            );
        }
    } else if format == Format::Table && !rewrites.expansions.is_empty() {
        let names: Vec<String> = rewrites
            .expansions
            .iter()
            .map(|Expansion { span, tag, others }| {
                // "quantization → quantization" would say nothing.
                if squash(span) == squash(tag) && !others.is_empty() {
                    format!("{span} → {}", shortlist(others))
                } else {
                    format!("{span} → {tag}")
                }
            })
            .collect();
        diagnostic::line(
            err,
            format_args!("including synonyms: {}", names.join(", ")),
        );
    }
}

/// The first few names, and how many more.
fn shortlist(names: &[String]) -> String {
    const SHOWN: usize = 3;
    let first = names[..names.len().min(SHOWN)].join(", ");
    match names.len().saturating_sub(SHOWN) {
        0 => first,
        more => format!("{first} and {more} more"),
    }
}

fn print_hits(
    hits: &[Hit],
    format: Format,
    style: Style,
    out: &mut dyn Write,
) -> Result<(), Error> {
    for (i, hit) in hits.iter().enumerate() {
        let text = match format {
            Format::Table => {
                let mut block = table::hit_block(hit, &style);
                if let Some(explanation) = &hit.explanation {
                    for line in explanation.lines() {
                        block.push_str(&format!("      {}\n", style.dim(line)));
                    }
                }
                if i + 1 < hits.len() {
                    block.push('\n');
                }
                block
            }
            Format::Json => format!("{}\n", json::hit_line(hit)),
            Format::Bibtex => format!(
                "{}{}",
                if i > 0 { "\n" } else { "" },
                bibtex::entry(&hit.record)
            ),
        };
        out.write_all(text.as_bytes()).map_err(Error::output)?;
    }
    Ok(())
}
