//! The benchmark's queries against an existing distml-search index, each
//! timed apart, with how many of the top ten the default (two-phase) ranking
//! shares with `--exhaustive`: for profiling one side of the harness without
//! rebuilding.
//!
//!   cargo run --release --manifest-path bench/scale/Cargo.toml --bin queries -- INDEX [RUNS [ONLY]]
//!
//! The catalog and its ranking weights are the shipped ones, or those of
//! `DISTML_CATALOG` (a copy with a `ranking.toml`, to time other weights).

use std::path::Path;
use std::time::Instant;

use distml_search::catalog::load_dir;
use distml_search::index::IndexDir;
use distml_search::search::{Boosts, Mode, SearchRequest, search};
use distml_search_scale::QUERIES;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let index = args.first().expect("usage: queries INDEX [RUNS [ONLY]]");
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(20);
    let only = args.get(2).map(String::as_str).unwrap_or("");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let catalog_dir = std::env::var_os("DISTML_CATALOG").map_or(root.join("catalog"), std::path::PathBuf::from);
    let (catalog, _) = load_dir(&catalog_dir).expect("a catalog");
    let boosts = Boosts::load(Some(&catalog_dir)).expect("its ranking weights");
    let open = IndexDir::new(std::path::PathBuf::from(index)).open().expect("index").expect("an index");
    let ids = |exhaustive: bool, query: &str| -> Vec<String> {
        let request = SearchRequest { query, filters: vec![], limit: 10, explain: None, exhaustive, mode: Mode::Keyword };
        let outcome = search(&open, &catalog, &request, boosts).expect("search");
        outcome.hits.into_iter().map(|h| h.record.id).collect()
    };
    println!("  median  exhaustive  same top 10  query");
    let mut medians = Vec::new();
    for (query, ..) in QUERIES.iter().filter(|(q, ..)| q.contains(only)) {
        let median = |exhaustive: bool| {
            let mut times: Vec<f64> = (0..=runs)
                .map(|_| {
                    let started = Instant::now();
                    ids(exhaustive, query);
                    started.elapsed().as_secs_f64() * 1000.0
                })
                .skip(1)
                .collect();
            times.sort_by(f64::total_cmp);
            times[times.len() / 2]
        };
        let (fast, exact) = (ids(false, query), ids(true, query));
        let shared = fast.iter().filter(|id| exact.contains(id)).count();
        let order = if fast == exact { "same order" } else { "" };
        let fast_median = median(false);
        medians.push(fast_median);
        println!("{fast_median:8.3} {:8.3} ms  {shared:2}/{:<2} {order:10}  {query}", median(true), exact.len());
    }
    // One figure for comparing two builds run side by side.
    let sum: f64 = medians.iter().sum();
    medians.sort_by(f64::total_cmp);
    if let Some(middle) = medians.get(medians.len() / 2) {
        println!("{} queries: medians sum to {sum:.1} ms; their median {middle:.3} ms", medians.len());
    }
}
