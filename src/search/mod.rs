//! Search: query understanding (syntax, synonyms, typos, filters), ranking,
//! snippets and more-like-this, over an opened index. No I/O beyond the index.

pub mod boosts;
mod compile;
pub mod counts;
mod explain;
mod facets;
mod feedback;
pub mod filter;
mod hits;
mod intent;
mod labelled;
mod listing;
mod plan;
pub mod query;
mod rank;
mod scaled;
mod seeded;
mod seek_union;
mod similar;
mod snippets;
mod spell;
mod statistics;
pub mod synonyms;
mod two_phase;

use std::ops::Range;

pub use boosts::Boosts;
use compile::Context;
pub use compile::Expansion;
pub use explain::ExplainStyle;
pub use filter::{Filter, Origin, YearRange};
pub use similar::similar;
pub use two_phase::Ranking;

use crate::catalog::Catalog;
use crate::error::Error;
use crate::index::{Fields, OpenIndex};
use crate::model::Record;
use synonyms::Synonyms;

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
    let searcher = open.reader.searcher();
    let fields = Fields::from_schema(&open.index.schema())?;
    let synonyms = Synonyms::new(&catalog.vocabulary);
    let lookups = catalog.lookups();
    let statistics = statistics::Statistics::new(&searcher, &fields)?;
    let cx = Context {
        searcher: &searcher,
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
        newest_year: lookups.newest_year,
        name_stems: Default::default(),
        boosts,
    };
    let plan = plan::plan(&cx, request, also.is_some())?;
    let (ranked, extra) = rank::rank(&cx, &plan, request, also)?;
    let (more, ranking) = (ranked.more, ranked.ranking);
    let hits = hits::build(&cx, &plan, ranked, request)?;
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
