//! Differential: on an index large enough for two-phase ranking, every query
//! ranks the same top ten as `--exhaustive` (or both fail alike).
#![no_main]

use std::io::Write;
use std::sync::OnceLock;

use distml_search::catalog::{Catalog, load_files};
use distml_search::index::{IndexDir, OpenIndex};
use distml_search::model::metadata::Cache;
use distml_search::catalog::builtin::builtin_files;
use distml_search::search::{Boosts, Mode, SearchRequest, search};
use distml_search::snapshot::{ImportOptions, import_snapshot};
use libfuzzer_sys::fuzz_target;

struct Fixture {
    catalog: Catalog,
    open: OpenIndex,
    _dir: tempfile::TempDir,
}

/// 24,000 fictional records (1401.NNNNN cannot exist) whose titles and
/// abstracts mix the words of the vocabulary's technique names.
fn snapshot(catalog: &Catalog, path: &std::path::Path) {
    let mut words: Vec<String> = catalog
        .vocabulary
        .tags
        .iter()
        .flat_map(|t| t.names().map(str::to_lowercase).collect::<Vec<_>>())
        .flat_map(|n| n.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect();
    words.sort();
    words.dedup();
    let mut state: u64 = 3;
    let mut next = |n: usize| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        ((state >> 33) % n as u64) as usize
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 0..24_000 {
        let mut text = |count: usize| -> String {
            (0..count).map(|_| words[next(words.len()) % 60].as_str()).collect::<Vec<_>>().join(" ")
        };
        let title = text(6);
        let summary = text(30);
        let line = serde_json::json!({
            "id": format!("1401.{i:05}"), "title": title, "abstract": summary,
            "authors": "Ada Example", "categories": "cs.DC",
            "versions": [{"version": "v1", "created": "Mon, 6 Jan 2014 10:00:00 GMT"}],
        });
        writeln!(out, "{line}").unwrap();
    }
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (catalog, _) = load_files(&builtin_files());
        let dir = tempfile::tempdir().unwrap();
        let lines = dir.path().join("snapshot.jsonl");
        snapshot(&catalog, &lines);
        let index = IndexDir::new(dir.path().join("index"));
        let options = ImportOptions { path: lines, categories: vec![], since: None, allow_empty: false, kept: None };
        import_snapshot(&index, &catalog, &mut Cache::default(), None, || Ok(vec![]), &options, &mut std::io::sink()).unwrap();
        let open = index.open().unwrap().unwrap();
        Fixture { catalog, open, _dir: dir }
    })
}

// The index is built before the first input, so that its setup (a minute
// in an instrumented build) is no input's time and never a timeout.
fuzz_target!(init: { fixture(); }, |data: &[u8]| {
    let f = fixture();
    let query = String::from_utf8_lossy(data);
    let ranked = |exhaustive: bool| {
        let request = SearchRequest { query: &query, filters: vec![], limit: 10, explain: None, exhaustive, mode: Mode::Keyword };
        search(&f.open, &f.catalog, &request, Boosts::default())
            .map(|o| o.hits.into_iter().map(|h| h.record.id).collect::<Vec<_>>())
            .map_err(|e| e.to_string())
    };
    assert_eq!(ranked(false), ranked(true), "{query:?}");
});
