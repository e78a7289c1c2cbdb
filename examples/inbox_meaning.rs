//! Experiment: the inbox's ranking of the fictional stream from vectors.
//!
//!   cargo run --release --example inbox_meaning

use std::collections::HashMap;
use std::path::Path;

use distml_search::catalog::load_dir;
use distml_search::embed::{self, Vector, dot, embedder, record_vector};
use distml_search::model::Record;
use distml_search::snapshot::parse_line;
use linfa::dataset::Dataset;
use linfa::traits::Fit;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};

const STREAM: &str = "tests/fixtures/stream";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (catalog, _) = load_dir(Path::new("catalog"))?;
    let labels: HashMap<String, bool> =
        std::fs::read_to_string(Path::new(STREAM).join("labels.tsv"))?
            .lines()
            .map(|l| {
                let mut f = l.split('\t');
                (f.next().unwrap().to_string(), f.next() == Some("field"))
            })
            .collect();
    let records: Vec<Record> = std::fs::read_to_string(Path::new(STREAM).join("records.jsonl"))?
        .lines()
        .map(|line| parse_line(line).map(|r| r.into_record()))
        .collect::<Result<_, _>>()?;
    let started = std::time::Instant::now();
    let vectors: Vec<Vector> = records.iter().map(record_vector).collect();
    eprintln!(
        "embedded {} records in {:?}",
        records.len(),
        started.elapsed()
    );
    let mut positives: Vec<Vector> = catalog
        .entries
        .iter()
        .filter(|e| !e.tags.is_empty())
        .map(|e| record_vector(&Record::from_entry(e, None)))
        .collect();
    let works = positives.len();
    positives.extend(
        catalog.vocabulary.tags.iter().map(|t| {
            embedder().embed_parts(std::iter::once(t.description.as_str()).chain(t.names()))
        }),
    );
    let field = |i: usize| labels[records[i].arxiv.as_deref().unwrap()];
    let report = |name: &str, scores: &[f32]| {
        let mut order: Vec<usize> = (0..records.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let measure = |ids: &[usize], depth: usize| {
            let relevant = ids.iter().filter(|&&i| field(i)).count() as f32;
            let p = ids[..depth].iter().filter(|&&i| field(i)).count() as f32 / depth as f32;
            let r = ids[..3 * depth].iter().filter(|&&i| field(i)).count() as f32 / relevant;
            (p, r)
        };
        let tuning: Vec<usize> = order.iter().copied().filter(|i| i % 2 == 0).collect();
        let held: Vec<usize> = order.iter().copied().filter(|i| i % 2 == 1).collect();
        let (tp, tr) = measure(&tuning, 10);
        let (hp, hr) = measure(&held, 10);
        let (wp, wr) = measure(&order, 20);
        println!(
            "{name:<40} tuning P@10 {tp:.2} R@30 {tr:.2} | held-out P@10 {hp:.2} R@30 {hr:.2} | whole P@20 {wp:.2} R@60 {wr:.2}"
        );
    };
    for bytes in [0usize, 150, 300, 600, 1000, 5000] {
        let vectors: Vec<Vector> = records
            .iter()
            .map(|r| {
                let start = r
                    .abstract_text
                    .as_deref()
                    .map(|a| embed::cut_after_word(a, bytes));
                embedder().embed_parts([r.title.as_str(), r.note.as_str()].into_iter().chain(start))
            })
            .collect();
        for k in [1, 2] {
            let scores: Vec<f32> = vectors
                .iter()
                .map(|v| {
                    let mut c: Vec<f32> = positives[..works].iter().map(|p| dot(v, p)).collect();
                    c.sort_by(|a, b| b.total_cmp(a));
                    c[..k].iter().sum::<f32>() / k as f32
                })
                .collect();
            report(&format!("knn k={k} abstract bytes {bytes}"), &scores);
        }
    }
    let started = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..20 {
        for r in &records {
            n += record_vector(r)[0].is_nan() as usize;
        }
    }
    eprintln!(
        "record_vector: {:?} a record ({n})",
        started.elapsed() / (20 * records.len() as u32)
    );
    // Nearest catalog works.
    for k in [1, 3, 5] {
        let scores: Vec<f32> = vectors
            .iter()
            .map(|v| {
                let mut c: Vec<f32> = positives[..works].iter().map(|p| dot(v, p)).collect();
                c.sort_by(|a, b| b.total_cmp(a));
                c[..k].iter().sum::<f32>() / k as f32
            })
            .collect();
        report(&format!("knn catalog k={k}"), &scores);
    }
    for k in [1, 3, 5] {
        let scores: Vec<f32> = vectors
            .iter()
            .map(|v| {
                let mut c: Vec<f32> = positives.iter().map(|p| dot(v, p)).collect();
                c.sort_by(|a, b| b.total_cmp(a));
                c[..k].iter().sum::<f32>() / k as f32
            })
            .collect();
        report(&format!("knn catalog+tags k={k}"), &scores);
    }
    // Logistic: catalog (+ tags) against the collection.
    for alpha in [0.01, 0.1, 1.0, 10.0] {
        let n = positives.len() + vectors.len();
        let mut x = Array2::zeros((n, embed::DIMS));
        for (row, v) in positives.iter().chain(&vectors).enumerate() {
            for (d, &value) in v.iter().enumerate() {
                x[[row, d]] = f64::from(value);
            }
        }
        let y: Array1<bool> = (0..n).map(|i| i < positives.len()).collect();
        let fitted = LogisticRegression::default()
            .alpha(alpha)
            .max_iterations(300)
            .fit(&Dataset::new(x, y))?;
        let sign = if fitted.labels().pos.class { 1.0 } else { -1.0 };
        let w: Vec<f32> = fitted.params().iter().map(|w| (sign * w) as f32).collect();
        let scores: Vec<f32> = vectors.iter().map(|v| dot(v, &w)).collect();
        report(&format!("logistic alpha={alpha}"), &scores);
    }
    Ok(())
}
