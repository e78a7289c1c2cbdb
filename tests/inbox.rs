//! `inbox`: the arxiv collection's records that are not in the catalog,
//! ranked, with a proposed section, tags and why; `inbox accept` writes
//! one into the catalog, `inbox reject` is remembered. Every record here is
//! fictional (2014 ids had four digits, so 1412.9xxxx cannot exist; 10.5555
//! is a test prefix).

mod common;

use common::{Fixture, INVENTED, TAGS, snapshot_line};
use serde_json::json;

fn line(id: &str, title: &str, created: &str, summary: &str, doi: Option<&str>) -> String {
    let authors = [("Dora", "Fictive"), ("Eli", "Madeup")];
    snapshot_line(id, title, &authors, created, summary, doi)
}

/// Three records of works the catalog lists (by DOI, by an arXiv id found
/// by lookup, by title) and three new ones.
fn stream() -> Vec<String> {
    vec![
        line(
            "1412.99981",
            "Routing Make-Believe Experts, Extended",
            "Thu, 1 Oct 2026 10:00:00 GMT",
            "The journal version of SnarkShard.",
            Some("10.5555/FICTIONAL.77"),
        ),
        line(
            "1412.99982",
            "Wobble - pretend pipelines for imaginary accelerators.",
            "Thu, 1 Oct 2026 10:00:00 GMT",
            "Pipeline parallelism for imaginary accelerators.",
            None,
        ),
        line(
            "1412.99986",
            "Gizmo Reloaded",
            "Thu, 1 Oct 2026 10:00:00 GMT",
            "The Gizmo trainer's paper.",
            None,
        ),
        line(
            "1412.99983",
            "Glorp: Pipeline Parallelism with Fewer Bubbles on Pretend Accelerators",
            "Fri, 2 Oct 2026 10:00:00 GMT",
            "We split the model into pipeline stages and schedule micro-batches so that the pipeline bubble shrinks; 1F1B with activation checkpointing.",
            None,
        ),
        line(
            "1412.99984",
            "Routing Invented Experts with a Two-Level All-to-All",
            "Mon, 16 Nov 2026 10:00:00 GMT",
            "Mixture of experts layers send tokens to experts with all-to-all collectives across GPUs.",
            None,
        ),
        line(
            "1412.99985",
            "A Cookbook of Zorblat Recipes",
            "Tue, 17 Nov 2026 10:00:00 GMT",
            "We collect recipes for zorblats and rate their taste.",
            None,
        ),
    ]
}

/// Gizmo's arXiv id, found by a title search (metadata.json, not the TOML).
const METADATA: &str = r#"{
  "entries": {
    "gizmo": {
      "arxiv": { "value": "1412.99986", "found_by": "title-search", "source": "arxiv", "confidence": 0.97 }
    }
  },
  "version": 1
}
"#;

fn fixture() -> Fixture {
    let fixture = Fixture::with_files(&[
        ("tags.toml", TAGS),
        ("invented-systems.toml", INVENTED),
        ("metadata.json", METADATA),
    ]);
    fixture.import_snapshot(&stream());
    fixture
}

fn arxiv_ids(run: &common::Run) -> Vec<String> {
    run.json_lines()
        .iter()
        .map(|c| c["arxiv"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn works_already_listed_by_doi_found_id_or_title_are_not_candidates() {
    let fixture = fixture();
    let run = fixture.run(["inbox", "--json"]).success();
    let mut ids = arxiv_ids(&run);
    ids.sort();
    assert_eq!(ids, ["1412.99983", "1412.99984", "1412.99985"]);
}

#[test]
fn the_field_ranks_above_the_rest_with_a_section_tags_and_why() {
    let fixture = fixture();
    let run = fixture.run(["inbox", "--json"]).success();
    let candidates = run.json_lines();
    assert_eq!(candidates.len(), 3);
    assert_eq!(candidates[2]["arxiv"], "1412.99985", "{candidates:?}");
    let glorp = candidates
        .iter()
        .find(|c| c["arxiv"] == "1412.99983")
        .unwrap();
    assert_eq!(glorp["section"], "Invented Systems");
    assert!(
        glorp["tags"]
            .as_array()
            .unwrap()
            .contains(&json!("pipeline-parallelism")),
        "{glorp}"
    );
    assert!(!glorp["why"].as_array().unwrap().is_empty(), "{glorp}");
    let keys: Vec<&str> = glorp
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in [
        "rank", "arxiv", "title", "authors", "year", "score", "section", "tags", "why", "closest",
    ] {
        assert!(keys.contains(&key), "{key} missing from {glorp}");
    }
    assert_eq!(glorp["authors"], json!(["Dora Fictive", "Eli Madeup"]));
    assert_eq!(glorp["year"], 2026);
    assert_eq!(glorp["submitted"], "2026-10-02");
    // Why: the catalog works nearest in meaning, closest first.
    let closest = glorp["closest"].as_array().unwrap();
    assert!(!closest.is_empty(), "{glorp}");
    let similarities: Vec<f64> = closest
        .iter()
        .map(|w| w["similarity"].as_f64().unwrap())
        .collect();
    assert!(similarities.windows(2).all(|w| w[0] >= w[1]), "{glorp}");
    assert!(
        closest
            .iter()
            .all(|w| w["id"].is_string() && w["title"].is_string())
    );
}

#[test]
fn since_and_limit_choose_the_candidates() {
    let fixture = fixture();
    let run = fixture
        .run(["inbox", "--json", "--since", "2026-11-16"])
        .success();
    let mut ids = arxiv_ids(&run);
    ids.sort();
    assert_eq!(ids, ["1412.99984", "1412.99985"]);
    // The day chooses what is shown, not what the model learned: the same
    // scores as without it.
    let all = fixture.run(["inbox", "--json"]).success().json_lines();
    for recent in run.json_lines() {
        let same = all.iter().find(|c| c["arxiv"] == recent["arxiv"]).unwrap();
        assert_eq!(recent["score"], same["score"], "{recent}");
    }
    let run = fixture.run(["inbox", "--json", "--limit", "1"]).success();
    assert_eq!(run.json_lines().len(), 1);
    assert_eq!(run.json_lines()[0]["rank"], 1);
    fixture
        .run(["inbox", "--since", "2027-01-01"])
        .code(1)
        .stdout_is("")
        .stderr_has("no candidates");
    fixture
        .run(["inbox", "--since", "2026-13-01"])
        .code(2)
        .stderr_has("expected a day such as 2024-03-31");
}

#[test]
fn a_rejected_record_never_comes_back() {
    let fixture = fixture();
    fixture
        .run(["inbox", "reject", "1412.99985"])
        .success()
        .stdout_has("rejected 1412.99985: the inbox will not propose it again");
    let today = distml_search::clock::today();
    assert_eq!(
        fixture.read("inbox.toml"),
        format!(
            "# Records rejected from the inbox (`distml-search inbox reject ID`), which it\n# no longer proposes. Remove a block to see the record again.\n\n[[rejected]]\narxiv = \"1412.99985\"\non = \"{today}\"\n"
        )
    );
    let run = fixture.run(["inbox", "--json"]).success();
    assert!(!arxiv_ids(&run).contains(&"1412.99985".to_string()));
    fixture
        .run(["inbox", "reject", "arxiv:1412.99985v2"])
        .success()
        .stdout_is("1412.99985 was already rejected\n");
    // Not an entry file: the catalog still checks.
    fixture.run(["check"]).success();
}

/// The section file after accepting Glorp.
const ACCEPTED: &str = r#"
[[entry]]
id = "glorp-2026"
kind = "paper"
title = "Glorp: Pipeline Parallelism with Fewer Bubbles on Pretend Accelerators"
url = "https://arxiv.org/abs/1412.99983"
authors = ["Dora Fictive", "Eli Madeup"]
venue = "arXiv"
year = 2026
arxiv = "1412.99983"
tags = ["pipeline-parallelism", "activation-recomputation"]
note = "Schedules pretend micro-batches to shrink the bubble."
"#;

#[test]
fn accept_writes_the_entry_and_check_passes() {
    let fixture = fixture();
    fixture
        .run([
            "inbox",
            "accept",
            "1412.99983",
            "--note",
            "Schedules pretend micro-batches to shrink the bubble.",
            "--tags",
            "pipeline-parallelism,gradient checkpointing",
        ])
        .success()
        .stdout_is("accepted 1412.99983 as `glorp-2026` in Invented Systems (catalog/invented-systems.toml); `distml-search check` checks it\n");
    assert_eq!(
        fixture.read("invented-systems.toml"),
        format!("{INVENTED}{ACCEPTED}")
    );
    fixture.run(["check"]).success().stdout_has("catalog: ok");
    // Listed now: no longer a candidate, and not accepted twice.
    let run = fixture.run(["inbox", "--json"]).success();
    assert!(!arxiv_ids(&run).contains(&"1412.99983".to_string()));
    fixture
        .run(["inbox", "accept", "1412.99983", "--note", "Again."])
        .code(2)
        .stderr_is(
            "distml-search: error: 1412.99983 is already listed as `glorp-2026` (same arXiv id)\n",
        );
    let show = fixture.run(["show", "glorp-2026"]).success();
    for line in [
        "  authors   Dora Fictive, Eli Madeup  (from arxiv)",
        "  published 2026-10-02  (from arxiv)",
        "  arxiv     1412.99983  (from the url)",
        "  abstract (from arxiv)",
    ] {
        assert!(
            show.stdout().contains(line),
            "{line:?} not in\n{}",
            show.stdout()
        );
    }
    fixture
        .run(["export", "--format", "markdown"])
        .success()
        .stdout_has("- [Glorp: Pipeline Parallelism with Fewer Bubbles on Pretend Accelerators](https://arxiv.org/abs/1412.99983) by Dora Fictive, Eli Madeup, arXiv 2026");
}

#[test]
fn accept_takes_the_proposed_section_and_tags_unless_given() {
    let fixture = fixture();
    let proposed = fixture.run(["inbox", "--json"]).success().json_lines();
    let experts = proposed
        .iter()
        .find(|c| c["arxiv"] == "1412.99984")
        .unwrap()
        .clone();
    fixture
        .run([
            "inbox",
            "accept",
            "1412.99984",
            "--note",
            "Routes invented experts.",
        ])
        .success();
    let text = fixture.read("invented-systems.toml");
    let tags: Vec<String> = experts["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("{t}"))
        .collect();
    assert!(
        text.contains(&format!("tags = [{}]\n", tags.join(", "))),
        "{text}"
    );
    fixture.run(["check"]).success();
}

#[test]
fn refusals_are_one_line() {
    let fixture = fixture();
    let refused = |args: &[&str], message: &str| {
        let before = fixture.read("invented-systems.toml");
        fixture
            .run(args)
            .code(2)
            .stderr_is(&format!("distml-search: error: {message}\n"));
        assert_eq!(fixture.read("invented-systems.toml"), before);
    };
    refused(
        &["inbox", "accept", "1412.99983", "--note", "  "],
        "the note is empty: say in one sentence of your own what the work contributes (--note \"...\")",
    );
    refused(
        &["inbox", "accept", "1412.99979", "--note", "N."],
        "no record 1412.99979 in the arxiv collection: `distml-search inbox` lists the candidates (harvest or import to add records)",
    );
    refused(
        &["inbox", "accept", "nonsense", "--note", "N."],
        "\"nonsense\" is not an arXiv id such as 2401.10241",
    );
    refused(
        &[
            "inbox",
            "accept",
            "1412.99983",
            "--note",
            "N.",
            "--section",
            "Nowhere",
        ],
        "no section named \"Nowhere\": one of Invented Systems",
    );
    refused(
        &[
            "inbox",
            "accept",
            "1412.99983",
            "--note",
            "N.",
            "--tags",
            "pipeline-parallelism,zorbling",
        ],
        "unknown tag \"zorbling\": tags are the ids of tags.toml (`distml-search stats` lists those in use)",
    );
    refused(
        &["inbox", "reject", "1412.99982"],
        "1412.99982 is already listed as `wobble-2021` (a near-identical title)",
    );
    refused(
        &["inbox", "reject", "1412.99986"],
        "1412.99986 is already listed as `gizmo` (same arXiv id)",
    );
    refused(
        &["inbox", "reject", "1412.99981"],
        "1412.99981 is already listed as `snarkshard-2023` (same DOI)",
    );
}

#[test]
fn the_terminal_view_is_compact() {
    let fixture = fixture();
    let run = fixture.run(["inbox", "--limit", "1"]).success();
    let lines = run.stdout_lines();
    assert!(lines[0].starts_with(" 1. "), "{}", run.stdout());
    assert!(
        lines.iter().any(|l| l.trim_start().starts_with("why: ")),
        "{}",
        run.stdout()
    );
    assert_eq!(
        run.stderr(),
        "1 of 3 candidates shown; more with --limit 2\n"
    );
}

/// Precision@20 and recall@60 of the inbox on the fictional mixed stream
/// (`tests/fixtures/stream`: 40 papers of the field among 80 look-alikes)
/// over the shipped catalog; `bench/inbox.py` prints them, by half too.
/// The targets are 0.85 each; the floors are the values measured.
#[test]
fn on_the_mixed_stream_the_top_of_the_inbox_is_the_field() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = Fixture::with_files(&[]);
    for file in std::fs::read_dir(root.join("catalog")).unwrap() {
        let path = file.unwrap().path();
        std::fs::copy(&path, fixture.catalog().join(path.file_name().unwrap())).unwrap();
    }
    let stream = root.join("tests/fixtures/stream");
    fixture
        .cmd()
        .arg("import")
        .arg("--arxiv-snapshot")
        .arg(stream.join("records.jsonl"))
        .run()
        .success();
    let labels = std::fs::read_to_string(stream.join("labels.tsv")).unwrap();
    let field: Vec<&str> = labels
        .lines()
        .filter_map(|l| {
            let mut parts = l.split('\t');
            let id = parts.next()?;
            (parts.next()? == "field").then_some(id)
        })
        .collect();
    assert_eq!(field.len(), 40);
    let run = fixture.run(["inbox", "--json", "--limit", "60"]).success();
    let ranked = arxiv_ids(&run);
    let of_field = |n: usize| {
        ranked[..n]
            .iter()
            .filter(|id| field.contains(&id.as_str()))
            .count()
    };
    let precision = of_field(20) as f64 / 20.0;
    let recall = of_field(60) as f64 / field.len() as f64;
    assert!(
        precision >= PRECISION_FLOOR && recall >= RECALL_FLOOR,
        "precision@20 {precision:.2} (floor {PRECISION_FLOOR}), recall@60 {recall:.2} (floor {RECALL_FLOOR})"
    );
}

const PRECISION_FLOOR: f64 = 0.95;
const RECALL_FLOOR: f64 = 0.925;

/// Twenty fictional records of the field, none listed (2612.6xxxx: no
/// such ids exist yet), and a catalog to accept them into.
fn twenty() -> Fixture {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("invented-systems.toml", INVENTED)]);
    let lines: Vec<String> = (1..=20)
        .map(|n| {
            line(
                &format!("2612.6{n:04}"),
                &format!("Pretend Pipeline Stages for Imaginary Accelerators, Study {n}"),
                "Thu, 1 Oct 2026 10:00:00 GMT",
                "We split pretend models into pipeline stages and schedule micro-batches.",
                None,
            )
        })
        .collect();
    fixture.import_snapshot(&lines);
    fixture
}

/// The twenty runs `args(n)` (n from 1) started at once, each awaited.
fn all_at_once(
    fixture: &Fixture,
    args: impl Fn(usize) -> Vec<String>,
) -> Vec<std::process::Output> {
    let children: Vec<_> = (1..=20)
        .map(|n| {
            fixture
                .cmd()
                .args(args(n))
                .into_command()
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|child| child.wait_with_output().unwrap())
        .collect()
}

#[test]
fn twenty_rejects_at_once_are_all_remembered() {
    let fixture = twenty();
    let outputs = all_at_once(&fixture, |n| {
        vec!["inbox".into(), "reject".into(), format!("2612.6{n:04}")]
    });
    for (n, output) in (1..=20).zip(&outputs) {
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.starts_with(&format!("rejected 2612.6{n:04}: ")),
            "{n}: {stdout} {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let rejected = fixture.read("inbox.toml");
    for n in 1..=20 {
        assert!(
            rejected.contains(&format!("arxiv = \"2612.6{n:04}\"")),
            "{n} lost:\n{rejected}"
        );
    }
    // Not one proposed again.
    let run = fixture.cmd().args(["inbox", "--json"]).run();
    assert_eq!(run.stdout(), "", "{}", run.stderr());
}

#[test]
fn twenty_accepts_at_once_all_reach_the_catalog_and_its_metadata() {
    let fixture = twenty();
    let outputs = all_at_once(&fixture, |n| {
        vec![
            "inbox".into(),
            "accept".into(),
            format!("2612.6{n:04}"),
            "--note".into(),
            format!("Pretend study number {n}."),
        ]
    });
    let mut ids = Vec::new();
    for (n, output) in (1..=20).zip(&outputs) {
        let stdout = String::from_utf8_lossy(&output.stdout);
        let id = stdout
            .strip_prefix(&format!("accepted 2612.6{n:04} as `"))
            .and_then(|rest| rest.split('`').next())
            .filter(|_| output.status.success());
        let Some(id) = id else {
            panic!("{n}: {stdout} {}", String::from_utf8_lossy(&output.stderr));
        };
        ids.push(id.to_string());
    }
    let catalog = fixture.read("invented-systems.toml");
    let metadata: serde_json::Value = serde_json::from_str(&fixture.read("metadata.json")).unwrap();
    for (n, id) in (1..=20).zip(&ids) {
        assert!(
            catalog.contains(&format!("id = \"{id}\"\n"))
                && catalog.contains(&format!("arxiv = \"2612.6{n:04}\"\n")),
            "{id} lost:\n{catalog}"
        );
        assert!(
            metadata["entries"].get(id).is_some(),
            "{id}'s metadata lost"
        );
    }
    fixture.run(["check"]).success();
}
