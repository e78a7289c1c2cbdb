//! Ranking in two phases, for large indexes. Phrase clauses keep tantivy from
//! pruning (block-max WAND needs term queries only), so a multi-word query
//! over a million abstracts would score every document holding any of its
//! words. Instead, the query's term clauses (pruned) and its phrase clauses
//! each give their best candidates, and the exact query ranks only those.
//!
//! A document's exact score is the sum of its scores under the two parts.
//! One that neither part ranked among its best scores at most the sum of the
//! two parts' last candidate scores; when the results beat that bound they
//! are exactly the exhaustive search's, else every match is ranked.
//!
//! The phrases' candidates are ranked first. Their `limit`-th exact score is
//! a bar that a document the phrases part missed can pass only by its terms
//! (its phrases score at most the part's last candidate), so the terms part
//! prunes from there instead of from nothing: a query whose phrases find the
//! works (a technique named in titles) asks little of the terms.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tantivy::collector::TopDocs;
use tantivy::index::SegmentId;
use tantivy::query::{
    BooleanQuery, ConstScorer, EnableScoring, Explanation, Occur, Query, Scorer, Weight,
};
use tantivy::{DocAddress, DocId, DocSet, Score, Searcher, SegmentReader, TERMINATED};

use crate::error::Error;
use crate::search::retrieve::seeded::{self, FLOOR_MARGIN};
use crate::search::statistics::Statistics;

/// Candidates asked of each part, per result asked for, and at least this
/// many. The terms part is pruned, so it is first asked for few, and for more
/// only when those prove nothing. (One term candidate a result first proves
/// the benchmark's queries a little sooner, but at a million records sent
/// 661 of the relevance sets' two-phase queries to the second round,
/// against 254 with two.)
const CANDIDATES_PER_RESULT: usize = 10;
const MIN_CANDIDATES: usize = 100;
const FIRST_TERM_CANDIDATES_PER_RESULT: usize = 2;

/// One query, compiled four ways (see `compile::Mode`).
pub struct Parts<'a> {
    /// Its term clauses only.
    pub terms: &'a dyn Query,
    /// Its phrase clauses only.
    pub phrases: &'a dyn Query,
    /// The exact query, made to seek (see `seek_union`).
    pub rank: &'a dyn Query,
    pub exact: &'a dyn Query,
}

/// How the results were ranked, for `--explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    /// Every match was ranked in one pass (where the query is made of terms
    /// only, block-max WAND skips the matches that cannot rank: the results
    /// are the same).
    Exhaustive,
    /// Only candidates were scored, and no other document could beat them.
    Candidates(usize),
    /// Candidates could not be shown to hold the best, so every match was
    /// ranked.
    Unproven(usize),
    /// Ranked by meaning alone (`--mode semantic`), not by words.
    Meaning,
}

impl std::fmt::Display for Ranking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ranking::Exhaustive => write!(f, "every match ranked in one pass"),
            Ranking::Candidates(n) => {
                write!(f, "{n} candidates scored; no other match can rank higher")
            }
            Ranking::Unproven(n) => write!(
                f,
                "{n} candidates could not be shown to hold the best, so every match ranked"
            ),
            Ranking::Meaning => write!(f, "by meaning alone: each match's cosine with the query"),
        }
    }
}

/// The best `limit` documents for the exact query, as an exhaustive search
/// ranks them.
pub fn top_docs(
    stats: &Statistics,
    parts: &Parts<'_>,
    limit: usize,
) -> Result<(Vec<(Score, DocAddress)>, Ranking), Error> {
    let most = (limit * CANDIDATES_PER_RESULT).max(MIN_CANDIDATES);
    let phrases = best(stats, parts.phrases, most, Score::MIN)?;
    let by_phrases = rank_among(stats, parts.rank, phrases.found.iter().copied(), limit)?;
    let floor = terms_floor(&by_phrases, phrases.bound, limit);
    let phrased: HashSet<DocAddress> = phrases.found.iter().copied().collect();
    let mut count = 0;
    for wanted in [limit * FIRST_TERM_CANDIDATES_PER_RESULT, most] {
        let terms = best(stats, parts.terms, wanted, floor)?;
        let bound = terms.bound + phrases.bound;
        count = terms.found.len() + phrases.found.len();
        let unphrased = terms.found.iter().filter(|a| !phrased.contains(a));
        let by_terms = rank_among(stats, parts.rank, unphrased.copied(), limit)?;
        let top = merged(&by_phrases, by_terms, limit);
        if bound == 0.0 || (top.len() == limit && top[limit - 1].0 > bound) {
            return Ok((top, Ranking::Candidates(count)));
        }
    }
    let top = stats.search(parts.exact, &TopDocs::with_limit(limit).order_by_score())?;
    Ok((rescore(stats, parts.rank, top)?, Ranking::Unproven(count)))
}

/// What a document's terms must score more than for it to rank among the
/// best `limit` when the phrases part did not find it: `by_phrases`, the
/// phrases' candidates ranked, hold `limit` documents scoring at least their
/// last, and any other document scores at most its terms plus
/// `phrases_bound`. No bar (`Score::MIN`) when they hold fewer or it is
/// within the margin of nothing.
fn terms_floor(by_phrases: &[(Score, DocAddress)], phrases_bound: Score, limit: usize) -> Score {
    let floor = match by_phrases.last() {
        Some(&(bar, _)) if by_phrases.len() == limit => {
            bar - phrases_bound - bar.abs() * FLOOR_MARGIN
        }
        _ => return Score::MIN,
    };
    if floor > 0.0 { floor } else { Score::MIN }
}

/// The best `limit` of two rankings of different documents, ordered as
/// `TopDocs` orders them (ties by address).
fn merged(
    a: &[(Score, DocAddress)],
    b: Vec<(Score, DocAddress)>,
    limit: usize,
) -> Vec<(Score, DocAddress)> {
    let mut all = b;
    all.extend_from_slice(a);
    all.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    all.truncate(limit);
    all
}

/// The best `limit` of `candidates` under `rank`, a query compiled to seek.
fn rank_among(
    stats: &Statistics,
    rank: &dyn Query,
    candidates: impl Iterator<Item = DocAddress>,
    limit: usize,
) -> Result<Vec<(Score, DocAddress)>, Error> {
    let among = Among::new(stats.searcher(), candidates);
    if among.docs.is_empty() {
        return Ok(Vec::new());
    }
    let ranked = BooleanQuery::new(vec![
        (Occur::Must, rank.box_clone()),
        (Occur::Must, Box::new(among)),
    ]);
    Ok(stats.search(&ranked, &TopDocs::with_limit(limit).order_by_score())?)
}

/// The same documents, scored as ranking candidates scores them. Scores are
/// float sums, and tantivy's scorers do not all add a hit's clauses in one
/// order (block-max WAND adds them as their postings reach the document), so
/// an exhaustive search's scores could differ from the candidates' in the
/// last bit, with how the index's segments were cut, and swap two
/// near-equal results. Scored alike, both rankings order alike.
pub fn rescore(
    stats: &Statistics,
    rank: &dyn Query,
    top: Vec<(Score, DocAddress)>,
) -> Result<Vec<(Score, DocAddress)>, Error> {
    if top.is_empty() {
        return Ok(top);
    }
    let rescored = rank_among(stats, rank, top.iter().map(|(_, a)| *a), top.len())?;
    // Never lose a result: the two forms match the same documents.
    Ok(if rescored.len() == top.len() {
        rescored
    } else {
        top
    })
}

/// A part's best documents, and the most any other can score under it.
struct Best {
    found: Vec<DocAddress>,
    bound: Score,
}

/// A part's best `wanted` documents scoring more than `floor` (any score
/// when `Score::MIN`), found with `floor` as the bar every segment starts
/// from. One that found fewer than asked found every document it matches
/// above `floor`, which bounds the others.
fn best(stats: &Statistics, part: &dyn Query, wanted: usize, floor: Score) -> Result<Best, Error> {
    let found = seeded::above(stats, part, wanted, floor)?;
    let bound = match found.last() {
        Some((score, _)) if found.len() == wanted => *score,
        _ => floor.max(0.0),
    };
    Ok(Best {
        found: found.into_iter().map(|(_, address)| address).collect(),
        bound,
    })
}

/// Matches the given documents, scoring 0.
#[derive(Clone, Debug)]
struct Among {
    docs: Arc<HashMap<SegmentId, Vec<DocId>>>,
}

impl Among {
    fn new(searcher: &Searcher, addresses: impl Iterator<Item = DocAddress>) -> Among {
        let mut docs: HashMap<SegmentId, Vec<DocId>> = HashMap::new();
        for address in addresses {
            let segment = searcher.segment_reader(address.segment_ord).segment_id();
            docs.entry(segment).or_default().push(address.doc_id);
        }
        for ids in docs.values_mut() {
            ids.sort_unstable();
            ids.dedup();
        }
        Among {
            docs: Arc::new(docs),
        }
    }
}

impl Query for Among {
    fn weight(&self, _: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for Among {
    fn scorer(&self, reader: &SegmentReader, _boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let ids = self
            .docs
            .get(&reader.segment_id())
            .cloned()
            .unwrap_or_default();
        Ok(Box::new(ConstScorer::new(
            SortedIds { ids, cursor: 0 },
            0.0,
        )))
    }

    fn explain(&self, _reader: &SegmentReader, _doc: DocId) -> tantivy::Result<Explanation> {
        Ok(Explanation::new("a candidate of the first phase", 0.0))
    }
}

/// Strictly increasing document ids.
struct SortedIds {
    ids: Vec<DocId>,
    cursor: usize,
}

impl DocSet for SortedIds {
    fn advance(&mut self) -> DocId {
        self.cursor = (self.cursor + 1).min(self.ids.len());
        self.doc()
    }

    fn doc(&self) -> DocId {
        self.ids.get(self.cursor).copied().unwrap_or(TERMINATED)
    }

    fn size_hint(&self) -> u32 {
        (self.ids.len() - self.cursor) as u32
    }
}
