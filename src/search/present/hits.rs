//! The last stage: ranked documents become hits, ties settled in a stable
//! order, with explanations and snippets.

use tantivy::{DocAddress, TantivyDocument};

use crate::error::Error;
use crate::model::Record;
use crate::search::plan::Plan;
use crate::search::plan::compile::Context;
use crate::search::present::explain::{Adjusted, explain};
use crate::search::present::snippets;
use crate::search::rank::Ranked;
use crate::search::rank::intents;
use crate::search::retrieve::meaning;
use crate::search::{Hit, SearchRequest};

pub fn build(
    cx: &Context<'_>,
    plan: &Plan,
    ranked: Ranked,
    request: &SearchRequest<'_>,
    meaning: Option<&meaning::Parts>,
) -> Result<Vec<Hit>, Error> {
    let mut hits = Vec::with_capacity(ranked.top.len());
    for &(score, address) in &ranked.top {
        let doc: TantivyDocument = cx.searcher.doc(address)?;
        let hit = Hit {
            rank: 0,
            score,
            record: Record::from_document(&doc, cx.fields),
            snippet: None,
            explanation: None,
            semantic: meaning.and_then(|m| m.get(&address)).map(|p| p.cosine),
        };
        hits.push((hit, address));
    }
    // A listing is already in order, but for ties within a year, which
    // follow the index: it chose its documents so, and re-sorting them would
    // make `-n 1` other than the first of `-n 2`.
    if plan.exact.scoring {
        settle_ties(&mut hits);
    }
    hits.truncate(request.limit);
    let query = &*plan.exact.query;
    let given = |address: DocAddress| {
        (ranked.feedback.iter())
            .find(|(a, _)| *a == address)
            .map(|(_, f)| f)
    };
    let scaled = |address: DocAddress| {
        (ranked.intents.iter())
            .filter(|(_, works)| works.contains(&address))
            .map(|(intent, _)| (*intent, intents::factor(cx, *intent)))
            .collect()
    };
    let mut hits: Vec<Hit> = hits
        .into_iter()
        .map(|(mut hit, address)| {
            if let Some(style) = request.explain {
                let adjusted = Adjusted {
                    intents: scaled(address),
                    feedback: given(address),
                };
                let mut explained = explain(query, cx.statistics, address, adjusted, style)?;
                if let Some(part) = meaning.and_then(|m| m.get(&address)) {
                    let line = meaning::explain(part, request.mode, cx.boosts.semantic);
                    explained = format!("{line}\n{explained}");
                }
                hit.explanation = Some(explained);
            }
            Ok(hit)
        })
        .collect::<Result<_, Error>>()?;
    snippets::add_snippets(cx.searcher, cx.fields, query, plan, &mut hits)?;
    for (i, hit) in hits.iter_mut().enumerate() {
        hit.rank = i + 1;
    }
    Ok(hits)
}

/// Equal scores: the curated catalog before imported records, then the
/// newest, then by id, so that results do not depend on the order of
/// documents in the index.
fn settle_ties(hits: &mut [(Hit, DocAddress)]) {
    hits.sort_by(|(a, _), (b, _)| {
        b.score
            .total_cmp(&a.score)
            .then((!b.record.is_imported()).cmp(&!a.record.is_imported()))
            .then(b.record.year.cmp(&a.record.year))
            .then(a.record.id.cmp(&b.record.id))
    });
}
