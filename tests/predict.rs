//! Predicted tags: records without curated tags (imported from a snapshot)
//! get the tags a model learned from the
//! curated catalog gives them; tag filters and technique names find them,
//! after the curated entries. Every record and word here is fictional.

mod common;

use common::{Fixture, TAGS, search_ids};
use serde_json::{Value, json};

const CATALOG: &str = r#"[section]
name = "Papers"
order = 1

[[entry]]
id = "wobble-2021"
kind = "paper"
title = "Wobble: Pretend Stages"
url = "https://example.org/wobble"
authors = ["Ada Example"]
venue = "FICT"
year = 2021
tags = ["pipeline-parallelism"]
note = "Streams micro-batches through wobble stages of a make-believe pipeline."

[[entry]]
id = "stagger-2022"
kind = "paper"
title = "Stagger: More Pretend Stages"
url = "https://example.org/stagger"
authors = ["Bob Placeholder"]
venue = "FICT"
year = 2022
tags = ["pipeline-parallelism"]
note = "Wobble stages pass micro-batches along a make-believe pipeline."

[[entry]]
id = "snark-2023"
kind = "paper"
title = "Snark: Invented Gates"
url = "https://example.org/snark"
authors = ["Carol Sample"]
venue = "FICT"
year = 2023
tags = ["mixture-of-experts"]
note = "Routes tokens to snark experts with a pretend gate."

[[entry]]
id = "gating-2020"
kind = "paper"
title = "Gating: Pretend Routers"
url = "https://example.org/gating"
authors = ["Carol Sample"]
venue = "FICT"
year = 2020
tags = ["mixture-of-experts"]
note = "A pretend gate picks snark experts for every token."

[[entry]]
id = "remat-2019"
kind = "paper"
title = "Remat: Frumious Memory"
url = "https://example.org/remat"
authors = ["Dan Dummy"]
venue = "FICT"
year = 2019
tags = ["activation-recomputation"]
note = "Recomputes frumious activations instead of keeping them."

[[entry]]
id = "frum-2018"
kind = "paper"
title = "Frum: Forgetful Layers"
url = "https://example.org/frum"
authors = ["Dan Dummy"]
venue = "FICT"
year = 2018
tags = ["activation-recomputation"]
note = "Frumious activations are recomputed in the backward pass."
"#;

fn line(id: &str, title: &str, summary: &str) -> String {
    json!({
        "id": id, "submitter": "Ada Example", "authors": "Ada Example, Bob Placeholder",
        "title": title, "comments": null, "journal-ref": null, "doi": null, "report-no": null,
        "categories": "cs.DC", "license": null, "abstract": summary,
        "versions": [{"version": "v1", "created": "Mon, 2 Mar 2020 10:00:00 GMT"}],
        "update_date": "2020-03-02",
        "authors_parsed": [["Example", "Ada", ""], ["Placeholder", "Bob", ""]]
    })
    .to_string()
}

/// The catalog with a snapshot of two records imported: one about wobble
/// stages (pipeline parallelism, by the catalog's words), one about nothing
/// the catalog knows.
fn imported() -> Fixture {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("papers.toml", CATALOG)]);
    let snapshot = [
        line(
            "1412.99981",
            "Balancing Wobble Stages",
            "We stream micro-batches through wobble stages.",
        ),
        line("1412.99982", "Porcelain Glazes", "A survey of teapots."),
    ]
    .join("\n");
    std::fs::write(fixture.dir.path().join("snapshot.jsonl"), snapshot).unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .success();
    fixture
}

fn hits(fixture: &Fixture, args: &[&str]) -> Vec<Value> {
    fixture
        .cmd()
        .args(["search", "--json"])
        .args(args)
        .run()
        .success()
        .json_lines()
}

fn hit<'a>(hits: &'a [Value], id: &str) -> &'a Value {
    hits.iter()
        .find(|h| h["id"] == id)
        .unwrap_or_else(|| panic!("no hit {id} in {hits:?}"))
}

#[test]
fn an_imported_record_carries_its_predicted_tags_in_json() {
    let fixture = imported();
    let hits = hits(&fixture, &["wobble"]);
    let mut record = hit(&hits, "arxiv:1412.99981").clone();
    let score = record.as_object_mut().unwrap().remove("score");
    assert!(score.is_some_and(|s| s.as_f64().is_some_and(|s| s > 0.0)));
    assert_eq!(
        record,
        // Third: Stagger, curated with the first result's tag, gains more
        // from feedback than a predicted tag gives.
        json!({
            "rank": 3, "collection": "arxiv", "id": "arxiv:1412.99981", "kind": "paper",
            "title": "Balancing Wobble Stages", "authors": ["Ada Example", "Bob Placeholder"],
            "et_al": false, "venue": "arXiv", "year": 2020, "section": "cs.DC", "tags": [], "uses": [],
            "predicted_tags": ["pipeline-parallelism"],
            "url": "https://arxiv.org/abs/1412.99981", "arxiv": "1412.99981", "doi": null,
            "note": "", "snippet": "We stream micro-batches through wobble stages.",
            "snippet_field": "abstract", "highlights": [[32, 38]]
        })
    );
    let unrelated = self::hits(&fixture, &["porcelain"]);
    assert_eq!(
        hit(&unrelated, "arxiv:1412.99982")["predicted_tags"],
        json!([])
    );
}

#[test]
fn a_predicted_tag_shared_with_the_first_result_gains_a_quarter_of_a_curated_one() {
    let fixture = imported();
    let run = fixture
        .cmd()
        .args(["search", "--explain", "wobble"])
        .run()
        .success();
    let explained = |id_line: &str| {
        let at = run.stdout().find(id_line).expect(id_line);
        let block = &run.stdout()[at..];
        let end = block.find("\n\n").unwrap_or(block.len());
        block[..end].to_string()
    };
    let curated = explained("Stagger: More Pretend Stages");
    let predicted = explained("Balancing Wobble Stages");
    assert!(
        predicted.contains("  feedback: shares pipeline-parallelism (predicted) with result 1\n"),
        "{predicted}"
    );
    let bonus = |block: &str| -> f64 {
        let line = block.lines().find(|l| l.contains("feedback:")).unwrap();
        line.split_whitespace().next().unwrap().parse().unwrap()
    };
    let ratio = bonus(&predicted) / bonus(&curated);
    assert!(
        (ratio - 0.25).abs() < 0.01,
        "{ratio}: {curated}\n{predicted}"
    );
}

#[test]
fn curated_entries_carry_no_predicted_tags() {
    let fixture = imported();
    for hit in hits(&fixture, &["wobble"]) {
        if hit["collection"] == "catalog" {
            assert_eq!(hit["predicted_tags"], json!([]), "{hit}");
            assert_ne!(hit["tags"], json!([]), "{hit}");
        }
    }
}

#[test]
fn a_tag_filter_finds_predicted_records_after_the_curated_ones() {
    let fixture = imported();
    let curated_then_predicted = ["stagger-2022", "wobble-2021", "arxiv:1412.99981"];
    assert_eq!(
        search_ids(&fixture, &["--tag", "pipeline-parallelism"]),
        curated_then_predicted
    );
    assert_eq!(
        search_ids(&fixture, &["tag:pipeline-parallelism"]),
        curated_then_predicted
    );
}

#[test]
fn a_technique_name_finds_predicted_records_below_curated_ones() {
    // "1F1B" is a name of pipeline parallelism that no text here holds: the
    // curated entries match by their tags, the imported record by its
    // predicted tag, which counts for less.
    let fixture = imported();
    let hits = hits(&fixture, &["1F1B"]);
    let ids: Vec<&str> = hits.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["stagger-2022", "wobble-2021", "arxiv:1412.99981"]);
    assert!(hits[2]["score"].as_f64() < hits[1]["score"].as_f64());
}

#[test]
fn show_says_the_tags_are_predicted_with_their_confidence() {
    let fixture = imported();
    let run = fixture.run(["show", "arxiv:1412.99981"]).success();
    let line = run
        .stdout_lines()
        .into_iter()
        .find(|l| l.starts_with("  predicted "))
        .unwrap_or_else(|| run.fail("no predicted line"));
    let confidence: f64 = line
        .trim_start_matches("  predicted pipeline-parallelism ")
        .trim_end_matches("  (predicted from the catalog, not curated)")
        .parse()
        .unwrap_or_else(|_| run.fail(format!("line {line:?}")));
    assert!((0.3..=1.0).contains(&confidence), "{line}");
    let shown = fixture
        .run(["show", "--json", "arxiv:1412.99981"])
        .success()
        .json();
    assert_eq!(shown["predicted_tags"], json!(["pipeline-parallelism"]));
    let predicted = &shown["predicted"][0];
    assert_eq!(predicted["tag"], "pipeline-parallelism");
    assert!((predicted["confidence"].as_f64().unwrap() - confidence).abs() < 0.006);
}
