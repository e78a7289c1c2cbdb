//! The crate's error type: each variant carries what the user needs to act.

mod fetch;

use std::path::{Path, PathBuf};

pub use fetch::FetchError;
pub(crate) use fetch::redact;

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
    Fetch(#[from] FetchError),
    /// An OAI-PMH endpoint that answered a harvest's request with an HTTP
    /// error status.
    #[error("GET {url} returned HTTP {status}: is DISTML_OAI_API an OAI-PMH endpoint?")]
    OaiStatus { url: String, status: u16 },
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

    /// Whether a write failed for want of space (ENOSPC, or a quota),
    /// wherever the I/O error sits: tantivy keeps some only as text.
    pub fn is_disk_full(&self) -> bool {
        let full = |e: &std::io::Error| {
            matches!(
                e.kind(),
                std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
            )
        };
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(e) = cause {
            if e.downcast_ref::<std::io::Error>().is_some_and(full) {
                return true;
            }
            cause = e.source();
        }
        let text = self.to_string();
        ["(os error 28)", "(os error 122)"]
            .iter()
            .any(|code| text.contains(code))
    }

    /// The error as the user is told it: a full disk says so first, and
    /// what to do (tantivy's own errors name no file: they are the index's).
    pub fn explained(&self) -> String {
        let whose = match self {
            Error::Tantivy(_) => "the index's disk",
            _ => "the disk",
        };
        match self.is_disk_full() {
            true => format!("{whose} is full ({self}); free some space and run the command again"),
            false => self.to_string(),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_said_wherever_its_error_sits() {
        let io = Error::io("catalog/x.toml", std::io::Error::from_raw_os_error(28));
        assert!(io.is_disk_full());
        assert!(
            io.explained()
                .starts_with("the disk is full (catalog/x.toml: "),
            "{}",
            io.explained()
        );
        // tantivy's indexing thread keeps only the text of its I/O error.
        let text = std::io::Error::from_raw_os_error(28).to_string();
        let tantivy = Error::Tantivy(tantivy::TantivyError::InternalError(text));
        assert!(
            tantivy
                .explained()
                .starts_with("the index's disk is full (")
        );
        let other = Error::io("x", std::io::Error::from_raw_os_error(13));
        assert!(!other.is_disk_full());
        assert_eq!(other.explained(), other.to_string());
    }
}
