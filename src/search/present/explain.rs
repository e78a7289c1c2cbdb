//! `--explain`: why a hit scored what it did. Read as a few lines, one per
//! labelled clause that matched (its field, its terms and its weight, see
//! `plan/labelled.rs`), largest first; `--explain=raw` prints tantivy's whole
//! tree instead.

use tantivy::DocAddress;
use tantivy::query::Query;

use crate::error::Error;
use crate::search::plan::labelled::MARK;
use crate::search::plan::scaled::SCALE_MARK;
use crate::search::rank::feedback::Feedback;
use crate::search::signals;
use crate::search::statistics::Statistics;
use crate::search::understand::intent::Intent;

/// How `--explain` shows a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplainStyle {
    /// The clauses that scored, in a few lines.
    Readable,
    /// tantivy's explanation tree, one line a node.
    Raw,
}

/// Clauses shown before the rest are summed up in one line.
const SHOWN: usize = 8;

/// The explanation of a result that the query's words do not match: one
/// found by meaning alone (`--mode semantic` or `hybrid`).
const UNMATCHED: &str = "0.000 score: the query's words do not match it\n";

/// What changed a result's score after the query scored it: the factors of
/// what the query asks about (training or serving, code, an overview),
/// then what feedback from the first result added.
#[derive(Clone, Default)]
pub struct Adjusted<'a> {
    pub intents: Vec<(Intent, f32)>,
    pub feedback: Option<&'a Feedback>,
}

pub fn explain(
    query: &dyn Query,
    statistics: &Statistics,
    address: DocAddress,
    adjusted: Adjusted<'_>,
    style: ExplainStyle,
) -> Result<String, Error> {
    let Some(explanation) = statistics.explain(query, address)? else {
        return Ok(UNMATCHED.to_string());
    };
    let json: serde_json::Value =
        serde_json::from_str(&explanation.to_pretty_json()).unwrap_or_default();
    let mut out = String::new();
    match style {
        ExplainStyle::Raw => {
            render_tree(&json, 0, &mut out);
            for (intent, factor) in &adjusted.intents {
                out.push_str(&format!("×{factor:.2} {}\n", intent.reason()));
            }
            if let Some(feedback) = adjusted.feedback {
                out.push_str(&format!("+{:.3} {}\n", feedback.bonus, said(feedback)));
            }
        }
        ExplainStyle::Readable => render_clauses(&json, adjusted, &mut out),
    }
    Ok(out)
}

fn said(feedback: &Feedback) -> String {
    let marked = |tags: &[String], how: &str| -> Vec<String> {
        tags.iter().map(|t| format!("{t} ({how})")).collect()
    };
    let mut tags = feedback.shared.clone();
    tags.extend(marked(&feedback.used, "used"));
    tags.extend(marked(&feedback.predicted, "predicted"));
    tags.extend(feedback.project.iter().map(|p| format!("project {p}")));
    tags.extend(feedback.maker.iter().map(|m| format!("maker {m}")));
    signals::FEEDBACK.label(&tags.join(", "))
}

fn value(node: &serde_json::Value) -> f64 {
    node.get("value")
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(0.0)
}

fn description(node: &serde_json::Value) -> &str {
    node.get("description")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
}

fn children(node: &serde_json::Value) -> &[serde_json::Value] {
    node.get("details")
        .and_then(serde_json::Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The score, then each outermost labelled clause that scored.
fn render_clauses(root: &serde_json::Value, adjusted: Adjusted<'_>, out: &mut String) {
    let Adjusted { intents, feedback } = adjusted;
    let mut clauses = Vec::new();
    let mut factors = Vec::new();
    collect_labelled(root, &mut clauses, &mut factors);
    clauses.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let bonus = feedback.map_or(0.0, |f| f64::from(f.bonus));
    let factor: f64 = intents.iter().map(|(_, f)| f64::from(*f)).product();
    out.push_str(&format!(
        "{:.3} score, from:\n",
        value(root) * factor + bonus
    ));
    for (score, label) in clauses.iter().take(SHOWN) {
        out.push_str(&format!("  {score:>7.3}  {label}\n"));
    }
    if clauses.len() > SHOWN {
        let rest: f64 = clauses[SHOWN..].iter().map(|(s, _)| s).sum();
        let more = clauses.len() - SHOWN;
        let clauses = if more == 1 { "clause" } else { "clauses" };
        out.push_str(&format!("  {rest:>7.3}  {more} more {clauses}\n"));
    }
    // The clauses' scores are before the factors of the facets typed.
    for factor in factors {
        out.push_str(&format!("  {factor}\n"));
    }
    for (intent, factor) in intents {
        out.push_str(&format!("  ×{factor:.2} {}\n", intent.reason()));
    }
    // Added to the whole, after the factors.
    if let Some(feedback) = feedback {
        out.push_str(&format!("  {bonus:>7.3}  {}\n", said(feedback)));
    }
}

fn collect_labelled(
    node: &serde_json::Value,
    out: &mut Vec<(f64, String)>,
    factors: &mut Vec<String>,
) {
    if value(node) <= 0.0 {
        return;
    }
    if let Some(label) = description(node).strip_prefix(MARK) {
        out.push((value(node), label.to_string()));
        return;
    }
    if let Some(factor) = description(node).strip_prefix(SCALE_MARK) {
        // Each scaled clause says its factors: they are said once.
        if !factors.iter().any(|f| f == factor) {
            factors.push(factor.to_string());
        }
        return;
    }
    for child in children(node) {
        collect_labelled(child, out, factors);
    }
}

fn render_tree(node: &serde_json::Value, depth: usize, out: &mut String) {
    let value = value(node);
    // Deep BM25 internals (idf, tf parts) add little for a reader.
    if depth > 6 || (value == 0.0 && depth > 0) {
        return;
    }
    let description = description(node);
    let description = description
        .strip_prefix(MARK)
        .or_else(|| description.strip_prefix(SCALE_MARK))
        .unwrap_or(description);
    out.push_str(&format!("{}{value:.3} {description}\n", "  ".repeat(depth)));
    for child in children(node) {
        render_tree(child, depth + 1, out);
    }
}
