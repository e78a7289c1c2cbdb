//! The relevance set: queries a practitioner types, and the entries that must
//! rank for each. Run on the shipped catalog; prints nDCG@10 and MRR (see them
//! with `cargo test --test relevance -- --nocapture`).

mod common;

use std::collections::HashSet;

/// `query | id id ...` lines; `#` starts a comment.
const JUDGMENTS: &str = include_str!("fixtures/relevance.txt");

fn judgments() -> Vec<(&'static str, Vec<&'static str>)> {
    JUDGMENTS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (query, ids) = l.split_once(" | ").expect("query | ids");
            (query.trim(), ids.split_whitespace().collect())
        })
        .collect()
}

fn ranked_ids(fixture: &common::Fixture, query: &str) -> Vec<String> {
    let run = fixture
        .cmd()
        .args([
            "--catalog",
            concat!(env!("CARGO_MANIFEST_DIR"), "/catalog"),
            "--index",
        ])
        .arg(fixture.index())
        .args(["search", "--json", "-n", "10", query])
        .run();
    if run.status.code() == Some(2) {
        run.fail(format!("{query}: an error"));
    }
    run.ids()
}

fn dcg(gains: impl Iterator<Item = f64>) -> f64 {
    gains
        .enumerate()
        .map(|(i, g)| g / ((i + 2) as f64).log2())
        .sum()
}

#[test]
fn relevance_set() {
    let fixture = common::Fixture::with_files(&[]);
    let (mut ndcg_sum, mut rr_sum) = (0.0, 0.0);
    let mut failures = Vec::new();
    let judgments = judgments();
    assert!(
        judgments.len() >= 30,
        "the relevance set needs at least 30 queries"
    );
    for (query, relevant) in &judgments {
        let relevant: HashSet<&str> = relevant.iter().copied().collect();
        let ranked = ranked_ids(&fixture, query);
        let gains: Vec<f64> = ranked
            .iter()
            .map(|id| f64::from(u8::from(relevant.contains(id.as_str()))))
            .collect();
        let ideal = dcg(std::iter::repeat_n(1.0, relevant.len().min(10)));
        let ndcg = dcg(gains.iter().copied()) / ideal;
        let first = gains.iter().position(|g| *g > 0.0);
        let rr = first.map_or(0.0, |p| 1.0 / (p + 1) as f64);
        ndcg_sum += ndcg;
        rr_sum += rr;
        println!(
            "{ndcg:.2} {rr:.2}  {query:<48} {}",
            ranked.iter().take(5).cloned().collect::<Vec<_>>().join(" ")
        );
        if first.is_none_or(|p| p >= 5) {
            failures.push(format!(
                "{query}: no relevant entry in the top 5 (got {ranked:?})"
            ));
        }
    }
    let n = judgments.len() as f64;
    let (ndcg, mrr) = (ndcg_sum / n, rr_sum / n);
    println!(
        "{} queries: nDCG@10 {ndcg:.3}, MRR {mrr:.3}",
        judgments.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ndcg >= 0.9, "nDCG@10 fell to {ndcg:.3}");
    assert!(mrr >= 0.95, "MRR fell to {mrr:.3}");
}
