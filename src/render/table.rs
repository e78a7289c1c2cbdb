//! The terminal view: one compact block per hit, fitted to the width.
//!
//! ```text
//!  1. GPipe: Efficient Training of Giant Neural Networks using Pipeline
//!     Parallelism
//!     Yanping Huang et al. · NeurIPS 2019 · Pipeline Parallelism
//!     pipeline-parallelism, activation-recomputation
//!     https://proceedings.neurips.cc/paper/2019/file/...
//!     …streams micro-batches through stages and recomputes activations…
//! ```

use std::fmt::Write;

use super::Style;
use super::text::{wrap, wrap_words};
use crate::inert::inert;
use crate::model::{Kind, Record};
use crate::search::{Hit, Snippet, SnippetField};

pub fn hit_block(hit: &Hit, style: &Style) -> String {
    let r = &hit.record;
    let mut out = String::new();
    let number = format!("{:>2}.", hit.rank);
    let indent = " ".repeat(number.chars().count() + 1);
    let mut words = vec![(number, true)];
    words.extend(inert(&r.title).split(' ').map(|w| (w.to_string(), false)));
    let paint = |w: &str, is_number: bool| {
        if is_number {
            style.dim(w)
        } else {
            style.bold(w)
        }
    };
    for line in wrap_words(&words, style.prose_width(), 0, &indent, &paint) {
        let _ = writeln!(out, "{line}");
    }
    let room = style.prose_width().saturating_sub(indent.len());
    let _ = writeln!(out, "{indent}{}", style.dim(&style.fit(&byline(r), room)));
    if !r.tags.is_empty() {
        for line in wrap(&inert(&r.tags.join(", ")), style.prose_width(), &indent) {
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = writeln!(out, "{indent}{}", style.link(&inert(&r.url)));
    if let Some(snippet) = &hit.snippet {
        for line in snippet_lines(snippet, style, &indent) {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// "First Author et al. · Venue Year · Section", or "project · Section".
pub fn byline(r: &Record) -> String {
    let mut parts = Vec::new();
    match r.authors.as_slice() {
        [] => {}
        [one] if !r.et_al => parts.push(inert(one)),
        [first, ..] => parts.push(format!("{} et al.", inert(first))),
    }
    let venue_year = match (&r.venue, r.year) {
        (Some(v), Some(y)) => format!("{} {y}", inert(v)),
        (Some(v), None) => inert(v),
        (None, Some(y)) => y.to_string(),
        (None, None) => String::new(),
    };
    if !venue_year.is_empty() {
        parts.push(venue_year);
    }
    if r.kind == Kind::Project {
        parts.push("project".to_string());
    }
    parts.push(inert(&r.section));
    parts.join(" · ")
}

fn snippet_lines(snippet: &Snippet, style: &Style, indent: &str) -> Vec<String> {
    // Words keep the emphasis of the highlighted byte ranges they overlap.
    let mut words: Vec<(String, bool)> = Vec::new();
    let mut start = None;
    let text = &snippet.text;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                let hot = snippet.highlights.iter().any(|h| h.start < i && s < h.end);
                words.push((inert(&text[s..i]), hot));
                start = None;
            }
            _ => {}
        }
    }
    words.retain(|(w, _)| !w.is_empty());
    if let Some(first) = words.first_mut() {
        first.0.insert_str(
            0,
            if snippet.field == SnippetField::Abstract {
                "abstract: "
            } else {
                ""
            },
        );
    }
    let paint = |w: &str, hot: bool| {
        if hot {
            style.highlight(w)
        } else {
            style.dim(w)
        }
    };
    let mut lines = wrap_words(&words, style.prose_width(), indent.len(), indent, &paint);
    lines.truncate(3);
    if let Some(first) = lines.first_mut() {
        first.insert_str(0, indent);
    }
    lines
}
