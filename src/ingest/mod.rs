//! The ingester: paper metadata and abstracts from arXiv, Crossref and
//! OpenAlex. The network lives here and nowhere else; parsing is pure.

pub mod arxiv;
pub mod cache;
pub mod crossref;
pub mod http;
pub mod openalex;
pub mod record;
