//! Meaning (sentence embeddings): `search --mode semantic|hybrid`, and
//! `similar` by meaning for a record without tags, on a small catalog.

mod common;

use common::{Fixture, Run};

fn search(fixture: &Fixture, args: &[&str]) -> Run {
    fixture.cmd().arg("search").args(args).run()
}

fn ids(run: &Run) -> Vec<String> {
    run.json_lines()
        .iter()
        .map(|hit| hit["id"].as_str().unwrap().to_string())
        .collect()
}

/// A need told in other words than the entries': FasterMoE is what it means.
const NEED: &str = "load imbalance among experts";

#[test]
fn semantic_mode_ranks_by_meaning_and_says_how_close() {
    let fixture = Fixture::new();
    let run = search(&fixture, &["--mode", "semantic", "--json", NEED]).success();
    let hits = run.json_lines();
    assert_eq!(hits[0]["id"], "fastermoe-2022", "{hits:?}");
    // Each hit says how close it is, best first.
    let cosines: Vec<f64> = hits
        .iter()
        .map(|h| h["semantic"].as_f64().unwrap())
        .collect();
    assert!(cosines.windows(2).all(|w| w[0] >= w[1]), "{cosines:?}");
    assert_eq!(hits[0]["score"], hits[0]["semantic"]);
}

#[test]
fn keyword_mode_is_the_default_and_says_nothing_of_meaning() {
    let fixture = Fixture::new();
    let run = search(&fixture, &["--json", "pipeline"]).success();
    assert!(run.json_lines().iter().all(|h| h.get("semantic").is_none()));
    let by_env = fixture
        .cmd()
        .env("DISTML_MODE", "semantic")
        .args(["search", "--json", NEED])
        .run()
        .success();
    assert_eq!(ids(&by_env)[0], "fastermoe-2022");
}

#[test]
fn filters_keep_to_their_matches_by_meaning_too() {
    let fixture = Fixture::new();
    let run = search(
        &fixture,
        &["--mode", "semantic", "--json", "--year", "2024", NEED],
    )
    .success();
    assert_eq!(ids(&run), ["zero-bubble-2024"]);
    let run = search(
        &fixture,
        &["--mode", "hybrid", "--json", "--kind", "project", NEED],
    )
    .success();
    assert_eq!(ids(&run), ["megatron-lm"]);
}

#[test]
fn an_excluded_phrase_drops_what_means_it() {
    let fixture = Fixture::new();
    let all = ids(&search(
        &fixture,
        &["--mode", "semantic", "--json", "training large models"],
    )
    .success());
    assert!(all.contains(&"fastermoe-2022".to_string()), "{all:?}");
    let without = ids(&search(
        &fixture,
        &[
            "--mode",
            "semantic",
            "--json",
            "training large models -\"popular experts all-to-all\"",
        ],
    )
    .success());
    assert!(
        !without.contains(&"fastermoe-2022".to_string()),
        "{without:?}"
    );
    assert_eq!(without.len(), all.len() - 1, "{all:?} {without:?}");
}

#[test]
fn hybrid_explains_both_rankings() {
    let fixture = Fixture::new();
    let run = search(
        &fixture,
        &[
            "--mode",
            "hybrid",
            "--explain",
            "-n",
            "1",
            "pipeline stages",
        ],
    )
    .success();
    let explained = run.stdout();
    assert!(
        explained.contains("meaning: cosine ")
            && explained.contains(" by meaning, ")
            && explained.contains(" by words;"),
        "{explained}"
    );
}

#[test]
fn a_ranking_by_meaning_is_not_explained_by_what_the_words_ranking_added() {
    // Feedback from the first result by words reorders a ranking by words;
    // by meaning alone it changed nothing, so it is not said.
    let fixture = Fixture::new();
    let explained = |mode| {
        let args = [
            "--mode",
            mode,
            "--explain",
            "-n",
            "2",
            "pipeline parallelism",
        ];
        search(&fixture, &args).success()
    };
    explained("hybrid").stdout_has("feedback: shares pipeline-parallelism with result 1");
    explained("semantic")
        .stdout_lacks("feedback:")
        .stderr_has("ranking: by meaning alone");
}

#[test]
fn a_result_the_words_do_not_match_is_explained_too() {
    // FasterMoE holds the need's words; the works after it only mean alike.
    let fixture = Fixture::new();
    for mode in ["semantic", "hybrid"] {
        search(&fixture, &["--mode", mode, "--explain", "-n", "4", NEED])
            .success()
            .stdout_has("0.000 score: the query's words do not match it");
    }
}

#[test]
fn a_record_without_tags_is_like_the_works_that_mean_what_it_means() {
    let fixture = Fixture::new();
    fixture.import_snapshot(&[common::snapshot_line(
        "1412.99901",
        "Balancing load across sparse mixture-of-experts layers",
        &[("Ada", "Example")],
        "Thu, 1 Oct 2026 10:00:00 GMT",
        "Each token is routed to a few experts; we replicate the busiest experts and hide the exchange of tokens behind expert computation.",
        None,
    )]);
    let run = fixture
        .run(["similar", "arxiv:1412.99901", "--json", "-n", "1"])
        .success();
    let hit = &run.json_lines()[0];
    assert_eq!(hit["id"], "fastermoe-2022", "{hit}");
    assert!(hit["semantic"].as_f64().unwrap() > 0.3, "{hit}");
    // A curated work is like others by its words unless asked otherwise.
    let run = fixture.run(["similar", "gpipe-2019", "--json"]).success();
    assert!(run.json_lines().iter().all(|h| h.get("semantic").is_none()));
    let run = fixture
        .run(["similar", "gpipe-2019", "--json", "--mode", "semantic"])
        .success();
    assert!(run.json_lines().iter().all(|h| h["semantic"].is_number()));
}

/// The vector folder of the index's current generation.
fn vector_folder(fixture: &Fixture) -> std::path::PathBuf {
    let generation = common::generations(&fixture.index()).pop().unwrap();
    fixture.index().join(generation).join("vectors")
}

#[test]
fn meaning_answers_alike_through_vector_files_without_them_and_with_damaged_ones() {
    let fixture = Fixture::new();
    fixture.import_snapshot(&common::inbox_stream());
    let searches: [&[&str]; 3] = [
        &["search", "--mode", "semantic", "--json", "-n", "30", NEED],
        &["search", "--mode", "hybrid", "--json", "-n", "30", NEED],
        &["inbox", "--json", "-n", "30"],
    ];
    let answers = |fixture: &Fixture| -> Vec<String> {
        (searches.iter())
            .map(|args| fixture.run(*args).success().stdout().to_string())
            .collect()
    };
    let folder = vector_folder(&fixture);
    let files: Vec<_> = std::fs::read_dir(&folder).unwrap().flatten().collect();
    assert!(!files.is_empty(), "no vector file in {}", folder.display());
    let through_files = answers(&fixture);
    assert!(through_files[0].contains("fastermoe-2022"));

    // A damaged file is left aside: the column answers.
    for file in &files {
        let bytes = std::fs::read(file.path()).unwrap();
        std::fs::write(file.path(), &bytes[..bytes.len() / 2]).unwrap();
    }
    assert_eq!(answers(&fixture), through_files);

    // A folder that cannot hold them (here, a file in its place): the
    // column answers, and nothing fails.
    std::fs::remove_dir_all(&folder).unwrap();
    std::fs::write(&folder, "not a folder").unwrap();
    assert_eq!(answers(&fixture), through_files);

    // Gone, they are written again when the index is opened.
    std::fs::remove_file(&folder).unwrap();
    assert_eq!(answers(&fixture), through_files);
    assert!(std::fs::read_dir(&folder).unwrap().next().is_some());
}

#[test]
fn vector_files_of_the_format_before_are_replaced_when_the_index_is_opened() {
    let fixture = Fixture::new();
    fixture.import_snapshot(&common::inbox_stream());
    let current = vector_files(&fixture);
    let args = ["search", "--mode", "semantic", "--json", "-n", "30", NEED];
    let answer = fixture.run(args).success().stdout().to_string();
    let folder = vector_folder(&fixture);
    for name in current.keys() {
        let earlier = name.strip_suffix(".v3").expect("a file of this format");
        std::fs::rename(folder.join(name), folder.join(format!("{earlier}.v2"))).unwrap();
    }
    assert_eq!(fixture.run(args).success().stdout(), answer);
    // Written again in this format, and the earlier files gone.
    assert_eq!(vector_files(&fixture), current);
}

/// Each vector file of the index's current generation, by name, whole.
fn vector_files(fixture: &Fixture) -> std::collections::BTreeMap<String, Vec<u8>> {
    (std::fs::read_dir(vector_folder(fixture)).unwrap().flatten())
        .map(|f| {
            let name = f.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(f.path()).unwrap())
        })
        .collect()
}

#[test]
fn an_import_writes_the_vectors_its_documents_stored_texts_mean() {
    let fixture = Fixture::new();
    let mut stream = common::inbox_stream();
    // A second version of the first record, later in the file: it replaces
    // the first, whose document stays in the segment, deleted.
    stream.push(common::snapshot_line(
        "1412.99983",
        "Glorp Revised: Tensor Parallelism on Pretend Accelerators",
        &[("Dora", "Fictive")],
        "Fri, 2 Oct 2026 10:00:00 GMT",
        "We shard every layer's matrices across the devices of a node.",
        None,
    ));
    fixture.import_snapshot(&stream);
    let imported = vector_files(&fixture);
    assert!(!imported.is_empty());

    // Made again from the stored texts when the index is next opened: the
    // same files, byte for byte.
    std::fs::remove_dir_all(vector_folder(&fixture)).unwrap();
    fixture
        .run(["search", "--mode", "semantic", NEED])
        .success();
    assert_eq!(vector_files(&fixture), imported);
    // The record found by meaning is the revised one.
    let args = [
        "--mode",
        "semantic",
        "--collection",
        "arxiv",
        "--json",
        "-n",
        "1",
    ];
    let revised = search(
        &fixture,
        &[&args[..], &["tensor parallelism sharding matrices"]].concat(),
    );
    assert_eq!(ids(&revised), ["arxiv:1412.99983"]);
    let shown = fixture.run(["show", "arxiv:1412.99983"]).success();
    assert!(
        shown.stdout().contains("Glorp Revised"),
        "{}",
        shown.stdout()
    );
}
