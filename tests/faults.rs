//! Faults from outside: a full disk, hostile data, and queries built to hurt.
//! Each must end in a clear error or inert output, never a panic or lost data.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{Fixture, stderr_of, stdout_of};

/// Runs the binary with files limited to `kib` KiB each (`ulimit -f`), the
/// way a full disk fails a write: EFBIG instead of a signal.
fn with_file_limit(fixture: &Fixture, kib: u32, args: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("distml-search");
    Command::new("bash")
        .current_dir(fixture.dir.path())
        .env("DISTML_OFFLINE", "1")
        .env("NO_COLOR", "1")
        .args([
            "-c",
            &format!(
                "ulimit -f {kib}; trap '' XFSZ; exec {} {args}",
                bin.display()
            ),
        ])
        .output()
        .unwrap()
}

fn generated(n: usize) -> String {
    let mut text = String::from("[section]\nname = \"Generated\"\norder = 9\n");
    for i in 0..n {
        text.push_str(&format!(
            "\n[[entry]]\nid = \"g-{i}\"\nkind = \"project\"\ntitle = \"Generated project {i}\"\nurl = \"https://example.org/{i}\"\ntags = [\"pipeline-parallelism\"]\nnote = \"Generated note {i} with enough words to take room on disk.\"\n"
        ));
    }
    text
}

#[test]
fn a_full_disk_fails_the_rebuild_clearly_and_keeps_the_old_index() {
    let fixture = Fixture::new();
    fixture.cmd().arg("index").assert().success();
    let current = std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap();
    fixture.write("generated.toml", &generated(3_000));

    let output = with_file_limit(&fixture, 32, "index");
    assert_eq!(output.status.code(), Some(2), "{}", stderr_of(&output));
    let stderr = stderr_of(&output);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("distml-search: error: ") && stderr.contains("File too large"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap(),
        current
    );
    let gens = std::fs::read_dir(fixture.index())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("gen-"))
        .count();
    assert_eq!(gens, 1, "the failed generation is removed");
    // A search cannot rebuild on the full disk either: it answers from the
    // previous index and says so.
    let search = with_file_limit(&fixture, 32, "search --json 'zero bubble'");
    assert_eq!(search.status.code(), Some(0), "{}", stderr_of(&search));
    assert!(stdout_of(&search).contains("zero-bubble-2024"));
    assert!(
        stderr_of(&search).contains("searching the previous index"),
        "{}",
        stderr_of(&search)
    );
}

#[test]
fn a_failed_cache_write_keeps_the_old_file() {
    let fixture = Fixture::new();
    let big = format!(
        "{{\n  \"version\": 1,\n  \"entries\": {{\n    \"gpipe-2019\": {{\n      \"abstract\": {{\"value\": \"{}\", \"source\": \"arxiv\"}}\n    }}\n  }}\n}}\n",
        "word ".repeat(20_000)
    );
    fixture.write("metadata.json", &big);
    // Importing rewrites a catalog file; with files capped below its new
    // size the write fails, and the old file must be intact.
    std::fs::write(
        fixture.dir.path().join("list.md"),
        format!(
            "# L\n\n## Pipeline Parallelism\n\n{}",
            (0..2000)
                .map(|i| format!("- [Paper {i}](https://example.org/p/{i}) by A B, X 2020\n"))
                .collect::<String>()
        ),
    )
    .unwrap();
    let before = fixture.read("pipeline-parallelism.toml");
    let output = with_file_limit(&fixture, 16, "import list.md");
    assert_eq!(output.status.code(), Some(2), "{}", stderr_of(&output));
    assert!(
        stderr_of(&output).contains("File too large"),
        "{}",
        stderr_of(&output)
    );
    assert_eq!(fixture.read("pipeline-parallelism.toml"), before);
    assert_eq!(fixture.read("metadata.json"), big);
    let leftovers: Vec<_> = std::fs::read_dir(fixture.catalog())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

const HOSTILE_TITLE: &str = "Evil \\u001b[31mred\\u001b[0m \\u009b2J \\u202eesrever\\u202c <script>alert('x')</script> {50% of $x_1 & #y ~z^ \\\\end}";

#[test]
fn hostile_data_is_inert_on_the_terminal_valid_in_json_and_bibtex() {
    let fixture = Fixture::new();
    let huge_note = "megabyte ".repeat(120_000);
    fixture.write(
        "pipeline-parallelism.toml",
        &common::PIPELINES
            .replace(
                "\"Zero Bubble Pipeline Parallelism\"",
                &format!("\"{HOSTILE_TITLE}\""),
            )
            .replace(
                "Splits the backward pass so weight-gradient work fills idle slots.",
                &format!("Bubble {huge_note}"),
            ),
    );
    let terminal = stdout_of(
        &fixture
            .cmd()
            .args(["search", "--color", "always", "bubble"])
            .output()
            .unwrap(),
    );
    // Only our own colour codes (ESC [ digits ; m) may appear.
    for (i, _) in terminal.match_indices('\x1b') {
        let rest = &terminal[i + 1..];
        let end = rest.find('m').expect("escape without m");
        assert!(
            rest.starts_with('[') && rest[1..end].chars().all(|c| c.is_ascii_digit() || c == ';'),
            "foreign escape at {i}: {:?}",
            &rest[..end.min(20)]
        );
    }
    for forbidden in ['\u{9b}', '\u{202e}', '\u{7}'] {
        assert!(
            !terminal.contains(forbidden),
            "{forbidden:?} reached the terminal"
        );
    }
    assert!(
        terminal.lines().all(|l| l.chars().count() < 400),
        "a 1 MB note is not printed whole"
    );

    let json = stdout_of(
        &fixture
            .cmd()
            .args(["search", "--json", "bubble"])
            .output()
            .unwrap(),
    );
    let hit: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert!(
        hit["title"].as_str().unwrap().contains("\u{1b}[31mred"),
        "JSON keeps the data exactly"
    );
    assert!(hit["title"].as_str().unwrap().contains("<script>"));

    let bib = stdout_of(
        &fixture
            .cmd()
            .args(["search", "--format", "bibtex", "-n", "1", "bubble"])
            .output()
            .unwrap(),
    );
    assert_eq!(
        bib.matches('{').count() - bib.matches("\\{").count(),
        bib.matches('}').count() - bib.matches("\\}").count(),
        "{bib}"
    );
    assert!(bib.contains("50\\% of \\$x\\_1 \\& \\#y"), "{bib}");
    assert!(!bib.chars().any(|c| c.is_control() && c != '\n'), "{bib:?}");

    let show = stdout_of(
        &fixture
            .cmd()
            .args(["show", "zero-bubble-2024"])
            .output()
            .unwrap(),
    );
    assert!(
        !show.contains('\u{9b}') && !show.contains("\x1b[31m"),
        "{show:?}"
    );
}

#[test]
fn queries_built_to_hurt_answer_quickly() {
    let fixture = Fixture::new();
    fixture.cmd().arg("index").assert().success();
    let cases = [
        "x".repeat(100 * 1024),
        "pipeline ".repeat(10_000),
        format!("{}pipeline{}", "(".repeat(1000), ")".repeat(1000)),
        format!("{}pipeline", "\"".repeat(5001)),
        "a".repeat(5000),
        "-".repeat(3000),
        "tag:".repeat(2000),
    ];
    for query in &cases {
        let started = Instant::now();
        let output = fixture
            .cmd()
            .args(["search", "--", query])
            .output()
            .unwrap();
        // A guard against hangs, not a benchmark: generous for a debug build.
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{} chars took {:?}",
            query.len(),
            started.elapsed()
        );
        assert!(
            matches!(output.status.code(), Some(0..=2)),
            "{}",
            stderr_of(&output)
        );
        assert!(
            !stderr_of(&output).contains("panicked"),
            "{}",
            stderr_of(&output)
        );
        assert!(stderr_of(&output).lines().count() <= 3);
    }
}
