//! arXiv's metadata snapshot: reading it line by line in bounded memory, and
//! importing it as the `arxiv` collection of the index.

mod import;
mod options;
mod record;
mod workers;

pub(crate) use crate::index::entries_by_arxiv;
pub use import::import_snapshot;
pub use options::ImportOptions;
pub use record::parse_line;
