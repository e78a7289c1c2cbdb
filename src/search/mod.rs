//! Search: query understanding (syntax, synonyms, typos, filters), ranking,
//! snippets and more-like-this, over an opened index. No I/O beyond the index.

pub mod boosts;
mod compile;
pub mod query;
mod seek_union;
mod similar;
mod snippets;
mod spell;
pub mod synonyms;
mod two_phase;

use std::ops::Range;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Order, Searcher, TantivyDocument, Term};

pub use boosts::Boosts;
use compile::Mode;
pub use compile::{Rewrites, parse_years};
pub use query::{FieldName, Node};
pub use similar::similar;
pub use two_phase::Ranking;

use crate::catalog::Vocabulary;
use crate::error::Error;
use crate::index::{Fields, OpenIndex};
use crate::model::{Collection, Record};
use synonyms::Synonyms;

pub struct SearchRequest<'a> {
    pub query: &'a str,
    /// Filters from flags, applied as if written `field:value` in the query.
    pub filters: Vec<(FieldName, String)>,
    pub limit: usize,
    pub explain: bool,
    /// Score every match exactly, even on a large index (see `two_phase`).
    pub exhaustive: bool,
}

/// Below this many documents every match is scored exactly: it is fast, and
/// rankings are then exact by construction.
const TWO_PHASE_MIN_DOCS: u64 = 20_000;

/// The most results fetched to settle a tie with the last one shown.
const MAX_TIED: usize = 1_000;

/// A fragment of a field with the byte ranges that matched the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Snippet {
    pub field: &'static str,
    pub text: String,
    pub highlights: Vec<Range<usize>>,
}

#[derive(Debug, Clone)]
pub struct Hit {
    pub rank: usize,
    pub score: f32,
    pub record: Record,
    pub snippet: Option<Snippet>,
    pub explanation: Option<String>,
}

#[derive(Debug)]
pub struct SearchOutcome {
    pub hits: Vec<Hit>,
    /// Whether more documents matched than were asked for.
    pub more: bool,
    /// The query as understood.
    pub parsed: String,
    /// Repairs of the syntax (an unclosed quote, a cut query).
    pub notes: Vec<String>,
    pub rewrites: Rewrites,
    pub ranking: Ranking,
}

pub fn search(
    open: &OpenIndex,
    vocabulary: &Vocabulary,
    sections: &[String],
    request: &SearchRequest<'_>,
    boosts: Boosts,
) -> Result<SearchOutcome, Error> {
    // A listing: filters only, or everything.
    let parsed = if request.query.trim().is_empty() {
        query::Parsed {
            root: Node::All,
            notes: Vec::new(),
        }
    } else {
        query::parse(request.query)?
    };
    only_common_words(&parsed.root)?;
    let mut root = parsed.root;
    if !request.filters.is_empty() {
        let mut all = vec![root];
        all.extend(request.filters.iter().map(|(field, value)| Node::Field {
            field: *field,
            value: value.clone(),
            column: 0,
        }));
        root = Node::And(all);
    }
    let searcher = open.reader.searcher();
    let fields = Fields::from_schema(&open.index.schema())?;
    let synonyms = Synonyms::new(vocabulary);
    let mut compiler = compile::Compiler::new(&searcher, &fields, &synonyms, sections, boosts);
    let query = compiler.compile(&root)?;
    if !matches!(root, Node::All) && !compiler.scoring && !compiler.filtered {
        return Err(Error::Query(format!(
            "the query has no searchable words: {}",
            request.query.trim()
        )));
    }
    let rewrites = compiler.rewrites.clone();
    // One more than asked tells whether there are more, without counting
    // every match (which would defeat tantivy's top-k pruning).
    let wanted = request.limit.max(1) + 1;
    let two_phase = compiler.scoring
        && compiler.phrases
        && !compiler.filtered
        && searcher.num_docs() >= TWO_PHASE_MIN_DOCS
        && !has_phrase_or_required(&root);
    let scoring = compiler.scoring;
    // The query's parts for ranking in two phases, compiled once; the
    // seeking form also scores an exhaustive search's results alike.
    let parts = if two_phase {
        compiler.mode = Mode::Terms;
        let terms = compiler.compile(&root)?;
        compiler.mode = Mode::Phrases;
        let phrases = compiler.compile(&root)?;
        compiler.mode = Mode::Rank;
        Some((terms, phrases, compiler.compile(&root)?))
    } else {
        None
    };
    let rank = |n: usize| -> Result<(Vec<(f32, DocAddress)>, Ranking), Error> {
        match &parts {
            _ if !scoring => Ok((
                listing(&searcher, &fields, &*query, n)?,
                Ranking::Exhaustive,
            )),
            Some((terms, phrases, rank)) if !request.exhaustive => {
                let parts = two_phase::Parts {
                    terms: &**terms,
                    phrases: &**phrases,
                    rank: &**rank,
                    exact: &*query,
                };
                two_phase::top_docs(&searcher, &parts, n)
            }
            parts => {
                let mut top = searcher.search(&*query, &TopDocs::with_limit(n).order_by_score())?;
                if let Some((_, _, rank)) = parts {
                    // Scored as two-phase ranking scores, so that both order alike.
                    top = two_phase::rescore(&searcher, &**rank, top)?;
                }
                Ok((top, Ranking::Exhaustive))
            }
        }
    };
    let (mut top, mut ranking) = rank(wanted)?;
    // Results tied with the last one shown may go on past those fetched: all
    // of them are fetched, so that the tie-breaks below choose which show,
    // and a shorter list is always the start of a longer one. Only on a small
    // index: on a large one each fetch is a search again, ties are chosen in
    // index order, and a shorter list can differ in its last tied result.
    let shown = request.limit.max(1);
    let mut fetched = wanted;
    let settle_ties = scoring && searcher.num_docs() < TWO_PHASE_MIN_DOCS;
    while settle_ties
        && top.len() == fetched
        && fetched < MAX_TIED
        && top[shown - 1].0 == top[fetched - 1].0
    {
        fetched = (fetched * 4).min(MAX_TIED);
        (top, ranking) = rank(fetched)?;
    }
    let more = top.len() > request.limit;
    if !settle_ties {
        top.truncate(request.limit);
    }
    let mut hits = Vec::with_capacity(top.len());
    for (score, address) in top {
        let doc: TantivyDocument = searcher.doc(address)?;
        let hit = Hit {
            rank: 0,
            score,
            record: Record::from_document(&doc, &fields),
            snippet: None,
            explanation: None,
        };
        hits.push((hit, address));
    }
    // Equal scores: the curated catalog before imported records, then the
    // newest, then by id, so that results do not depend on the order of
    // documents in the index. A listing is already in that order, but for
    // ties within a year, which follow the index: it chose its documents so,
    // and re-sorting them would make `-n 1` other than the first of `-n 2`.
    if scoring {
        hits.sort_by(|(a, _), (b, _)| {
            b.score
                .total_cmp(&a.score)
                .then((!b.record.is_imported()).cmp(&!a.record.is_imported()))
                .then(b.record.year.cmp(&a.record.year))
                .then(a.record.id.cmp(&b.record.id))
        });
    }
    hits.truncate(request.limit);
    let mut hits: Vec<Hit> = hits
        .into_iter()
        .map(|(mut hit, address)| {
            if request.explain {
                hit.explanation = Some(explain(&*query, &searcher, address)?);
            }
            Ok(hit)
        })
        .collect::<Result<_, Error>>()?;
    snippets::add_snippets(&searcher, &fields, &*query, &mut hits)?;
    for (i, hit) in hits.iter_mut().enumerate() {
        hit.rank = i + 1;
    }
    Ok(SearchOutcome {
        hits,
        more,
        parsed: root.to_string(),
        notes: parsed.notes,
        rewrites,
        ranking,
    })
}

/// Matches of a query without scoring words (filters only), as results are
/// shown when scores tie: catalog entries first, then the newest. Taking the
/// first matches found instead would show an arbitrary few of a large index.
fn listing(
    searcher: &Searcher,
    fields: &Fields,
    query: &dyn Query,
    wanted: usize,
) -> Result<Vec<(f32, DocAddress)>, Error> {
    let collection = |name: Collection| -> Box<dyn Query> {
        Box::new(TermQuery::new(
            Term::from_field_text(fields.collection, name.as_str()),
            IndexRecordOption::Basic,
        ))
    };
    let catalog = BooleanQuery::new(vec![
        (Occur::Must, query.box_clone()),
        (Occur::Must, collection(Collection::Catalog)),
    ]);
    let mut top = newest_dated(searcher, &catalog, wanted)?;
    if top.len() < wanted {
        // Every other document is imported; excluding the few catalog ones
        // is cheaper than intersecting with all the imported ones.
        let imported = BooleanQuery::new(vec![
            (Occur::Must, query.box_clone()),
            (Occur::MustNot, collection(Collection::Catalog)),
        ]);
        let dated = match year_span(searcher)? {
            Some(years) if searcher.num_docs() >= TWO_PHASE_MIN_DOCS => {
                newest_by_windows(searcher, fields, &imported, wanted - top.len(), years)?
            }
            _ => Vec::new(),
        };
        top.extend(if dated.len() == wanted - top.len() {
            dated
        } else {
            newest_dated(searcher, &imported, wanted - top.len())?
        });
    }
    Ok(top.into_iter().map(|address| (0.0, address)).collect())
}

/// The newest matches, reading every match; undated ones come last.
fn newest_dated(
    searcher: &Searcher,
    query: &dyn Query,
    wanted: usize,
) -> Result<Vec<DocAddress>, Error> {
    let newest = TopDocs::with_limit(wanted).order_by_fast_field::<i64>("year", Order::Desc);
    Ok(searcher
        .search(query, &newest)?
        .into_iter()
        .map(|(_, address)| address)
        .collect())
}

/// The newest dated matches, a window of years at a time from the newest
/// (one year, then two, four...), so that a common filter reads only its
/// newest matches. Fewer than `wanted` means there are no more dated ones.
fn newest_by_windows(
    searcher: &Searcher,
    fields: &Fields,
    query: &dyn Query,
    wanted: usize,
    (oldest, newest): (i64, i64),
) -> Result<Vec<DocAddress>, Error> {
    let mut found = Vec::new();
    let (mut to, mut width) = (newest, 1);
    while to >= oldest && found.len() < wanted {
        let from = (to - width + 1).max(oldest);
        let years = (from..=to)
            .map(|year| -> (Occur, Box<dyn Query>) {
                let term = Term::from_field_i64(fields.year, year);
                (
                    Occur::Should,
                    Box::new(TermQuery::new(term, IndexRecordOption::Basic)),
                )
            })
            .collect();
        let window = BooleanQuery::new(vec![
            (Occur::Must, query.box_clone()),
            (Occur::Must, Box::new(BooleanQuery::new(years))),
        ]);
        found.extend(newest_dated(searcher, &window, wanted - found.len())?);
        to = from - 1;
        width *= 2;
    }
    Ok(found)
}

/// The oldest and newest years in the index.
fn year_span(searcher: &Searcher) -> Result<Option<(i64, i64)>, Error> {
    let mut span: Option<(i64, i64)> = None;
    for segment in searcher.segment_readers() {
        let years = segment.fast_fields().i64("year")?;
        if years.values.num_vals() == 0 {
            continue;
        }
        let (low, high) = (years.min_value(), years.max_value());
        span = Some(span.map_or((low, high), |(l, h)| (l.min(low), h.max(high))));
    }
    Ok(span)
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
    root.visit(&mut |n| has_field |= matches!(n, Node::Field { .. }));
    let text = words.join(" ");
    let mut all = crate::index::analysis::names();
    let mut content = crate::index::analysis::names_without_stop_words();
    let total = crate::index::analysis::terms(&mut all, &text).len();
    if !has_field && total > 0 && crate::index::analysis::terms(&mut content, &text).is_empty() {
        return Err(Error::Query(format!(
            "the query has only common words ({}): add a more specific one",
            words.join(", ")
        )));
    }
    Ok(())
}

/// A hit's score as a tree of contributions, one line per node.
fn explain(query: &dyn Query, searcher: &Searcher, address: DocAddress) -> Result<String, Error> {
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
