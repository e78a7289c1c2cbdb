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
    /// A command used in a way it cannot be: what to do instead.
    #[error("{0}")]
    Usage(String),
    /// The index cannot be built or opened as it is.
    #[error("{0}")]
    Index(String),
    /// What tantivy reported, kept whole.
    #[error(transparent)]
    Tantivy(#[from] tantivy::TantivyError),
    /// Writing the command's output failed.
    #[error("<stdout>: {0}")]
    Output(#[source] std::io::Error),
    /// A query that cannot be run, with the column or flag at fault.
    #[error("{0}")]
    Query(String),
    /// A fetch that failed, with its cause.
    #[error(transparent)]
    Fetch(#[from] crate::ingest::http::FetchError),
    /// The network runtime could not start (threads, file descriptors).
    #[error("cannot start the network runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

impl Error {
    /// A file or folder this user may not write (or a read-only mount).
    pub fn is_permission_denied(&self) -> bool {
        matches!(self, Error::Io { source, .. } if matches!(
            source.kind(),
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
        ))
    }

    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// The error of writing to standard output.
    pub fn output(source: std::io::Error) -> Self {
        Error::Output(source)
    }

    /// Whether the index's data is damaged (as opposed to a bad query or a
    /// missing file): what a rebuild cures.
    pub fn is_damaged_index(&self) -> bool {
        matches!(
            self,
            Error::Tantivy(
                tantivy::TantivyError::DataCorruption(_)
                    | tantivy::TantivyError::IoError(_)
                    | tantivy::TantivyError::OpenReadError(_)
            )
        )
    }

    /// A reader that went away (`| head`) is not an error.
    pub fn is_broken_pipe(&self) -> bool {
        let io = match self {
            Error::Output(source) | Error::Io { source, .. } => source,
            _ => return false,
        };
        io.kind() == std::io::ErrorKind::BrokenPipe
    }
}
