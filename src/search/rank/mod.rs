//! The second stage: the best documents for a plan, scored exactly or in two
//! phases, or listed when nothing scores; ties with the last one shown are
//! fetched whole, so that a shorter list is the start of a longer one.

pub mod feedback;
pub mod intents;

use tantivy::DocAddress;
use tantivy::collector::{Collector, TopDocs};

use crate::error::Error;
use crate::search::SearchRequest;
use crate::search::plan::Plan;
use crate::search::plan::compile::Context;
use crate::search::retrieve::listing::listing;
use crate::search::retrieve::seeded;
use crate::search::retrieve::two_phase::{self, Ranking};
use crate::search::understand::intent::Intent;
use feedback::Feedback;

/// Scores and documents, best first.
type Top = Vec<(f32, DocAddress)>;

/// The most results fetched to settle a tie with the last one shown.
const MAX_TIED: usize = 1_000;

pub struct Ranked {
    /// Best first; ties in no particular order (see `hits`).
    pub top: Vec<(f32, DocAddress)>,
    pub ranking: Ranking,
    /// Whether more documents matched than were asked for.
    pub more: bool,
    /// What feedback from the first result gave the results it raised.
    pub feedback: Vec<(DocAddress, Feedback)>,
    /// What the query asks about (see `intent`), each with the results it
    /// scaled.
    pub intents: Vec<(Intent, Vec<DocAddress>)>,
}

impl Ranked {
    /// The ranking of `--mode semantic`, before its results are put in:
    /// nothing of a ranking by words.
    pub fn by_meaning() -> Ranked {
        Ranked {
            top: Vec::new(),
            ranking: Ranking::Meaning,
            more: false,
            feedback: Vec::new(),
            intents: Vec::new(),
        }
    }
}

/// The ranked documents, and what `also` collected from every match.
pub fn rank<C: Collector>(
    cx: &Context<'_>,
    plan: &Plan,
    request: &SearchRequest<'_>,
    also: Option<C>,
) -> Result<(Ranked, Option<C::Fruit>), Error> {
    // One more than asked tells whether there are more, without counting
    // every match (which would defeat tantivy's top-k pruning).
    let wanted = request.limit.max(1) + 1;
    let feedback_applies = plan.exact.scoring && feedback::applies(&plan.root, cx.boosts.feedback);
    // Feedback reorders a deeper pool, used when the first result gives
    // any or the query asks about training or serving, which may change
    // which result is first: fetched by the first search where that costs
    // little (see `pool_at_once`), else by a second one when used.
    let asked: Vec<Intent> = (plan.intents.iter().copied())
        .filter(|&i| plan.exact.scoring && intents::factor(cx, i) != 1.0)
        .collect();
    let mut fetched = if pool_at_once(cx) && (feedback_applies || !asked.is_empty()) {
        wanted.max(feedback::POOL)
    } else {
        wanted
    };
    let (mut top, mut ranking, fruit) = top_docs_and(cx, plan, request.exhaustive, fetched, also)?;
    let with_feedback =
        feedback_applies && (!asked.is_empty() || feedback::leads(cx.searcher, &top)?);
    if (with_feedback || !asked.is_empty()) && top.len() == fetched && fetched < feedback::POOL {
        fetched = feedback::POOL;
        (top, ranking) = top_docs(cx, plan, request.exhaustive, fetched)?;
    }
    // Results tied with the last one shown may go on past those fetched: all
    // of them are fetched, so that the tie-breaks of `hits` choose which
    // show. Only on a small index: on a large one each fetch is a search
    // again, ties are chosen in index order, and a shorter list can differ
    // in its last tied result.
    let shown = request.limit.max(1);
    let settle_ties = plan.exact.scoring && !cx.large_index();
    while settle_ties
        && top.len() == fetched
        && fetched < MAX_TIED
        && top[shown - 1].0 == top[fetched - 1].0
    {
        fetched = (fetched * 4).min(MAX_TIED);
        (top, ranking) = top_docs(cx, plan, request.exhaustive, fetched)?;
    }
    let more = top.len() > request.limit;
    let intents = (asked.into_iter())
        .map(|i| Ok((i, intents::rescale(cx, i, &mut top)?)))
        .collect::<Result<Vec<_>, Error>>()?;
    let feedback = if with_feedback {
        feedback::rerank(cx, &plan.root, &mut top)?
    } else {
        Vec::new()
    };
    if !settle_ties {
        top.truncate(request.limit);
    }
    let ranked = Ranked {
        top,
        ranking,
        more,
        feedback,
        intents,
    };
    Ok((ranked, fruit))
}

/// Whether feedback's pool is fetched at once rather than after the
/// results shown, when it may be used (a second search). On a large
/// index, a query with phrases or filters walks its matches however deep,
/// and block-max WAND's top 40 cost about its top 11: at a million records
/// the queries whose first result led took one search instead of two
/// (`training` 0.75 -> 0.41 ms, `fragmentation` 0.88 -> 0.51) and those
/// whose first did not lost nothing measurable (`carbon` 0.46 -> 0.45 and
/// 0.54). Only on a large index: on a small one, which results show among
/// ties depends on how many were fetched (see `rank`).
fn pool_at_once(cx: &Context<'_>) -> bool {
    cx.large_index()
}

/// [`top_docs`], and `also` run on every match: in the same pass when the
/// ranking scores every match anyway (phrases and filters keep tantivy from
/// pruning), which then costs one walk of the matches, not two.
fn top_docs_and<C: Collector>(
    cx: &Context<'_>,
    plan: &Plan,
    exhaustive: bool,
    n: usize,
    also: Option<C>,
) -> Result<(Top, Ranking, Option<C::Fruit>), Error> {
    let exact = &*plan.exact.query;
    let walks_every_match = plan.exact.scoring
        && (plan.exact.phrases || plan.exact.filtered)
        && (exhaustive || plan.parts.is_none());
    if walks_every_match {
        // Without `also` too, so that a search ranks alike with or without.
        let collector = (TopDocs::with_limit(n).order_by_score(), also);
        let (top, fruit) = cx.statistics.search(exact, &collector)?;
        return Ok((rescored(cx, plan, top)?, Ranking::Exhaustive, fruit));
    }
    let Some(also) = also else {
        let (top, ranking) = top_docs(cx, plan, exhaustive, n)?;
        return Ok((top, ranking, None));
    };
    // Two passes, side by side: the ranking's several short searches (see
    // `two_phase`) leave the search threads idle between them, which the
    // counting pass fills.
    let matching = plan.matching.as_ref().map_or(exact, |m| &*m.query);
    let searcher = cx.searcher;
    let (ranked, fruit) = std::thread::scope(|scope| {
        let counting = scope.spawn(move || searcher.search(matching, &also));
        let ranked = top_docs(cx, plan, exhaustive, n);
        let fruit = counting
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (ranked, fruit)
    });
    let (top, ranking) = ranked?;
    Ok((top, ranking, Some(fruit?)))
}

/// The best `n` documents and how they were found.
fn top_docs(
    cx: &Context<'_>,
    plan: &Plan,
    exhaustive: bool,
    n: usize,
) -> Result<(Vec<(f32, DocAddress)>, Ranking), Error> {
    let searcher = cx.searcher;
    let exact = &*plan.exact.query;
    if !plan.exact.scoring {
        return Ok((listing(searcher, cx.fields, exact, n)?, Ranking::Exhaustive));
    }
    match &plan.parts {
        Some(parts) if !exhaustive => {
            let parts = two_phase::Parts {
                terms: &*parts.terms.query,
                phrases: &*parts.phrases.query,
                rank: &*parts.rank.query,
                exact,
            };
            two_phase::top_docs(cx.statistics, &parts, n)
        }
        // Not in two phases, on a large index: pruned (where tantivy can)
        // from the catalog's best.
        None if !exhaustive && cx.large_index() => Ok((
            seeded::top_docs(cx.statistics, cx.fields, exact, n)?,
            Ranking::Exhaustive,
        )),
        _ => {
            let top = (cx.statistics).search(exact, &TopDocs::with_limit(n).order_by_score())?;
            Ok((rescored(cx, plan, top)?, Ranking::Exhaustive))
        }
    }
}

/// An exhaustive ranking's results, scored as two-phase ranking scores
/// (where it applies), so that both order alike.
fn rescored(
    cx: &Context<'_>,
    plan: &Plan,
    top: Vec<(f32, DocAddress)>,
) -> Result<Vec<(f32, DocAddress)>, Error> {
    match &plan.parts {
        Some(parts) => two_phase::rescore(cx.statistics, &*parts.rank.query, top),
        None => Ok(top),
    }
}
