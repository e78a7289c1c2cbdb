//! The arXiv API: request URLs for id batches and title searches, and the
//! parser for the Atom 1.0 feeds it answers with. Pure: no network, no I/O.

mod atom;
mod feed;
mod request;

pub(crate) use atom::resolve_reference;
pub use atom::{ArxivError, parse_feed};
pub use feed::{ArxivEntry, Feed};
pub(crate) use request::{MAX_IDS_PER_REQUEST, id_list_url, title_search_url};
