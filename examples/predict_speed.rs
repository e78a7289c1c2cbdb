//! Times the tag predictor over snapshot lines (training, then predicting
//! for every record on one thread), and prints a checksum of the
//! predictions, so that a faster predictor can be checked to predict the same.
//! Each record is read (its vector and word pieces) before the timing, as an
//! import's document does for its own column (`Predictor::predict_each_read`);
//! the reading's own time is printed apart. The direct reading of the vector
//! (`Predictor::predict_each`, which embeds the record too) is timed beside
//! it, alternated, for its ratio.
//!
//!   cargo run --release --example predict_speed -- SNAPSHOT.jsonl [CATALOG_DIR]

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::time::Instant;

use distml_search::catalog::load_dir;
use distml_search::embed::{Reading, read_record};
use distml_search::model::metadata::Cache;
use distml_search::predict::Predictor;
use distml_search::snapshot::parse_line;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let snapshot = PathBuf::from(
        args.next()
            .ok_or("usage: predict_speed SNAPSHOT [CATALOG]")?,
    );
    let dir = args
        .next()
        .map_or_else(|| PathBuf::from("catalog"), PathBuf::from);
    let (catalog, _) = load_dir(&dir)?;
    let cache = Cache::default();
    let started = Instant::now();
    let predictor = Predictor::train(&catalog, &cache);
    let trained = started.elapsed();
    let text = std::fs::read_to_string(&snapshot)?;
    let records: Vec<_> = text
        .lines()
        .filter_map(|l| parse_line(l).ok())
        .map(|r| r.into_record())
        .collect();
    let started = cpu_time();
    let readings: Vec<Reading> = (records.iter())
        .map(|record| {
            let mut reading = Reading::default();
            read_record(record, &mut reading);
            reading
        })
        .collect();
    let embedding = cpu_time() - started;
    let (mut best, mut direct) = (f64::MAX, f64::MAX);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut total = 0;
    for round in 0..3 {
        let started = cpu_time();
        for (record, reading) in records.iter().zip(&readings) {
            let mut predicted = Vec::new();
            predictor.predict_each_read(record, reading, |tag, confidence| {
                predicted.push((tag.to_string(), confidence));
            });
            if round == 0 {
                total += predicted.len();
                for (tag, confidence) in &predicted {
                    tag.hash(&mut hasher);
                    confidence.to_bits().hash(&mut hasher);
                }
            }
            std::hint::black_box(predicted);
        }
        best = best.min(cpu_time() - started);
        let started = cpu_time();
        for record in &records {
            predictor.predict_each(record, |tag, confidence| {
                std::hint::black_box((tag, confidence));
            });
        }
        direct = direct.min(cpu_time() - started - embedding);
    }
    println!(
        "training {:.0} ms; {} records: {:.2} us of CPU time a record (best of 3; reading, apart: {:.2} us; reading the vector directly: {:.2} us, {:.2}x); {total} tags, checksum {:016x}",
        trained.as_secs_f64() * 1000.0,
        records.len(),
        best * 1e6 / records.len() as f64,
        embedding * 1e6 / records.len() as f64,
        direct * 1e6 / records.len() as f64,
        direct / best,
        hasher.finish()
    );
    Ok(())
}

/// This thread's CPU time in seconds (the machine may be busy: wall time
/// would count the waits).
fn cpu_time() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let nanos: f64 = stat
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0.0);
    nanos / 1e9
}
