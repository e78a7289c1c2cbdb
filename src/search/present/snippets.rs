//! Snippets: the best fragment of a hit's abstract or note, with the byte
//! ranges that match the query.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use tantivy::query::Query;
use tantivy::schema::Field;
use tantivy::snippet::SnippetGenerator;
use tantivy::{Searcher, Term};

use crate::analysis::{self, english_for_highlighting};
use crate::error::Error;
use crate::index::Fields;
use crate::search::plan::Plan;
use crate::search::understand::query;
use crate::search::{Hit, Snippet, SnippetField};

const SNIPPET_CHARS: usize = 240;

/// The best fragment of the note or abstract; the note when nothing matched.
/// Only the words the user typed (as `plan` understood and repaired them)
/// are highlighted, not the other names of a technique that they expanded
/// to: for "pipeline bubble", "backward" of the alias
/// "one-forward-one-backward" would look like a match of the query.
pub fn add_snippets(
    searcher: &Searcher,
    fields: &Fields,
    query: &dyn Query,
    plan: &Plan,
    hits: &mut [Hit],
) -> Result<(), Error> {
    let typed = typed_terms(plan);
    let mut generators = Vec::new();
    for (name, field) in [
        (SnippetField::Abstract, fields.abstract_text),
        (SnippetField::Note, fields.note),
    ] {
        generators.push((name, generator(searcher, query, field, &typed)?));
    }
    for hit in hits {
        let mut best: Option<Snippet> = None;
        for (name, generator) in &generators {
            let text = match name {
                SnippetField::Abstract => hit.record.abstract_text.as_deref(),
                SnippetField::Note => Some(hit.record.note.as_str()),
            };
            let Some(text) = text else { continue };
            let snippet = generator.snippet(text);
            if snippet.highlighted().is_empty() {
                continue;
            }
            if best
                .as_ref()
                .is_none_or(|b| snippet.highlighted().len() > b.highlights.len())
            {
                best = Some(excerpt(*name, text, &snippet));
            }
        }
        hit.snippet = best.or_else(|| Some(unmatched(&hit.record)));
    }
    Ok(())
}

/// What shows a hit that matched in neither field (a filter alone, or words
/// found in its title): its note, else its abstract's opening.
fn unmatched(record: &crate::model::Record) -> Snippet {
    let opening = record
        .abstract_text
        .as_deref()
        .filter(|_| record.note.is_empty());
    let Some(text) = opening else {
        return Snippet {
            field: SnippetField::Note,
            text: record.note.clone(),
            highlights: Vec::new(),
        };
    };
    let mut end = text.len().min(SNIPPET_CHARS);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = text[..end].to_string();
    if end < text.len() {
        // Cut at the last whole word.
        if let Some(space) = out.rfind(' ') {
            out.truncate(space);
        }
        out.push('…');
    }
    Snippet {
        field: SnippetField::Abstract,
        text: out,
        highlights: Vec::new(),
    }
}

/// The fragment with an ellipsis on each side where the field goes on (past
/// more than punctuation).
fn excerpt(field: SnippetField, text: &str, snippet: &tantivy::snippet::Snippet) -> Snippet {
    let range = snippet.fragment_range();
    let trivial = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_punctuation() || c.is_whitespace())
    };
    let (head, tail) = (&text[..range.start], &text[range.end..]);
    let mut out = String::new();
    let shift = if trivial(head) {
        out.push_str(head);
        head.len()
    } else {
        out.push('…');
        '…'.len_utf8()
    };
    out.push_str(snippet.fragment());
    if trivial(tail) {
        out.push_str(tail.trim_end());
    } else {
        out.push('…');
    }
    let highlights = snippet
        .highlighted()
        .iter()
        .map(|h| h.start + shift..h.end + shift)
        .collect();
    Snippet {
        field,
        text: out,
        highlights,
    }
}

/// The prose terms of the typed words and phrases (their corrections
/// included), and of their joined spellings ("all reduce" is also
/// "allreduce").
fn typed_terms(plan: &Plan) -> HashSet<String> {
    let mut words = Vec::new();
    query::words(&plan.root, &mut words);
    words.extend(plan.rewrites.corrections.iter().map(|(_, to)| to.clone()));
    let text = words.join(" ");
    let mut english = analysis::english();
    let mut terms = analysis::terms(&mut english, &text);
    terms.extend(analysis::terms(
        &mut english,
        &analysis::joined_pairs(&text),
    ));
    terms.into_iter().collect()
}

/// tantivy's `SnippetGenerator::create`, with an analyzer that stems only the
/// words that can match (the field's own would stem every word of every hit).
/// Rarer terms weigh more in choosing the fragment.
fn generator(
    searcher: &Searcher,
    query: &dyn Query,
    field: Field,
    typed: &HashSet<String>,
) -> Result<SnippetGenerator, Error> {
    let mut terms: BTreeSet<&Term> = BTreeSet::new();
    query.query_terms(&mut |term, _| {
        if term.field() == field && term.value().as_str().is_some_and(|t| typed.contains(t)) {
            terms.insert(term);
        }
    });
    let mut weights: BTreeMap<String, f32> = BTreeMap::new();
    for term in terms {
        let value = term.value();
        let Some(text) = value.as_str() else {
            continue;
        };
        let doc_freq = searcher.doc_freq(term)?;
        if doc_freq > 0 {
            weights.insert(text.to_string(), 1.0 / (1.0 + doc_freq as f32));
        }
    }
    let analyzer = english_for_highlighting(weights.keys().map(String::as_str));
    Ok(SnippetGenerator::new(
        weights,
        analyzer,
        field,
        SNIPPET_CHARS,
    ))
}
