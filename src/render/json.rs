//! JSON Lines: one object per hit, best first, with the fields that
//! `DESIGN.md` promises to other tools.

use serde_json::{Value, json};

use crate::model::Record;
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
    crate::render::text::inert_json(hit_value(hit).to_string())
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
