//! The binary as an installed user runs it: no catalog folder, so the
//! built-in catalog, an index in the user's cache folder and fetched
//! metadata in the user's data folder.

mod common;

use std::path::{Path, PathBuf};

use common::{Cmd, Run};
use serde_json::json;

/// A home of its own: XDG folders inside a temporary folder, which is also
/// the working directory (it has no `catalog/`).
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn run(&self, args: &[&str]) -> Run {
        Cmd::bare()
            .env_remove("DISTML_CATALOG")
            .env_remove("DISTML_INDEX")
            .env_remove("DISTML_OFFLINE")
            .env("NO_COLOR", "1")
            .env("XDG_DATA_HOME", self.data())
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            // Nothing listens there: every request is refused at once.
            .env("DISTML_ARXIV_API", "http://127.0.0.1:9/api/query")
            .env("DISTML_CROSSREF_API", "http://127.0.0.1:9")
            .env("DISTML_OPENALEX_API", "http://127.0.0.1:9")
            .env("DISTML_ARXIV_DELAY_MS", "0")
            .in_dir(self.dir.path())
            .args(args)
            .run()
    }
}

fn write_user_metadata(data: &Path, abstract_text: &str) {
    let dir = data.join("distml-search");
    std::fs::create_dir_all(&dir).unwrap();
    let cache = json!({
        "version": 1,
        "entries": {
            "gpipe-2019": {
                "abstract": {"value": abstract_text, "source": "arxiv"}
            }
        }
    });
    std::fs::write(dir.join("metadata.json"), cache.to_string()).unwrap();
}

#[test]
fn an_installed_user_fetches_into_the_data_folder_and_never_hears_the_catalog_is_read_only() {
    let home = Home::new();
    let run = home.run(&["index"]).success();
    assert!(
        !run.stderr().contains("read-only"),
        "stderr: {}",
        run.stderr()
    );
    run.stderr_has("could not reach");
}

#[test]
fn metadata_kept_in_the_data_folder_is_indexed_with_the_built_in_catalog() {
    let home = Home::new();
    home.run(&["index", "--offline"])
        .success()
        .stdout_has("(0 with abstracts)");
    write_user_metadata(&home.data(), "Fictional words about glorbnax schedules.");
    // The user's metadata is an input of the index: a search rebuilds.
    let run = home.run(&["search", "glorbnax", "--json"]).success();
    assert_eq!(run.ids(), ["gpipe-2019"]);
    home.run(&["show", "gpipe-2019"])
        .success()
        .stdout_has("glorbnax");
}
