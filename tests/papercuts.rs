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

// BibTeX

#[test]
fn a_project_is_software_keyed_by_its_id() {
    Fixture::new()
        .run(["search", "--format", "bibtex", "-n", "1", "megatron"])
        .success()
        .stdout_is(
            "@software{megatron-lm,
  title         = {{Megatron-LM}: Ongoing Research Training Transformer Models at Scale},
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
