//! The harvest's own storage, `<index>/harvested/`, beside the generation
//! folders so that rebuilds, schema changes and snapshot imports never
//! touch it:
//!
//! - `records.jsonl`: every harvested record as a line of arXiv's snapshot
//!   (see `line.rs`), appended page by page; a later line of the same id
//!   with a later datestamp is a newer version, one with `deleted` a
//!   withdrawal.
//! - `state.json`: the latest datestamp harvested per set, the run in
//!   progress (its window and resumption token), how much of
//!   `records.jsonl` that state accounts for and how much is in the index.
//!
//! A page is appended and synced, then the state is replaced atomically. A
//! run killed in between leaves lines the state does not account for; the
//! next run cuts them off and asks for that page again: nothing lost, and
//! nothing twice.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::error::Error;
use crate::fsutil::write_atomic;
use crate::ident;
use crate::index::KeptRecords;
use crate::model::Record;
use crate::model::metadata::Cache;
use crate::snapshot::{entries_by_arxiv, parse_line};

const FOLDER: &str = "harvested";
const RECORDS: &str = "records.jsonl";
const STATE: &str = "state.json";
const LOCK: &str = ".lock";

/// The folder, and how to read and extend it.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Per set, the latest datestamp of a finished harvest: where the next
    /// one starts.
    #[serde(default)]
    pub latest: BTreeMap<String, String>,
    /// A harvest that has not finished.
    #[serde(default)]
    pub run: Option<Run>,
    /// Bytes of `records.jsonl` written by pages this state accounts for.
    #[serde(default)]
    pub stored_bytes: u64,
    /// Bytes of `records.jsonl` whose records are in the index.
    #[serde(default)]
    pub indexed_bytes: u64,
}

/// A harvest in progress, enough to resume it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub set: String,
    pub from: Option<String>,
    pub until: Option<String>,
    /// The token of the next page; `None` before the first.
    pub token: Option<String>,
    /// The latest datestamp of the records received so far.
    pub latest_seen: Option<String>,
    pub pages: u64,
}

/// Held while a harvest runs; released on drop (and by the OS if killed).
pub struct HarvestLock {
    _file: File,
}

/// The last version of each id: its datestamp, and where its line starts
/// (`None` when its last line is a tombstone).
pub type Known = HashMap<String, (String, Option<u64>)>;

/// What `records.jsonl` needs to be read for.
#[derive(Deserialize)]
struct Key<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(default, borrow)]
    update_date: Cow<'a, str>,
    #[serde(default)]
    deleted: bool,
}

impl Store {
    /// The harvest beside the index in `index_root`.
    pub fn new(index_root: &Path) -> Store {
        Store {
            dir: index_root.join(FOLDER),
        }
    }

    fn records_path(&self) -> PathBuf {
        self.dir.join(RECORDS)
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join(STATE)
    }

    /// Takes the harvest lock, or says that another harvest holds it.
    pub fn lock(&self) -> Result<HarvestLock, Error> {
        let (file, path) = crate::fsutil::lock_file(&self.dir, LOCK)?;
        match file.try_lock() {
            Ok(()) => Ok(HarvestLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(Error::Usage(format!(
                "another harvest is running ({} is locked); let it finish",
                path.display()
            ))),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io(&path, e)),
        }
    }

    /// The state; none yet is the default.
    pub fn load_state(&self) -> Result<State, Error> {
        let path = self.state_path();
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
            Err(e) => return Err(Error::io(&path, e)),
        };
        serde_json::from_slice(&bytes).map_err(|e| {
            Error::Usage(format!(
                "{}: unreadable harvest state ({e}); remove it to start the harvest afresh",
                path.display()
            ))
        })
    }

    pub fn save_state(&self, _lock: &HarvestLock, state: &State) -> Result<(), Error> {
        let mut text = serde_json::to_string_pretty(state).unwrap_or_default();
        text.push('\n');
        write_atomic(&self.state_path(), text.as_bytes())
    }

    /// `records.jsonl` opened for appending, cut back to what `state`
    /// accounts for (lines of a page whose state was never saved).
    pub fn open_records(&self, _lock: &HarvestLock, state: &mut State) -> Result<Appender, Error> {
        let path = self.records_path();
        let mut file = File::options()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let len = file.metadata().map_err(|e| Error::io(&path, e))?.len();
        if len > state.stored_bytes {
            file.set_len(state.stored_bytes)
                .map_err(|e| Error::io(&path, e))?;
        } else if len < state.stored_bytes {
            // Shorter than the state says (restored from a copy?): the
            // file is what there is.
            state.stored_bytes = len;
            state.indexed_bytes = state.indexed_bytes.min(len);
        }
        let len = file
            .seek(SeekFrom::End(0))
            .map_err(|e| Error::io(&path, e))?;
        Ok(Appender { file, path, len })
    }

    /// The last version of every id in the first `upto` bytes.
    pub fn known(&self, upto: u64) -> Result<Known, Error> {
        let mut known = Known::new();
        self.each_line(0, upto, |offset, line| {
            if let Ok(key) = serde_json::from_str::<Key>(line) {
                let id = ident::strip_version(&key.id).to_string();
                let newer = known
                    .get(&id)
                    .is_none_or(|(date, _)| key.update_date.as_ref() >= date.as_str());
                if newer {
                    let at = (!key.deleted).then_some(offset);
                    known.insert(id, (key.update_date.into_owned(), at));
                }
            }
        })?;
        Ok(known)
    }

    /// The records (last version of each id) and withdrawn ids of the
    /// lines in `from..to`.
    pub fn read_range(&self, from: u64, to: u64) -> Result<(Vec<Record>, Vec<String>), Error> {
        let mut latest: HashMap<String, Option<Record>> = HashMap::new();
        let mut order = Vec::new();
        self.each_line(from, to, |_, line| {
            let Ok(key) = serde_json::from_str::<Key>(line) else {
                return;
            };
            let id = ident::strip_version(&key.id).to_string();
            let record = if key.deleted {
                None
            } else {
                match parse_line(line) {
                    Ok(parsed) => Some(parsed.into_record()),
                    Err(_) => return,
                }
            };
            if latest.insert(id.clone(), record).is_none() {
                order.push(id);
            }
        })?;
        let mut records = Vec::new();
        let mut removed = Vec::new();
        for id in order {
            match latest.remove(&id).flatten() {
                Some(record) => records.push(record),
                None => removed.push(id),
            }
        }
        Ok((records, removed))
    }

    /// Calls `f` with the offset and text of each whole line starting in
    /// `from..to` (a line cut short by a kill has no line break: skipped).
    fn each_line(&self, from: u64, to: u64, mut f: impl FnMut(u64, &str)) -> Result<(), Error> {
        let path = self.records_path();
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let mut reader = BufReader::with_capacity(1 << 20, file);
        reader
            .seek(SeekFrom::Start(from))
            .map_err(|e| Error::io(&path, e))?;
        let mut offset = from;
        let mut line = Vec::new();
        while offset < to {
            line.clear();
            let read = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| Error::io(&path, e))?;
            if read == 0 || line.last() != Some(&b'\n') {
                break;
            }
            f(offset, &String::from_utf8_lossy(&line[..line.len() - 1]));
            offset += read as u64;
        }
        Ok(())
    }
}

impl KeptRecords for Store {
    fn each_record(
        &self,
        catalog: &Catalog,
        cache: &Cache,
        add: &mut dyn FnMut(Record) -> Result<(), Error>,
    ) -> Result<u64, Error> {
        let known = self.known(u64::MAX)?;
        if known.is_empty() {
            return Ok(0);
        }
        let in_catalog: HashSet<String> = entries_by_arxiv(catalog, cache).into_keys().collect();
        // Lines in file order, each read once: a second pass keeps the
        // line of each id's last version.
        let wanted: HashSet<u64> = known
            .iter()
            .filter(|(id, _)| !in_catalog.contains(*id))
            .filter_map(|(_, (_, at))| *at)
            .collect();
        drop(known);
        let mut added = 0;
        let mut failed = None;
        self.each_line(0, u64::MAX, |offset, line| {
            if failed.is_some() || !wanted.contains(&offset) {
                return;
            }
            if let Ok(parsed) = parse_line(line) {
                match add(parsed.into_record()) {
                    Ok(()) => added += 1,
                    Err(e) => failed = Some(e),
                }
            }
        })?;
        match failed {
            Some(e) => Err(e),
            None => Ok(added),
        }
    }
}

/// `records.jsonl`, open at its end.
pub struct Appender {
    file: File,
    path: PathBuf,
    len: u64,
}

impl Appender {
    /// Appends `lines` and syncs them to disk; returns the new length.
    pub fn append(&mut self, lines: &[String]) -> Result<u64, Error> {
        if lines.is_empty() {
            return Ok(self.len);
        }
        let mut bytes = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for line in lines {
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
        self.file
            .write_all(&bytes)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| Error::io(&self.path, e))?;
        self.len += bytes.len() as u64;
        Ok(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, day: &str, title: &str) -> String {
        format!(
            r#"{{"id":"{id}","title":"{title}","categories":"cs.DC","abstract":"x","update_date":"{day}","authors_parsed":[["Example","Ada",""]]}}"#
        )
    }

    #[test]
    fn the_newest_version_wins_and_tombstones_remove() {
        let root = tempfile::tempdir().unwrap();
        let store = Store::new(root.path());
        let lock = store.lock().unwrap();
        let mut state = State::default();
        let mut records = store.open_records(&lock, &mut state).unwrap();
        let lines = [
            line("1412.80001", "2999-01-01", "Old"),
            line("1412.80002", "2999-01-01", "Gone"),
            line("1412.80001", "2999-01-03", "New"),
            super::super::line::deleted_line("1412.80002", "2999-01-04"),
        ];
        let len = records.append(&lines).unwrap();
        let known = store.known(len).unwrap();
        assert_eq!(known["1412.80001"].0, "2999-01-03");
        assert_eq!(known["1412.80002"].1, None);
        let (kept, removed) = store.read_range(0, len).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].title, "New");
        assert_eq!(removed, ["1412.80002"]);
    }

    #[test]
    fn lines_the_state_does_not_account_for_are_cut_off() {
        let root = tempfile::tempdir().unwrap();
        let store = Store::new(root.path());
        let lock = store.lock().unwrap();
        let mut state = State::default();
        let first = store
            .open_records(&lock, &mut state)
            .unwrap()
            .append(&[line("1412.80001", "2999-01-01", "Kept")])
            .unwrap();
        state.stored_bytes = first;
        // A page appended, then the process killed before its state.
        store
            .open_records(&lock, &mut state)
            .unwrap()
            .append(&[line("1412.80003", "2999-01-01", "Unaccounted")])
            .unwrap();
        store.open_records(&lock, &mut state).unwrap();
        assert_eq!(store.known(u64::MAX).unwrap().len(), 1);
        assert!(store.lock().is_err(), "a second harvest is refused");
    }
}
