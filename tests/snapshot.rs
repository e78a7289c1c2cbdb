//! `import --arxiv-snapshot`: arXiv's metadata snapshot as a second
//! collection, searched with the catalog. Every record here is fictional
//! (2014 ids had four digits, so 1412.9xxxx cannot exist).

mod common;

use std::io::Write;

use common::{Fixture, TAGS, stderr_of, stdout_of};
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
        .cmd()
        .args(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .assert()
        .success();
}

fn fixture() -> Fixture {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("papers.toml", CATALOG)]);
    std::fs::write(fixture.dir.path().join("snapshot.jsonl"), snapshot()).unwrap();
    fixture
}

#[test]
fn snapshot_records_are_searchable_with_the_catalog() {
    let fixture = fixture();
    let output = fixture
        .cmd()
        .args(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    let stdout = stdout_of(&output);
    assert!(stdout.starts_with("imported 3 records (1 merged into catalog entries, 0 filtered out, 1 malformed lines skipped) from 5 lines"), "{stdout}");
    assert!(
        stderr_of(&output).contains("snapshot.jsonl:4: skipped malformed record"),
        "{}",
        stderr_of(&output)
    );

    let glorps = fixture
        .cmd()
        .args(["search", "--json", "glorps"])
        .output()
        .unwrap();
    let mut found = common::json_ids(&glorps);
    found.sort();
    assert_eq!(found, ["arxiv:1412.99991", "arxiv:1412.99994"]);
    let hit: Value = stdout_of(&glorps)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["id"] == "arxiv:1412.99991")
        .unwrap();
    assert_eq!(hit["collection"], "arxiv");
    assert_eq!(hit["kind"], "paper");
    let shown = stdout_of(
        &fixture
            .cmd()
            .args(["show", "arxiv:1412.99991"])
            .output()
            .unwrap(),
    );
    assert!(shown.contains("abstract (from arxiv)"), "{shown}");
    assert_eq!(hit["authors"], json!(["Ada Example", "Bob Placeholder"]));
    assert_eq!(hit["url"], "https://arxiv.org/abs/1412.99991");
    // Stored as published, shown with its line breaks collapsed.
    assert!(
        hit["snippet"]
            .as_str()
            .unwrap()
            .contains("glorps across pretend"),
        "{hit}"
    );

    // The catalog entry is one result, and it gained the snapshot's abstract.
    let zorblats = fixture
        .cmd()
        .args(["search", "--json", "zorblats"])
        .output()
        .unwrap();
    assert_eq!(common::json_ids(&zorblats), ["bubbles-2015"]);
    let show = stdout_of(
        &fixture
            .cmd()
            .args(["show", "bubbles-2015"])
            .output()
            .unwrap(),
    );
    assert!(
        show.contains("Zorblats in pipelines, from the snapshot.")
            && show.contains("abstract (from arxiv)"),
        "{show}"
    );

    // Synonyms, filters and collections work on snapshot records too.
    assert_eq!(
        common::search_ids(&fixture, &["key-value cache"]),
        ["arxiv:1412.99992"]
    );
    assert_eq!(
        common::search_ids(&fixture, &["--year", "2021", "glorps"]),
        ["arxiv:1412.99994"]
    );
    // Imported records are papers, and their authors' names are words that
    // typos are repaired to.
    let mut papers = common::search_ids(&fixture, &["kind:paper", "glorps"]);
    papers.sort();
    assert_eq!(papers, ["arxiv:1412.99991", "arxiv:1412.99994"]);
    assert!(common::search_ids(&fixture, &["kind:project", "glorps"]).is_empty());
    let typo = fixture
        .cmd()
        .args(["search", "--json", "placeholdr glorps"])
        .output()
        .unwrap();
    assert!(
        stderr_of(&typo).contains("searched for placeholder (not placeholdr)"),
        "{}",
        stderr_of(&typo)
    );
    // An imported record's section is its primary category, in any case.
    assert_eq!(
        common::search_ids(&fixture, &["section:cs.dc", "glorps"]),
        ["arxiv:1412.99991"]
    );
    assert_eq!(
        common::search_ids(&fixture, &["section:astro-ph"]),
        ["arxiv:1412.99994"]
    );
    assert_eq!(
        common::search_ids(&fixture, &["--collection", "catalog", "glorps"]),
        Vec::<String>::new()
    );
    assert_eq!(
        common::search_ids(&fixture, &["--collection", "arxiv", "pipeline"]),
        Vec::<String>::new()
    );

    // A record found by a filter alone, with no note, shows its abstract's
    // opening.
    let listed = fixture
        .cmd()
        .args(["search", "--json", "year:2021"])
        .output()
        .unwrap();
    let hit: Value = serde_json::from_str(stdout_of(&listed).lines().next().unwrap()).unwrap();
    assert_eq!(
        (
            hit["id"].as_str(),
            hit["snippet_field"].as_str(),
            hit["snippet"].as_str()
        ),
        (
            Some("arxiv:1412.99994"),
            Some("abstract"),
            Some("Glorps in the sky.")
        )
    );
    // Filters alone list the catalog first, then the newest records.
    assert_eq!(
        common::search_ids(&fixture, &["author:placeholder"]),
        [
            "bubbles-2015",
            "arxiv:1412.99994",
            "arxiv:1412.99991",
            "arxiv:1412.99992"
        ]
    );
    // `stats` counts both collections.
    let stats = stdout_of(&fixture.cmd().arg("stats").output().unwrap());
    assert!(
        stats.contains("index: catalog 1, imported from arXiv 3; "),
        "{stats}"
    );

    // `list` is the catalog's listing, whatever was imported.
    let list = fixture.cmd().args(["list", "--json"]).output().unwrap();
    assert_eq!(common::json_ids(&list), ["bubbles-2015"]);

    // `show` shows an imported record too, as the index holds it.
    let shown = fixture
        .cmd()
        .args(["show", "arxiv:1412.99991"])
        .output()
        .unwrap();
    let shown = stdout_of(&shown);
    assert!(
        shown.starts_with("Imaginary Sharding of Glorps")
            && shown.contains("cs.DC")
            && shown.contains("glorps across pretend devices"),
        "{shown}"
    );
    let json: Value = serde_json::from_str(&stdout_of(
        &fixture
            .cmd()
            .args(["show", "--json", "arxiv:1412.99991"])
            .output()
            .unwrap(),
    ))
    .unwrap();
    assert_eq!(json["collection"], "arxiv");
    assert_eq!(json["abstract"], "We shard glorps across pretend devices.");

    // An imported record's id is derived, not stored, yet finds it.
    assert_eq!(
        common::search_ids(&fixture, &["id:arxiv:1412.99994v2"]),
        ["arxiv:1412.99994"]
    );
    let similar = fixture
        .cmd()
        .args(["similar", "--json", "arxiv:1412.99991"])
        .output()
        .unwrap();
    assert!(similar.status.success(), "{}", stderr_of(&similar));
    let similar = common::json_ids(&similar);
    assert!(
        similar.contains(&"arxiv:1412.99994".to_string())
            && !similar.contains(&"arxiv:1412.99991".to_string()),
        "{similar:?}"
    );
}

#[test]
fn malformed_lines_are_numbered_across_a_multi_megabyte_file() {
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
    let output = fixture
        .cmd()
        .args(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    let stdout = stdout_of(&output);
    assert!(stdout.starts_with("imported 2496 records (0 merged into catalog entries, 0 filtered out, 4 malformed lines skipped) from 2500 lines"), "{stdout}");
    let stderr = stderr_of(&output);
    for n in [2, 700, 1400, 2500] {
        assert!(
            stderr.contains(&format!("snapshot.jsonl:{n}: skipped malformed record")),
            "line {n}: {stderr}"
        );
    }
    let long = fixture
        .cmd()
        .args(["search", "--json", "zorblat"])
        .output()
        .unwrap();
    assert_eq!(common::json_ids(&long), ["arxiv:1412.91000"]);
}

/// The stderr of a search for `query`.
fn search_stderr(fixture: &Fixture, query: &str) -> String {
    stderr_of(&fixture.cmd().args(["search", query]).output().unwrap())
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
        common::search_ids(&fixture, &["--", query])
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
    assert_eq!(
        common::search_ids(&fixture, &["arxiv:1412.99990"]),
        Vec::<String>::new()
    );
}

#[test]
fn an_index_of_an_older_schema_says_its_imports_are_left_out() {
    let fixture = fixture();
    // An older build's index: its schema lacks fields this build needs.
    let mut builder = tantivy::schema::Schema::builder();
    let collection = builder.add_text_field("collection", tantivy::schema::STRING);
    let generation = fixture.index().join("gen-1-1");
    std::fs::create_dir_all(&generation).unwrap();
    let index = tantivy::Index::create_in_dir(&generation, builder.build()).unwrap();
    let mut writer: tantivy::IndexWriter = index.writer(15_000_000).unwrap();
    for _ in 0..3 {
        writer
            .add_document(tantivy::doc!(collection => "arxiv"))
            .unwrap();
    }
    writer.commit().unwrap();
    std::fs::write(fixture.index().join("CURRENT"), "gen-1-1").unwrap();

    let stats = fixture.cmd().arg("stats").output().unwrap();
    assert!(
        stdout_of(&stats).contains("3 imported records would need importing again"),
        "{}{}",
        stdout_of(&stats),
        stderr_of(&stats)
    );
    let output = fixture.cmd().args(["search", "pipeline"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert!(
        stderr_of(&output).contains(
            "held 3 imported arXiv records; it was rebuilt from the catalog, so import the snapshot again"
        ),
        "{}",
        stderr_of(&output)
    );
    // Said once: the rebuilt index is current.
    let again = fixture.cmd().args(["search", "pipeline"]).output().unwrap();
    assert!(
        !stderr_of(&again).contains("imported arXiv records"),
        "{}",
        stderr_of(&again)
    );
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
fn filters_gzip_and_standard_input() {
    let fixture = fixture();
    let gz = fixture.dir.path().join("snapshot.jsonl.gz");
    let mut encoder = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    encoder.write_all(snapshot().as_bytes()).unwrap();
    encoder.finish().unwrap();
    let output = fixture
        .cmd()
        .args([
            "import",
            "--arxiv-snapshot",
            "snapshot.jsonl.gz",
            "--categories",
            "cs.DC,cs.LG",
            "--since",
            "2016",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert!(
        stdout_of(&output)
            .starts_with("imported 1 records (1 merged into catalog entries, 2 filtered out"),
        "{}",
        stdout_of(&output)
    );

    let output = fixture
        .cmd()
        .args(["import", "--arxiv-snapshot", "-"])
        .write_stdin(snapshot())
        .output()
        .unwrap();
    assert!(
        stdout_of(&output).starts_with("imported 3 records"),
        "{}",
        stdout_of(&output)
    );
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
    assert_eq!(
        common::search_ids(&fixture, &["frobnication"]),
        ["bubbles-2015"]
    );
    assert_eq!(common::search_ids(&fixture, &["glorps"]).len(), 2);
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
    let output = fixture
        .cmd()
        .args(["import", "--arxiv-snapshot", "cut.jsonl.gz"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stdout_of(&output));
    assert_eq!(
        stderr_of(&output).lines().count(),
        1,
        "{}",
        stderr_of(&output)
    );
    assert_eq!(
        std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap(),
        current
    );
    assert_eq!(common::search_ids(&fixture, &["glorps"]).len(), 2);
}

#[test]
fn ndjson_export_writes_every_document() {
    let fixture = imported();
    let output = fixture
        .cmd()
        .args(["export", "--format", "ndjson"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    let docs: Vec<Value> = stdout_of(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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

#[test]
fn a_killed_import_leaves_the_previous_index() {
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
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("distml-search"))
        .current_dir(fixture.dir.path())
        .env("DISTML_OFFLINE", "1")
        .args(["import", "--arxiv-snapshot", "many.jsonl"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let generations = || common::generations(&fixture.index()).len();
    let started = std::time::Instant::now();
    while generations() < 2 && started.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    child.kill().unwrap();
    assert!(
        !child.wait().unwrap().success(),
        "the import finished before it could be killed"
    );
    assert_eq!(
        std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap(),
        current
    );
    let mut found = common::search_ids(&fixture, &["--collection", "arxiv", "glorps"]);
    found.sort();
    assert_eq!(found, ["arxiv:1412.99991", "arxiv:1412.99994"]);
    fixture
        .cmd()
        .args(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .assert()
        .success();
    assert_eq!(
        generations(),
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
    let output = fixture
        .cmd()
        .args(["search", "--json"])
        .args(args)
        .output()
        .unwrap();
    stdout_of(&output)
        .lines()
        .map(|line| {
            let hit: Value = serde_json::from_str(line).unwrap();
            (hit["id"].to_string(), hit["score"].to_string())
        })
        .collect()
}

#[test]
fn large_indexes_rank_candidates_as_exhaustive_search_does() {
    let fixture = fixture();
    std::fs::write(fixture.dir.path().join("large.jsonl"), large_snapshot()).unwrap();
    let output = fixture
        .cmd()
        .args(["import", "--arxiv-snapshot", "large.jsonl"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    for query in [
        "pipeline bubble",
        "MoE zorp",
        "all-reduce experts",
        "gradient checkpointing memory",
        "allreduce --year 2014",
        "sparse expert routing",
    ] {
        let args: Vec<&str> = query.split(' ').collect();
        let fast = scored(&fixture, &[&["-n", "20"], &args[..]].concat());
        let exact = scored(
            &fixture,
            &[&["-n", "20", "--exhaustive"], &args[..]].concat(),
        );
        assert_eq!(fast.len(), 20, "{query}");
        // The same results with the same scores.
        assert_eq!(fast, exact, "{query}");
    }
    // And for queries drawn at random from the words, technique names and
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
        let fast = fixture
            .cmd()
            .args(["search", "--json", "--explain", "-n", "10", "--", &query])
            .output()
            .unwrap();
        proven += usize::from(stderr_of(&fast).contains("no other match can rank higher"));
        let fast = scored(&fixture, &["-n", "10", "--", &query]);
        let exact = scored(&fixture, &["-n", "10", "--exhaustive", "--", &query]);
        assert_eq!(fast, exact, "{query}");
    }
    assert!(
        proven >= 10,
        "only {proven} of 25 random queries ranked candidates"
    );
    let explained = fixture
        .cmd()
        .args(["search", "--explain", "pipeline bubble"])
        .output()
        .unwrap();
    assert!(
        stderr_of(&explained).contains("candidates scored; no other match can rank higher"),
        "{}",
        stderr_of(&explained)
    );

    // A record named only by a technique's other name is found by its acronym.
    assert_eq!(common::search_ids(&fixture, &["MoE"]), ["arxiv:1401.00143"]);

    // A filter alone lists the newest first, across years: all 2,000 of
    // 2025, then 2024's.
    let listed = fixture
        .cmd()
        .args(["search", "--json", "-n", "2500", "author:placeholder"])
        .output()
        .unwrap();
    let mut per_year: Vec<(i64, usize)> = Vec::new();
    for line in String::from_utf8_lossy(&listed.stdout).lines() {
        let year = serde_json::from_str::<Value>(line).unwrap()["year"]
            .as_i64()
            .unwrap();
        match per_year.last_mut() {
            Some((y, n)) if *y == year => *n += 1,
            _ => per_year.push((year, 1)),
        }
    }
    assert_eq!(per_year, [(2025, 2000), (2024, 500)]);
    // A shorter listing is the start of a longer one.
    let five = common::search_ids(&fixture, &["-n", "5", "author:placeholder"]);
    for n in 1..5 {
        let shorter = common::search_ids(&fixture, &["-n", &n.to_string(), "author:placeholder"]);
        assert_eq!(shorter, five[..n], "-n {n}");
    }
}
