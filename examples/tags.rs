//! Leave-one-out of the tag predictor over a catalog: every curated entry's
//! tags predicted by a model trained on all the others, scored by micro
//! precision, recall and F1 against its curated tags, for the vocabulary
//! baseline, TF-IDF with a logistic regression, and their combination.
//!
//!   cargo run --release --example tags -- [CATALOG_DIR]
//!
//! Thresholds: `nested`, where each entry is scored at the threshold best
//! for the other entries (it never sees the entry it is applied to: the
//! honest estimate); the shipped `THRESHOLD` (the combination's); and the
//! best over all entries (optimistic: chosen on the entries it scores).

use std::path::PathBuf;
use std::time::Instant;

use distml_search::catalog::load_dir;
use distml_search::model::metadata::Cache;
use distml_search::predict::evaluate::{Counts, leave_one_out};
use distml_search::predict::{Method, Predictor, THRESHOLD, examples};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("catalog"), PathBuf::from);
    let (catalog, problems) = load_dir(&dir)?;
    if let Some(problem) = problems.first() {
        return Err(format!("{problem}").into());
    }
    let cache_path = dir.join("metadata.json");
    let cache = match std::fs::read_to_string(&cache_path) {
        Ok(text) => Cache::parse(&text, &cache_path)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Cache::default(),
        Err(e) => return Err(e.into()),
    };
    let examples = examples(&catalog, &cache);
    let with_abstract = examples.iter().filter(|e| e.parts.len() > 2).count();
    let started = Instant::now();
    Predictor::train(&catalog, &cache);
    println!(
        "{} curated entries ({with_abstract} with an abstract), {} tags; training on all: {:.0} ms",
        examples.len(),
        catalog.vocabulary.tags.len(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    println!();
    println!("| method | threshold | precision | recall | F1 |");
    println!("|---|---|---|---|---|");
    let row = |method: Method, threshold: &str, c: Counts| {
        println!(
            "| {} | {threshold} | {:.3} | {:.3} | {:.3} |",
            method.as_str(),
            c.precision(),
            c.recall(),
            c.f1()
        );
    };
    for method in Method::ALL {
        let scores = leave_one_out(&catalog, &examples, method);
        if method == Method::Vocabulary {
            row(method, "(a name found)", scores.at(1.0));
            continue;
        }
        row(method, "nested", scores.nested());
        if method == Method::Combined {
            row(
                method,
                &format!("{THRESHOLD} (shipped)"),
                scores.at(THRESHOLD),
            );
        }
        let best = scores.best_threshold(None);
        row(
            method,
            &format!("{best} (best, optimistic)"),
            scores.at(best),
        );
    }
    Ok(())
}
