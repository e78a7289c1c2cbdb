//! The scale benchmark, in one run on one generated corpus (every engine
//! returns the top ten with their titles; distml-search also builds snippets):
//! distml-search next to a minimal tantivy program (the engine's floor) and
//! SQLite FTS5 (what a user would build instead), with the ratios.
//!
//!   cargo run --release --manifest-path bench/scale/Cargo.toml --bin harness -- RECORDS [SEED]
//!   ... --bin harness -- warm    # only the warm queries, on the last full run's indexes
//!   ... --bin harness -- cold    # only the cold CLI searches, on its index
//!
//! The corpus is written to `target/scale/corpus-RECORDS-SEED.jsonl` once and
//! reused. Builds run in child processes, so that each peak RSS is its own.
//! The machine may be shared and noisy, so distml-search's import and the
//! minimal program's build alternate five times (the table shows medians),
//! and both engines' queries are timed in alternating rounds.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use distml_search::catalog::load_dir;
use distml_search::index::IndexDir;
use distml_search::search::{Boosts, Mode, SearchRequest, search};
use distml_search_scale::QUERIES;
use serde_json::Value;


const RUNS: usize = 10;
/// Imports of distml-search, alternated with builds of the minimal program.
const IMPORTS: usize = 5;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("fts5-build") => fts5_build(Path::new(&args[1]), Path::new(&args[2])),
        Some("tantivy-build") => tantivy_build(Path::new(&args[1]), Path::new(&args[2]), false),
        Some("tantivy-build-stored") => tantivy_build(Path::new(&args[1]), Path::new(&args[2]), true),
        Some("warm") => warm(),
        Some("cold") => cold(),
        _ => {
            let records: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
            let seed: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(42);
            run(records, seed);
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Runs a child to completion; returns its wall time and peak RSS in MB.
#[expect(clippy::zombie_processes, reason = "reaped by wait4, which also gives its peak RSS")]
fn measured(mut command: Command) -> (Duration, f64) {
    let started = Instant::now();
    let child = command.spawn().expect("spawn");
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child with valid pointers.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert!(pid > 0 && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "{command:?} failed");
    (started.elapsed(), usage.ru_maxrss as f64 / 1024.0)
}

fn dir_size(path: &Path) -> u64 {
    if path.is_file() {
        return path.metadata().map_or(0, |m| m.len());
    }
    std::fs::read_dir(path).map_or(0, |rd| rd.flatten().map(|e| dir_size(&e.path())).sum())
}

fn percentile(times: &mut [Duration], p: f64) -> f64 {
    times.sort();
    let i = ((times.len() as f64 - 1.0) * p).round() as usize;
    times[i].as_secs_f64() * 1000.0
}

/// The median of query `i`'s times, of times taken a round of every query
/// after another.
fn query_median(times: &[Duration], i: usize) -> f64 {
    let mut mine: Vec<Duration> = times.iter().skip(i).step_by(QUERIES.len()).copied().collect();
    percentile(&mut mine, 0.5)
}

/// The median import time, and the highest peak RSS of all imports.
fn median_build(builds: &mut [(Duration, f64)]) -> (Duration, f64) {
    let rss = builds.iter().map(|b| b.1).fold(0.0, f64::max);
    builds.sort_by_key(|b| b.0);
    (builds[builds.len() / 2].0, rss)
}

/// Each engine's timings, taken in alternating rounds of every query.
fn timed_together<const N: usize>(mut engines: [Box<dyn FnMut(usize) + '_>; N]) -> [Vec<Duration>; N] {
    let mut times: [Vec<Duration>; N] = std::array::from_fn(|_| Vec::new());
    for engine in engines.iter_mut() {
        for i in 0..QUERIES.len() {
            engine(i); // warm-up
        }
    }
    for _ in 0..RUNS {
        for (engine, times) in engines.iter_mut().zip(times.iter_mut()) {
            for i in 0..QUERIES.len() {
                let started = Instant::now();
                engine(i);
                times.push(started.elapsed());
            }
        }
    }
    times
}

fn timed(query: impl FnMut(usize)) -> Vec<Duration> {
    let [times] = timed_together([Box::new(query)]);
    times
}

fn run(records: u64, seed: u64) {
    let root = root();
    let work = root.join("target/scale");
    std::fs::create_dir_all(&work).unwrap();
    let corpus = work.join(format!("corpus-{records}-{seed}.jsonl"));
    if !corpus.exists() {
        eprintln!("generating {records} records (seed {seed})...");
        let mut out = std::io::BufWriter::new(std::fs::File::create(&corpus).unwrap());
        distml_search_scale::generate(seed, records, &mut out).unwrap();
    }
    // Always the binary of the sources at hand, never a stale one.
    let built = Command::new("cargo").args(["build", "--release", "--quiet"]).current_dir(&root).status().unwrap();
    assert!(built.success(), "cargo build --release failed");
    let bin = root.join("target/release/distml-search");
    let this = std::env::current_exe().unwrap();

    // distml-search: import into a copy of the shipped catalog's index.
    let ours = work.join("distml");
    let raw = work.join("tantivy");
    let catalog = root.join("catalog");
    let stored = work.join("tantivy-stored");
    let (mut ours_builds, mut raw_builds, mut stored_builds) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=IMPORTS {
        eprintln!("distml-search import ({round} of {IMPORTS})...");
        let _ = std::fs::remove_dir_all(&ours);
        std::fs::create_dir_all(&ours).unwrap();
        let mut cmd = Command::new(&bin);
        cmd.args(["--catalog"]).arg(&catalog).arg("--index").arg(ours.join("index")).args(["import", "--arxiv-snapshot"]).arg(&corpus);
        cmd.env("DISTML_OFFLINE", "1").stdout(std::process::Stdio::null());
        ours_builds.push(measured(cmd));

        eprintln!("minimal tantivy build ({round} of {IMPORTS})...");
        let _ = std::fs::remove_dir_all(&raw);
        let mut cmd = Command::new(&this);
        cmd.arg("tantivy-build").arg(&corpus).arg(&raw);
        raw_builds.push(measured(cmd));

        eprintln!("minimal tantivy build storing abstracts ({round} of {IMPORTS})...");
        let _ = std::fs::remove_dir_all(&stored);
        let mut cmd = Command::new(&this);
        cmd.arg("tantivy-build-stored").arg(&corpus).arg(&stored);
        stored_builds.push(measured(cmd));
    }
    let (ours_time, ours_rss) = median_build(&mut ours_builds);
    let (raw_time, raw_rss) = median_build(&mut raw_builds);
    let (stored_time, _) = median_build(&mut stored_builds);

    eprintln!("SQLite FTS5 build...");
    let db = work.join("fts5.sqlite");
    let _ = std::fs::remove_file(&db);
    let mut cmd = Command::new(&this);
    cmd.arg("fts5-build").arg(&corpus).arg(&db);
    let (fts_time, fts_rss) = measured(cmd);

    eprintln!("queries...");
    // distml-search searches a large index's segments on threads of their
    // own; so does the second variant of the minimal program.
    let [mut ours_times, mut hybrid_times, mut raw_times, mut raw_parallel_times] = timed_together([
        distml_queries(&ours.join("index"), &catalog, Mode::Keyword),
        distml_queries(&ours.join("index"), &catalog, Mode::Hybrid),
        raw_queries(&raw, false),
        raw_queries(&raw, true),
    ]);

    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut fts_times = timed(|i| {
        let (_, matcher, years, _) = QUERIES[i];
        let (from, to) = years.unwrap_or((0, 9999));
        let mut statement = conn
            .prepare_cached("SELECT rowid, title FROM docs WHERE docs MATCH ?1 AND year BETWEEN ?2 AND ?3 ORDER BY bm25(docs, 10.0, 1.0, 1.0) LIMIT 10")
            .unwrap();
        let rows: Vec<(i64, String)> = statement.query_map(rusqlite::params![matcher, from, to], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
        std::hint::black_box(rows);
    });

    eprintln!("cold CLI searches...");
    let mut cold = cold_searches(&bin, &catalog, &ours.join("index"));

    eprintln!("inbox...");
    let inbox = |args: &[&str]| {
        let mut runs: Vec<(Duration, f64)> = (0..3)
            .map(|_| {
                let mut cmd = Command::new(&bin);
                cmd.args(["--catalog"]).arg(&catalog).arg("--index").arg(ours.join("index")).arg("inbox").args(args);
                cmd.env("DISTML_OFFLINE", "1").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
                measured(cmd)
            })
            .collect();
        median_build(&mut runs)
    };
    let (inbox_time, inbox_rss) = inbox(&["--limit", "20"]);
    let (since_time, since_rss) = inbox(&["--since", "2025-06-01", "--limit", "20"]);

    println!("| query | distml-search p50, ms | hybrid p50, ms | minimal tantivy p50, ms | minimal tantivy, parallel search, p50, ms | SQLite FTS5 p50, ms |");
    println!("|---|---|---|---|---|---|");
    for (i, (query, ..)) in QUERIES.iter().enumerate() {
        let median = |times: &[Duration]| query_median(times, i);
        println!("| `{query}` | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |", median(&ours_times), median(&hybrid_times), median(&raw_times), median(&raw_parallel_times), median(&fts_times));
    }
    println!();

    let per_sec = |t: Duration| records as f64 / t.as_secs_f64();
    let mb = |p: &Path| dir_size(p) as f64 / 1e6;
    let (o50, o99) = (percentile(&mut ours_times, 0.5), percentile(&mut ours_times, 0.99));
    let (h50, h99) = (percentile(&mut hybrid_times, 0.5), percentile(&mut hybrid_times, 0.99));
    let (r50, r99) = (percentile(&mut raw_times, 0.5), percentile(&mut raw_times, 0.99));
    let (p50, p99) = (percentile(&mut raw_parallel_times, 0.5), percentile(&mut raw_parallel_times, 0.99));
    let (f50, f99) = (percentile(&mut fts_times, 0.5), percentile(&mut fts_times, 0.99));
    let cold50 = percentile(&mut cold, 0.5);
    println!("corpus: {records} records, seed {seed}, {:.0} MB of JSON Lines; imports: medians of {IMPORTS}, alternated with the minimal program's; {} queries x {RUNS} alternating rounds after a warm-up", mb(&corpus), QUERIES.len());
    let runs = |builds: &[(Duration, f64)]| builds.iter().map(|b| format!("{:.1}", b.0.as_secs_f64())).collect::<Vec<_>>().join(", ");
    println!("import runs, s, fastest first: distml-search {}; minimal tantivy {}; minimal tantivy storing abstracts {}", runs(&ours_builds), runs(&raw_builds), runs(&stored_builds));
    println!();
    println!("| | distml-search | minimal tantivy | SQLite FTS5 |");
    println!("|---|---|---|---|");
    println!("| import + index, records/s | {:.0} | {:.0} | {:.0} |", per_sec(ours_time), per_sec(raw_time), per_sec(fts_time));
    println!("| import + index, s | {:.1} | {:.1} | {:.1} |", ours_time.as_secs_f64(), raw_time.as_secs_f64(), fts_time.as_secs_f64());
    println!("| peak RSS, MB | {ours_rss:.0} | {raw_rss:.0} | {fts_rss:.0} |");
    println!("| index size, MB | {:.0} | {:.0} | {:.0} |", mb(&ours.join("index")), mb(&raw), mb(&db));
    println!("| warm query p50, ms | {o50:.2} | {r50:.2} (parallel search: {p50:.2}) | {f50:.2} |");
    println!("| warm query p99, ms | {o99:.2} | {r99:.2} (parallel search: {p99:.2}) | {f99:.2} |");
    println!("| cold CLI search p50, ms | {cold50:.1} | | |");
    println!("| hybrid query p50 / p99, ms | {h50:.2} / {h99:.2} | | |");
    println!("| inbox --limit 20, s (peak RSS, MB) | {:.2} ({inbox_rss:.0}) | | |", inbox_time.as_secs_f64());
    println!("| inbox --since 2025-06-01, s (peak RSS, MB) | {:.2} ({since_rss:.0}) | | |", since_time.as_secs_f64());
    println!();
    println!("hybrid p50 / keyword p50 {:.2}x (target <= 2); inbox --limit 20 {:.2} s (target <= 10), --since {:.2} s (target <= 2)", h50 / o50, inbox_time.as_secs_f64(), since_time.as_secs_f64());
    println!("ratios: indexing distml/tantivy {:.2}x (target >= 0.7 with vectors); warm p50 distml/tantivy {:.2}x (target <= 1.5), against its parallel search {:.2}x; FTS5/distml p50 {:.1}x (target >= 20)",
        per_sec(ours_time) / per_sec(raw_time), o50 / r50, o50 / p50, f50 / o50);
    // What storing the abstracts (which distml-search shows and rebuilds
    // from) costs any program, apart from the rest of its features.
    println!("indexing distml/tantivy storing abstracts too {:.2}x ({:.1} s, index {:.0} MB)",
        per_sec(ours_time) / per_sec(stored_time), stored_time.as_secs_f64(), mb(&stored));
}

struct Doc {
    title: String,
    abstract_text: String,
    authors: String,
    year: i64,
}

fn docs(corpus: &Path, mut each: impl FnMut(Doc)) {
    use std::io::BufRead;
    let file = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(corpus).unwrap());
    for line in file.lines() {
        let value: Value = serde_json::from_str(&line.unwrap()).unwrap();
        let text = |k: &str| value[k].as_str().unwrap_or_default().to_string();
        let year = value["versions"][0]["created"]
            .as_str()
            .and_then(|c| c.split_whitespace().find(|w| w.len() == 4 && w.parse::<i64>().is_ok()))
            .and_then(|y| y.parse().ok())
            .unwrap_or(0);
        each(Doc { title: text("title"), abstract_text: text("abstract"), authors: text("authors"), year });
    }
}

/// Only the warm queries, on the indexes the last full run left in
/// `target/scale`: for comparing two builds' searches without importing.
fn warm() {
    let work = root().join("target/scale");
    let raw = work.join("tantivy");
    let (index, catalog) = (work.join("distml/index"), root().join("catalog"));
    let [mut ours, mut hybrid, mut single, mut parallel] = timed_together([
        distml_queries(&index, &catalog, Mode::Keyword),
        distml_queries(&index, &catalog, Mode::Hybrid),
        raw_queries(&raw, false),
        raw_queries(&raw, true),
    ]);
    println!("| query | distml-search p50, ms | hybrid p50, ms | minimal tantivy p50, ms | minimal tantivy, parallel search, p50, ms |");
    println!("|---|---|---|---|---|");
    for (i, (query, ..)) in QUERIES.iter().enumerate() {
        let median = |times: &[Duration]| query_median(times, i);
        println!("| `{query}` | {:.2} | {:.2} | {:.2} | {:.2} |", median(&ours), median(&hybrid), median(&single), median(&parallel));
    }
    let h50 = percentile(&mut hybrid, 0.5);
    let (o50, r50, p50) = (percentile(&mut ours, 0.5), percentile(&mut single, 0.5), percentile(&mut parallel, 0.5));
    println!("hybrid p50 {h50:.2} ms: {:.2}x keyword's (target <= 2)", h50 / o50);
    println!("warm p50: distml-search {o50:.2} ms, minimal tantivy {r50:.2} ms (parallel search {p50:.2}): {:.2}x (target <= 1.5), {:.2}x against its parallel search", o50 / r50, o50 / p50);
}

/// A process of the CLI for each query, three times over, each searching
/// the index in `index` (which the page cache holds by then).
fn cold_searches(bin: &Path, catalog: &Path, index: &Path) -> Vec<Duration> {
    let mut cold = Vec::new();
    for (query, ..) in QUERIES {
        for _ in 0..3 {
            let started = Instant::now();
            cold_search(bin, catalog, index, query);
            cold.push(started.elapsed());
        }
    }
    cold
}

/// One search by a process of the CLI, its output discarded.
fn cold_search(bin: &Path, catalog: &Path, index: &Path, query: &str) {
    let status = Command::new(bin)
        .args(["--catalog"])
        .arg(catalog)
        .arg("--index")
        .arg(index)
        .args(["search", "--json", "-n", "10", query])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.code().is_some_and(|c| c <= 1));
}

/// Only the cold CLI searches, on the index the last full run left in
/// `target/scale`, from this small process rather than the full run's.
fn cold() {
    let root = root();
    let (bin, catalog) = (root.join("target/release/distml-search"), root.join("catalog"));
    let index = root.join("target/scale/distml/index");
    // The first search of a build writes the catalog it read beside the
    // index: not timed.
    cold_search(&bin, &catalog, &index, QUERIES[0].0);
    let mut cold = cold_searches(&bin, &catalog, &index);
    println!("| query | cold CLI search p50, ms |");
    println!("|---|---|");
    for (i, (query, ..)) in QUERIES.iter().enumerate() {
        let mut mine = cold[i * 3..i * 3 + 3].to_vec();
        println!("| `{query}` | {:.2} |", percentile(&mut mine, 0.5));
    }
    println!("cold CLI search p50 {:.2} ms (target <= 10)", percentile(&mut cold, 0.5));
}

/// SQLite FTS5 as a user would set it up: porter stemming, bm25 with the
/// title weighted, the year beside the text.
fn fts5_build(corpus: &Path, db: &Path) {
    let mut conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; CREATE VIRTUAL TABLE docs USING fts5(title, abstract, authors, year UNINDEXED, tokenize = 'porter unicode61');").unwrap();
    let tx = conn.transaction().unwrap();
    {
        let mut insert = tx.prepare("INSERT INTO docs (title, abstract, authors, year) VALUES (?1, ?2, ?3, ?4)").unwrap();
        docs(corpus, |d| {
            insert.execute(rusqlite::params![d.title, d.abstract_text, d.authors, d.year]).unwrap();
        });
    }
    tx.commit().unwrap();
}

/// The engine's floor: three text fields (and the year), default tokenizer,
/// default writer. With `store_abstracts`, the abstracts are stored too, as
/// a program that shows them (in snippets, in `show`) must.
fn tantivy_build(corpus: &Path, dir: &Path, store_abstracts: bool) {
    use tantivy::schema::{FAST, INDEXED, STORED, Schema, TEXT};
    std::fs::create_dir_all(dir).unwrap();
    let mut builder = Schema::builder();
    let title = builder.add_text_field("title", TEXT | STORED);
    let abstract_field = builder.add_text_field("abstract", if store_abstracts { TEXT | STORED } else { TEXT });
    let authors = builder.add_text_field("authors", TEXT);
    // The year, for the queries that filter on it, as the other engines do.
    let year = builder.add_i64_field("year", INDEXED | FAST);
    let index = tantivy::Index::create_in_dir(dir, builder.build()).unwrap();
    let mut writer: tantivy::IndexWriter = index.writer(768 * 1024 * 1024).unwrap();
    docs(corpus, |d| {
        writer.add_document(tantivy::doc!(title => d.title, abstract_field => d.abstract_text, authors => d.authors, year => d.year)).unwrap();
    });
    writer.commit().unwrap();
    writer.wait_merging_threads().unwrap();
}

/// distml-search's queries on the index in `dir`, with the catalog in
/// `catalog`, as the CLI runs them (default weights).
fn distml_queries(dir: &Path, catalog: &Path, mode: Mode) -> Box<dyn FnMut(usize)> {
    let open = IndexDir::new(dir.to_path_buf()).open().unwrap().expect("an index: run the harness once first");
    let (catalog, _) = load_dir(catalog).unwrap();
    Box::new(move |i| {
        let request = SearchRequest { query: QUERIES[i].0, filters: vec![], limit: 10, explain: None, exhaustive: false, mode };
        let _ = search(&open, &catalog, &request, Boosts::default());
    })
}

/// The minimal program's queries, on its default single-threaded searcher or
/// with a thread per core (up to one per segment).
fn raw_queries(dir: &Path, parallel: bool) -> Box<dyn FnMut(usize)> {
    let mut index = tantivy::Index::open_in_dir(dir).unwrap();
    if parallel {
        let segments = index.searchable_segment_metas().unwrap().len();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        index.set_multithread_executor(cores.min(segments).max(1)).unwrap();
    }
    let reader = index.reader().unwrap();
    let schema = index.schema();
    let fields = ["title", "abstract", "authors"].map(|f| schema.get_field(f).unwrap()).to_vec();
    let parser = tantivy::query::QueryParser::for_index(&index, fields);
    let searcher = reader.searcher();
    Box::new(move |i| {
        // Like any program that shows results, it reads the hits' titles.
        let query = parser.parse_query(QUERIES[i].3).unwrap();
        let top = searcher.search(&query, &tantivy::collector::TopDocs::with_limit(10).order_by_score()).unwrap();
        for (_, address) in top {
            let doc: tantivy::TantivyDocument = searcher.doc(address).unwrap();
            std::hint::black_box(doc);
        }
    })
}
