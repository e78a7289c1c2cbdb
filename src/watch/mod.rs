//! Saved searches ("watches") and where they are kept: `watches.json`,
//! beside the catalog (or, for the built-in catalog, in the user's data
//! folder, as fetched metadata is; see `Locations::metadata_dir`).
//!
//! A watch is a search (words and filters) or works to follow (`like`),
//! and two stamps of the index (see `index::stamps`): `since`, the latest
//! record the index held when the watch was added (its feed shows what
//! came after), and `read_through`, the latest it held when the watch was
//! last read (what came after is new). Stamps are read from the index a
//! watch was shown from, never from the clock, so a record committed while
//! a watch is read is new the next time, not lost.
//!
//! The file is written atomically, under a lock (`.watches.lock` beside
//! it) held from reading it to writing it, so that two commands never
//! lose each other's change; a file that cannot be read is an error, never
//! replaced.

mod matches;

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::fsutil::{lock_file, read_regular_file, write_atomic};

pub use matches::{Matches, feed_records, matches_after};

/// The file's name.
pub const WATCHES_FILE: &str = "watches.json";
const LOCK_FILE: &str = ".watches.lock";

/// The longest name a watch may have.
pub const MAX_NAME: usize = 64;

/// The least similarity of a record to a followed work, by default. On the
/// fictional stream of `tests/fixtures/stream` followed from `gpipe` and
/// `megatron-lm`: at 0.65, 19 of its 40 papers of the field and 4 of its
/// 80 look-alikes; at 0.6, 31 and 25; at 0.7, 4 and none.
pub const DEFAULT_MIN_SIMILARITY: f64 = 0.65;

/// One saved search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Watch {
    pub name: String,
    /// The words, as `search` takes them (may be empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub query: String,
    /// The filters, as their flags take them.
    #[serde(default, skip_serializing_if = "Filters::is_empty")]
    pub filters: Filters,
    /// Works to follow (ids as the index knows them): new records close in
    /// meaning to any of them match.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub like: Vec<String>,
    /// With `like`: the least cosine a match has with one of the works.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_similarity: Option<f64>,
    /// When it was added (RFC 3339, UTC).
    pub created: String,
    /// The latest stamp of the index when it was added.
    pub since: i64,
    /// The latest stamp of the index when it was last marked read.
    pub read_through: i64,
    /// When it was last marked read (RFC 3339, UTC), if ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<String>,
}

/// A watch's filters, each as its flag takes it (`--tag`, `--year`, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filters {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tag: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection: Option<String>,
}

impl Filters {
    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }

    /// The filters as flags: `--tag moe --year 2024..`.
    pub fn flags(&self) -> Vec<(&'static str, &str)> {
        let mut flags: Vec<(&'static str, &str)> =
            self.tag.iter().map(|t| ("--tag", t.as_str())).collect();
        for (flag, value) in [
            ("--section", &self.section),
            ("--kind", &self.kind),
            ("--year", &self.year),
            ("--venue", &self.venue),
            ("--author", &self.author),
            ("--collection", &self.collection),
        ] {
            if let Some(value) = value {
                flags.push((flag, value));
            }
        }
        flags
    }
}

impl Watch {
    /// What it watches, in a line: `"expert parallelism" --tag moe`, or
    /// `like gpipe-2019, arxiv:2401.10241`.
    pub fn describe(&self) -> String {
        if !self.like.is_empty() {
            let floor = self.min_similarity.unwrap_or(DEFAULT_MIN_SIMILARITY);
            return format!("like {} (similarity {floor} or more)", self.like.join(", "));
        }
        let mut parts = Vec::new();
        if !self.query.is_empty() {
            parts.push(format!("{:?}", self.query));
        }
        for (flag, value) in self.filters.flags() {
            parts.push(format!("{flag} {value}"));
        }
        parts.join(" ")
    }
}

/// Every watch, by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Watches {
    #[serde(default)]
    pub watches: Vec<Watch>,
}

impl Watches {
    /// Where the watches of `dir` are.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(WATCHES_FILE)
    }

    /// The watches in `path` (none when there is no file). A file that
    /// cannot be read is an error that names it.
    pub fn load(path: &Path) -> Result<Watches, Error> {
        let Some(bytes) = read_regular_file(path)? else {
            return Ok(Watches::default());
        };
        serde_json::from_slice(&bytes).map_err(|e| {
            Error::Usage(format!(
                "{}: not a watches file ({e}); fix or remove it",
                path.display()
            ))
        })
    }

    /// Writes `path` atomically: a failed or killed write leaves the file
    /// as it was.
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
        text.push('\n');
        write_atomic(path, text.as_bytes())
    }

    pub fn get(&self, name: &str) -> Option<&Watch> {
        self.watches.iter().find(|w| w.name == name)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut Watch> {
        self.watches.iter_mut().find(|w| w.name == name)
    }

    /// Adds `watch`, kept in name order; false (and nothing changed) when
    /// one has its name.
    pub fn insert(&mut self, watch: Watch) -> bool {
        if self.get(&watch.name).is_some() {
            return false;
        }
        self.watches.push(watch);
        self.watches.sort_by(|a, b| a.name.cmp(&b.name));
        true
    }

    /// Takes the watch `name` out; false when there is none.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.watches.len();
        self.watches.retain(|w| w.name != name);
        self.watches.len() < before
    }

    /// The watch `name`, or an error that lists the names there are.
    pub fn find(&self, name: &str) -> Result<&Watch, Error> {
        self.get(name).ok_or_else(|| unknown(self, name))
    }
}

/// "no watch named X" and what there is.
pub fn unknown(watches: &Watches, name: &str) -> Error {
    let names: Vec<&str> = watches.watches.iter().map(|w| w.name.as_str()).collect();
    Error::Usage(if names.is_empty() {
        format!(
            "no watch named `{name}`: there are none (add one with `distml-search watch add NAME QUERY`)"
        )
    } else {
        format!("no watch named `{name}` (watches: {})", names.join(", "))
    })
}

/// Held while the watches are read and written back.
pub struct WatchLock {
    _file: File,
}

/// Takes the lock of the watches in `dir`, waiting for another command
/// that holds it.
pub fn lock(dir: &Path) -> Result<WatchLock, Error> {
    let (file, path) = lock_file(dir, LOCK_FILE)?;
    file.lock().map_err(|e| Error::io(&path, e))?;
    Ok(WatchLock { _file: file })
}

/// A name a watch may have: letters, digits, `.`, `_` and `-`, starting
/// with a letter or digit, at most [`MAX_NAME`] (it is a feed's address,
/// `/feed/watch/NAME.atom`).
pub fn check_name(name: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    let first_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if first_ok && name.len() <= MAX_NAME && name.chars().all(allowed) {
        Ok(())
    } else {
        Err(format!(
            "a watch's name is 1 to {MAX_NAME} letters, digits, '.', '_' or '-', starting with a letter or digit"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch(name: &str) -> Watch {
        Watch {
            name: name.to_string(),
            query: "expert parallelism".into(),
            filters: Filters {
                tag: vec!["mixture-of-experts".into()],
                year: Some("2024..".into()),
                ..Filters::default()
            },
            like: Vec::new(),
            min_similarity: None,
            created: "2026-12-01T10:00:00Z".into(),
            since: 5,
            read_through: 7,
            read_at: None,
        }
    }

    #[test]
    fn watches_are_kept_by_name_and_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = Watches::path(dir.path());
        assert_eq!(Watches::load(&path).unwrap(), Watches::default());
        let mut watches = Watches::default();
        assert!(watches.insert(watch("moe")));
        assert!(watches.insert(watch("alpha")));
        assert!(!watches.insert(watch("moe")));
        watches.save(&path).unwrap();
        let read = Watches::load(&path).unwrap();
        assert_eq!(read, watches);
        let names: Vec<&str> = read.watches.iter().map(|w| w.name.as_str()).collect();
        assert_eq!(names, ["alpha", "moe"]);
        assert!(watches.remove("alpha"));
        assert!(!watches.remove("alpha"));
        assert_eq!(
            watch("moe").describe(),
            "\"expert parallelism\" --tag mixture-of-experts --year 2024.."
        );
    }

    #[test]
    fn a_file_that_cannot_be_read_is_an_error_and_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = Watches::path(dir.path());
        std::fs::write(&path, "{\"watches\": [oops").unwrap();
        let error = Watches::load(&path).unwrap_err().to_string();
        assert!(error.contains("not a watches file"), "{error}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"watches\": [oops"
        );
    }

    #[test]
    fn names_are_what_an_address_holds() {
        for good in ["moe", "MoE-2024", "a.b_c", "7"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "-x", ".hidden", "a/b", "a b", "é", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
