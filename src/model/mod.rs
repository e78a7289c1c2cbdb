//! The records that flow between the stages: what a source says about a
//! paper (`paper`), what the ingester learned about an entry (`metadata`,
//! the cache in `metadata.json`), and the record that is indexed and shown
//! (`record`). Every stage imports these; none of them imports a stage.

mod kind;
pub mod metadata;
pub mod paper;
mod record;

pub use kind::{Collection, Kind};
pub use paper::{PaperRecord, Source, normalize_whitespace, push_normalized};
pub use record::{ARXIV_ID_PREFIX, PredictedTag, Record, arxiv_record_id, arxiv_url};
