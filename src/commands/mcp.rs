//! `mcp`: search, show, similar, list and inbox as the tools of a Model
//! Context Protocol server on standard input and output, for agents. Each
//! tool takes its command's flags as arguments, runs the command's own
//! code and answers what `--json` prints: `show`'s object, or the other
//! commands' lines as an array in an object. Nothing is written but the
//! index, built when missing or stale as every search does.

use std::io::Write;

use serde_json::{Value, json};

use super::{inbox, list, search, show};
use crate::error::Error;
use crate::locations::Locations;
use crate::mcp::inputs::{InboxInput, ListInput, SearchInput, ShowInput, SimilarInput};
use crate::mcp::{Tool, serve};
use crate::render::json::{candidate_value, hit_value, record_value};
use crate::render::notes::corrections_line;

const INSTRUCTIONS: &str = "A search engine over a curated catalog of the literature of \
distributed machine learning (parallelism, memory, communication, serving) and imported \
arXiv records. search finds works by words, techniques and filters; show gives one whole; \
similar the works most like one; list the catalog's entries; inbox the arXiv records that \
belong in the catalog. Arguments are the command line's flags; answers are its --json.";

pub fn run(locations: &Locations, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Error> {
    serve(tools(locations), INSTRUCTIONS, out, err)
}

fn tools(locations: &Locations) -> Vec<Tool> {
    vec![
        Tool::new(
            "search",
            "Papers and projects best first, as `distml-search search --json`: a query \
             (words, phrases, AND/OR/NOT, field:value filters) and/or filter flags. \
             `notes` says how the query was repaired; `more`, whether more matched.",
            answer_schema("hits", &["more", "notes"]),
            at(locations, search_tool),
        ),
        Tool::new(
            "show",
            "One entry whole (abstract, authors, tags, where each field came from), as \
             `distml-search show --json`; also an imported record by arxiv:ID.",
            json!({ "type": "object" }),
            at(locations, show_tool),
        ),
        Tool::new(
            "similar",
            "The works most like one (itself excluded), as `distml-search similar --json`.",
            answer_schema("hits", &[]),
            at(locations, similar_tool),
        ),
        Tool::new(
            "list",
            "Catalog entries in the list's order, optionally filtered, as \
             `distml-search list --json`.",
            answer_schema("entries", &[]),
            at(locations, list_tool),
        ),
        Tool::new(
            "inbox",
            "arXiv records not in the catalog, best candidates for it first, each with a \
             proposed section, tags and why, as `distml-search inbox --json`; `total` \
             counts every candidate.",
            answer_schema("candidates", &["total"]),
            at(locations, inbox_tool),
        ),
    ]
}

/// `work` on the catalog and index at `locations`.
fn at<I: 'static>(
    locations: &Locations,
    work: fn(&Locations, I, &mut dyn Write) -> Result<Value, Error>,
) -> impl Fn(I, &mut dyn Write) -> Result<Value, Error> + Send + Sync + 'static {
    let locations = locations.clone();
    move |input, err| work(&locations, input, err)
}

/// `{"<list>": [objects...], ...}`: what a tool answers besides its list.
fn answer_schema(list: &str, others: &[&str]) -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        list.into(),
        json!({ "type": "array", "items": { "type": "object" } }),
    );
    for other in others {
        let schema = match *other {
            "more" => json!({ "type": "boolean" }),
            "notes" => json!({ "type": "array", "items": { "type": "string" } }),
            _ => json!({ "type": "integer" }),
        };
        properties.insert(other.to_string(), schema);
    }
    let mut required = vec![list];
    required.extend(others);
    json!({ "type": "object", "properties": properties, "required": required })
}

fn search_tool(
    locations: &Locations,
    input: SearchInput,
    err: &mut dyn Write,
) -> Result<Value, Error> {
    let args = input.into_args()?;
    let query = args.query.join(" ");
    let request = search::request(&query, &args)?;
    let (_, _, outcome) = search::searched(locations, &request, err)?;
    // What the command says on standard error beside its JSON.
    let mut notes = outcome.notes.clone();
    notes.extend(corrections_line(&outcome.rewrites));
    let hits: Vec<Value> = outcome.hits.iter().map(hit_value).collect();
    Ok(json!({ "hits": hits, "more": outcome.more, "notes": notes }))
}

fn show_tool(locations: &Locations, input: ShowInput, _: &mut dyn Write) -> Result<Value, Error> {
    show::json_of(locations, &input.id)
}

fn similar_tool(
    locations: &Locations,
    input: SimilarInput,
    err: &mut dyn Write,
) -> Result<Value, Error> {
    let hits = search::similar_hits(locations, &input.into_args()?, err)?;
    let hits: Vec<Value> = hits.iter().map(hit_value).collect();
    Ok(json!({ "hits": hits }))
}

fn list_tool(locations: &Locations, input: ListInput, err: &mut dyn Write) -> Result<Value, Error> {
    let records = list::records(locations, &input.into_args()?, err)?;
    let entries: Vec<Value> = records.iter().map(record_value).collect();
    Ok(json!({ "entries": entries }))
}

fn inbox_tool(
    locations: &Locations,
    input: InboxInput,
    err: &mut dyn Write,
) -> Result<Value, Error> {
    let (found, total, _) = inbox::candidates(locations, &input.into_args()?, err)?;
    let candidates: Vec<Value> = (found.iter().enumerate())
        .map(|(i, c)| candidate_value(i + 1, c))
        .collect();
    Ok(json!({ "candidates": candidates, "total": total }))
}
