//! One module per subcommand: each resolves its inputs, calls the library and
//! writes to the given output. Exit statuses are decided in `lib.rs`; the
//! index every reader starts from is `ready`'s, an id is resolved by
//! `named`.

pub mod check;
pub mod export;
pub mod harvest;
pub mod import;
pub mod inbox;
pub mod index;
pub mod list;
pub mod mcp;
pub mod search;
pub mod serve;
pub mod show;
pub mod stats;
pub mod watch;

use std::io::Write;

use crate::diagnostic;
use crate::error::Error;

/// The catalog folder's lock, for a command that writes the catalog; a note
/// says so when it waits for another writer.
pub(crate) fn lock_for_writing(
    dir: &std::path::Path,
    err: &mut dyn Write,
) -> Result<crate::catalog::CatalogLock, Error> {
    crate::catalog::lock_catalog(dir, || {
        diagnostic::note(
            err,
            "another command is writing the catalog; waiting for it to finish",
        )
    })
}

/// Leaves what a command loaded to the system: the process ends with the
/// command, and freeing a catalog and an opened index an allocation at a
/// time took a tenth of a cold search's instructions (the catalog, the
/// index's tokenizer caches). Nothing in them acts on drop but freeing.
/// Only for what a command of the CLI loaded, never in a server.
pub fn left_at_exit<T>(loaded: T) {
    std::mem::forget(loaded);
}
