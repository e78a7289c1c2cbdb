//! Small faults in the documentation, messages and outputs, one behaviour a
//! test, on fictional fixtures (and the repository's README and catalog
//! where the README's promises are the subject).

mod common;

use std::path::Path;
use std::process::Command;

use common::{BIN, Cmd, Fixture, MOE, TAGS};
use serde_json::json;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn readme() -> String {
    std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap()
}

/// The lines of the README's first fenced block that opens with `fence`.
fn block_after(text: &str, fence: &str, after: &str) -> Vec<String> {
    let rest = &text[text.find(after).expect(after)..];
    let start = rest.find(fence).expect(fence) + fence.len();
    let body = &rest[start..];
    let end = body.find("\n```").unwrap();
    body[..end]
        .trim_start_matches('\n')
        .lines()
        .map(str::to_string)
        .collect()
}

// README and Cargo.toml

#[test]
fn cargo_toml_declares_the_rust_version_that_edition_2024_needs() {
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap())
            .unwrap();
    let version = manifest["package"]["rust-version"].as_str();
    let parts: Vec<u32> = version
        .unwrap_or("0")
        .split('.')
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(parts >= vec![1, 85], "rust-version {version:?}");
}

#[test]
fn readme_says_what_the_first_release_build_costs() {
    let quick_start = block_after(&readme(), "```sh", "## Quick start").join("\n");
    let text = readme();
    let prose = &text[text.find("## Quick start").unwrap()..text.find("## Searching").unwrap()];
    assert!(quick_start.contains("cargo run --release"), "{quick_start}");
    assert!(
        prose.contains("6 minutes") && prose.contains("1.1 GB") && prose.contains("2 cores"),
        "{prose}"
    );
}

#[test]
fn readme_install_lines_create_their_folders_first() {
    let lines = block_after(&readme(), "```sh", "## Shell integration");
    let mut made: Vec<String> = Vec::new();
    for line in &lines {
        if let Some(dirs) = line.strip_prefix("mkdir -p ") {
            made.extend(dirs.split_whitespace().map(str::to_string));
        } else if let Some((_, target)) = line.split_once(" > ") {
            let dir = Path::new(target.trim()).parent().unwrap();
            assert!(
                made.iter().any(|m| Path::new(m) == dir),
                "{line:?} writes into {dir:?}, which no `mkdir -p` before it makes"
            );
        }
    }
}

/// The quick start's sample is what stdout shows (a search on the shipped
/// catalog, 80 columns): its lines are stdout's first lines, and what goes
/// to stderr is marked as such.
#[test]
fn readme_quick_start_sample_is_what_stdout_shows() {
    let index = tempfile::tempdir().unwrap();
    let run = Cmd::bare()
        .env("NO_COLOR", "1")
        .env("COLUMNS", "80")
        .env("DISTML_OFFLINE", "1")
        .args(["--catalog", &format!("{ROOT}/catalog"), "--index"])
        .arg(index.path())
        .args(["search", "pipeline bubble"])
        .run()
        .success();
    let sample = block_after(&readme(), "```text", "## Quick start");
    let (stderr, stdout): (Vec<&String>, Vec<&String>) =
        sample.iter().partition(|l| l.starts_with("# stderr: "));
    for line in &stderr {
        let message = line.trim_start_matches("# stderr: ");
        assert!(
            run.stderr().contains(message),
            "{message:?} is not on stderr"
        );
    }
    let stdout: Vec<&str> = stdout
        .iter()
        .map(|l| l.as_str())
        .take_while(|l| *l != "...")
        .collect();
    assert!(stdout.len() > 5, "{stdout:?}");
    assert_eq!(stdout, run.stdout_lines()[..stdout.len()]);
}

// Colour

/// `cmd` on a pseudo-terminal (`script`), so that `--color auto` sees one;
/// what it printed.
fn on_terminal(fixture: &Fixture, term: &str, args: &str) -> String {
    let output = Command::new("script")
        .args(["-qec", &format!("{BIN} {args}"), "/dev/null"])
        .current_dir(fixture.dir.path())
        .env_remove("NO_COLOR")
        .env_remove("DISTML_CATALOG")
        .env_remove("DISTML_INDEX")
        .env("DISTML_OFFLINE", "1")
        .env("TERM", term)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_dumb_terminal_gets_no_colour() {
    let fixture = Fixture::invented();
    // The pseudo-terminal is one: with a terminal that can, there is colour.
    assert!(on_terminal(&fixture, "xterm", "--color auto search pretend").contains('\x1b'));
    let dumb = on_terminal(&fixture, "dumb", "--color auto search pretend");
    assert!(
        dumb.contains("Wobble") && !dumb.contains('\x1b'),
        "{dumb:?}"
    );
}

// --limit

#[test]
fn a_limit_of_zero_is_refused() {
    Fixture::new()
        .run(["search", "-n", "0", "pipeline"])
        .code(2)
        .stdout_is("")
        .stderr_has("invalid value '0' for '--limit <N>': 0 is not in 1..=10000");
}

#[test]
fn a_limit_past_the_range_is_refused_not_overflowed() {
    Fixture::new()
        .run(["search", "--limit", "18446744073709551615", "pipeline"])
        .code(2)
        .stdout_is("")
        .stderr_has(
            "'18446744073709551615' for '--limit <N>': 18446744073709551615 is not in 1..=10000",
        );
}

#[test]
fn similar_refuses_a_limit_of_zero_too() {
    Fixture::new()
        .run(["similar", "-n", "0", "gpipe-2019"])
        .code(2)
        .stderr_has("0 is not in 1..=10000");
}

// No results: a hint for each cause

#[test]
fn a_filter_that_excludes_every_match_is_named() {
    Fixture::new()
        .run(["search", "pipeline", "--year", "2030"])
        .code(1)
        .stdout_is("")
        .stderr_is("no results for \"pipeline\": --year excludes every match; loosen it\n");
}

#[test]
fn filters_that_each_exclude_every_match_are_all_named() {
    Fixture::new()
        .run(["search", "pipeline", "--year", "2019", "--kind", "project"])
        .code(1)
        .stderr_is(
            "no results for \"pipeline\": --year, --kind each exclude every match; loosen one of them\n",
        );
}

#[test]
fn filters_alone_that_match_nothing_are_named() {
    Fixture::new()
        .run(["search", "--year", "2030"])
        .code(1)
        .stderr_is("no entries match the filters: --year excludes every match; loosen it\n");
}

#[test]
fn a_one_word_query_that_finds_nothing_gets_a_spelling_hint() {
    Fixture::new().run(["search", "zqxjkv"]).code(1).stderr_is(
        "no results for \"zqxjkv\": check its spelling, or try the technique's common name\n",
    );
}

// Unknown ids

#[test]
fn show_of_an_unknown_id_suggests_the_closest_ids() {
    Fixture::new()
        .run(["show", "gpip"])
        .code(2)
        .stdout_is("")
        .stderr_is("distml-search: error: no entry with id `gpip`: did you mean `gpipe-2019`?\n");
}

#[test]
fn similar_of_an_unknown_id_says_the_same_as_show() {
    Fixture::new()
        .run(["similar", "gpip"])
        .code(2)
        .stdout_is("")
        .stderr_is("distml-search: error: no entry with id `gpip`: did you mean `gpipe-2019`?\n");
}

// Counts in the singular

#[test]
fn a_dry_run_adding_one_entry_says_entry() {
    let fixture = Fixture::new();
    fixture.write(
        "../list.md",
        "## Pipeline Parallelism\n\n- [Quux: Imaginary Stages](https://example.org/quux) by Ada Example, FICT 2020\n",
    );
    fixture
        .run(["import", "--dry-run", "list.md"])
        .success()
        .stdout_is(
            "+ catalog/pipeline-parallelism.toml: quux-2020 (Quux: Imaginary Stages)\n\
             would add 1 entry (0 new section files); 0 already in the catalog, unchanged\n",
        );
}

// list

#[test]
fn list_takes_a_limit() {
    Fixture::invented()
        .run(["list", "-n", "1"])
        .success()
        .stdout_is(
            "wobble-2021  Wobble: Pretend Pipelines for Imaginary Accelerators
             Ada Example et al. · FICT 2021 · Invented Systems
",
        );
}

#[test]
fn list_prints_bibtex() {
    Fixture::invented()
        .run(["list", "--format", "bibtex", "-n", "1"])
        .success()
        .stdout_is(
            "@inproceedings{example2021wobble,
  title         = {Wobble: Pretend Pipelines for Imaginary Accelerators},
  author        = {Ada Example and Bob Placeholder},
  booktitle     = {FICT},
  year          = {2021},
  eprint        = {1412.99990},
  archiveprefix = {arXiv},
  url           = {https://arxiv.org/abs/1412.99990},
}
",
        );
}

#[test]
fn list_format_json_is_list_json() {
    let fixture = Fixture::invented();
    let json = fixture.run(["list", "--json"]).success();
    fixture
        .run(["list", "--format", "json"])
        .success()
        .stdout_is(json.stdout());
}

const LONG: &str = r#"[section]
name = "Invented Systems"
order = 1

[[entry]]
id = "a-very-long-identifier-for-an-invented-system-2022"
kind = "paper"
title = "Lengthy: A Title That Goes On and On Past Eighty Columns of Text, As Invented Titles Sometimes Do"
url = "https://example.org/lengthy"
authors = ["Ada Example"]
venue = "FICT"
year = 2022
tags = ["pipeline-parallelism", "activation-recomputation", "mixture-of-experts", "collective-communication"]
note = "An invented note that is long enough to need wrapping on any terminal, since it goes on describing pretend stages, pretend experts and pretend collectives for far more than one line of text."
"#;

#[test]
fn list_uses_the_whole_width_of_a_wide_terminal() {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("invented.toml", LONG)]);
    fixture
        .cmd()
        .env("COLUMNS", "140")
        .args(["list"])
        .run()
        .success()
        .stdout_is(
            "a-very-long-identifier-for-an-invented-system-2022
    Lengthy: A Title That Goes On and On Past Eighty Columns of Text, As Invented Titles Sometimes Do
    Ada Example · FICT 2022 · Invented Systems
",
        );
}

#[test]
fn list_lines_fit_an_80_column_terminal_whatever_the_ids() {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("invented.toml", LONG)]);
    let run = fixture
        .cmd()
        .env("COLUMNS", "80")
        .args(["list"])
        .run()
        .success();
    let lines = run.stdout_lines();
    assert_eq!(lines.len(), 3, "{lines:?}");
    for line in lines {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
}

// show

#[test]
fn show_wraps_tags_and_notes_to_the_width() {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("invented.toml", LONG)]);
    fixture
        .cmd()
        .env("COLUMNS", "60")
        .args(["show", "a-very-long-identifier-for-an-invented-system-2022"])
        .run()
        .success()
        .stdout_is(
            "Lengthy: A Title That Goes On and On Past Eighty Columns of Text, As Invented Titles Sometimes Do
  id        a-very-long-identifier-for-an-invented-system-2022
  kind      paper
  section   Invented Systems
  authors   Ada Example  (as the list gives them)
  venue     FICT
  year      2022
  url       https://example.org/lengthy
  tags      pipeline-parallelism, activation-recomputation,
            mixture-of-experts, collective-communication
  note      An invented note that is long enough to need
            wrapping on any terminal, since it goes on
            describing pretend stages, pretend experts and
            pretend collectives for far more than one line
            of text.
  defined   catalog: catalog/invented.toml:5:1

  no abstract cached yet: run `distml-search index` with network access
",
        );
}

// stats --json

#[test]
fn stats_json_has_the_counts_stats_prints() {
    let fixture = Fixture::invented();
    let run = fixture.run(["stats", "--json"]).success();
    let mut value = run.json();
    let index = value["index"].take();
    assert_eq!(index, json!({ "state": "missing" }));
    assert_eq!(
        value,
        json!({
            "entries": 3, "papers": 2, "projects": 1, "sections": 1, "tags": 4,
            "metadata": { "abstracts": 0, "full_author_lists": 0, "arxiv_ids": 1, "dois": 1 },
            "index": null,
            "by_section": [{ "section": "Invented Systems", "entries": 3 }],
            "by_tag": [
                { "tag": "activation-recomputation", "entries": 1, "uses": 0 },
                { "tag": "collective-communication", "entries": 1, "uses": 0 },
                { "tag": "mixture-of-experts", "entries": 1, "uses": 0 },
                { "tag": "pipeline-parallelism", "entries": 1, "uses": 0 },
            ],
            "by_year": [{ "year": 2021, "entries": 1 }, { "year": 2023, "entries": 1 }],
            "by_venue": [{ "venue": "FICT", "entries": 1 }, { "venue": "FICTCONF", "entries": 1 }],
        })
    );
}

#[test]
fn stats_json_describes_a_built_index() {
    let fixture = Fixture::invented();
    fixture.run(["index"]).success();
    let run = fixture.run(["stats", "--json"]).success();
    let index = &run.json()["index"];
    assert_eq!(index["state"], "built");
    assert_eq!(index["catalog"], 3);
    assert_eq!(index["imported"], 0);
    assert!(index["bytes"].as_u64().is_some_and(|b| b > 0), "{index}");
    assert!(
        index["path"]
            .as_str()
            .is_some_and(|p| p.starts_with("index")),
        "{index}"
    );
}

// BibTeX

#[test]
fn a_project_is_software_keyed_by_its_id() {
    Fixture::new()
        .run(["search", "--format", "bibtex", "-n", "1", "megatron"])
        .success()
        .stdout_is(
            "@software{megatron-lm,
  title         = {{Megatron-LM}: Ongoing Research Training Transformer Models at Scale},
  key           = {megatron-lm},
  url           = {https://github.com/NVIDIA/Megatron-LM},
}
",
        );
}

#[test]
fn a_known_venue_is_named_in_full() {
    Fixture::with_files(&[("tags.toml", TAGS), ("moe.toml", MOE)])
        .run(["search", "--format", "bibtex", "fastermoe"])
        .success()
        .stdout_is(
            "@inproceedings{he2022fastermoe,
  title         = {{FasterMoE}: modeling and optimizing training of large-scale dynamic pre-trained models},
  author        = {Jiaao He and others},
  booktitle     = {ACM SIGPLAN Symposium on Principles and Practice of Parallel Programming (PPoPP)},
  year          = {2022},
  doi           = {10.1145/3503221.3508418},
  url           = {https://dl.acm.org/doi/abs/10.1145/3503221.3508418},
}
",
        );
}

// import --dry-run without a catalog folder

#[test]
fn a_dry_run_outside_a_catalog_folder_compares_with_the_built_in_catalog() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("list.md"),
        "## Pipeline Parallelism\n\n\
         - [GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism](https://proceedings.neurips.cc/paper/2019/file/093f65e080a295f8076b1c5722a46aa2-Paper.pdf) by Yanping Huang et al., NeurIPS 2019\n\
         - [Quux: Imaginary Stages](https://example.org/quux) by Ada Example, FICT 2020\n",
    )
    .unwrap();
    let mut cmd = Cmd::bare()
        .env_remove("DISTML_CATALOG")
        .env_remove("DISTML_INDEX")
        .env("HOME", dir.path())
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .args(["import", "--dry-run", "list.md"])
        .into_command();
    let output = cmd.current_dir(dir.path()).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "distml-search: note: compared with the built-in catalog; to import, pass --catalog DIR (a new folder starts a catalog from this list)\n",
        "{output:?}"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "+ <built-in>/pipeline-parallelism.toml: quux-2020 (Quux: Imaginary Stages)\n\
         would add 1 entry (0 new section files); 1 already in the catalog, unchanged\n"
    );
    assert!(output.status.success());
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["list.md"], "a dry run writes nothing");
}

// Snippets

const ALIASED: &str = r#"[[tag]]
id = "pipeline-parallelism"
label = "Pipeline parallelism"
category = "parallelism"
description = "Layers split into stages that stream micro-batches."
aliases = ["pipeline bubble", "one-forward-one-backward"]
"#;

const BUBBLES: &str = r#"[section]
name = "Invented Systems"
order = 1

[[entry]]
id = "froth-2022"
kind = "paper"
title = "Froth: Imaginary Stages"
url = "https://example.org/froth"
authors = ["Ada Example"]
venue = "FICT"
year = 2022
tags = ["pipeline-parallelism"]
note = "Shrinks the pipeline bubble of pretend stages by starting each backward pass early."
"#;

#[test]
fn snippets_highlight_only_the_typed_words_not_an_alias_spelling() {
    let run = Fixture::with_files(&[("tags.toml", ALIASED), ("invented.toml", BUBBLES)])
        .run(["search", "--json", "pipeline bubble"])
        .success();
    let hits = run.json_lines();
    assert_eq!(hits.len(), 1);
    // "pipeline" and "bubble", not "backward" (only in the alias).
    assert_eq!(hits[0]["highlights"], json!([[12, 20], [21, 27]]));
}

#[test]
fn snippets_still_highlight_a_repaired_typo() {
    let run = Fixture::with_files(&[("tags.toml", ALIASED), ("invented.toml", BUBBLES)])
        .run(["search", "--json", "shrinks bubbel"])
        .success();
    assert_eq!(run.json_lines()[0]["highlights"], json!([[0, 7], [21, 27]]));
}
