//! The ingester: paper metadata and abstracts from arXiv, Crossref and
//! OpenAlex. The network lives here and nowhere else; parsing is pure.

pub mod arxiv;
pub(crate) mod config;
pub mod crossref;
pub mod http;
mod json;
mod lanes;
pub(crate) mod lookup;
mod markup;
pub mod openalex;
mod progress;
mod resolve;
mod run;
mod state;
pub(crate) mod status;

pub(crate) use config::IngestConfig;
pub(crate) use run::ingest;
pub(crate) use state::Report;
