//! `--explain`: a hit's score as a tree of contributions, one line a node.

use tantivy::query::Query;
use tantivy::{DocAddress, Searcher};

use crate::error::Error;

/// A hit's score as a tree of contributions, one line per node.
pub fn explain(
    query: &dyn Query,
    searcher: &Searcher,
    address: DocAddress,
) -> Result<String, Error> {
    let explanation = query.explain(searcher, address)?;
    let json: serde_json::Value =
        serde_json::from_str(&explanation.to_pretty_json()).unwrap_or_default();
    let mut out = String::new();
    render_explanation(&json, 0, &mut out);
    Ok(out)
}

fn render_explanation(node: &serde_json::Value, depth: usize, out: &mut String) {
    let value = node
        .get("value")
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(0.0);
    let description = node
        .get("description")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    // Deep BM25 internals (idf, tf parts) add little for a reader.
    if depth > 4 || (value == 0.0 && depth > 0) {
        return;
    }
    out.push_str(&format!("{}{value:.3} {description}\n", "  ".repeat(depth)));
    if let Some(details) = node.get("details").and_then(serde_json::Value::as_array) {
        for child in details {
            render_explanation(child, depth + 1, out);
        }
    }
}
