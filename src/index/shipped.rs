//! For unit tests: the shipped catalog and an index built from it.

use super::{IndexDir, OpenIndex, rebuild};
use crate::catalog::Catalog;
use crate::model::metadata::Cache;

/// The shipped catalog, its index (offline) and the folder that holds it.
pub(crate) fn shipped_index() -> (Catalog, OpenIndex, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    let catalog_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
    let (catalog, _) = crate::catalog::load_dir(&catalog_dir).unwrap();
    let dir = IndexDir::new(root.path());
    let lock = dir.try_lock().unwrap().unwrap();
    rebuild(&dir, &lock, &catalog, &Cache::default(), "test").unwrap();
    let open = dir.open().unwrap().unwrap();
    (catalog, open, root)
}
