//! The curator's inbox: records of the arxiv collection that are not in the
//! catalog, ranked by how well they belong in the list, each with the
//! section and tags proposed for it and why (`rank`); the records a curator
//! rejected (`rejected`, `inbox.toml`); what is already listed (`listed`);
//! and an accepted record written as a catalog entry (`accept`).
//!
//! Nothing here touches the network or the index: the command hands in the
//! records and writes what comes out.

pub mod accept;
mod belongs;
mod listed;
mod rank;
mod rejected;
mod section;

pub use listed::Listed;
pub use rank::Belongs;
pub use rejected::Rejected;

use crate::catalog::Catalog;
use crate::model::Record;

/// A record proposed for the list.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub record: Record,
    /// How well it belongs, in 0..=1: higher is better.
    pub score: f32,
    /// The section it would go in.
    pub section: Option<String>,
    /// The tags proposed for it, most confident first.
    pub tags: Vec<String>,
    /// The words and tag names that weighed most.
    pub why: Vec<String>,
}

/// The candidates among `records`, best first (ties by arXiv id): those not
/// listed, not rejected, and not a catalog entry's own record.
pub fn candidates(
    catalog: &Catalog,
    listed: &Listed,
    rejected: &Rejected,
    belongs: &Belongs,
    records: Vec<Record>,
) -> Vec<Candidate> {
    let mut candidates: Vec<Candidate> = records
        .into_iter()
        .filter(|r| r.is_imported())
        .filter(|r| !r.arxiv.as_deref().is_some_and(|a| rejected.contains(a)))
        .filter(|r| listed.find(r).is_none())
        .map(|record| candidate(catalog, belongs, record))
        .collect();
    candidates.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.record.arxiv.cmp(&b.record.arxiv))
    });
    candidates
}

/// `record` assessed: its score, section, tags and why.
pub fn candidate(catalog: &Catalog, belongs: &Belongs, record: Record) -> Candidate {
    let assessed = belongs.assess(&record);
    Candidate {
        section: section::propose(catalog, &assessed.tags).map(str::to_string),
        tags: assessed.proposed,
        why: assessed.why,
        score: assessed.score,
        record,
    }
}
