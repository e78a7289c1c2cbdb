//! Predicted tags on records that have abstracts, as imported and harvested
//! records do: the fictional stream (`tests/fixtures/stream`), whose tags
//! were written blind to the predictor (`tags.tsv`), predicted by a model
//! trained on the whole catalog, reading more or less of each abstract.
//! Micro precision and recall over all 120 records, and how many records
//! without tags were given one.
//!
//!   cargo run --release --example stream_tags -- [CATALOG_DIR]
//!
//! The bytes read never exceed what the import reads (`ABSTRACT_BYTES`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use distml_search::catalog::load_dir;
use distml_search::model::Record;
use distml_search::model::metadata::Cache;
use distml_search::predict::evaluate::Counts;
use distml_search::predict::{ABSTRACT_BYTES, Predictor, cut_after_word};
use distml_search::snapshot::parse_line;

const STREAM: &str = "tests/fixtures/stream";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("catalog"), PathBuf::from);
    let (catalog, _) = load_dir(&dir)?;
    let predictor = Predictor::train(&catalog, &Cache::default());
    let labels = labels(&Path::new(STREAM).join("tags.tsv"))?;
    let records: Vec<_> = std::fs::read_to_string(Path::new(STREAM).join("records.jsonl"))?
        .lines()
        .map(|line| parse_line(line).map(|r| r.into_record()))
        .collect::<Result<_, _>>()?;
    let no_tags = Vec::new();
    let truth = |record: &Record| {
        labels
            .get(record.arxiv.as_deref().unwrap_or_default())
            .unwrap_or(&no_tags)
    };
    let untagged = records.iter().filter(|r| truth(r).is_empty()).count();
    println!(
        "{} records, {} with tags written blind ({} tags), {untagged} without",
        records.len(),
        records.len() - untagged,
        labels.values().map(Vec::len).sum::<usize>()
    );
    println!();
    println!("| abstract bytes read | precision | recall | F1 | records without tags given one |");
    println!("|---|---|---|---|---|");
    for budget in [0, 100, 150, 200, 250, 300]
        .into_iter()
        .filter(|&b| b <= ABSTRACT_BYTES)
    {
        let mut counts = Counts::default();
        let mut false_alarms = 0;
        for record in &records {
            let mut read = record.clone();
            read.abstract_text = read
                .abstract_text
                .map(|a| cut_after_word(&a, budget).to_string());
            let predicted: Vec<String> = predictor
                .predict(&read)
                .into_iter()
                .map(|p| p.tag)
                .collect();
            let truth = truth(record);
            if truth.is_empty() && !predicted.is_empty() {
                false_alarms += 1;
            }
            let hits = predicted.iter().filter(|t| truth.contains(t)).count();
            counts.true_positives += hits;
            counts.false_positives += predicted.len() - hits;
            counts.false_negatives += truth.len() - hits;
        }
        println!(
            "| {budget} | {:.3} | {:.3} | {:.3} | {false_alarms} of {untagged} |",
            counts.precision(),
            counts.recall(),
            counts.f1()
        );
    }
    Ok(())
}

/// Each record's tags, by arXiv id.
fn labels(path: &Path) -> Result<HashMap<String, Vec<String>>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once('\t'))
        .map(|(id, tags)| {
            let tags = tags
                .split(',')
                .filter(|t| !t.is_empty())
                .map(str::to_string);
            (id.to_string(), tags.collect())
        })
        .collect())
}
