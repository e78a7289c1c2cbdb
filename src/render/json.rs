//! The JSON objects of `--json` (a hit, an entry shown whole, an inbox
//! candidate), with the fields that `DESIGN.md` promises to other tools;
//! the web API and the MCP tools answer the same objects.

use serde_json::{Value, json};

use crate::catalog::Entry;
use crate::inbox::Candidate;
use crate::model::Record;
use crate::model::metadata::CachedEntry;
use crate::named::Shown;
use crate::search::{Hit, Snippet};

pub fn record_value(r: &Record) -> Value {
    json!({
        "collection": r.collection,
        "id": r.id,
        "kind": r.kind,
        "title": r.title,
        "authors": r.authors,
        // The authors are the first ones only, the rest unnamed ("et al.").
        "et_al": r.et_al,
        "venue": r.venue,
        "year": r.year,
        "section": r.section,
        "tags": r.tags,
        "uses": r.uses,
        "predicted_tags": r.predicted.iter().map(|p| &p.tag).collect::<Vec<_>>(),
        "url": r.url,
        "arxiv": r.arxiv,
        "doi": r.doi,
        "note": r.note,
    })
}

/// The predicted tags with their confidences (rounded to 3 decimals), for
/// `show --json`.
pub fn predicted_value(r: &Record) -> Value {
    r.predicted
        .iter()
        .map(|p| {
            json!({
                "tag": p.tag,
                "confidence": (f64::from(p.confidence) * 1000.0).round() / 1000.0,
            })
        })
        .collect()
}

fn snippet_value(snippet: Option<&Snippet>) -> Value {
    match snippet {
        Some(s) => Value::String(s.text.clone()),
        None => Value::Null,
    }
}

pub fn hit_line(hit: &Hit) -> String {
    crate::inert::inert_json(hit_value(hit).to_string())
}

/// A hit as `search --json` prints it (and the web API answers it).
pub fn hit_value(hit: &Hit) -> Value {
    let mut value = record_value(&hit.record);
    if let Value::Object(map) = &mut value {
        map.insert("rank".into(), json!(hit.rank));
        map.insert(
            "score".into(),
            json!((f64::from(hit.score) * 1000.0).round() / 1000.0),
        );
        map.insert("snippet".into(), snippet_value(hit.snippet.as_ref()));
        if let Some(s) = &hit.snippet {
            map.insert("snippet_field".into(), json!(s.field.as_str()));
            let ranges: Vec<[usize; 2]> = s.highlights.iter().map(|r| [r.start, r.end]).collect();
            map.insert("highlights".into(), json!(ranges));
        }
        if let Some(cosine) = hit.semantic {
            map.insert(
                "semantic".into(),
                json!((f64::from(cosine) * 1000.0).round() / 1000.0),
            );
        }
        if let Some(e) = &hit.explanation {
            map.insert("explanation".into(), json!(e));
        }
    }
    value
}

/// `show --json`'s object (and the web API's entry, with its BibTeX).
pub fn shown_value(shown: &Shown<'_>) -> Value {
    match shown {
        Shown::Entry(entry, record, cached) => entry_value(entry, record, *cached),
        Shown::Imported(record) => {
            let mut value = record_value(record);
            if let Value::Object(map) = &mut value {
                map.insert("abstract".into(), json!(record.abstract_text));
                map.insert("predicted".into(), predicted_value(record));
            }
            value
        }
    }
}

/// A catalog entry whole: its record, abstract, where it is defined and
/// its cached metadata.
fn entry_value(entry: &Entry, r: &Record, cached: Option<&CachedEntry>) -> Value {
    let mut value = record_value(r);
    if let Value::Object(map) = &mut value {
        map.insert("abstract".into(), json!(r.abstract_text));
        map.insert("abstract_source".into(), json!(r.abstract_source));
        map.insert("predicted".into(), predicted_value(r));
        map.insert("et_al".into(), json!(entry.et_al));
        map.insert("defined_at".into(), json!(entry.origin.entry.to_string()));
        map.insert(
            "metadata".into(),
            serde_json::to_value(cached).unwrap_or_default(),
        );
    }
    value
}

/// An inbox candidate as `inbox --json` prints it (and the web API
/// answers it).
pub fn candidate_value(rank: usize, c: &Candidate) -> Value {
    let r = &c.record;
    json!({
        "rank": rank,
        "arxiv": r.arxiv,
        "title": r.title,
        "authors": r.authors,
        "year": r.year,
        "score": (f64::from(c.score) * 1000.0).round() / 1000.0,
        "section": c.section,
        "tags": c.tags,
        "why": c.why,
        "closest": c.closest.iter().map(|w| json!({
            "id": w.id,
            "title": w.title,
            "similarity": (f64::from(w.similarity) * 1000.0).round() / 1000.0,
        })).collect::<Vec<_>>(),
        "url": r.url,
        "submitted": r.submitted,
        "category": r.section,
    })
}
