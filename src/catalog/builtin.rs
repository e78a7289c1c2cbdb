//! The shipped catalog, compiled into the binary (by `build.rs`): what a
//! search reads when there is no catalog folder, and what a new catalog
//! starts from.

use std::path::Path;

use super::SourceFile;

mod files {
    include!(concat!(env!("OUT_DIR"), "/builtin_catalog.rs"));
}

/// Every shipped file, by name, with its text.
pub use files::BUILTIN_CATALOG;

/// The shipped catalog's TOML files, named as if they were in `<built-in>/`.
pub fn builtin_files() -> Vec<SourceFile> {
    BUILTIN_CATALOG
        .iter()
        .filter(|(name, _)| name.ends_with(".toml"))
        .map(|(name, text)| SourceFile::new(Path::new("<built-in>").join(name), text.to_string()))
        .collect()
}

/// A built-in file's contents by name (such as `metadata.json`).
pub fn builtin_file(name: &str) -> Option<&'static str> {
    BUILTIN_CATALOG
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}
