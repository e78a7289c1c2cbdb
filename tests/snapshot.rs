//! `import --arxiv-snapshot`: arXiv's metadata snapshot as a second
//! collection, searched with the catalog. Every record here is fictional
//! (2014 ids had four digits, so 1412.9xxxx cannot exist).

mod common;

use std::io::Write;

use common::{Fixture, TAGS, generations, search_ids, wait_for};
use serde_json::{Value, json};

const CATALOG: &str = r#"[section]
name = "Papers"
order = 1

[[entry]]
id = "bubbles-2015"
kind = "paper"
title = "A Fictional Study of Pipeline Bubbles"
url = "https://arxiv.org/abs/1412.99998"
authors = ["Ada Example"]
et_al = true
venue = "FICT"
year = 2015
arxiv = "1412.99998"
tags = ["pipeline-parallelism"]
note = "Fictional."
"#;

/// Beside the first entry, the large fixture's catalog has two of another
/// technique whose notes share their words, and one of a third.
const LARGE_CATALOG_MORE: &str = r#"
[[entry]]
id = "phantom-2016"
kind = "paper"
title = "Hypothetical Memory Budgets"
url = "https://example.org/phantom"
authors = ["Zed Fable"]
venue = "FICT"
year = 2016
tags = ["activation-recomputation"]
note = "Rematerializes phantom layers on invented schedules."

[[entry]]
id = "budgets-2017"
kind = "paper"
title = "Invented Rematerialization Plans"
url = "https://example.org/budgets"
authors = ["Zed Fable"]
venue = "FICT"
year = 2017
tags = ["activation-recomputation"]
note = "Invented schedules that rematerialize phantom layers."

[[entry]]
id = "rings-2018"
kind = "paper"
title = "Pretend Ring Exchanges"
url = "https://example.org/rings"
authors = ["Zed Fable"]
venue = "FICT"
year = 2018
tags = ["collective-communication"]
note = "Made up."
"#;

fn line(id: &str, title: &str, categories: &str, created: &str, summary: &str) -> String {
    json!({
        "id": id, "submitter": "Ada Example", "authors": "Ada Example, Bob Placeholder",
        "title": title, "comments": null, "journal-ref": null, "doi": null, "report-no": null,
        "categories": categories, "license": null, "abstract": summary,
        "versions": [{"version": "v1", "created": created}], "update_date": "2020-01-01",
        "authors_parsed": [["Example", "Ada", ""], ["Placeholder", "Bob", ""]]
    })
    .to_string()
}

fn snapshot() -> String {
    [
        line(
            "1412.99998",
            "A Fictional Study of Pipeline Bubbles",
            "cs.DC",
            "Wed, 31 Dec 2014 10:00:00 GMT",
            "Zorblats in pipelines, from the snapshot.",
        ),
        line(
            "1412.99991",
            "Imaginary Sharding of Glorps",
            "cs.DC cs.LG",
            "Mon, 2 Mar 2020 10:00:00 GMT",
            "We shard glorps\n  across pretend devices.",
        ),
        line(
            "1412.99992",
            "Pretend Serving of Wibbles",
            "cs.LG",
            "Tue, 3 Mar 2015 10:00:00 GMT",
            "Serving wibbles with a KV cache.",
        ),
        "{\"id\": \"1412.99993\", \"title\": ".to_string(),
        line(
            "1412.99994",
            "Fictional Astronomy of Glorps",
            "astro-ph",
            "Mon, 2 Mar 2021 10:00:00 GMT",
            "Glorps in the sky.",
        ),
    ]
    .join("\n")
        + "\n"
}

/// The fixture with `snapshot.jsonl` imported.
fn imported() -> Fixture {
    let fixture = fixture();
    import_lines(&fixture, &snapshot());
    fixture
}

/// Imports `lines` as the fixture's snapshot.
fn import_lines(fixture: &Fixture, lines: &str) {
    std::fs::write(fixture.dir.path().join("snapshot.jsonl"), lines).unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .success();
}

fn fixture() -> Fixture {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("papers.toml", CATALOG)]);
    std::fs::write(fixture.dir.path().join("snapshot.jsonl"), snapshot()).unwrap();
    fixture
}

#[test]
fn import_counts_what_it_imported_merged_and_skipped() {
    fixture()
        .run(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .success()
        .stdout_has("imported 3 records (1 merged into catalog entries, 0 filtered out, 1 malformed line skipped) from 5 lines")
        .stderr_has("snapshot.jsonl:4: skipped malformed record");
}

/// The hit for `id` among the JSON lines of `search ARGS`.
fn hit(fixture: &Fixture, args: &[&str], id: &str) -> Value {
    let run = fixture
        .cmd()
        .args(["search", "--json"])
        .args(args)
        .run()
        .success();
    match run.json_lines().into_iter().find(|hit| hit["id"] == id) {
        Some(hit) => hit,
        None => run.fail(format!("no hit {id}")),
    }
}

#[test]
fn snapshot_records_are_searchable_with_the_catalog() {
    let mut found = search_ids(&imported(), &["glorps"]);
    found.sort();
    assert_eq!(found, ["arxiv:1412.99991", "arxiv:1412.99994"]);
}

#[test]
fn a_snapshot_hit_carries_its_collection_kind_authors_and_url() {
    let hit = hit(&imported(), &["glorps"], "arxiv:1412.99991");
    assert_eq!(
        (
            &hit["collection"],
            &hit["kind"],
            &hit["authors"],
            &hit["url"]
        ),
        (
            &json!("arxiv"),
            &json!("paper"),
            &json!(["Ada Example", "Bob Placeholder"]),
            &json!("https://arxiv.org/abs/1412.99991")
        )
    );
}

#[test]
fn a_snippet_shows_an_abstract_with_its_line_breaks_collapsed() {
    let hit = hit(&imported(), &["glorps"], "arxiv:1412.99991");
    let snippet = hit["snippet"].as_str().unwrap();
    assert!(snippet.contains("glorps across pretend"), "{hit}");
}

#[test]
fn a_record_of_a_catalog_entry_merges_into_it_as_one_result() {
    assert_eq!(search_ids(&imported(), &["zorblats"]), ["bubbles-2015"]);
}

#[test]
fn a_merged_catalog_entry_shows_the_snapshots_abstract() {
    imported()
        .run(["show", "bubbles-2015"])
        .success()
        .stdout_has("Zorblats in pipelines, from the snapshot.")
        .stdout_has("abstract (from arxiv)");
}

#[test]
fn synonyms_reach_snapshot_records() {
    assert_eq!(
        search_ids(&imported(), &["key-value cache"]),
        ["arxiv:1412.99992"]
    );
}

#[test]
fn a_year_filter_reaches_snapshot_records() {
    assert_eq!(
        search_ids(&imported(), &["--year", "2021", "glorps"]),
        ["arxiv:1412.99994"]
    );
}

#[test]
fn snapshot_records_are_papers() {
    let fixture = imported();
    let mut papers = search_ids(&fixture, &["kind:paper", "glorps"]);
    papers.sort();
    assert_eq!(papers, ["arxiv:1412.99991", "arxiv:1412.99994"]);
    assert!(search_ids(&fixture, &["kind:project", "glorps"]).is_empty());
}

#[test]
fn typos_are_repaired_to_snapshot_authors_names() {
    imported()
        .run(["search", "--json", "placeholdr glorps"])
        .success()
        .stderr_has("searched for placeholder (not placeholdr)");
}

#[test]
fn a_records_section_is_its_primary_category_in_any_case() {
    let fixture = imported();
    assert_eq!(
        search_ids(&fixture, &["section:cs.dc", "glorps"]),
        ["arxiv:1412.99991"]
    );
    assert_eq!(
        search_ids(&fixture, &["section:astro-ph"]),
        ["arxiv:1412.99994"]
    );
}

#[test]
fn a_collection_filter_keeps_one_collection() {
    let fixture = imported();
    assert!(search_ids(&fixture, &["--collection", "catalog", "glorps"]).is_empty());
    assert!(search_ids(&fixture, &["--collection", "arxiv", "pipeline"]).is_empty());
}

#[test]
fn a_record_found_by_a_filter_alone_shows_its_abstracts_opening() {
    let run = imported().run(["search", "--json", "year:2021"]).success();
    let hit = &run.json_lines()[0];
    assert_eq!(
        (&hit["id"], &hit["snippet_field"], &hit["snippet"]),
        (
            &json!("arxiv:1412.99994"),
            &json!("abstract"),
            &json!("Glorps in the sky.")
        )
    );
}

#[test]
fn filters_alone_list_the_catalog_first_then_the_newest_records() {
    assert_eq!(
        search_ids(&imported(), &["author:placeholder"]),
        [
            "bubbles-2015",
            "arxiv:1412.99994",
            "arxiv:1412.99991",
            "arxiv:1412.99992"
        ]
    );
}

#[test]
fn stats_counts_both_collections() {
    imported()
        .run(["stats"])
        .success()
        .stdout_has("index: catalog 1, imported from arXiv 3; ");
}

#[test]
fn list_is_the_catalogs_listing_whatever_was_imported() {
    let run = imported().run(["list", "--json"]).success();
    assert_eq!(run.ids(), ["bubbles-2015"]);
}

#[test]
fn show_shows_an_imported_record_as_the_index_holds_it() {
    let run = imported()
        .run(["show", "arxiv:1412.99991"])
        .success()
        .stdout_has("cs.DC")
        .stdout_has("glorps across pretend devices")
        .stdout_has("abstract (from arxiv)");
    if !run.stdout().starts_with("Imaginary Sharding of Glorps\n") {
        run.fail("show starts with the title");
    }
}

#[test]
fn show_json_of_an_imported_record_has_its_collection_and_abstract() {
    let shown = imported()
        .run(["show", "--json", "arxiv:1412.99991"])
        .success()
        .json();
    assert_eq!(shown["collection"], "arxiv");
    assert_eq!(shown["abstract"], "We shard glorps across pretend devices.");
}

#[test]
fn an_imported_records_derived_id_finds_it() {
    assert_eq!(
        search_ids(&imported(), &["id:arxiv:1412.99994v2"]),
        ["arxiv:1412.99994"]
    );
}

#[test]
fn similar_works_from_an_imported_record() {
    let run = imported()
        .run(["similar", "--json", "arxiv:1412.99991"])
        .success();
    let similar = run.ids();
    assert!(
        similar.contains(&"arxiv:1412.99994".to_string())
            && !similar.contains(&"arxiv:1412.99991".to_string()),
        "{similar:?}"
    );
}

/// A snapshot that spans several read blocks of a megabyte, has a line
/// longer than a block, four malformed lines and no line break at its end.
fn multi_megabyte() -> Fixture {
    // Lines are read in blocks of a megabyte: this file spans several, has a
    // line longer than a block, and no line break at its end.
    let long_abstract = "zorblat ".repeat(200_000);
    let lines: Vec<String> = (1..=2500)
        .map(|n| match n {
            2 | 700 | 1400 | 2500 => format!("{{\"id\": \"1412.9{n:04}\", \"title\": "),
            1000 => line(
                &format!("1412.9{n:04}"),
                "A Long One",
                "cs.DC",
                "Mon, 2 Mar 2020 10:00:00 GMT",
                &long_abstract,
            ),
            _ => line(
                &format!("1412.9{n:04}"),
                &format!("Fictional Paper {n}"),
                "cs.DC",
                "Mon, 2 Mar 2020 10:00:00 GMT",
                &"glorp sharding across pretend devices ".repeat(40),
            ),
        })
        .collect();
    let fixture = fixture();
    std::fs::write(fixture.dir.path().join("snapshot.jsonl"), lines.join("\n")).unwrap();
    fixture
}

#[test]
fn malformed_lines_are_numbered_across_a_multi_megabyte_file() {
    let fixture = multi_megabyte();
    let mut run = fixture
        .run(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .success()
        .stdout_has("imported 2496 records (0 merged into catalog entries, 0 filtered out, 4 malformed lines skipped) from 2500 lines");
    for n in [2, 700, 1400, 2500] {
        run = run.stderr_has(&format!("snapshot.jsonl:{n}: skipped malformed record"));
    }
}

#[test]
fn a_line_longer_than_a_read_block_is_one_record() {
    let fixture = multi_megabyte();
    fixture
        .run(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .success();
    assert_eq!(search_ids(&fixture, &["zorblat"]), ["arxiv:1412.91000"]);
}

/// The stderr of a search for `query`.
fn search_stderr(fixture: &Fixture, query: &str) -> String {
    fixture.run(["search", query]).stderr().to_owned()
}

#[test]
fn typos_reach_every_imported_title_word_and_prefer_the_more_used() {
    // An import writes each word to the typo dictionary once, however many
    // titles use it; repair still reaches a word of any title, and among
    // equally close words still prefers the one more titles use.
    let fixture = fixture();
    let titles = [
        "Zantrix Offloading",
        "Zentrix Offloading",
        "Zentrix Offloading of Glimmerings",
        "Zentrix Offloading",
    ];
    let lines: Vec<String> = titles
        .iter()
        .enumerate()
        .map(|(i, title)| {
            let id = format!("1412.9980{i}");
            line(&id, title, "cs.DC", "Mon, 2 Mar 2020 10:00:00 GMT", "None.")
        })
        .collect();
    import_lines(&fixture, &(lines.join("\n") + "\n"));
    let repaired = search_stderr(&fixture, "glimmerngs");
    assert!(
        repaired.contains("searched for glimmerings (not glimmerngs)"),
        "{repaired}"
    );
    let preferred = search_stderr(&fixture, "zintrix");
    assert!(
        preferred.contains("searched for zentrix (not zintrix)"),
        "{preferred}"
    );
}

#[test]
fn identifiers_find_their_record() {
    let fixture = fixture();
    let mut with_doi: Value = serde_json::from_str(&line(
        "1412.99995",
        "Counterfeit Checkpoints of Zibbles",
        "cs.DC",
        "Mon, 2 Mar 2020 10:00:00 GMT",
        "Zibbles, checkpointed.",
    ))
    .unwrap();
    with_doi["doi"] = json!("10.5555/FICT.2020.7");
    import_lines(&fixture, &format!("{}{}\n", snapshot(), with_doi));
    let first = |query: &str| {
        search_ids(&fixture, &["--", query])
            .into_iter()
            .next()
            .unwrap_or_default()
    };
    // Typed, as a filter, with a version, in any case.
    assert_eq!(first("1412.99991"), "arxiv:1412.99991");
    assert_eq!(first("arxiv:1412.99991v3"), "arxiv:1412.99991");
    assert_eq!(first("1412.99998"), "bubbles-2015");
    assert_eq!(first("10.5555/fict.2020.7"), "arxiv:1412.99995");
    assert_eq!(first("doi:10.5555/FICT.2020.7"), "arxiv:1412.99995");
    assert!(search_ids(&fixture, &["arxiv:1412.99990"]).is_empty());
}

/// An index written by an older build, whose schema lacks fields this
/// build has, holding imported records: two of pipelines (one of them now a
/// catalog entry's paper) and one stored without its arXiv id.
fn older_schema() -> Fixture {
    let fixture = fixture();
    common::older_schema_index(
        &fixture.index(),
        &[
            ("1412.99981", "Quillwort Pipelines of Long Ago"),
            ("1412.99982", "Quillwort Pipelines, Revisited"),
            ("1412.99998", "A Fictional Study of Pipeline Bubbles"),
        ],
        1,
    );
    fixture
}

#[test]
fn stats_on_an_older_schema_says_the_imports_will_be_carried_over() {
    older_schema()
        .run(["stats"])
        .success()
        .stdout_has("index: written by another version of distml-search (the next search rebuilds it, carrying over its 4 imported records)");
}

#[test]
fn a_schema_change_carries_the_imported_records_into_the_rebuilt_index() {
    let fixture = older_schema();
    let run = fixture.run(["search", "quillwort", "--json"]).success();
    let mut ids = run.ids();
    ids.sort();
    assert_eq!(ids, ["arxiv:1412.99981", "arxiv:1412.99982"]);
    // Only the record with nothing to be found by is left out, and said.
    let run = run.stderr_has(
        "held 1 imported arXiv records that could not be carried over; import the snapshot again",
    );
    let hit: Value = serde_json::from_str(run.stdout().lines().next().unwrap()).unwrap();
    assert_eq!(hit["collection"], "arxiv");
    assert_eq!(hit["year"], 2014);
    // Rebuilt, not copied: the new schema's fields are written (tags are
    // predicted, the abstract is searched and shown).
    assert!(hit["predicted_tags"].is_array(), "{hit}");
    assert_eq!(
        fixture
            .run([
                "search",
                "\"as an older build stored it\"",
                "--collection",
                "arxiv",
                "--json"
            ])
            .success()
            .ids()
            .len(),
        2
    );
    // The paper that is a catalog entry's is one result, the entry.
    fixture
        .run(["search", "bubbles", "--collection", "arxiv"])
        .code(1);
    assert_eq!(
        fixture.run(["search", "bubbles", "--json"]).success().ids(),
        ["bubbles-2015"]
    );
}

#[test]
fn the_older_schema_is_said_once() {
    let fixture = older_schema();
    fixture.run(["search", "pipeline"]).success();
    // The rebuilt index is current, with the carried records.
    let run = fixture
        .run(["search", "quillwort", "--json"])
        .success()
        .stderr_lacks("imported arXiv records");
    assert_eq!(run.ids().len(), 2);
}

#[test]
fn tied_results_show_the_newest_then_by_id_whatever_the_limit() {
    let fixture = fixture();
    // Thirty records alike but for their ids (written out of order) and years.
    let lines: String = (0..30)
        .map(|i| {
            line(
                &format!("1412.{:05}", 90_000 + i * 7 % 30),
                "Zorp Considered",
                "cs.DC",
                &format!("Mon, 6 Jan {} 10:00:00 GMT", 2016 + i % 3),
                "Zorps.",
            ) + "\n"
        })
        .collect();
    import_lines(&fixture, &lines);
    let ten = scored(&fixture, &["-n", "10", "zorp"]);
    assert!(ten.iter().all(|(_, score)| *score == ten[0].1), "{ten:?}");
    // The newest (2018: i % 3 == 2), by id.
    let expected: Vec<String> = {
        let mut ids: Vec<usize> = (0..30)
            .filter(|i| i % 3 == 2)
            .map(|i| 90_000 + i * 7 % 30)
            .collect();
        ids.sort();
        ids.iter()
            .map(|id| format!("\"arxiv:1412.{id:05}\""))
            .collect()
    };
    assert_eq!(
        ten.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(),
        expected
    );
    for n in [1, 3, 7] {
        assert_eq!(
            scored(&fixture, &["-n", &n.to_string(), "zorp"]),
            ten[..n],
            "-n {n}"
        );
    }
}

#[test]
fn a_gzipped_snapshot_is_filtered_by_category_and_date() {
    let fixture = fixture();
    let gz = fixture.dir.path().join("snapshot.jsonl.gz");
    let mut encoder = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    encoder.write_all(snapshot().as_bytes()).unwrap();
    encoder.finish().unwrap();
    fixture
        .run([
            "import",
            "--arxiv-snapshot",
            "snapshot.jsonl.gz",
            "--categories",
            "cs.DC,cs.LG",
            "--since",
            "2016",
        ])
        .success()
        .stdout_has("imported 1 record (1 merged into catalog entries, 2 filtered out");
}

#[test]
fn a_snapshot_is_read_from_standard_input() {
    fixture()
        .cmd()
        .args(["import", "--arxiv-snapshot", "-"])
        .stdin(snapshot())
        .run()
        .success()
        .stdout_has("imported 3 records");
}

#[test]
fn a_catalog_edit_keeps_the_imported_collection() {
    let fixture = imported();
    fixture.write(
        "papers.toml",
        &CATALOG.replace(
            "note = \"Fictional.\"",
            "note = \"Fictional, edited to mention frobnication.\"",
        ),
    );
    assert_eq!(search_ids(&fixture, &["frobnication"]), ["bubbles-2015"]);
    assert_eq!(search_ids(&fixture, &["glorps"]).len(), 2);
}

#[test]
fn a_failed_import_leaves_the_index_as_it_was() {
    let fixture = imported();
    let current = std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap();
    // A gzip file cut in the middle fails the read.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(snapshot().repeat(50).as_bytes()).unwrap();
    let bytes = encoder.finish().unwrap();
    std::fs::write(
        fixture.dir.path().join("cut.jsonl.gz"),
        &bytes[..bytes.len() / 2],
    )
    .unwrap();
    let run = fixture
        .run(["import", "--arxiv-snapshot", "cut.jsonl.gz"])
        .code(2);
    if run.stderr().lines().count() != 1 {
        run.fail("expected one error line");
    }
    assert_eq!(
        std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap(),
        current
    );
    assert_eq!(search_ids(&fixture, &["glorps"]).len(), 2);
}

#[test]
fn ndjson_export_writes_every_document() {
    let fixture = imported();
    let docs = fixture
        .run(["export", "--format", "ndjson"])
        .success()
        .json_lines();
    assert_eq!(docs.len(), 4);
    assert_eq!(
        docs.iter().filter(|d| d["collection"] == "arxiv").count(),
        3
    );
    let entry = docs.iter().find(|d| d["id"] == "bubbles-2015").unwrap();
    assert_eq!(
        entry["abstract"],
        "Zorblats in pipelines, from the snapshot."
    );
}

/// The imported fixture, and an import of 60,000 more records killed once
/// its new generation has files, that is mid-write; and CURRENT before.
fn killed_import() -> (Fixture, String) {
    let fixture = imported();
    let current = std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap();
    let many: String = (0..60_000)
        .map(|i| {
            line(
                &format!("1412.{:05}", i % 90_000),
                &format!("Generated glorp study {i}"),
                "cs.DC",
                "Mon, 2 Mar 2020 10:00:00 GMT",
                "Glorps, generated.",
            ) + "\n"
        })
        .collect();
    std::fs::write(fixture.dir.path().join("many.jsonl"), many).unwrap();
    let mut child = fixture
        .cmd()
        .args(["import", "--arxiv-snapshot", "many.jsonl"])
        .into_command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the import to write its new generation", || {
        let now = generations(&fixture.index());
        now.len() == 2 && common::has_files(&fixture.index().join(&now[1]))
    });
    child.kill().unwrap();
    assert!(
        !child.wait().unwrap().success(),
        "the import finished before it could be killed"
    );
    (fixture, current)
}

#[test]
fn a_killed_import_leaves_the_previous_index() {
    let (fixture, current) = killed_import();
    assert_eq!(
        std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap(),
        current
    );
    let mut found = search_ids(&fixture, &["--collection", "arxiv", "glorps"]);
    found.sort();
    assert_eq!(found, ["arxiv:1412.99991", "arxiv:1412.99994"]);
}

#[test]
fn the_import_after_a_killed_one_removes_its_generation() {
    let (fixture, _) = killed_import();
    fixture
        .run(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .success();
    assert_eq!(
        generations(&fixture.index()).len(),
        1,
        "the killed import's generation is cleaned up"
    );
}

/// 24,000 fictional records (1401.NNNNN ids cannot exist: 2014 had four
/// digits), enough for the two-phase ranking of large indexes, with words
/// and technique names spread by a fixed pseudo-random sequence.
fn large_snapshot() -> String {
    const WORDS: &[&str] = &[
        "pipeline",
        "bubble",
        "training",
        "memory",
        "expert",
        "routing",
        "gradient",
        "checkpointing",
        "sparse",
        "model",
        "tensor",
        "schedule",
        "zorp",
        "glorp",
        "wibble",
        "of",
        "the",
        "experts",
        "allreduce",
        "device",
        "all",
        "reduce",
    ];
    let mut state: u64 = 7;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        ((state >> 33) % n as u64) as usize
    };
    let mut out = String::new();
    for i in 0..24_000 {
        let mut words = |count: usize| -> String {
            (0..count)
                .map(|_| WORDS[next(WORDS.len())])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut title = words(6);
        // One title names a technique only by another of its names.
        if i == 97 {
            title = format!("Sparsely gated {title}");
        }
        let summary = words(40);
        out.push_str(&line(
            // Ids out of order (7919 is prime to 24,000), as an index's
            // order need not be theirs.
            &format!("1401.{:05}", i * 7919 % 24_000),
            &title,
            "cs.DC",
            // Twelve years, 2,000 records each.
            &format!("Mon, 6 Jan {} 10:00:00 GMT", 2014 + i % 12),
            &summary,
        ));
        out.push('\n');
    }
    out
}

/// Each hit's id and score, as `search --json` prints them.
fn scored(fixture: &Fixture, args: &[&str]) -> Vec<(String, String)> {
    let run = fixture.cmd().args(["search", "--json"]).args(args).run();
    run.json_lines()
        .iter()
        .map(|hit| (hit["id"].to_string(), hit["score"].to_string()))
        .collect()
}

/// The large snapshot imported once, shared by the tests that only search
/// it. A static outlives the tests, so it lives in the target's folder for
/// test files, where the next run removes it.
fn large() -> &'static Fixture {
    static LARGE: std::sync::OnceLock<Fixture> = std::sync::OnceLock::new();
    LARGE.get_or_init(|| {
        let parent = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("snapshot-large");
        let _ = std::fs::remove_dir_all(&parent);
        std::fs::create_dir_all(&parent).unwrap();
        let catalog = format!("{CATALOG}{LARGE_CATALOG_MORE}");
        let fixture =
            Fixture::with_files_in(&parent, &[("tags.toml", TAGS), ("papers.toml", &catalog)]);
        std::fs::write(fixture.dir.path().join("large.jsonl"), large_snapshot()).unwrap();
        fixture
            .run(["import", "--arxiv-snapshot", "large.jsonl"])
            .success();
        fixture
    })
}

#[test]
fn a_catalog_entrys_tag_counts_on_a_large_index_as_in_the_catalog_alone() {
    // 24,000 imported titles say "pipeline" too, with predicted tags; the
    // entry tagged with the technique still comes first. Over every
    // document, its tag would score next to nothing.
    let run = (large().cmd())
        .args(["search", "--json", "--explain", "pipeline parallelism"])
        .run();
    let first = run.json_lines().remove(0);
    assert_eq!(first["id"], "bubbles-2015");
    let explanation = first["explanation"].as_str().unwrap();
    let tagged = (explanation.lines())
        .find(|l| l.contains("tagged pipeline-parallelism"))
        .expect("the tag scored");
    let score: f64 = tagged.split_whitespace().next().unwrap().parse().unwrap();
    assert!(score > 1.0, "{tagged}");
}

#[test]
fn similar_works_on_a_large_index_are_found_by_their_notes_and_tags() {
    // The two entries' notes say the same; thousands of imported titles say
    // "memory" too. Over every document, a note looked as long as nothing
    // and its words scored next to nothing, so imported records came first.
    let ids: Vec<String> = (large().run(["similar", "--json", "-n", "3", "phantom-2016"]))
        .json_lines()
        .iter()
        .map(|hit| hit["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids[0], "budgets-2017", "{ids:?}");
}

#[test]
fn large_indexes_rank_candidates_as_exhaustive_search_does() {
    let fixture = large();
    for query in [
        "pipeline bubble",
        "MoE zorp",
        "all-reduce experts",
        "gradient checkpointing memory",
        "allreduce --year 2014",
        "sparse expert routing",
    ] {
        let args: Vec<&str> = query.split(' ').collect();
        let fast = scored(fixture, &[&["-n", "20"], &args[..]].concat());
        let exact = scored(
            fixture,
            &[&["-n", "20", "--exhaustive"], &args[..]].concat(),
        );
        assert_eq!(fast.len(), 20, "{query}");
        // The same results with the same scores.
        assert_eq!(fast, exact, "{query}");
    }
}

#[test]
fn words_of_catalog_entries_rank_on_a_large_index_as_exhaustive_search_does() {
    // Each is held by a few catalog entries, whose best scores every
    // segment's pruning starts from, and by imported titles or not.
    let fixture = large();
    for query in ["fable", "invented", "phantom", "memory", "training", "FICT"] {
        for limit in ["1", "2", "3"] {
            let fast = scored(fixture, &["-n", limit, query]);
            let exact = scored(fixture, &["-n", limit, "--exhaustive", query]);
            assert!(!fast.is_empty(), "{query}");
            assert_eq!(fast, exact, "{query} -n {limit}");
        }
    }
}

#[test]
fn random_queries_rank_as_exhaustive_search_does_and_most_use_candidates() {
    // Queries drawn at random from the words, technique names and
    // operators of the corpus.
    const PIECES: &[&str] = &[
        "pipeline",
        "bubble",
        "zorp",
        "glorp",
        "memory",
        "MoE",
        "all-reduce",
        "allreduce",
        "gradient checkpointing",
        "expert",
        "sparse",
        "-training",
        "tensor",
        "OR",
        "wibble",
        "pipeline bubble",
        "routing",
        "experts",
        "schedule",
    ];
    let fixture = large();
    let mut state: u64 = 11;
    let mut proven = 0;
    for _ in 0..25 {
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            ((state >> 33) % n as u64) as usize
        };
        let words = 2 + next(3);
        let query: Vec<&str> = (0..words).map(|_| PIECES[next(PIECES.len())]).collect();
        let query = query.join(" ");
        let explained = fixture
            .cmd()
            .args(["search", "--json", "--explain", "-n", "10", "--", &query])
            .run();
        proven += usize::from(
            explained
                .stderr()
                .contains("no other match can rank higher"),
        );
        let fast = scored(fixture, &["-n", "10", "--", &query]);
        let exact = scored(fixture, &["-n", "10", "--exhaustive", "--", &query]);
        assert_eq!(fast, exact, "{query}");
    }
    assert!(
        proven >= 10,
        "only {proven} of 25 random queries ranked candidates"
    );
}

#[test]
fn explain_says_when_candidates_were_enough() {
    large()
        .run(["search", "--explain", "pipeline bubble"])
        .success()
        .stderr_has("candidates scored; no other match can rank higher");
}

#[test]
fn a_record_named_only_by_a_techniques_other_name_is_found_by_its_acronym() {
    assert_eq!(search_ids(large(), &["MoE"]), ["arxiv:1401.00143"]);
}

#[test]
fn a_filter_alone_lists_the_newest_first_across_years() {
    // All 2,000 of 2025, then 2024's.
    let run = large()
        .run(["search", "--json", "-n", "2500", "author:placeholder"])
        .success();
    let mut per_year: Vec<(i64, usize)> = Vec::new();
    for hit in run.json_lines() {
        let year = hit["year"].as_i64().unwrap();
        match per_year.last_mut() {
            Some((y, n)) if *y == year => *n += 1,
            _ => per_year.push((year, 1)),
        }
    }
    assert_eq!(per_year, [(2025, 2000), (2024, 500)]);
}

#[test]
fn a_shorter_listing_is_the_start_of_a_longer_one() {
    let fixture = large();
    let five = search_ids(fixture, &["-n", "5", "author:placeholder"]);
    for n in 1..5 {
        let shorter = search_ids(fixture, &["-n", &n.to_string(), "author:placeholder"]);
        assert_eq!(shorter, five[..n], "-n {n}");
    }
}

/// The ids of the imported records a listing finds.
fn imported_ids(fixture: &Fixture) -> Vec<String> {
    search_ids(fixture, &["--collection", "arxiv"])
}

#[test]
fn an_empty_snapshot_is_refused_and_the_imported_records_stay() {
    let fixture = imported();
    let before = imported_ids(&fixture);
    assert_eq!(before.len(), 3);
    std::fs::write(fixture.dir.path().join("empty.jsonl"), "").unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", "empty.jsonl"])
        .code(2)
        .stdout_is("")
        .stderr_is("distml-search: error: empty.jsonl: no record imported (0 lines, 0 malformed, 0 filtered out); the index keeps its 3 imported records (pass --allow-empty to replace them with none)\n");
    assert_eq!(imported_ids(&fixture), before);
}

#[test]
fn a_wholly_malformed_snapshot_is_refused_too() {
    let fixture = imported();
    std::fs::write(
        fixture.dir.path().join("bad.jsonl"),
        "not json\n{\"id\": 3}\n",
    )
    .unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", "bad.jsonl"])
        .code(2)
        .stderr_has("no record imported (2 lines, 2 malformed, 0 filtered out)");
    assert_eq!(imported_ids(&fixture).len(), 3);
}

#[test]
fn allow_empty_replaces_the_imported_records_with_none() {
    let fixture = imported();
    std::fs::write(fixture.dir.path().join("empty.jsonl"), "").unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", "empty.jsonl", "--allow-empty"])
        .success();
    assert!(imported_ids(&fixture).is_empty());
}

#[test]
fn a_line_too_long_to_be_a_record_is_skipped_and_numbered_and_the_rest_kept() {
    let fixture = fixture();
    let good = |n: u32| {
        line(
            &format!("1412.9{n:04}"),
            &format!("Fictional Paper {n}"),
            "cs.DC",
            "Mon, 2 Mar 2020 10:00:00 GMT",
            "Glorp sharding.",
        )
    };
    // Nine MiB without a line break, in the middle and again at the end.
    let endless = "x".repeat(9 << 20);
    let text = [good(1), endless.clone(), good(3), endless].join("\n");
    std::fs::write(fixture.dir.path().join("snapshot.jsonl"), text).unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .success()
        .stdout_has("imported 2 records (0 merged into catalog entries, 0 filtered out, 2 malformed lines skipped) from 4 lines")
        .stderr_has("snapshot.jsonl:2: skipped malformed record: longer than 8 MiB")
        .stderr_has("snapshot.jsonl:4: skipped malformed record: longer than 8 MiB");
    assert_eq!(
        search_ids(&fixture, &["glorp"]),
        ["arxiv:1412.90001", "arxiv:1412.90003"]
    );
}

#[test]
fn an_abstract_far_longer_than_arxiv_allows_is_kept_only_in_part() {
    let fixture = fixture();
    let huge = "zorblat ".repeat(500_000);
    import_lines(
        &fixture,
        &line(
            "1412.90001",
            "Fictional Paper",
            "cs.DC",
            "Mon, 2 Mar 2020 10:00:00 GMT",
            &huge,
        ),
    );
    let run = fixture
        .run(["show", "arxiv:1412.90001", "--json"])
        .success();
    let shown = run.json()["abstract"].as_str().unwrap().len();
    assert!(shown <= 16 << 10, "an abstract of {shown} bytes was kept");
    assert!(shown > 15 << 10, "only {shown} bytes kept");
}

/// A snapshot line with its update date set.
fn dated(id: &str, title: &str, updated: &str) -> String {
    let mut record: Value = serde_json::from_str(&line(
        id,
        title,
        "cs.DC",
        "Mon, 2 Mar 2020 10:00:00 GMT",
        "Glorp sharding.",
    ))
    .unwrap();
    record["update_date"] = json!(updated);
    record.to_string()
}

#[test]
fn an_id_that_comes_twice_is_one_record_the_newest() {
    let fixture = fixture();
    let lines = [
        dated("1412.90001", "Glorp Old Version", "2020-01-01"),
        dated("1412.90002", "Glorp Revised Twice", "2022-06-01"),
        dated("1412.90001", "Glorp New Version", "2021-05-01"),
        dated("1412.90002", "Glorp Revised Once", "2021-01-01"),
    ];
    std::fs::write(fixture.dir.path().join("snapshot.jsonl"), lines.join("\n")).unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .success()
        .stdout_has("imported 2 records (0 merged into catalog entries, 0 filtered out, 0 malformed lines skipped, 2 records of an id already read (the newest kept)) from 4 lines");
    let run = fixture
        .run(["search", "glorp", "--collection", "arxiv", "--json"])
        .success();
    let mut titles: Vec<String> = run
        .json_lines()
        .iter()
        .map(|hit| hit["title"].as_str().unwrap().to_string())
        .collect();
    titles.sort();
    assert_eq!(titles, ["Glorp New Version", "Glorp Revised Twice"]);
}
