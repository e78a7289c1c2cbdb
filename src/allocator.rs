//! The binary's allocator: the system's for short commands, mimalloc for
//! those that build indexes or serve ([`for_throughput`]).
//!
//! mimalloc frees in a tenth of the time glibc takes to free documents
//! built on one thread on another (an import's workers and tantivy's
//! indexing threads), but its first allocations touch a fresh page for
//! each size class and thread: a cold search made 20% more page faults
//! and took a millisecond longer with it. A block is always freed by the
//! allocator that gave it, which mimalloc's page map tells. mimalloc is
//! built without transparent huge pages (`no_thp`): with them, the first
//! touch of each page of tantivy's indexing arena cleared 2 MB, 5% of an
//! import.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

use mimalloc::MiMalloc;

/// Set once, before the command's work starts; never cleared.
static THROUGHPUT: AtomicBool = AtomicBool::new(false);

/// mimalloc's `mi_option_purge_delay` (its header's enum; the sys crate
/// names no constant for it).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// From now on, memory comes from mimalloc. Call it before the work that
/// needs it starts threads.
pub(crate) fn for_throughput() {
    // Freed memory goes back to the system at once, not a second later: a
    // million-record import frees as fast as it allocates, and its peak
    // RSS fell from 642-660 to 585-587 MB, no slower (three runs each).
    // SAFETY: options may be set at any time.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) };
    THROUGHPUT.store(true, Ordering::Release);
}

/// Dispatches each allocation as [`for_throughput`] chose.
pub struct Allocator;

impl Allocator {
    fn mimalloc_now() -> bool {
        THROUGHPUT.load(Ordering::Acquire)
    }

    /// Whether mimalloc gave `ptr` (it gave nothing before the switch).
    fn from_mimalloc(ptr: *mut u8) -> bool {
        // SAFETY: a lookup in mimalloc's page map, valid for any address.
        Self::mimalloc_now() && unsafe { libmimalloc_sys::mi_is_in_heap_region(ptr.cast()) }
    }
}

// SAFETY: every call goes to one of two sound allocators, and a block is
// freed or resized by the one that allocated it.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if Self::mimalloc_now() {
            unsafe { MiMalloc.alloc(layout) }
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::mimalloc_now() {
            unsafe { MiMalloc.alloc_zeroed(layout) }
        } else {
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if Self::from_mimalloc(ptr) {
            unsafe { MiMalloc.dealloc(ptr, layout) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if Self::from_mimalloc(ptr) {
            unsafe { MiMalloc.realloc(ptr, layout, new_size) }
        } else {
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_from_before_the_switch_are_freed_by_their_own_allocator() {
        let layout = Layout::from_size_align(100, 8).unwrap();
        let allocator = Allocator;
        unsafe {
            let before = allocator.alloc(layout);
            assert!(!before.is_null());
            assert!(!Allocator::from_mimalloc(before));
            for_throughput();
            let after = allocator.alloc(layout);
            assert!(Allocator::from_mimalloc(after));
            assert!(!Allocator::from_mimalloc(before));
            let grown = allocator.realloc(before, layout, 4000);
            assert!(!Allocator::from_mimalloc(grown));
            allocator.dealloc(grown, Layout::from_size_align(4000, 8).unwrap());
            allocator.dealloc(after, layout);
        }
    }
}
