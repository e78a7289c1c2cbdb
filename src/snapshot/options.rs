//! What a snapshot import is asked (`ImportOptions`), what the whole of
//! it reads (`Import`) and what it found (`ImportReport`): shared by the
//! import and its workers, and depending on neither.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::catalog::Catalog;
use crate::index::{KeptRecords, Stamps};
use crate::model::paper::PaperRecord;
use crate::predict::Predictor;

pub struct ImportOptions {
    /// A `.jsonl` or `.jsonl.gz` file, or `-` for standard input.
    pub path: PathBuf,
    /// Keep records with any of these categories (all when empty).
    pub categories: Vec<String>,
    /// Keep records whose first version is from this year or later.
    pub since: Option<i64>,
    /// Replace the imported records even if this import keeps none.
    pub allow_empty: bool,
    /// Records kept beside the index (harvested), which the new generation
    /// holds too, replacing the snapshot's versions of them.
    pub kept: Option<Box<dyn KeptRecords + Send + Sync>>,
}

#[derive(Debug, Default)]
pub struct ImportReport {
    pub lines: u64,
    pub indexed: u64,
    pub filtered: u64,
    /// Records whose arXiv id an earlier or later line had too (the newest
    /// is kept).
    pub duplicates: u64,
    /// Records that were catalog entries: merged into them, not duplicated.
    pub merged: u64,
    /// (line number, reason) of the first malformed lines.
    pub malformed: Vec<(u64, String)>,
    pub malformed_count: u64,
    pub bytes: u64,
    pub elapsed: Duration,
}

pub(super) fn is_gzipped(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "gz")
}

/// What the whole import reads.
pub(super) struct Import<'a> {
    pub(super) catalog: &'a Catalog,
    pub(super) options: &'a ImportOptions,
    /// See [`entries_by_arxiv`].
    pub(super) by_arxiv: HashMap<String, String>,
    /// Predicts the tags of every imported record.
    pub(super) predictor: Predictor,
    /// When each record entered the index (see `index::stamps`).
    pub(super) stamps: Stamps,
    pub(super) started: Instant,
}

impl ImportOptions {
    /// Whether the filters keep `record`: one of the categories asked for (if
    /// any), and recent enough.
    pub(super) fn keeps(&self, record: &PaperRecord) -> bool {
        let wanted = self.categories.is_empty()
            || record
                .categories
                .iter()
                .any(|c| self.categories.contains(c));
        let recent = self
            .since
            .is_none_or(|since| record.year.is_some_and(|y| y >= since));
        wanted && recent
    }
}
