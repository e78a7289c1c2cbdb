//! What the semantic scan's first pass loses, on an existing index: for each
//! benchmark query (and a few needs in plain words), the scan's best 50 by
//! meaning (the first pass over sign codes, the nearest rescored whole)
//! against an exact scan that scores every vector whole.
//!
//!   cargo run --release --manifest-path bench/scale/Cargo.toml --bin recall -- INDEX

use std::path::PathBuf;
use std::time::Instant;

use distml_search::embed::embedder;
use distml_search::embed::stored::cosine;
use distml_search::index::IndexDir;
use distml_search::index::vectors::{BestByVector, Cosine, Keep, VectorFiles};
use distml_search_scale::QUERIES;
use tantivy::DocAddress;
use tantivy::query::AllQuery;

const LIMIT: usize = 50;

const NEEDS: &[&str] = &[
    "my training job keeps getting preempted",
    "serving large language models with low latency",
    "sparse attention for long context",
    "splitting a model's layers across devices as a pipeline",
    "compressing gradients to save bandwidth",
];

fn main() {
    let index = std::env::args().nth(1).expect("usage: recall INDEX");
    let open = IndexDir::new(PathBuf::from(index)).open().expect("index").expect("an index");
    let searcher = open.reader.searcher();
    let files = VectorFiles::of(&open.path, &searcher);
    let texts = QUERIES.iter().map(|(q, ..)| q.trim_matches('"')).filter(|q| !q.contains(':'));
    let (mut kept, mut kept10, mut asked, mut asked10) = (0, 0, 0, 0);
    println!("  scan ms  exact ms  top 50  top 10  query");
    for text in texts.chain(NEEDS.iter().copied()) {
        let query = embedder().embed(text);
        let started = Instant::now();
        let scan = BestByVector { score: &Cosine::new(&query), keep: &Keep::default(), limit: LIMIT, files: &files };
        let (found, _) = scan.search(&searcher, &AllQuery).expect("scan");
        let scan_ms = started.elapsed().as_secs_f64() * 1000.0;
        let started = Instant::now();
        let mut exact: Vec<(f32, DocAddress)> = Vec::new();
        for (ordinal, reader) in searcher.segment_readers().iter().enumerate() {
            let file = files.segment(ordinal as u32).expect("a vector file");
            for doc in 0..reader.max_doc() {
                if file.norm(doc) > 0.0 {
                    exact.push((cosine(&query, &file.row(doc)), DocAddress::new(ordinal as u32, doc)));
                }
            }
        }
        exact.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        exact.truncate(LIMIT);
        let exact_ms = started.elapsed().as_secs_f64() * 1000.0;
        let within = |n: usize| {
            let best: Vec<DocAddress> = exact.iter().take(n).map(|e| e.1).collect();
            found.iter().take(n).filter(|f| best.contains(&f.1)).count()
        };
        let (k50, k10) = (within(LIMIT), within(10));
        (kept, kept10, asked, asked10) = (kept + k50, kept10 + k10, asked + exact.len(), asked10 + exact.len().min(10));
        println!("{scan_ms:9.2} {exact_ms:9.2}  {k50:3}/{:<3} {k10:2}/{:<2}  {text}", exact.len(), exact.len().min(10));
    }
    println!(
        "recall of the exact best {LIMIT}: {:.3}; of the exact best 10 in the scan's 10: {:.3}",
        kept as f64 / asked as f64,
        kept10 as f64 / asked10 as f64
    );
}
