//! `<catalog>/inbox.toml`: the records a curator rejected from the inbox,
//! so that they never come back. Sorted by id, written atomically; not an
//! entry file (the loader skips it, and it is no input of the index: a
//! rejection changes no document).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::fsutil::{read_regular_file, write_atomic};

use crate::catalog::INBOX_FILE;

const HEADER: &str = "# Records rejected from the inbox (`distml-search inbox reject ID`), which it\n# no longer proposes. Remove a block to see the record again.\n";

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    rejected: Vec<Rejection>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rejection {
    arxiv: String,
    /// The day it was rejected, `YYYY-MM-DD`.
    on: String,
}

/// The rejected arXiv ids and the day of each.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Rejected {
    ids: BTreeMap<String, String>,
}

impl Rejected {
    pub fn path(catalog_dir: &Path) -> PathBuf {
        catalog_dir.join(INBOX_FILE)
    }

    /// The rejections of the catalog folder, if any (none for the
    /// built-in catalog).
    pub fn of_catalog(catalog_dir: Option<&Path>) -> Result<Rejected, Error> {
        match catalog_dir {
            Some(dir) => Rejected::load(dir),
            None => Ok(Rejected::default()),
        }
    }

    /// The rejections of a catalog folder (none when there is no file).
    pub fn load(catalog_dir: &Path) -> Result<Rejected, Error> {
        let path = Rejected::path(catalog_dir);
        let Some(bytes) = read_regular_file(&path)? else {
            return Ok(Rejected::default());
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Usage(format!("{}: not valid UTF-8", path.display())))?;
        Rejected::parse(&text, &path)
    }

    fn parse(text: &str, path: &Path) -> Result<Rejected, Error> {
        let file: File = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| {
                    let line = text[..s.start].matches('\n').count() + 1;
                    format!(":{line}")
                })
                .unwrap_or_default();
            let message = e.message().trim().replace('\n', " ");
            Error::Usage(format!("{}{at}: {message}", path.display()))
        })?;
        Ok(Rejected {
            ids: file.rejected.into_iter().map(|r| (r.arxiv, r.on)).collect(),
        })
    }

    /// The rejected arXiv ids, in order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.ids.keys().map(String::as_str)
    }

    /// Records `arxiv` as rejected on `day`; false when it already was (the
    /// first day is kept).
    pub fn insert(&mut self, arxiv: &str, day: &str) -> bool {
        if self.ids.contains_key(arxiv) {
            return false;
        }
        self.ids.insert(arxiv.to_string(), day.to_string());
        true
    }

    pub fn to_toml(&self) -> String {
        let file = File {
            rejected: self
                .ids
                .iter()
                .map(|(arxiv, on)| Rejection {
                    arxiv: arxiv.clone(),
                    on: on.clone(),
                })
                .collect(),
        };
        let body = toml::to_string(&file).unwrap_or_default();
        format!("{HEADER}\n{body}")
    }

    pub fn save(&self, catalog_dir: &Path) -> Result<(), Error> {
        write_atomic(&Rejected::path(catalog_dir), self.to_toml().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_sorted_and_reads_back() {
        let mut rejected = Rejected::default();
        assert!(rejected.insert("2999.00002", "2026-12-02"));
        assert!(rejected.insert("2999.00001", "2026-12-01"));
        assert!(!rejected.insert("2999.00001", "2026-12-03"));
        let text = rejected.to_toml();
        assert!(text.ends_with(
            "[[rejected]]\narxiv = \"2999.00001\"\non = \"2026-12-01\"\n\n[[rejected]]\narxiv = \"2999.00002\"\non = \"2026-12-02\"\n"
        ), "{text}");
        assert_eq!(
            Rejected::parse(&text, Path::new("inbox.toml")).unwrap(),
            rejected
        );
    }

    #[test]
    fn a_broken_file_is_one_located_line() {
        let e = Rejected::parse("[[rejected]]\narxiv = 3\n", Path::new("c/inbox.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c/inbox.toml:2: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
