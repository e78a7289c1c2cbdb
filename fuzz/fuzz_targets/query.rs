//! The query parser and compiler (synonyms, filters, typo repair, snippets)
//! against the built-in catalog's index: any input answers or errs, never panics.
#![no_main]

use std::sync::OnceLock;

use distml_search::catalog::{Catalog, load_files};
use distml_search::index::{IndexDir, OpenIndex, fingerprint, rebuild};
use distml_search::model::metadata::Cache;
use distml_search::catalog::builtin::builtin_files;
use distml_search::search::{Boosts, ExplainStyle, Filter, Mode, Origin, SearchRequest, search};
use libfuzzer_sys::fuzz_target;

struct Fixture {
    catalog: Catalog,
    open: OpenIndex,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (catalog, _) = load_files(&builtin_files());
        let dir = tempfile::tempdir().unwrap();
        let index = IndexDir::new(dir.path());
        let lock = index.lock_waiting(|| ()).unwrap();
        rebuild(&index, &lock, &catalog, &Cache::default(), &fingerprint([])).unwrap();
        let open = index.open().unwrap().unwrap();
        Fixture { catalog, open, _dir: dir }
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let text = String::from_utf8_lossy(data);
    // The first line is the query; a second one, if any, a --tag filter.
    let mut lines = text.splitn(2, '\n');
    let query = lines.next().unwrap_or_default();
    let filters = lines.next().map(|t| vec![(Filter::Tag(t.to_string()), Origin::Flag("--tag"))]).unwrap_or_default();
    let request = SearchRequest { query, filters, limit: 10, explain: match data.len() % 7 {
        0 => Some(ExplainStyle::Readable),
        3 => Some(ExplainStyle::Raw),
        _ => None,
    }, exhaustive: data.len() % 5 == 0, mode: match data.len() % 3 {
        0 => Mode::Keyword,
        1 => Mode::Semantic,
        _ => Mode::Hybrid,
    } };
    let _ = search(&f.open, &f.catalog, &request, Boosts::default());
});
