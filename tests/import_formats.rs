//! `import` on the common formats of paper lists (fictional fixtures in
//! `tests/fixtures/lists/`, one per format and one mixing them): every item
//! with a link is added or reported with its line, titles are never link
//! labels, only names become authors, the catalog passes `check`, and the
//! list's own text comes back from `export`.

mod common;

use common::{Cmd, Fixture};

const FORMATS: &[&str] = &["labels", "subtitles", "tables", "details", "mixed"];

fn list(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/lists/{name}.md",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

fn expected(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/lists/expected/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

/// A temporary folder holding `list.md`, with `fresh/` as the catalog.
fn with_list(name: &str) -> Fixture {
    let fixture = Fixture::new();
    std::fs::write(fixture.dir.path().join("list.md"), list(name)).unwrap();
    fixture
}

fn fresh(fixture: &Fixture) -> Cmd {
    Cmd::new(fixture).args(["--catalog", "fresh"])
}

/// The 1-based lines of list items and table rows that hold a link.
fn lines_with_links(markdown: &str) -> Vec<usize> {
    markdown
        .lines()
        .enumerate()
        .filter(|(_, line)| {
            let t = line.trim_start();
            let item = t.starts_with("- ") || t.starts_with("* ") || t.starts_with('|');
            item && t.contains("](")
        })
        .map(|(i, _)| i + 1)
        .collect()
}

fn items(json: &str) -> Vec<serde_json::Value> {
    json.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_dry_run_reports_every_item_as_expected() {
    for name in FORMATS {
        let fixture = with_list(name);
        fresh(&fixture)
            .args(["import", "list.md", "--dry-run", "--json"])
            .run()
            .success()
            .stdout_is(&expected(&format!("{name}.jsonl")));
    }
}

#[test]
fn every_item_with_a_link_is_added_or_reported_with_its_line() {
    for name in FORMATS {
        let fixture = with_list(name);
        let run = fresh(&fixture)
            .args(["import", "list.md", "--dry-run", "--json"])
            .run()
            .success();
        let reported: Vec<usize> = items(run.stdout())
            .iter()
            .map(|i| i["line"].as_u64().unwrap() as usize)
            .collect();
        assert_eq!(reported, lines_with_links(&list(name)), "{name}");
        for item in items(run.stdout()) {
            let outcome = item["outcome"].as_str().unwrap();
            assert_eq!(item.get("reason").is_some(), outcome != "add", "{item}");
            let has_id = matches!(outcome, "add" | "already-listed");
            assert_eq!(item.get("id").is_some(), has_id, "{item}");
        }
    }
}

/// The section files an import into an empty folder writes, in name order.
fn written(fixture: &Fixture) -> String {
    let dir = fixture.dir.path().join("fresh");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // `.lock` is the catalog's lock, taken by every writer.
        .filter(|n| n != "tags.toml" && n != "list.toml" && n != ".lock")
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| format!("# {n}\n{}", std::fs::read_to_string(dir.join(n)).unwrap()))
        .collect()
}

#[test]
fn the_import_writes_drafts_with_titles_links_and_descriptions() {
    for name in FORMATS {
        let fixture = with_list(name);
        fresh(&fixture).args(["import", "list.md"]).run().success();
        assert_eq!(
            written(&fixture),
            expected(&format!("{name}.toml")),
            "{name}"
        );
    }
}

#[test]
fn no_title_is_a_link_label_and_no_author_anything_but_a_name() {
    let labels = [
        "paper", "pdf", "arxiv", "code", "github", "slides", "video", "website",
    ];
    for name in FORMATS {
        let fixture = with_list(name);
        fresh(&fixture).args(["import", "list.md"]).run().success();
        let toml = written(&fixture);
        for line in toml.lines() {
            if let Some(title) = line.strip_prefix("title = ") {
                let title = title.trim_matches('"').to_lowercase();
                assert!(!labels.contains(&title.as_str()), "{name}: {line}");
            }
            if let Some(list) = line.strip_prefix("authors = ") {
                let authors: Vec<String> = serde_json::from_str(list).unwrap();
                for author in authors {
                    let words: Vec<&str> = author.split_whitespace().collect();
                    let named = words.len() >= 2
                        && words
                            .iter()
                            .all(|w| w.chars().all(|c| c.is_alphabetic() || "-.'".contains(c)));
                    assert!(named, "{name}: author {author:?}");
                }
            }
        }
    }
}

#[test]
fn an_import_into_an_empty_folder_passes_check_with_warnings_for_drafts() {
    for name in FORMATS {
        let fixture = with_list(name);
        fresh(&fixture).args(["import", "list.md"]).run().success();
        let run = fresh(&fixture).args(["check"]).run().success();
        assert!(run.stdout().contains(": ok: "), "{name}: {}", run.stdout());
        assert!(
            run.stderr().contains("is a draft: it needs tags, a note"),
            "{name}: {}",
            run.stderr()
        );
    }
}

#[test]
fn a_draft_says_what_it_still_needs() {
    let fixture = Fixture::new();
    std::fs::write(
        fixture.dir.path().join("list.md"),
        "## Papers\n\n- [Quill](https://example.org/quill): Fault-tolerant Training of Fictional Models\n",
    )
    .unwrap();
    fresh(&fixture).args(["import", "list.md"]).run().success();
    fresh(&fixture)
        .args(["check"])
        .run()
        .success()
        .stderr_is("fresh/papers.toml:5:1: warning: entry `quill` is a draft: it needs tags, a note, authors, a venue and a year, then remove `draft = true`\n");
}

#[test]
fn near_identical_titles_of_distinct_works_both_survive() {
    let fixture = with_list("subtitles");
    let run = fresh(&fixture)
        .args(["import", "list.md", "--dry-run", "--json"])
        .run()
        .success();
    let added: Vec<String> = items(run.stdout())
        .iter()
        .filter(|i| i["outcome"] == "add")
        .map(|i| i["title"].as_str().unwrap().to_string())
        .collect();
    for title in [
        "Zorblax2: Scaling Imaginary Models to Many Pretend GPUs",
        "Zorblax2++: Scaling Imaginary Models Further",
        "Quill: Fault-tolerant Training of Fictional Models",
        "QUILL: Low-latency Serving of Fictional Models",
    ] {
        assert!(added.iter().any(|t| t == title), "{title} lost: {added:?}");
    }
    // Even when the list cuts them to their names.
    let fixture = Fixture::new();
    std::fs::write(
        fixture.dir.path().join("list.md"),
        "## Papers\n\n- [Zorblax2](https://example.org/z2) | OSDI' 24\n- [Zorblax2++](https://example.org/z2pp) | OSDI' 24\n- [Quill](https://example.org/quill)\n- [QUILL](https://example.org/quill-2)\n",
    )
    .unwrap();
    fresh(&fixture).args(["import", "list.md"]).run().success();
    fresh(&fixture)
        .args(["check"])
        .run()
        .success()
        .stdout_has("ok: 4 entries");
}

#[test]
fn duplicates_in_the_file_are_not_called_already_listed() {
    let fixture = with_list("mixed");
    let run = fresh(&fixture)
        .args(["import", "list.md", "--dry-run"])
        .run()
        .success();
    run.stdout_has("list.md:17: duplicate-in-file: the same work as line 11 (same title) (Ruddock: Training Pretend Models on Idle Machines)\n")
        .stdout_has("list.md:18: skipped: no title: the item has only link labels or a bare URL ()\n")
        .stdout_has("0 already in the catalog, unchanged; 1 repeated in the file; 2 skipped\n");
}

#[test]
fn the_export_of_an_imported_list_is_that_list() {
    for name in FORMATS {
        let fixture = with_list(name);
        fresh(&fixture).args(["import", "list.md"]).run().success();
        fresh(&fixture)
            .args(["export"])
            .run()
            .success()
            .stdout_is(&list(name));
    }
}

#[test]
fn the_export_follows_edits_and_can_carry_notes_and_tags() {
    let fixture = with_list("mixed");
    fresh(&fixture).args(["import", "list.md"]).run().success();
    let path = fixture.dir.path().join("fresh/papers.toml");
    let toml = std::fs::read_to_string(&path).unwrap();
    let toml = toml
        .replace("venue = \"MLSys\"", "venue = \"MLSys Workshop\"")
        .replacen(
            "tags = []\nnote = \"\"",
            "tags = [\"pipeline-parallelism\"]\nnote = \"Runs on idle machines.\"",
            1,
        );
    std::fs::write(&path, toml).unwrap();
    let exported = fresh(&fixture).args(["export", "--notes"]).run().success();
    let text = exported.stdout();
    // The changed entry is written anew; the others as the list had them.
    assert!(text.contains("- [Siskin: Elastic Inference for Made-up Workloads](https://arxiv.org/abs/2999.05002) by MLSys Workshop 2024\n"), "{text}");
    assert!(text.contains("- [Ruddock: Training Pretend Models on Idle Machines](https://arxiv.org/abs/2999.05001) by Quentin Arblaster, Rosalind Fenwright, et al., ATC 2022\n  - Note: Runs on idle machines.\n  - Tags: `Pipeline parallelism`\n"), "{text}");
    assert!(text.starts_with(
        "# Awesome Imaginary Everything\n\nA fictional list that mixes every format.\n"
    ));
}
