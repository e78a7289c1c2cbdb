//! `show ID`: one entry whole, with the source of every field.

use std::io::Write;

use crate::catalog::Entry;
use crate::cli::{Format, ShowArgs};
use crate::error::Error;
use crate::index::{Fields, IndexDir};
use crate::inert::{inert, inert_json};
use crate::locations::Locations;
use crate::model::Record;
use crate::model::metadata::{CachedEntry, Candidate, FoundBy, Identifier};
use crate::named::{Shown, find};
use crate::ready::load_valid_catalog;
use crate::render::Style;
use crate::render::json::shown_value;
use crate::render::text::{wrap, wrap_words};

pub fn run(
    locations: &Locations,
    args: &ShowArgs,
    style: Style,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let format = args.format();
    if format == Format::Json {
        let text = inert_json(format!("{:#}\n", json_of(locations, &args.id)?));
        return out.write_all(text.as_bytes()).map_err(Error::output);
    }
    let catalog = load_valid_catalog(locations, false)?;
    let cache = locations.load_cache()?;
    let shown = find(&catalog, &cache, &args.id, |id| indexed(locations, id))?;
    let text = match (&shown, format.citations()) {
        (shown, Some(citations)) => citations.of([shown.record()]),
        (Shown::Entry(entry, record, cached), None) => text_view(entry, record, *cached, &style),
        (Shown::Imported(record), None) => imported_view(record, &style),
    };
    out.write_all(text.as_bytes()).map_err(Error::output)
}

/// `show --json`'s object for the work `id` names.
pub fn json_of(locations: &Locations, id: &str) -> Result<serde_json::Value, Error> {
    let catalog = load_valid_catalog(locations, false)?;
    let cache = locations.load_cache()?;
    let shown = find(&catalog, &cache, id, |id| indexed(locations, id))?;
    Ok(shown_value(&shown))
}

/// A record as the index holds it (of an imported collection, or a catalog
/// entry's predicted tags).
fn indexed(locations: &Locations, id: &str) -> Result<Option<Record>, Error> {
    let Some(open) = IndexDir::new(&locations.index).open()? else {
        return Ok(None);
    };
    let fields = Fields::from_schema(&open.index.schema())?;
    Ok(open
        .document(id)?
        .map(|doc| Record::from_document(&doc, &fields)))
}

fn imported_view(r: &Record, style: &Style) -> String {
    let mut out = format!("{}\n", style.bold(&inert(&r.title)));
    let year = r.year.map(|y| y.to_string()).unwrap_or_default();
    for (label, value) in [
        ("id", r.id.clone()),
        ("imported", format!("{} collection", r.collection)),
        ("category", r.section.clone()),
        ("authors", r.authors.join(", ")),
        ("venue", r.venue.clone().unwrap_or_default()),
        ("year", year),
        ("url", r.url.clone()),
        ("doi", r.doi.clone().unwrap_or_default()),
    ] {
        out.push_str(&field_line(label, &value, "", style));
    }
    let (tags, source) = predicted_tags(r);
    out.push_str(&field_line("predicted", &tags, &source, style));
    if let Some(text) = &r.abstract_text {
        out.push_str(&format!("\n  abstract{}\n", style.dim(" (from arxiv)")));
        for l in wrap(&inert(text), style.prose_width(), "  ") {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

/// The predicted tags with their confidences, and that they are predicted.
fn predicted_tags(r: &Record) -> (String, String) {
    let tags: Vec<String> = r
        .predicted
        .iter()
        .map(|p| format!("{} {:.2}", p.tag, p.confidence))
        .collect();
    (tags.join(", "), PREDICTED_SOURCE.to_string())
}

const PREDICTED_SOURCE: &str = "predicted from the catalog, not curated";

/// `  label     value  (source)`, wrapped to the width under the value (tags
/// and notes run long); nothing when the value is empty.
fn field_line(label: &str, value: &str, source: &str, style: &Style) -> String {
    if value.is_empty() {
        return String::new();
    }
    const VALUE_COLUMN: usize = 12;
    let mut words: Vec<(String, bool)> = inert(value)
        .split(' ')
        .map(|w| (w.to_string(), false))
        .collect();
    if !source.is_empty() {
        // Two spaces before the source, as one word starting with a space.
        let mut source = inert(source)
            .split(' ')
            .map(str::to_string)
            .collect::<Vec<_>>();
        source[0] = format!(" ({}", source[0]);
        if let Some(last) = source.last_mut() {
            last.push(')');
        }
        words.extend(source.into_iter().map(|w| (w, true)));
    }
    let paint = |w: &str, dim: bool| if dim { style.dim(w) } else { w.to_string() };
    let indent = " ".repeat(VALUE_COLUMN);
    let lines = wrap_words(&words, style.prose_width(), VALUE_COLUMN, &indent, &paint);
    format!("  {label:<9} {}\n", lines.join("\n"))
}

fn provenance(id: Option<&Identifier>, in_catalog: bool) -> String {
    if in_catalog {
        return "from the url".into();
    }
    match id {
        Some(Identifier {
            found_by: FoundBy::TitleSearch,
            source,
            confidence,
            ..
        }) => format!(
            "found by title search on {}{}",
            source.map_or("?", |s| s.as_str()),
            confidence
                .map(|c| format!(", similarity {c:.2}"))
                .unwrap_or_default()
        ),
        Some(Identifier {
            found_by: FoundBy::Record,
            source,
            ..
        }) => format!("given by {}", source.map_or("?", |s| s.as_str())),
        Some(Identifier {
            found_by: FoundBy::Url,
            ..
        }) => "from the url".into(),
        None => String::new(),
    }
}

fn text_view(entry: &Entry, r: &Record, cached: Option<&CachedEntry>, style: &Style) -> String {
    let mut out = format!("{}\n", style.bold(&inert(&r.title)));
    let mut line = |label: &str, value: String, source: String| {
        out.push_str(&field_line(label, &value, &source, style));
    };
    let catalog_source = format!("catalog: {}", entry.origin.entry);
    line("id", r.id.clone(), String::new());
    line("kind", r.kind.to_string(), String::new());
    line("section", r.section.clone(), String::new());
    let authors_source = match cached.and_then(|c| c.authors.as_ref()) {
        Some(a) if !a.value.is_empty() => format!("from {}", a.source.as_str()),
        _ => "as the list gives them".into(),
    };
    let mut authors = r.authors.join(", ");
    if entry.et_al && cached.and_then(|c| c.authors.as_ref()).is_none() {
        authors.push_str(" et al.");
    }
    line("authors", authors, authors_source);
    line("venue", r.venue.clone().unwrap_or_default(), String::new());
    line(
        "year",
        r.year.map(|y| y.to_string()).unwrap_or_default(),
        String::new(),
    );
    if let Some(published) = cached.and_then(|c| c.published.as_ref()) {
        line(
            "published",
            published.value.clone(),
            format!("from {}", published.source.as_str()),
        );
    }
    line("url", r.url.clone(), String::new());
    line(
        "arxiv",
        r.arxiv.clone().unwrap_or_default(),
        provenance(cached.and_then(|c| c.arxiv.as_ref()), entry.arxiv.is_some()),
    );
    line(
        "doi",
        r.doi.clone().unwrap_or_default(),
        provenance(cached.and_then(|c| c.doi.as_ref()), entry.doi.is_some()),
    );
    line("tags", r.tags.join(", "), String::new());
    if !r.uses.is_empty() {
        line("uses", r.uses.join(", "), String::new());
    }
    if let Some(project) = &entry.project {
        line("project", project.clone(), String::new());
    }
    let (tags, source) = predicted_tags(r);
    line("predicted", tags, source);
    line("note", r.note.clone(), String::new());
    line("defined", catalog_source, String::new());
    for candidate in cached.iter().flat_map(|c| &c.candidates) {
        let (value, source) = candidate_line(candidate);
        line("candidate", value, source);
    }
    out.push_str(&abstract_block(r, style));
    out
}

/// A title search's result that was not sure enough to accept, and why.
fn candidate_line(candidate: &Candidate) -> (String, String) {
    let id = candidate
        .arxiv
        .clone()
        .or(candidate.doi.clone())
        .unwrap_or_default();
    let source = format!(
        "{}, similarity {:.2}: {}",
        candidate.source.as_str(),
        candidate.confidence,
        candidate.reason
    );
    (format!("{} ({id})", candidate.title), source)
}

/// The abstract, wrapped, with where it came from; or how to get one.
fn abstract_block(r: &Record, style: &Style) -> String {
    let Some(text) = &r.abstract_text else {
        return format!(
            "\n  {}\n",
            style.dim("no abstract cached yet: run `distml-search index` with network access")
        );
    };
    let source = r
        .abstract_source
        .map(|s| format!(" (from {s})"))
        .unwrap_or_default();
    let mut out = format!("\n  abstract{}\n", style.dim(&source));
    for l in wrap(&inert(text), style.prose_width(), "  ") {
        out.push_str(&l);
        out.push('\n');
    }
    out
}
