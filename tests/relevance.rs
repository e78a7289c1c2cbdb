//! Relevance on the shipped catalog: every query of
//! `tests/fixtures/relevance.tsv` searched once, each set's graded nDCG@10,
//! MRR and R@10 printed as a table (`cargo test --release --test relevance
//! -- --nocapture`) and held above the floors below. The graded set's
//! held-out half is never tuned on; every other set is a regression set.

mod common;

use std::collections::{BTreeSet, HashMap};

/// The floors, keyed by set: `SET` bounds its nDCG@10 (the graded set's on
/// its held-out half, the tuning half has none), `SET/kind` each kind's on
/// that half, `SET/MRR` its MRR, and `SET/top` the rank within which every
/// query must show a relevant entry. Set a little under the measured values.
const FLOORS: &[(&str, f64)] = &[
    ("graded", 0.88),
    ("graded/kind", 0.80),
    ("regression", 0.90),
    ("regression/MRR", 0.95),
    ("regression/top", 5.0),
    ("fresh", 0.90),
    ("third", 0.86),
    ("fourth", 0.89),
    ("fifth", 0.89),
    ("sixth", 0.89),
    ("seventh", 0.87),
    ("eighth", 0.89),
    ("ninth", 0.87),
    ("tenth", 0.88),
    ("eleventh", 0.91),
    ("twelfth", 0.91),
    ("thirteenth", 0.91),
    ("fourteenth", 0.90),
    ("fifteenth", 0.91),
    ("sixteenth", 0.89),
];

/// Columns set, split, kind, query, judgments (`id=grade ...`, 2 about it,
/// 1 relevant); `#` lines above the header.
const JUDGMENTS: &str = include_str!("fixtures/relevance.tsv");

const SPLITS: [&str; 3] = ["tuning", "held-out", "regression"];

fn floor(key: &str) -> Option<f64> {
    FLOORS.iter().find(|(k, _)| *k == key).map(|(_, f)| *f)
}

struct Judged {
    set: &'static str,
    split: &'static str,
    kind: &'static str,
    query: &'static str,
    grades: HashMap<&'static str, u8>,
}

fn judged() -> Vec<Judged> {
    let mut lines = JUDGMENTS.lines().skip_while(|l| l.starts_with('#'));
    assert_eq!(lines.next(), Some("set\tsplit\tkind\tquery\tjudgments"));
    lines
        .map(|line| {
            let [set, split, kind, query, judgments] = line.split('\t').collect::<Vec<_>>()[..]
            else {
                panic!("not five columns: {line}")
            };
            assert!(SPLITS.contains(&split), "{query}: split {split}");
            let grades = judgments
                .split(' ')
                .map(|g| {
                    let (id, grade) = g.split_once('=').expect("id=grade");
                    (id, grade.parse().expect("a grade of 1 or 2"))
                })
                .collect();
            Judged {
                set,
                split,
                kind,
                query,
                grades,
            }
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

#[derive(Default, Clone, Copy)]
struct Scores {
    ndcg: f64,
    rr: f64,
    recall: f64,
    queries: usize,
}

impl Scores {
    fn add(&mut self, other: Scores) {
        self.ndcg += other.ndcg;
        self.rr += other.rr;
        self.recall += other.recall;
        self.queries += other.queries;
    }

    fn mean(&self) -> (f64, f64, f64) {
        let n = self.queries.max(1) as f64;
        (self.ndcg / n, self.rr / n, self.recall / n)
    }
}

/// Graded nDCG@10 (gain = grade), reciprocal rank of the first relevant
/// hit, and the share of the relevant entries (up to ten) in the top ten.
fn score(ranked: &[String], grades: &HashMap<&str, u8>) -> Scores {
    let gain = |id: &String| f64::from(*grades.get(id.as_str()).unwrap_or(&0));
    let mut ideal: Vec<f64> = grades.values().map(|g| f64::from(*g)).collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    ideal.truncate(10);
    let top = &ranked[..ranked.len().min(10)];
    let found = top.iter().filter(|id| gain(id) > 0.0).count();
    Scores {
        ndcg: dcg(top.iter().map(gain)) / dcg(ideal.iter().copied()),
        rr: top
            .iter()
            .position(|id| gain(id) > 0.0)
            .map_or(0.0, |p| 1.0 / (p + 1) as f64),
        recall: found as f64 / grades.len().min(10) as f64,
        queries: 1,
    }
}

#[test]
fn every_set_stays_above_its_floor() {
    let judged = judged();
    let mut sets: Vec<&str> = judged.iter().map(|j| j.set).collect();
    sets.dedup();
    for (key, _) in FLOORS {
        let set = key.split('/').next().unwrap();
        assert!(
            sets.contains(&set),
            "a floor for {key}, a set with no query"
        );
    }
    for set in &sets {
        assert!(floor(set).is_some(), "the {set} set has no floor");
    }

    let fixture = common::Fixture::with_files(&[]);
    // The first search builds the index; the others only read it, so they
    // can run two at a time.
    let mut ranked = vec![ranked_ids(&fixture, judged[0].query)];
    std::thread::scope(|scope| {
        let rest = &judged[1..];
        let fixture = &fixture;
        let halves: Vec<_> = rest
            .chunks(rest.len().div_ceil(2))
            .map(|half| {
                scope.spawn(move || {
                    half.iter()
                        .map(|j| ranked_ids(fixture, j.query))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for half in halves {
            ranked.extend(half.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
    });

    // (set, split, kind) → summed scores, in file order; kind "" is all.
    let mut table: HashMap<(&str, &str, &str), Scores> = HashMap::new();
    let mut failures = Vec::new();
    for (j, ranked) in judged.iter().zip(&ranked) {
        let scores = score(ranked, &j.grades);
        for kind in ["", j.kind] {
            table.entry((j.set, j.split, kind)).or_default().add(scores);
        }
        let first = ranked
            .iter()
            .position(|id| j.grades.contains_key(id.as_str()));
        if let Some(top) = floor(&format!("{}/top", j.set))
            && first.is_none_or(|p| p as f64 >= top)
        {
            failures.push(format!(
                "{} set: {}: no relevant entry in the top {top} (got {ranked:?})",
                j.set, j.query
            ));
        }
    }

    // A row a set, the kinds of a set with halves under it; a column a split.
    println!(
        "\n{:<12}{:>31}{:>31}{:>31}  floor",
        "",
        "tuning: nDCG MRR R@10 (n)",
        "held-out: nDCG MRR R@10 (n)",
        "regression: nDCG MRR R@10 (n)"
    );
    let cell = |key| match table.get(&key) {
        Some(s) => {
            let (ndcg, rr, recall) = s.mean();
            format!("{ndcg:.3} {rr:.3} {recall:.3} ({:>3})", s.queries)
        }
        None => "-".into(),
    };
    for &set in &sets {
        let floors: Vec<String> = [
            floor(set).map(|f| format!("{f:.2}")),
            floor(&format!("{set}/MRR")).map(|f| format!("MRR {f:.2}")),
            floor(&format!("{set}/top")).map(|f| format!("top {f}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        let [t, h, r] = SPLITS.map(|split| cell((set, split, "")));
        println!("{set:<12}{t:>31}{h:>31}{r:>31}  {}", floors.join(", "));
        if !table.contains_key(&(set, "held-out", "")) {
            continue;
        }
        let kinds: BTreeSet<&str> = table
            .keys()
            .filter(|(s, _, k)| *s == set && !k.is_empty())
            .map(|(_, _, k)| *k)
            .collect();
        let kind_floor = floor(&format!("{set}/kind")).map_or(String::new(), |f| format!("{f:.2}"));
        for kind in kinds {
            let [t, h, r] = SPLITS.map(|split| cell((set, split, kind)));
            println!("  {kind:<10}{t:>31}{h:>31}{r:>31}  {kind_floor}");
        }
    }

    // Every split but the tuning half is held to the floors.
    for (&(set, split, kind), scores) in &table {
        if split == "tuning" {
            continue;
        }
        let (ndcg, rr, _) = scores.mean();
        let name = match split {
            "regression" => format!("{set} set"),
            _ => format!("{set} set's {split} half"),
        };
        let checks = if kind.is_empty() {
            vec![
                ("nDCG@10".to_string(), ndcg, floor(set)),
                ("MRR".to_string(), rr, floor(&format!("{set}/MRR"))),
            ]
        } else {
            vec![(
                format!("{kind} nDCG@10"),
                ndcg,
                floor(&format!("{set}/kind")),
            )]
        };
        for (measure, value, floor) in checks {
            if let Some(floor) = floor.filter(|f| value < *f) {
                failures.push(format!(
                    "{name}: {measure} fell to {value:.3} (floor {floor:.2})"
                ));
            }
        }
    }
    failures.sort();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
