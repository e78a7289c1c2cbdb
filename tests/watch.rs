//! `watch`: saved searches and what is new for each, by when records
//! entered the index. Records arrive here by snapshot imports; harvests
//! are in `tests/harvest.rs`, feeds in `tests/feeds.rs`.

mod common;

use common::{Fixture, inbox_stream, snapshot_line};
use serde_json::json;

/// The ids `watch ARGS --json` shows (exit 0 with some, 1 with none).
fn new_ids(fixture: &Fixture, args: &[&str]) -> Vec<String> {
    let run = fixture.cmd().arg("watch").args(args).arg("--json").run();
    let ids = run.ids();
    run.code(if ids.is_empty() { 1 } else { 0 });
    ids
}

fn watches_file(fixture: &Fixture) -> Option<String> {
    std::fs::read_to_string(fixture.catalog().join("watches.json")).ok()
}

#[test]
fn a_watch_is_added_listed_shown_and_removed() {
    let fixture = Fixture::hostile();
    fixture
        .run(["watch"])
        .code(1)
        .stdout_is("")
        .stderr_has("no watches yet: add one with `distml-search watch add NAME QUERY`");
    fixture.run(["watch", "list"]).code(1);
    fixture
        .run(["watch", "add", "pipes", "pipelines", "--collection", "arxiv"])
        .success()
        .stdout_is("added watch pipes: \"pipelines\" --collection arxiv (0 matches now; what enters the index from now on is new)\n");
    fixture
        .run(["watch", "add", "experts", "--tag", "moe"])
        .success()
        .stdout_has("added watch experts: --tag moe (1 match now;");
    // Nothing entered the index since.
    assert!(new_ids(&fixture, &[]).is_empty());
    fixture
        .run(["watch"])
        .code(1)
        .stdout_is("experts · nothing new · --tag moe\n\npipes · nothing new · \"pipelines\" --collection arxiv\n");

    fixture.import_snapshot(&inbox_stream());
    let shown = fixture.run(["watch", "show", "pipes", "--json"]).success();
    let hits = shown.json_lines();
    assert_eq!(hits.len(), 1, "{}", shown.stdout());
    let hit = &hits[0];
    assert_eq!(hit["watch"], "pipes");
    assert_eq!(hit["id"], "arxiv:1412.99983");
    assert_eq!(hit["rank"], 1);
    assert!(hit["added"].as_str().unwrap().ends_with('Z'), "{hit}");
    // `search --json`'s fields are all there.
    for field in [
        "title",
        "authors",
        "url",
        "arxiv",
        "score",
        "snippet",
        "tags",
        "collection",
    ] {
        assert!(hit.get(field).is_some(), "{field}: {hit}");
    }
    // Filters alone list their matches as `search` does (the year's ties
    // in the index's order).
    let mut experts = new_ids(&fixture, &["show", "experts"]);
    experts.sort();
    assert_eq!(experts, ["arxiv:1412.99984", "arxiv:1412.99987"]);
    // Not read yet: still new, and counted.
    let list = fixture
        .run(["watch", "list", "--json"])
        .success()
        .json_lines();
    assert_eq!(list.len(), 2);
    let mut experts = list[0].clone();
    assert!(experts["created"].as_str().unwrap().ends_with('Z'));
    experts.as_object_mut().unwrap().remove("created");
    assert_eq!(
        experts,
        json!({
            "name": "experts", "query": "", "filters": {"tag": ["moe"]}, "like": [],
            "min_similarity": null, "read_at": null, "new": 2,
        })
    );
    assert_eq!(list[1]["new"], 1);
    fixture.run(["watch", "list"]).success().stdout_is(
        "experts     2 new  --tag moe\npipes       1 new  \"pipelines\" --collection arxiv\n",
    );

    fixture
        .run(["watch", "remove", "experts"])
        .success()
        .stdout_is("removed watch experts\n");
    fixture
        .run(["watch", "remove", "experts"])
        .code(2)
        .stderr_is("distml-search: error: no watch named `experts` (watches: pipes)\n");
    fixture
        .run(["watch", "show", "nope"])
        .code(2)
        .stderr_is("distml-search: error: no watch named `nope` (watches: pipes)\n");
}

#[test]
fn what_is_new_resets_only_when_marked_read() {
    let fixture = Fixture::hostile();
    fixture
        .run(["watch", "add", "all", "--collection", "arxiv"])
        .success();
    fixture.import_snapshot(&inbox_stream());
    assert_eq!(new_ids(&fixture, &[]).len(), 4);
    assert_eq!(new_ids(&fixture, &[]).len(), 4, "shown is not read");
    // One shown, every one marked read.
    let run = fixture
        .run(["watch", "-n", "1", "--mark-read"])
        .success()
        .stderr_has("all: 1 of 4 new shown; more with --limit 4")
        .stderr_has("marked watch all read");
    assert!(
        run.stdout()
            .starts_with("all · 4 new · --collection arxiv\n 1. ")
    );
    assert!(new_ids(&fixture, &[]).is_empty());
    let list = fixture
        .run(["watch", "list", "--json"])
        .success()
        .json_lines();
    assert!(list[0]["read_at"].as_str().unwrap().ends_with('Z'));

    // The same snapshot again and one more record: the records the index
    // held keep their stamps, so only the new one is new.
    let mut lines = inbox_stream();
    lines.push(snapshot_line(
        "1412.99988",
        "Blorp: Sharding Pretend Optimizer State",
        &[("Fay", "Invented")],
        "Thu, 19 Nov 2026 10:00:00 GMT",
        "We shard optimizer state across pretend data-parallel ranks.",
        None,
    ));
    fixture.import_snapshot(&lines);
    assert_eq!(new_ids(&fixture, &[]), ["arxiv:1412.99988"]);
    // A catalog edit rebuilds the catalog's documents, each with its stamp.
    let edited = fixture.read("invented-systems.toml").replace(
        "Streams pretend micro-batches",
        "Streams make-believe micro-batches",
    );
    fixture.write("invented-systems.toml", &edited);
    fixture.run(["watch", "--mark-read"]).success();
    assert!(new_ids(&fixture, &[]).is_empty());
    // A new entry is new.
    fixture
        .run([
            "watch",
            "add",
            "catalog",
            "pretend",
            "--collection",
            "catalog",
        ])
        .success();
    fixture.write(
        "extra.toml",
        "[section]\nname = \"Extra\"\norder = 9\n\n[[entry]]\nid = \"frob-2025\"\nkind = \"paper\"\ntitle = \"Frob: Pretend Pipelines Again\"\nurl = \"https://example.org/frob\"\nauthors = [\"Gil Made\"]\nyear = 2025\ntags = [\"pipeline-parallelism\"]\nnote = \"More pretend stages.\"\n",
    );
    assert_eq!(new_ids(&fixture, &["show", "catalog"]), ["frob-2025"]);
}

#[test]
fn a_watch_of_works_to_follow_finds_what_means_the_same() {
    let fixture = Fixture::hostile();
    fixture
        .run([
            "watch",
            "add",
            "routing",
            "--like",
            "snarkshard-2023",
            "--min-similarity",
            "0.5",
        ])
        .success()
        .stdout_has("added watch routing: like snarkshard-2023 (similarity 0.5 or more) (");
    fixture.import_snapshot(&inbox_stream());
    let run = fixture
        .run(["watch", "show", "routing", "--json"])
        .success();
    let hits = run.json_lines();
    let ids: Vec<&str> = hits.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"arxiv:1412.99984"), "{ids:?}");
    assert!(!ids.contains(&"arxiv:1412.99985"), "the cookbook: {ids:?}");
    // Most similar first, each with its similarity.
    let scores: Vec<f64> = hits
        .iter()
        .map(|h| h["semantic"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(scores.iter().all(|&s| s >= 0.5), "{scores:?}");
    let list = fixture
        .run(["watch", "list", "--json"])
        .success()
        .json_lines();
    assert_eq!(list[0]["like"], json!(["snarkshard-2023"]));
    assert_eq!(list[0]["min_similarity"], 0.5);
}

#[test]
fn mistakes_are_refused_before_anything_is_written() {
    let fixture = Fixture::hostile();
    let refused = |args: &[&str], message: &str| {
        fixture
            .cmd()
            .arg("watch")
            .args(args)
            .run()
            .code(2)
            .stderr_has(message);
        assert_eq!(watches_file(&fixture), None, "{args:?}");
    };
    refused(
        &["add", "a/b", "x"],
        "a watch's name is 1 to 64 letters, digits",
    );
    refused(&["add", "-x", "x"], "error");
    refused(&["add", "empty"], "say what to watch: words, a filter flag");
    refused(
        &["add", "bad", "x", "--tag", "no-such-tag"],
        "--tag no-such-tag",
    );
    refused(&["add", "bad", "x", "--year", "soon"], "expected a year");
    refused(&["add", "bad", "--like", "nosuch"], "nosuch");
    refused(
        &["add", "bad", "--like", "wobble-2021", "--tag", "moe"],
        "--like takes no filter flags",
    );
    refused(&["add", "bad", "x", "--min-similarity", "0.5"], "--like");
    refused(
        &[
            "add",
            "bad",
            "--like",
            "wobble-2021",
            "--min-similarity",
            "2",
        ],
        "from 0 to 1",
    );

    fixture
        .run(["watch", "add", "pipes", "pipelines"])
        .success();
    let before = watches_file(&fixture).unwrap();
    fixture
        .run(["watch", "add", "pipes", "other words"])
        .code(2)
        .stderr_is("distml-search: error: a watch named `pipes` exists (\"pipelines\"): remove it first (distml-search watch remove pipes)\n");
    assert_eq!(watches_file(&fixture).unwrap(), before);
}

#[test]
fn a_watches_file_that_cannot_be_read_is_an_error_and_is_kept() {
    let fixture = Fixture::hostile();
    let path = fixture.catalog().join("watches.json");
    std::fs::write(&path, "{\"watches\": [").unwrap();
    for args in [
        vec!["watch"],
        vec!["watch", "list"],
        vec!["watch", "add", "pipes", "pipelines"],
        vec!["watch", "remove", "pipes"],
    ] {
        fixture
            .run(&args)
            .code(2)
            .stderr_has("watches.json: not a watches file (")
            .stderr_has("); fix or remove it");
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"watches\": [");
    // The catalog and the index do not read it.
    fixture.run(["check"]).success();
    fixture.run(["search", "pipelines"]).success();
}

#[test]
fn concurrent_adds_all_land() {
    let fixture = Fixture::hostile();
    // The index first, so that the adds race on the file, not the build.
    fixture.run(["search", "pipelines"]).success();
    let names: Vec<String> = (0..6).map(|i| format!("w{i}")).collect();
    let children: Vec<_> = names
        .iter()
        .map(|name| {
            fixture
                .cmd()
                .args(["watch", "add", name, "pipelines"])
                .into_command()
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let list = fixture
        .run(["watch", "list", "--json"])
        .success()
        .json_lines();
    let listed: Vec<&str> = list.iter().map(|w| w["name"].as_str().unwrap()).collect();
    assert_eq!(listed, names);
}

#[test]
fn a_schema_change_keeps_when_each_record_entered_the_index() {
    use tantivy::schema::{FAST, STORED, STRING, TEXT};
    let fixture = Fixture::hostile();
    // An index an older build wrote, with other fields: one record
    // stamped long ago, one without a stamp.
    let mut builder = tantivy::schema::Schema::builder();
    let collection = builder.add_text_field("collection", STRING | STORED);
    let arxiv = builder.add_text_field("arxiv", STRING | STORED);
    let title = builder.add_text_field("title", TEXT | STORED);
    let added = builder.add_i64_field("added", STORED | FAST);
    let dropped = builder.add_u64_field("legacy_rank", STORED);
    let generation = fixture.index().join("gen-1-1");
    std::fs::create_dir_all(&generation).unwrap();
    let index = tantivy::Index::create_in_dir(&generation, builder.build()).unwrap();
    let mut writer: tantivy::IndexWriter = index.writer(15_000_000).unwrap();
    writer
        .add_document(tantivy::doc!(
            collection => "arxiv", arxiv => "1412.99981",
            title => "Quillwort Pipelines of Long Ago", added => 1_000i64, dropped => 7u64
        ))
        .unwrap();
    writer
        .add_document(tantivy::doc!(
            collection => "arxiv", arxiv => "1412.99982",
            title => "Quillwort Pipelines, Revisited", dropped => 7u64
        ))
        .unwrap();
    writer.commit().unwrap();
    std::fs::write(fixture.index().join("CURRENT"), "gen-1-1").unwrap();
    // A watch read through a time after the first record's.
    fixture.write(
        "watches.json",
        r#"{"watches": [{"name": "old", "filters": {"collection": "arxiv"},
            "created": "1970-01-01T00:00:01Z", "since": 500, "read_through": 1000}]}"#,
    );
    // The first keeps its stamp; the second entered the index now.
    assert_eq!(new_ids(&fixture, &[]), ["arxiv:1412.99982"]);
}
