//! Phrases that a union's terms already imply, left out of the query that
//! counts every match: a phrase found in a field holds each of its words in
//! that field, so beside a term query for one of those words it adds no
//! match. Technique names are sought as phrases in every title ("expert
//! sharding" also as "expert parallelism", "expert placement"...), and
//! checking their positions over hundreds of thousands of matches cost a
//! broad query's counting more than its ranking.

use std::collections::HashSet;

use tantivy::Term;
use tantivy::query::{PhraseQuery, TermQuery};

use super::Q;

/// Removes from `union` (alternatives, any of which matches) each phrase
/// query holding a term that a term query of `union` seeks: the union
/// matches the same documents. The queries must be bare (not boosted or
/// labelled) to be seen; anything else is kept.
pub(super) fn drop_implied_phrases(union: &mut Vec<Q>) {
    let terms: HashSet<&Term> = union
        .iter()
        .filter_map(|q| q.downcast_ref::<TermQuery>())
        .map(TermQuery::term)
        .collect();
    if terms.is_empty() {
        return;
    }
    let implied: Vec<bool> = union
        .iter()
        .map(|q| {
            q.downcast_ref::<PhraseQuery>()
                .is_some_and(|p| p.phrase_terms().iter().any(|t| terms.contains(t)))
        })
        .collect();
    let mut implied = implied.into_iter();
    union.retain(|_| !implied.next().unwrap_or(false));
}
