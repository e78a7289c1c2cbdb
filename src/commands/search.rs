//! `search` and `similar`: ranked hits in the chosen format.

use std::io::Write;

use crate::catalog::{Catalog, squash};
use crate::cli::{FilterArgs, Format, MAX_LIMIT, SearchArgs, SimilarArgs};
use crate::diagnostic;
use crate::error::Error;
use crate::index::OpenIndex;
use crate::inert::inert;
use crate::locations::Locations;
use crate::named::known_id;
use crate::ready::read_healing;
use crate::render::notes::corrections_line;
use crate::render::text::count;
use crate::render::{Style, json, table};
use crate::search::{
    Boosts, Expansion, Filter, Hit, Origin, SearchOutcome, SearchRequest, search, similar,
};

/// Hits shown when `--limit` is not given.
const DEFAULT_LIMIT: usize = 10;

/// Returns whether anything was found.
pub fn run(
    locations: &Locations,
    args: &SearchArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let query = args.query.join(" ");
    let request = request(&query, args)?;
    let (catalog, open, outcome) = searched(locations, &request, err)?;
    let format = args.output.format();
    report_rewrites(&outcome, args.explain.is_some(), format, err);
    print_hits(&outcome.hits, format, style, out)?;
    if outcome.hits.is_empty() && format == Format::Table {
        let hint = no_results_hint(locations, &catalog, &open, &request)?;
        diagnostic::line(err, hint);
    } else if format == Format::Table && outcome.more {
        let shown = outcome.hits.len();
        let more = match shown * 2 {
            _ if shown >= MAX_LIMIT as usize => "more match than --limit can show".to_string(),
            wanted => format!("more with --limit {}", wanted.min(MAX_LIMIT as usize)),
        };
        diagnostic::painted_line(
            err,
            format_args!(
                "{}",
                style.dim(&format!(
                    "{} shown; {more}",
                    count(shown, "result", "results")
                ))
            ),
        );
    }
    let found = !outcome.hits.is_empty();
    super::left_at_exit((catalog, open, outcome));
    Ok(found)
}

/// The search `args` ask for, of `query` (their words joined).
pub fn request<'q>(query: &'q str, args: &SearchArgs) -> Result<SearchRequest<'q>, Error> {
    let filters = filters(&args.filters);
    // Filter flags alone list their matches, as filters alone in a query do.
    if query.trim().is_empty() && filters.is_empty() {
        return Err(Error::Query("the query has no words to search for".into()));
    }
    Ok(SearchRequest {
        query,
        filters,
        limit: args.output.limit_or(DEFAULT_LIMIT),
        explain: args.explain.map(|style| match style {
            crate::cli::ExplainArg::Readable => crate::search::ExplainStyle::Readable,
            crate::cli::ExplainArg::Raw => crate::search::ExplainStyle::Raw,
        }),
        exhaustive: args.exhaustive,
        mode: args.mode.into(),
    })
}

/// `request` run on the ready index (healed once if found damaged).
pub fn searched(
    locations: &Locations,
    request: &SearchRequest<'_>,
    err: &mut dyn Write,
) -> Result<(Catalog, OpenIndex, SearchOutcome), Error> {
    read_healing(locations, err, |catalog, open| {
        search_catalog(locations, catalog, open, request)
    })
}

pub fn run_similar(
    locations: &Locations,
    args: &SimilarArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let hits = similar_hits(locations, args, err)?;
    print_hits(&hits, args.output.format(), style, out)?;
    Ok(!hits.is_empty())
}

/// The works most like the one `args` name, best first.
pub fn similar_hits(
    locations: &Locations,
    args: &SimilarArgs,
    err: &mut dyn Write,
) -> Result<Vec<Hit>, Error> {
    // Only an identifier needs the cache (for ids that lookups found).
    let cache = if args.id.contains(':') {
        locations.load_cache()?
    } else {
        Default::default()
    };
    let boosts = Boosts::load(locations.catalog_dir().ok())?;
    let (catalog, open, hits) = read_healing(locations, err, |catalog, open| {
        let id = known_id(catalog, &cache, open, &args.id)?;
        similar(
            open,
            &id,
            args.output.limit_or(DEFAULT_LIMIT),
            args.mode.map(Into::into),
            (&boosts, &catalog.vocabulary),
        )
    })?;
    super::left_at_exit((catalog, open));
    Ok(hits)
}

/// Why nothing was found, and what to try: the filters that excluded every
/// match (found by searching again without each), else the words.
fn no_results_hint(
    locations: &Locations,
    catalog: &Catalog,
    open: &OpenIndex,
    request: &SearchRequest<'_>,
) -> Result<String, Error> {
    let query = request.query.trim();
    let finds = |filters: Vec<(Filter, Origin)>| -> Result<bool, Error> {
        let words_or_filters = !query.is_empty() || !filters.is_empty();
        let again = SearchRequest {
            query,
            filters,
            limit: 1,
            explain: None,
            exhaustive: false,
            mode: request.mode,
        };
        Ok(words_or_filters
            && !search_catalog(locations, catalog, open, &again)?
                .hits
                .is_empty())
    };
    let flag = |origin: &Origin| match origin {
        Origin::Flag(flag) => Some(*flag),
        _ => None,
    };
    let mut flags: Vec<&str> = request
        .filters
        .iter()
        .filter_map(|(_, o)| flag(o))
        .collect();
    flags.dedup();
    // Each flag's filters left out in turn (a repeated --tag as one).
    let mut alone = Vec::new();
    for name in &flags {
        let others = request
            .filters
            .iter()
            .filter(|(_, o)| flag(o) != Some(name))
            .cloned()
            .collect();
        if finds(others)? {
            alone.push(*name);
        }
    }
    let subject = if query.is_empty() {
        "no entries match the filters".to_string()
    } else {
        // Quoted with what the query does not hold, so that its own quotes
        // read as typed.
        let quote = if query.contains('"') { '\'' } else { '"' };
        format!("no results for {quote}{}{quote}", inert(query))
    };
    let together = !flags.is_empty() && (query.is_empty() || finds(Vec::new())?);
    Ok(match alone.as_slice() {
        [one] => format!("{subject}: {one} excludes every match; loosen it"),
        [_, ..] => format!(
            "{subject}: {} each exclude every match; loosen one of them",
            alone.join(", ")
        ),
        [] if together && flags.len() == 1 => {
            format!("{subject}: {} excludes every match; loosen it", flags[0])
        }
        [] if together => format!(
            "{subject}: {} together exclude every match; loosen them",
            flags.join(", ")
        ),
        [] if crate::search::a_short_name(query.trim()) => {
            format!("{subject}: no work in the index names it (the catalog lacks it)")
        }
        [] if query.split_whitespace().count() <= 1 => {
            format!("{subject}: check its spelling, or try the technique's common name")
        }
        [] => format!("{subject}: try fewer words, or a technique's common name"),
    })
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
    search(open, catalog, request, boosts)
}

/// The filter flags, typed; each remembers its flag for error messages.
pub fn filters(args: &FilterArgs) -> Vec<(Filter, Origin)> {
    let text = |value: &str| value.trim().to_string();
    let mut filters: Vec<(Filter, Origin)> = args
        .tag
        .iter()
        .map(|t| (Filter::Tag(text(t)), Origin::Flag("--tag")))
        .collect();
    filters.extend((args.about.iter()).map(|t| (Filter::About(text(t)), Origin::Flag("--about"))));
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
    if let Some(line) = corrections_line(rewrites) {
        diagnostic::line(err, line);
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
        for exclusion in &rewrites.exclusions {
            diagnostic::line(err, exclusion);
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
    if format == Format::Table {
        for tag in &rewrites.unheld {
            diagnostic::note(
                err,
                format_args!("no work in the index is about {tag}; these only share its words"),
            );
        }
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
    if let Some(citations) = format.citations() {
        let text = citations.of(hits.iter().map(|hit| &hit.record));
        return out.write_all(text.as_bytes()).map_err(Error::output);
    }
    for (i, hit) in hits.iter().enumerate() {
        let text = if format == Format::Json {
            format!("{}\n", json::hit_line(hit))
        } else {
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
        };
        out.write_all(text.as_bytes()).map_err(Error::output)?;
    }
    Ok(())
}
