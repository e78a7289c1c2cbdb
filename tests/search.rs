//! `search`, `show`, `similar`, `list` and `stats` on a small catalog: what a
//! user sees, and the exit statuses scripts rely on (0 hits, 1 none, 2 error).

mod common;

use common::{Fixture, json_ids, stderr_of, stdout_of};
use serde_json::Value;

fn search(fixture: &Fixture, args: &[&str]) -> std::process::Output {
    fixture.cmd().arg("search").args(args).output().unwrap()
}

#[test]
fn first_search_builds_the_index_and_finds_by_title() {
    let fixture = Fixture::new();
    let output = search(&fixture, &["zero bubble"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let stdout = stdout_of(&output);
    assert!(
        stdout.starts_with(" 1. Zero Bubble Pipeline Parallelism\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("    Penghui Qi et al. · ICLR 2024 · Pipeline Parallelism\n"),
        "{stdout}"
    );
    assert!(fixture.index().join("CURRENT").exists());
}

#[test]
fn synonyms_find_work_that_never_names_the_technique() {
    let fixture = Fixture::new();
    let output = search(&fixture, &["--json", "gradient checkpointing"]);
    assert_eq!(json_ids(&output)[..2], ["gpipe-2019", "megatron-lm"]);
    let moe = search(&fixture, &["--json", "sparsely", "gated"]);
    assert_eq!(json_ids(&moe), ["fastermoe-2022"]);
}

#[test]
fn expansions_say_what_else_was_sought() {
    let fixture = Fixture::new();
    // A name of the technique shows the technique...
    let moe = stderr_of(&search(&fixture, &["MoE"]));
    assert!(
        moe.contains("including synonyms: MoE → mixture-of-experts"),
        "{moe}"
    );
    // ...and the technique itself shows its other names, not itself again.
    let named = stderr_of(&search(&fixture, &["mixture of experts"]));
    assert!(
        named.contains("including synonyms: mixture of experts → MoE, sparsely gated\n"),
        "{named}"
    );
}

#[test]
fn technical_spellings_agree() {
    let fixture = Fixture::new();
    fixture.write(
        "mixture-of-experts-system.toml",
        &common::MOE.replace(
            "overlaps all-to-all with expert compute",
            "overlaps all-to-all and all-reduce with expert compute",
        ),
    );
    for query in ["all-reduce", "allreduce", "all reduce", "AllReduce"] {
        let ids = json_ids(&search(&fixture, &["--json", query]));
        assert_eq!(
            ids.first().map(String::as_str),
            Some("fastermoe-2022"),
            "{query}"
        );
    }
}

#[test]
fn typos_are_repaired_and_said() {
    let fixture = Fixture::new();
    let output = search(&fixture, &["megatorn"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout_of(&output).contains("Megatron-LM"));
    assert!(
        stderr_of(&output).contains("searched for megatron (not megatorn)"),
        "{}",
        stderr_of(&output)
    );
}

#[test]
fn a_misspelt_technique_name_still_expands() {
    let fixture = Fixture::new();
    let misspelt = search(&fixture, &["--json", "gradient", "checkpointng"]);
    assert!(
        stderr_of(&misspelt).contains("searched for checkpointing (not checkpointng)"),
        "{}",
        stderr_of(&misspelt)
    );
    let right = search(&fixture, &["--json", "gradient", "checkpointing"]);
    assert!(!stdout_of(&right).is_empty());
    assert_eq!(stdout_of(&misspelt), stdout_of(&right));
}

#[test]
fn json_lines_carry_the_documented_fields() {
    let fixture = Fixture::new();
    let output = search(&fixture, &["--json", "pipeline"]);
    let first: Value = serde_json::from_str(stdout_of(&output).lines().next().unwrap()).unwrap();
    for field in [
        "rank", "score", "id", "kind", "title", "authors", "venue", "year", "section", "tags",
        "url", "arxiv", "doi", "snippet",
    ] {
        assert!(first.get(field).is_some(), "missing {field} in {first}");
    }
    assert_eq!(first["rank"], 1);
    assert!(first["authors"].is_array() && first["tags"].is_array());
    let zero = search(&fixture, &["--json", "id:zero-bubble-2024"]);
    let zero: Value = serde_json::from_str(stdout_of(&zero).trim()).unwrap();
    assert_eq!(zero["arxiv"], "2401.10241");
    assert_eq!(zero["doi"], Value::Null);
}

#[test]
fn bibtex_entries() {
    let fixture = Fixture::new();
    let output = search(&fixture, &["--format", "bibtex", "gpipe"]);
    let bib = stdout_of(&output);
    assert!(bib.starts_with("@inproceedings{huang2019gpipe,\n"), "{bib}");
    assert!(bib.contains("  title         = {{GPipe}: Efficient Training of Giant Neural Networks using Pipeline Parallelism},\n"), "{bib}");
    assert_eq!(bib.matches('{').count(), bib.matches('}').count());
}

#[test]
fn filters_in_the_query_and_as_flags() {
    let fixture = Fixture::new();
    assert_eq!(
        json_ids(&search(&fixture, &["--json", "pipeline", "kind:project"])),
        ["megatron-lm"]
    );
    assert_eq!(
        json_ids(&search(
            &fixture,
            &["--json", "--kind", "project", "pipeline"]
        )),
        ["megatron-lm"]
    );
    assert!(json_ids(&search(&fixture, &["--json", "pipeline year:2020..2023"])).is_empty());
    assert_eq!(
        json_ids(&search(&fixture, &["--json", "--year", "2019", "pipeline"])),
        ["gpipe-2019"]
    );
    assert_eq!(
        json_ids(&search(&fixture, &["--json", "tag:MoE"])),
        ["fastermoe-2022"]
    );
    assert_eq!(
        json_ids(&search(
            &fixture,
            &["--json", "--section", "mixture", "training"]
        )),
        ["fastermoe-2022"]
    );
    assert_eq!(
        json_ids(&search(&fixture, &["--json", "author:huang"])),
        ["gpipe-2019"]
    );
    assert_eq!(
        json_ids(&search(&fixture, &["--json", "pipeline -gpipe kind:paper"])),
        ["zero-bubble-2024"]
    );
}

#[test]
fn no_hit_exits_1() {
    let fixture = Fixture::new();
    let output = search(&fixture, &["quantum chromodynamics"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout_of(&output).is_empty());
    assert!(stderr_of(&output).contains("no results"));
}

#[test]
fn bad_queries_get_one_line_errors_with_positions() {
    let fixture = Fixture::new();
    for (query, message) in [
        ("(pipeline bubble", "unbalanced '(' at column 1"),
        ("pipeline)", "unbalanced ')' at column 9"),
        ("colour:red", "unknown field `colour:` at column 1"),
        (
            "tag:nonsense",
            "tag:nonsense at column 1: unknown tag (closest:",
        ),
        ("year:soon", "expected a year"),
        ("", "no words to search for"),
        ("🚀🚀", "no searchable words"),
    ] {
        let output = search(&fixture, &[query]);
        assert_eq!(output.status.code(), Some(2), "{query}");
        let stderr = stderr_of(&output);
        assert_eq!(stderr.lines().count(), 1, "{query}: {stderr}");
        assert!(stderr.contains(message), "{query}: {stderr}");
    }
}

#[test]
fn odd_queries_get_lenient_results() {
    let fixture = Fixture::new();
    let unclosed = search(&fixture, &["\"zero bubble"]);
    assert_eq!(unclosed.status.code(), Some(0));
    assert!(stderr_of(&unclosed).contains("closed the quote opened at column 1"));
    let long = "pipeline ".repeat(1200);
    let output = search(&fixture, &[&long]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(stderr_of(&output).contains("query cut to its first"));
    assert_eq!(search(&fixture, &["并行 训练"]).status.code(), Some(1));
    let common = search(&fixture, &["the of and"]);
    assert_eq!(common.status.code(), Some(2));
    assert!(stderr_of(&common).contains("only common words (the, of, and)"));
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let fixture = Fixture::new();
    let plain = search(&fixture, &["pipeline"]);
    assert!(!stdout_of(&plain).contains('\x1b'));
    let colour = search(&fixture, &["--color", "always", "pipeline"]);
    assert!(stdout_of(&colour).contains("\x1b[1m"));
}

#[test]
fn control_characters_in_data_never_reach_the_terminal() {
    let fixture = Fixture::new();
    fixture.write(
        "pipeline-parallelism.toml",
        &common::PIPELINES.replace(
            "Splits the backward pass so weight-gradient work fills idle slots.",
            "Evil \\u001b[2J\\u001b]0;pwned\\u0007 bubble \\u202e reversed",
        ),
    );
    let output = search(&fixture, &["--color", "always", "bubble"]);
    let stdout = stdout_of(&output);
    assert!(
        !stdout.contains("\x1b[2J")
            && !stdout.contains("\x1b]0")
            && !stdout.contains('\u{7}')
            && !stdout.contains('\u{202e}'),
        "{stdout:?}"
    );
    let json = search(&fixture, &["--json", "bubble"]);
    let value: Value = serde_json::from_str(stdout_of(&json).lines().next().unwrap()).unwrap();
    assert!(
        value["snippet"].as_str().unwrap().contains("\u{1b}[2J"),
        "JSON keeps the data, escaped"
    );
}

#[test]
fn a_changed_catalog_is_reindexed_before_searching() {
    let fixture = Fixture::new();
    assert_eq!(search(&fixture, &["chimera"]).status.code(), Some(1));
    let added = format!(
        "{}\n[[entry]]\nid = \"chimera-2021\"\nkind = \"paper\"\ntitle = \"Chimera: bidirectional pipelines\"\nurl = \"https://example.org/chimera\"\nauthors = [\"Shigang Li\"]\nvenue = \"SC\"\nyear = 2021\ntags = [\"pipeline-parallelism\"]\nnote = \"Two pipelines in opposite directions.\"\n",
        common::PIPELINES
    );
    fixture.write("pipeline-parallelism.toml", &added);
    assert_eq!(
        json_ids(&search(&fixture, &["--json", "chimera"])),
        ["chimera-2021"]
    );
}

#[test]
fn explain_shows_the_query_expansions_and_scores() {
    let fixture = Fixture::new();
    let output = search(&fixture, &["--explain", "gradient checkpointing"]);
    let stderr = stderr_of(&output);
    assert!(
        stderr.contains("query: (gradient checkpointing)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("expanded \"gradient checkpointing\" to tag activation-recomputation"),
        "{stderr}"
    );
    assert!(
        stdout_of(&output).contains("Boost"),
        "{}",
        stdout_of(&output)
    );
}

#[test]
fn filter_flags_alone_list_their_matches_newest_first() {
    let fixture = Fixture::new();
    assert_eq!(
        common::search_ids(&fixture, &["--tag", "activation-recomputation"]),
        ["gpipe-2019", "megatron-lm"]
    );
    assert_eq!(
        common::search_ids(&fixture, &["--tag", "pipeline-parallelism", "-n", "2"]),
        ["zero-bubble-2024", "gpipe-2019"]
    );
    // With neither words nor filters there is nothing to list.
    let nothing = search(&fixture, &[]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(
        stderr_of(&nothing).contains("<QUERY>"),
        "{}",
        stderr_of(&nothing)
    );
}

#[test]
fn the_more_line_counts_in_words() {
    let fixture = Fixture::new();
    let one = search(&fixture, &["-n", "1", "pipeline"]);
    assert!(
        stderr_of(&one).contains("1 result shown; more with --limit 2"),
        "{}",
        stderr_of(&one)
    );
    let two = search(&fixture, &["-n", "2", "pipeline"]);
    assert!(
        stderr_of(&two).contains("2 results shown; more with --limit 4"),
        "{}",
        stderr_of(&two)
    );
}

#[test]
fn names_that_stem_alike_are_sought_once() {
    let tags = common::TAGS.replace(
        r#""activation checkpointing", "rematerialization"]"#,
        r#""activation checkpointing", "rematerialization", "recomputation", "recompute"]"#,
    );
    assert_ne!(tags, common::TAGS);
    let fixture = Fixture::with_files(&[
        ("tags.toml", tags.as_str()),
        ("pipeline-parallelism.toml", common::PIPELINES),
    ]);
    let output = search(&fixture, &["--explain", "gradient checkpointing"]);
    let stderr = stderr_of(&output);
    // To the stemmer "recompute" is "recomputation": one name, counted once.
    assert!(
        stderr.contains("rematerialization, recomputation\n") && !stderr.contains("recompute"),
        "{stderr}"
    );
}

#[test]
fn broken_pipe_is_not_an_error() {
    let fixture = Fixture::new();
    fixture.cmd().args(["index"]).assert().success();
    let bin = assert_cmd::cargo::cargo_bin("distml-search");
    let status = std::process::Command::new("bash")
        .current_dir(fixture.dir.path())
        .args([
            "-c",
            &format!(
                "set -o pipefail; {} search --limit 50 pipeline | head -c 1 >/dev/null",
                bin.display()
            ),
        ])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn show_similar_list_and_stats() {
    let fixture = Fixture::new();
    let show = stdout_of(&fixture.cmd().args(["show", "gpipe-2019"]).output().unwrap());
    assert!(show.starts_with("GPipe: Efficient Training"), "{show}");
    assert!(
        show.contains("authors   Yanping Huang et al.  (as the list gives them)"),
        "{show}"
    );
    assert!(show.contains("no abstract cached yet"), "{show}");
    let missing = fixture.cmd().args(["show", "nope"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));

    let similar = fixture
        .cmd()
        .args(["similar", "--json", "gpipe-2019"])
        .output()
        .unwrap();
    let ids = json_ids(&similar);
    assert!(
        !ids.contains(&"gpipe-2019".to_string()) && ids.contains(&"megatron-lm".to_string()),
        "{ids:?}"
    );

    let list = fixture
        .cmd()
        .args(["list", "--json", "--tag", "pipeline-parallelism"])
        .output()
        .unwrap();
    assert_eq!(
        json_ids(&list),
        ["megatron-lm", "gpipe-2019", "zero-bubble-2024"]
    );
    let stats = stdout_of(&fixture.cmd().arg("stats").output().unwrap());
    assert!(
        stats.starts_with(
            "4 entries: 3 papers, 1 projects, in 3 sections; 4 tags\nmetadata: abstracts 0/3 (0%)"
        ),
        "{stats}"
    );
}
