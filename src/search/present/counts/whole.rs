//! Each segment's documents counted once, whole, and kept: a broad query's
//! matches are then counted as the whole less the few documents that do
//! not match. What is kept depends on the segment alone (its documents and
//! deletions), never on a query; it is counted at the first search that
//! needs it and forgotten when the index has moved on.

use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;
use tantivy::index::SegmentId;
use tantivy::{DocId, Opstamp, SegmentReader};

use super::columns::{Columns, Scratch, Tally};

/// A segment as it was read: its deletions change what it holds.
type Key = (SegmentId, Option<Opstamp>);

/// More segments than an index holds at once: past this many, the index
/// has been merged or rebuilt, and what was kept is dropped.
const MOST_KEPT: usize = 64;

/// Each slot is filled once, by the first search that needs it.
type Slot = Arc<OnceLock<Arc<Tally>>>;

static KEPT: Mutex<Option<FxHashMap<Key, Slot>>> = Mutex::new(None);

/// The tally of every live document of `segment`.
pub fn whole(segment: &SegmentReader, columns: &Columns) -> Arc<Tally> {
    let key = (segment.segment_id(), segment.delete_opstamp());
    let slot = {
        let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let kept = kept.get_or_insert_with(FxHashMap::default);
        if kept.len() >= MOST_KEPT && !kept.contains_key(&key) {
            kept.clear();
        }
        Arc::clone(kept.entry(key).or_default())
    };
    // Counted outside the lock: other segments' searches go on meanwhile.
    Arc::clone(slot.get_or_init(|| Arc::new(count_whole(segment, columns))))
}

fn count_whole(segment: &SegmentReader, columns: &Columns) -> Tally {
    let mut tally = columns.tally();
    let mut scratch = Scratch::default();
    let mut block: Vec<DocId> = Vec::with_capacity(BLOCK);
    let alive = segment.alive_bitset();
    for doc in 0..segment.max_doc() {
        if alive.is_none_or(|a| a.is_alive(doc)) {
            block.push(doc);
        }
        if block.len() == BLOCK {
            columns.count_block(&block, 1, &mut tally, &mut scratch);
            block.clear();
        }
    }
    columns.count_block(&block, 1, &mut tally, &mut scratch);
    tally
}

/// Documents counted together.
const BLOCK: usize = 1024;
