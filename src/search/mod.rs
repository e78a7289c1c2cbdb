//! Search: query understanding (syntax, synonyms, typos, filters), ranking,
//! snippets and more-like-this, over an opened index. No I/O beyond the index.

pub mod plan;
pub mod present;
pub mod rank;
pub mod retrieve;
pub mod signals;
mod statistics;
pub mod understand;

use std::ops::Range;

use plan::compile::Context;
pub use plan::compile::{Expansion, a_short_name};
pub use present::explain::ExplainStyle;
pub use present::newest::{newer_first, newest, newest_of, record_day, search_total, sort_newest};
use retrieve::meaning;
pub use retrieve::meaning::Mode;
pub use retrieve::similar::{near_seeds, similar};
pub use retrieve::two_phase::Ranking;
pub use signals::Boosts;
pub use understand::filter::{Filter, Origin, YearRange};

use crate::catalog::Catalog;
use crate::error::Error;
use crate::index::vectors::VectorFiles;
use crate::index::{Fields, OpenIndex};
use crate::model::Record;
use present::hits;
use understand::synonyms::Synonyms;

pub struct SearchRequest<'a> {
    pub query: &'a str,
    /// Filters from flags, beside the query's, each with the flag that
    /// gave it.
    pub filters: Vec<(Filter, Origin)>,
    pub limit: usize,
    /// Each hit's score explained, and how.
    pub explain: Option<ExplainStyle>,
    /// Score every match exactly, even on a large index (see `two_phase`).
    pub exhaustive: bool,
    /// By words, by meaning, or both (see `meaning`).
    pub mode: Mode,
}

/// A fragment of a field with the byte ranges that matched the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Snippet {
    pub field: SnippetField,
    pub text: String,
    pub highlights: Vec<Range<usize>>,
}

/// The field a snippet is taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnippetField {
    Abstract,
    Note,
}

impl SnippetField {
    /// The name in `--json` output (`snippet_field`).
    pub fn as_str(self) -> &'static str {
        match self {
            SnippetField::Abstract => "abstract",
            SnippetField::Note => "note",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Hit {
    pub rank: usize,
    pub score: f32,
    pub record: Record,
    pub snippet: Option<Snippet>,
    pub explanation: Option<String>,
    /// The cosine of the work's meaning with the query's (or the work's,
    /// for `similar`), when meaning ranked it.
    pub semantic: Option<f32>,
}

/// What was done to the query, for the user to see.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Rewrites {
    pub expansions: Vec<Expansion>,
    /// (typed word, word searched instead).
    pub corrections: Vec<(String, String)>,
    /// Words that produced no searchable term (stop words, symbols).
    pub ignored: Vec<String>,
    /// What each `-x` took out, when not everything it names.
    pub exclusions: Vec<String>,
    /// The techniques the query names that no document is about (tagged or
    /// predicted): what it finds only shares their words.
    pub unheld: Vec<String>,
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
    catalog: &Catalog,
    request: &SearchRequest<'_>,
    boosts: Boosts,
) -> Result<SearchOutcome, Error> {
    // No collector beside the ranking: any type does.
    search_then::<tantivy::collector::Count>(open, catalog, request, boosts, None)
        .map(|(outcome, _)| outcome)
}

/// The ranking of `--mode semantic` or `hybrid`: the semantic side's best,
/// alone or fused with a deeper keyword ranking (whose pass also runs
/// `also`), with what meaning gave each result.
fn blend<C: tantivy::collector::Collector>(
    cx: &Context<'_>,
    plan: &plan::Plan,
    request: &SearchRequest<'_>,
    also: Option<C>,
    meant: &meaning::Meant,
) -> Result<(rank::Ranked, Option<C::Fruit>, meaning::Parts), Error> {
    let pool = meaning::POOL.max(request.limit + 1);
    let deeper = SearchRequest {
        query: request.query,
        filters: request.filters.clone(),
        limit: pool,
        explain: None,
        exhaustive: request.exhaustive,
        mode: Mode::Keyword,
    };
    // Mapped once for the scan and the keyword hits' vectors.
    let files = VectorFiles::of(cx.generation, cx.searcher);
    let scan = || meaning::nearest(cx, &plan.root, meant, pool, &files);
    // The words rank for the fusion, or for `--mode semantic` only when
    // `also` counts their matches in the ranking's pass.
    let (semantic, words) = match (request.mode, also) {
        (Mode::Semantic, None) => (scan(), Ok((None, None))),
        // The scan by meaning on a thread of its own while the words rank:
        // a hybrid query then takes about the longer of the two, not their
        // sum.
        (_, also) => std::thread::scope(|scope| {
            let semantic = scope.spawn(scan);
            let words = rank::rank(cx, plan, &deeper, also);
            let semantic = semantic
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (semantic, words.map(|(ranked, fruit)| (Some(ranked), fruit)))
        }),
    };
    let (semantic, (ranked, fruit)) = (semantic?, words?);
    let (mut ranked, keyword) = match (request.mode, ranked) {
        (Mode::Hybrid, Some(mut ranked)) => {
            let top = std::mem::take(&mut ranked.top);
            (ranked, top)
        }
        // What the words' ranking did to its results (feedback, intents)
        // did nothing to a ranking by meaning.
        _ => (rank::Ranked::by_meaning(), Vec::new()),
    };
    let (mut fused, parts) = meaning::fuse(
        cx.searcher,
        &files,
        cx.boosts.semantic,
        meant,
        &keyword,
        &semantic,
    )?;
    if request.mode == Mode::Semantic {
        // Its own scores: the cosines.
        fused = semantic;
    }
    ranked.more = fused.len() > request.limit;
    fused.truncate(request.limit);
    ranked.top = fused;
    Ok((ranked, fruit, parts))
}

/// [`search`], and `also` run on every match of the exact query (which
/// `counts` uses to count them): in the ranking's own pass when that walks
/// every match anyway, else in a pass of its own.
fn search_then<C: tantivy::collector::Collector>(
    open: &OpenIndex,
    catalog: &Catalog,
    request: &SearchRequest<'_>,
    boosts: Boosts,
    also: Option<C>,
) -> Result<(SearchOutcome, Option<C::Fruit>), Error> {
    search_then_in(
        &open.reader.searcher(),
        open,
        catalog,
        request,
        boosts,
        also,
    )
}

/// [`search_then`] on `searcher` (one of `open`'s), so that the caller may
/// read documents by the addresses `also` found.
fn search_then_in<C: tantivy::collector::Collector>(
    searcher: &tantivy::Searcher,
    open: &OpenIndex,
    catalog: &Catalog,
    request: &SearchRequest<'_>,
    boosts: Boosts,
    also: Option<C>,
) -> Result<(SearchOutcome, Option<C::Fruit>), Error> {
    let searcher = searcher.clone();
    let fields = Fields::from_schema(&open.index.schema())?;
    let synonyms = Synonyms::new(&catalog.vocabulary);
    let lookups = catalog.lookups();
    let statistics = statistics::Statistics::new(&searcher, &fields)?;
    let cx = Context {
        searcher: &searcher,
        generation: &open.path,
        statistics: &statistics,
        fields: &fields,
        synonyms: &synonyms,
        sections: &lookups.sections,
        named_sections: &lookups.named_sections,
        venues: &lookups.venues,
        authors: &lookups.authors,
        work_names: &lookups.works,
        name_heads: &lookups.name_heads,
        initials: &lookups.initials,
        members: &lookups.members,
        references: &lookups.references,
        newest_year: lookups.newest_year,
        name_stems: Default::default(),
        boosts,
    };
    let plan = plan::plan(&cx, request, also.is_some())?;
    let meant = match request.mode {
        Mode::Keyword => None,
        _ if !plan.exact.scoring => None,
        _ => meaning::Meant::of(&plan.root, boosts.excluded_meaning),
    };
    let (ranked, extra, parts) = match &meant {
        None => {
            let (ranked, extra) = rank::rank(&cx, &plan, request, also)?;
            (ranked, extra, None)
        }
        Some(meant) => {
            let (ranked, extra, parts) = blend(&cx, &plan, request, also, meant)?;
            (ranked, extra, Some(parts))
        }
    };
    let (more, ranking) = (ranked.more, ranked.ranking);
    let hits = hits::build(&cx, &plan, ranked, request, parts.as_ref())?;
    let outcome = SearchOutcome {
        hits,
        more,
        parsed: plan.root.to_string(),
        notes: plan.notes,
        rewrites: plan.rewrites,
        ranking,
    };
    Ok((outcome, extra))
}
