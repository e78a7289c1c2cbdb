//! The first stage of a search: the query understood (parsed, with the
//! flags' filters beside it, its spelling repaired) and compiled, once for
//! matching exactly and, where ranking in two phases pays, once per part.

pub mod compile;
pub mod labelled;
pub mod named_in_title;
pub mod scaled;
pub mod seek_union;

use crate::search::plan::compile::{Compiled, Context, Expansion, Mode, compile, repair_spelling};

use crate::analysis;
use crate::error::Error;
use crate::search::understand::facets;
use crate::search::understand::intent::{self, Intent};
use crate::search::understand::query::{self, Node};
use crate::search::{Rewrites, SearchRequest};

pub struct Plan {
    /// The query as understood, before spelling repair (for `--explain`).
    pub root: Node,
    /// Repairs of the syntax (an unclosed quote, a cut query).
    pub notes: Vec<String>,
    pub exact: Compiled,
    /// What the query asks about (see `intent`), read from the tree it was
    /// compiled from, spelling repaired: "libary" asks for code as
    /// "library" does, in ranking as in compiling.
    pub intents: Vec<Intent>,
    /// The query compiled for ranking in two phases, when that applies.
    pub parts: Option<Parts>,
    /// The query compiled to count its matches, when they are counted and
    /// it holds phrases (see `compile::implied`); else `exact` counts.
    pub matching: Option<Compiled>,
    pub rewrites: Rewrites,
}

/// The query's parts for ranking in two phases (see `two_phase`); the
/// seeking form also scores an exhaustive search's results alike.
pub struct Parts {
    pub terms: Compiled,
    pub phrases: Compiled,
    pub rank: Compiled,
}

/// `counted`: whether every match will be counted.
pub fn plan(cx: &Context<'_>, request: &SearchRequest<'_>, counted: bool) -> Result<Plan, Error> {
    let (root, notes) = understand(request)?;
    only_common_words(&root)?;
    let root = facets::recognize(root, cx.known());
    let (repaired, corrections) = repair_spelling(cx, &root);
    let mut exact = compile(cx, &repaired, Mode::Exhaustive)?;
    if !matches!(root, Node::All) && !exact.scoring && !exact.filtered {
        return Err(Error::Query(format!(
            "the query has no searchable words: {}",
            request.query.trim()
        )));
    }
    let two_phase = exact.scoring
        && exact.phrases
        && !exact.filtered
        && cx.large_index()
        && !has_phrase_or_required(&repaired);
    let parts = if two_phase {
        Some(Parts {
            terms: compile(cx, &repaired, Mode::Terms)?,
            phrases: compile(cx, &repaired, Mode::Phrases)?,
            rank: compile(cx, &repaired, Mode::Rank)?,
        })
    } else {
        None
    };
    let matching = if counted && exact.phrases {
        Some(compile(cx, &repaired, Mode::Matching)?)
    } else {
        None
    };
    let unheld = unheld_techniques(cx, &exact.expansions);
    let rewrites = Rewrites {
        unheld,
        // What compiling found is for the user, not for ranking.
        expansions: std::mem::take(&mut exact.expansions),
        corrections,
        ignored: std::mem::take(&mut exact.ignored),
        exclusions: std::mem::take(&mut exact.exclusions),
    };
    Ok(Plan {
        intents: intent::of(&repaired),
        root,
        notes,
        exact,
        parts,
        matching,
        rewrites,
    })
}

/// The tags of `expansions` that no document has, curated or predicted.
fn unheld_techniques(cx: &Context<'_>, expansions: &[Expansion]) -> Vec<String> {
    let held = |tag: &str| {
        [cx.fields.tags, cx.fields.predicted]
            .into_iter()
            .any(|field| {
                let term = tantivy::Term::from_field_text(field, tag);
                cx.searcher.doc_freq(&term).unwrap_or(0) > 0
            })
    };
    let mut unheld: Vec<String> = Vec::new();
    for tag in expansions.iter().map(|e| &e.tag) {
        if !unheld.contains(tag) && !held(tag) {
            unheld.push(tag.clone());
        }
    }
    unheld
}

/// The query's tree with the flags' filters beside it. No words is a
/// listing: filters only, or everything.
fn understand(request: &SearchRequest<'_>) -> Result<(Node, Vec<String>), Error> {
    let (root, notes) = if request.query.trim().is_empty() {
        (Node::All, Vec::new())
    } else {
        let parsed = query::parse(request.query)?;
        (parsed.root, parsed.notes)
    };
    if request.filters.is_empty() {
        return Ok((root, notes));
    }
    let mut all = vec![root];
    all.extend(request.filters.iter().map(|(filter, origin)| Node::Filter {
        filter: filter.clone(),
        origin: *origin,
    }));
    Ok((Node::And(all), notes))
}

/// Whether the user quoted a phrase or required a word. A quoted phrase
/// decides what matches, and a required word's phrase (`+all-reduce`) cannot
/// be split into a terms part and a phrases part: both are ranked exactly.
/// (So are filtered queries: tantivy prunes no query with a filter, so
/// candidates would save nothing.)
fn has_phrase_or_required(root: &Node) -> bool {
    let mut found = false;
    root.visit(&mut |n| found |= matches!(n, Node::Phrase { .. } | Node::Required(_)));
    found
}

/// Every match of "the of and" would be noise: say so instead.
fn only_common_words(root: &Node) -> Result<(), Error> {
    let mut words = Vec::new();
    query::words(root, &mut words);
    let mut has_field = false;
    root.visit(&mut |n| has_field |= matches!(n, Node::Filter { .. } | Node::Title { .. }));
    let text = words.join(" ");
    let mut all = analysis::names();
    let mut content = analysis::names_without_stop_words();
    let total = analysis::terms(&mut all, &text).len();
    if !has_field && total > 0 && analysis::terms(&mut content, &text).is_empty() {
        return Err(Error::Query(format!(
            "the query has only common words ({}): add a more specific one",
            words.join(", ")
        )));
    }
    Ok(())
}
