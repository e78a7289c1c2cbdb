//! The curator's inbox: records of the arxiv collection that are not in the
//! catalog, ranked by how well they belong in the list, each with the
//! section and tags proposed for it and why (`rank`); the records a curator
//! rejected (`rejected`, `inbox.toml`); what is already listed (`listed`);
//! and an accepted record written as a catalog entry (`accept`).
//!
//! Nothing here touches the network or writes the index: `scan` reads the
//! index's vectors with [`Belongs::score`] and assesses the best records,
//! for the command and the server alike.

pub mod accept;
mod belongs;
mod listed;
mod rank;
mod rejected;
mod scan;
mod section;

pub use belongs::Closest;
pub use listed::Listed;
pub use rank::Belongs;
pub use rejected::Rejected;
pub use scan::{Learned, ranked};

use crate::catalog::Catalog;
use crate::embed::Vector;
use crate::model::Record;

/// Candidates shown when no limit is given.
pub const DEFAULT_LIMIT: usize = 20;

/// A record proposed for the list.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub record: Record,
    /// How well it belongs, in -1..=1: higher is better.
    pub score: f32,
    /// The section it would go in.
    pub section: Option<String>,
    /// The tags proposed for it, most confident first.
    pub tags: Vec<String>,
    /// The closest works and the tag names that weighed most.
    pub why: Vec<String>,
    /// The catalog works closest in meaning, closest first.
    pub closest: Vec<Closest>,
}

/// `record` (whose vector is `vector`) assessed: its score, section, tags
/// and why, given the vectors of the rejected records.
pub fn candidate(
    catalog: &Catalog,
    belongs: &Belongs,
    record: Record,
    vector: &Vector,
    rejected: &[Vector],
) -> Candidate {
    let assessed = belongs.assess(&record, vector, rejected);
    Candidate {
        section: section::propose(catalog, &assessed.tags).map(str::to_string),
        tags: assessed.proposed,
        why: assessed.why,
        closest: assessed.closest,
        score: assessed.score,
        record,
    }
}
