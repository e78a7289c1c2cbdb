//! The crate's error type: each variant carries what the user needs to act.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The catalog has problems; `first` is the first of them.
    #[error("{first} ({more} more; run `distml-search check` to see them all)")]
    Catalog { first: String, more: usize },
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Index(String),
    #[error("{0}")]
    Query(String),
    #[error("{0}")]
    Network(String),
    #[error(transparent)]
    Fetch(#[from] crate::ingest::http::FetchError),
}

impl Error {
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        Error::Index(e.to_string())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
