//! Faults from outside: a full disk, hostile data, and queries built to hurt.
//! Each must end in a clear error or inert output, never a panic or lost data.

mod common;

use common::{Fixture, Run};

/// Runs the binary with files limited to `kib` KiB each (`ulimit -f`), the
/// way a full disk fails a write: EFBIG instead of a signal.
fn with_file_limit(fixture: &Fixture, kib: u32, args: &[&str]) -> Run {
    fixture
        .cmd()
        .args(args)
        .after_shell(&format!("ulimit -f {kib}; trap '' XFSZ"))
        .run()
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

/// The fixture indexed, then grown by 3,000 entries that a rebuild
/// cannot write under a 32 KiB file limit; and its CURRENT before.
fn outgrown() -> (Fixture, String) {
    let fixture = Fixture::new();
    fixture.run(["index"]).success();
    let current = std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap();
    fixture.write("generated.toml", &generated(3_000));
    (fixture, current)
}

#[test]
fn a_full_disk_fails_the_rebuild_with_one_line() {
    let (fixture, _) = outgrown();
    let run = with_file_limit(&fixture, 32, &["index"]).code(2);
    let stderr = run.stderr();
    if !(stderr.lines().count() == 1
        && stderr.starts_with("distml-search: error: ")
        && stderr.contains("File too large"))
    {
        run.fail("expected one error line saying the file is too large");
    }
}

#[test]
fn a_full_disk_keeps_the_previous_index_and_removes_the_failed_one() {
    let (fixture, current) = outgrown();
    with_file_limit(&fixture, 32, &["index"]).code(2);
    assert_eq!(
        std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap(),
        current
    );
    assert_eq!(
        common::generations(&fixture.index()).len(),
        1,
        "the failed generation is removed"
    );
}

#[test]
fn a_search_that_cannot_rebuild_answers_from_the_previous_index() {
    let (fixture, _) = outgrown();
    let run = with_file_limit(&fixture, 32, &["search", "--json", "zero bubble"])
        .success()
        .stderr_has("searching the previous index");
    assert_eq!(run.ids()[0], "zero-bubble-2024");
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
    with_file_limit(&fixture, 16, &["import", "list.md"])
        .code(2)
        .stderr_has("File too large");
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

/// The fixture with a hostile title and a megabyte note on one entry.
fn hostile() -> Fixture {
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
    fixture
}

#[test]
fn hostile_data_is_inert_on_the_terminal() {
    let run = hostile()
        .run(["search", "--color", "always", "bubble"])
        .success();
    let terminal = run.stdout();
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
}

#[test]
fn a_megabyte_note_is_not_printed_whole() {
    let run = hostile().run(["search", "bubble"]).success();
    assert!(
        run.stdout_lines().iter().all(|l| l.chars().count() < 400),
        "a 1 MB note is not printed whole"
    );
}

#[test]
fn hostile_data_is_kept_exactly_in_json() {
    let run = hostile().run(["search", "--json", "bubble"]).success();
    let title = run.json_lines()[0]["title"].as_str().unwrap().to_owned();
    assert_eq!(
        title,
        "Evil \u{1b}[31mred\u{1b}[0m \u{9b}2J \u{202e}esrever\u{202c} <script>alert('x')</script> {50% of $x_1 & #y ~z^ \\end}"
    );
}

#[test]
fn hostile_data_is_escaped_in_bibtex() {
    let run = hostile()
        .run(["search", "--format", "bibtex", "-n", "1", "bubble"])
        .success();
    let bib = run.stdout();
    assert_eq!(
        bib.matches('{').count() - bib.matches("\\{").count(),
        bib.matches('}').count() - bib.matches("\\}").count(),
        "{bib}"
    );
    assert!(bib.contains("50\\% of \\$x\\_1 \\& \\#y"), "{bib}");
    assert!(!bib.chars().any(unsafe_char), "{bib:?}");
}

/// Control characters (but the line ends) and bidirectional overrides.
fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

#[test]
fn hostile_data_is_inert_in_csl_json_and_ris() {
    let fixture = hostile();
    let run = fixture
        .run(["search", "--format", "csl-json", "-n", "1", "bubble"])
        .success();
    let csl = run.stdout();
    assert!(!csl.chars().any(unsafe_char), "{csl:?}");
    let title = run.json()[0]["title"].as_str().unwrap().to_owned();
    assert!(title.starts_with("Evil \u{FFFD}[31mred"), "{title:?}");
    let run = fixture
        .run(["search", "--format", "ris", "-n", "1", "bubble"])
        .success();
    let ris = run.stdout();
    assert!(!ris.chars().any(unsafe_char), "{ris:?}");
    // Each value stays on its tag's line.
    assert!(
        ris.lines().all(|l| l.len() >= 6
            && l.as_bytes()[..2].iter().all(u8::is_ascii_alphanumeric)
            && &l[2..6] == "  - "),
        "{ris}"
    );
}

#[test]
fn hostile_data_is_inert_in_show() {
    let run = hostile().run(["show", "zero-bubble-2024"]).success();
    let show = run.stdout();
    assert!(
        !show.contains('\u{9b}') && !show.contains("\x1b[31m"),
        "{show:?}"
    );
}

#[test]
fn queries_built_to_hurt_get_a_short_answer_not_a_panic() {
    let fixture = Fixture::new();
    fixture.run(["index"]).success();
    let cases = [
        (
            "x".repeat(100 * 1024),
            2,
            "the query has no searchable words: ",
        ),
        (
            "pipeline ".repeat(10_000),
            0,
            "distml-search: note: query cut to its first 4096 characters",
        ),
        (
            format!("{}pipeline{}", "(".repeat(1000), ")".repeat(1000)),
            2,
            "parentheses nested more than 16 deep at column 17",
        ),
        (
            format!("{}pipeline", "\"".repeat(5001)),
            2,
            "the query has no searchable words: ",
        ),
        ("a".repeat(5000), 2, "the query has no searchable words: "),
        ("-".repeat(3000), 2, "the query has no searchable words: "),
        ("tag:".repeat(2000), 2, "distml-search: error: tag:tag:"),
    ];
    for (query, code, said) in &cases {
        let run = fixture
            .cmd()
            .args(["search", "--", query])
            .run()
            .code(*code)
            .stderr_has(said)
            .stderr_lacks("panicked");
        if run.stderr().lines().count() > 3 {
            run.fail("more than three lines on stderr");
        }
    }
}

/// `args` on `fixture`, which must end within a minute: the faults below
/// used to hang forever.
fn within_a_minute(fixture: &Fixture, args: &[&str]) -> std::process::Output {
    common::output_within(fixture.cmd().args(args), std::time::Duration::from_secs(60))
}

#[test]
fn a_fifo_in_the_catalog_folder_is_skipped_not_waited_on() {
    let fixture = Fixture::new();
    let fifo = fixture.catalog().join("x.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for args in [
        &["search", "gpipe"][..],
        &["index", "--offline"],
        &["check"],
    ] {
        let output = within_a_minute(&fixture, args);
        assert!(output.status.success(), "{args:?}: {output:?}");
    }
}

#[test]
fn a_catalog_file_linked_to_a_device_is_skipped_not_read_forever() {
    let fixture = Fixture::new();
    std::os::unix::fs::symlink("/dev/zero", fixture.catalog().join("x.toml")).unwrap();
    let output = within_a_minute(&fixture, &["search", "gpipe"]);
    assert!(output.status.success(), "{output:?}");
}

/// Runs the binary as a user who may only read the fixture (nobody, when
/// the tests run as root, as in CI; otherwise the fixture's index is made
/// read-only for the user running them).
fn as_reader_only(fixture: &Fixture, args: &[&str]) -> Run {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    let dir = fixture.dir.path();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    if !root {
        let status = std::process::Command::new("chmod")
            .args(["-R", "a-w"])
            .arg(fixture.index())
            .status()
            .unwrap();
        assert!(status.success());
        return fixture.run(args);
    }
    // nobody cannot reach the build folder: the binary is linked beside the
    // fixture.
    let bin = dir.join("distml-search");
    if std::fs::hard_link(common::BIN, &bin).is_err() {
        std::fs::copy(common::BIN, &bin).unwrap();
    }
    let run = common::Cmd::program(fixture, "setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bin)
        .args(args)
        .run();
    std::fs::remove_file(&bin).unwrap();
    run
}

#[test]
fn an_index_the_user_may_only_read_is_searched() {
    let fixture = Fixture::new();
    fixture.run(["index"]).success();
    let run = as_reader_only(&fixture, &["search", "pipeline", "--json"]).success();
    assert!(!run.json_lines().is_empty());
    run.stderr_is("");
}

#[test]
fn a_stale_index_the_user_may_only_read_is_searched_as_it_is() {
    let fixture = Fixture::new();
    fixture.run(["index"]).success();
    let tags = fixture.read("tags.toml");
    fixture.write("tags.toml", &format!("{tags}\n# edited\n"));
    as_reader_only(&fixture, &["search", "pipeline", "--json"])
        .success()
        .stderr_has("distml-search: warning: the index is older than the catalog and cannot be rebuilt here (")
        .stderr_has("searching it as it is");
}

#[test]
fn bibtex_keeps_no_bidi_override() {
    let fixture = Fixture::invented();
    let text = fixture.read("invented-systems.toml").replace(
        "title = \"Wobble: Pretend Pipelines",
        "title = \"Wobble: \\u202Eseniltsp\\u202C Pretend Pipelines",
    );
    fixture.write("invented-systems.toml", &text);
    let run = fixture
        .run(["search", "wobble", "--format", "bibtex"])
        .success();
    assert!(run.stdout().contains("@misc") || run.stdout().contains("@inproceedings"));
    assert!(
        !run.stdout().contains(['\u{202E}', '\u{202C}']),
        "{}",
        run.stdout()
    );
}

/// The section's name as the hostile catalog below has it.
const HOSTILE_SECTION: &str = "Invented \u{1b}]0;pwned\u{7} \u{202e}Systems";

/// A catalog whose section name, a venue, a title and a tag's first alias
/// hold escape sequences (OSC, CSI, C1) and a bidirectional override.
fn hostile_names() -> Fixture {
    let tags = common::TAGS.replace(
        "aliases = [\"1F1B\",",
        "aliases = [\"\\u001b[2J1F1B\\u202e\",",
    );
    let invented = common::INVENTED
        .replace(
            "name = \"Invented Systems\"",
            "name = \"Invented \\u001b]0;pwned\\u0007 \\u202eSystems\"",
        )
        .replace("venue = \"FICT\"", "venue = \"FICT\\u009b2J\"")
        .replace(
            "title = \"Gizmo: A Make-Believe Trainer\"",
            "title = \"Gizmo: \\u001b[31mA Make-Believe\\u202e Trainer\"",
        );
    Fixture::with_files(&[("tags.toml", &tags), ("invented-systems.toml", &invented)])
}

#[test]
fn hostile_names_are_inert_in_stats_check_lists_json_and_summaries() {
    let fixture = hostile_names();
    let commands: [&[&str]; 10] = [
        &["stats"],
        &["stats", "--json"],
        &["check"],
        &["list", "--json"],
        &["show", "--json", "gizmo"],
        &["search", "--json", "gizmo"],
        // Its summary line names the technique's other names.
        &["search", "pipeline parallelism"],
        &["export", "--format", "ndjson"],
        &["import", "--dry-run", "--json", "list.md"],
        &["import", "--dry-run", "list.md"],
    ];
    std::fs::write(
        fixture.dir.path().join("list.md"),
        "# L\n\n## Invented\n\n- [Quux \u{1b}[2J\u{202e}Pipes](https://example.org/quux) by Ada Example, FICT 2021\n",
    )
    .unwrap();
    for args in commands {
        let run = fixture.run(args);
        for (name, text) in [("stdout", run.stdout()), ("stderr", run.stderr())] {
            if text.chars().any(unsafe_char) {
                run.fail(format!("{name} holds what a terminal obeys"));
            }
        }
    }
    // JSON keeps the value whole, in escapes.
    let run = fixture.run(["stats", "--json"]).success();
    assert_eq!(run.json()["by_section"][0]["section"], HOSTILE_SECTION);
    let run = fixture.run(["list", "--json"]).success();
    assert_eq!(run.json_lines()[0]["venue"], "FICT\u{9b}2J");
    fixture
        .run(["search", "pipeline parallelism"])
        .success()
        .stderr_has("including synonyms: pipeline parallelism → \u{FFFD}[2J1F1B\u{FFFD}");
}

/// A terminal for the command: `script` (util-linux) runs it on a
/// pseudo-terminal; its line ends come back as CR LF. `None` (with a note)
/// where there is no `script`; under CI=true that fails instead.
fn on_a_terminal(fixture: &Fixture, args: &str) -> Option<String> {
    let output = std::process::Command::new("script")
        .args(["-qec", &format!("'{}' {args}", common::BIN), "/dev/null"])
        .current_dir(fixture.dir.path())
        .env("NO_COLOR", "1")
        .env("DISTML_OFFLINE", "1")
        .env_remove("DISTML_CATALOG")
        .env_remove("DISTML_INDEX")
        .stdin(std::process::Stdio::null())
        .output();
    match output {
        Ok(output) if output.status.success() => {
            Some(String::from_utf8_lossy(&output.stdout).replace("\r\n", "\n"))
        }
        other => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "no terminal through `script`: {other:?}"
            );
            eprintln!("note: skipped, no `script` to run a terminal: {other:?}");
            None
        }
    }
}

#[test]
fn an_export_to_a_terminal_is_inert_and_to_a_pipe_exact() {
    let fixture = hostile_names();
    let Some(shown) = on_a_terminal(&fixture, "export --format markdown") else {
        return;
    };
    assert!(shown.contains("A Make-Believe\u{FFFD} Trainer"), "{shown}");
    assert!(!shown.chars().any(unsafe_char), "{shown:?}");
    // To a pipe (or a file), the list's text is the catalog's.
    let piped = fixture
        .run(["export", "--format", "markdown"])
        .success()
        .stdout()
        .to_string();
    assert!(piped.contains("A Make-Believe\u{202e} Trainer"), "{piped}");
}

#[test]
fn completion_offers_nothing_a_terminal_would_obey() {
    let fixture = hostile_names();
    let complete = |words: &[&str]| {
        let run = fixture
            .cmd()
            .env("COMPLETE", "fish")
            .arg("--")
            .args(words)
            .run()
            .success();
        if run.stdout().chars().any(|c| c != '\t' && unsafe_char(c)) {
            run.fail("a candidate a terminal would obey");
        }
        run.stdout().to_string()
    };
    // Titles are shown beside ids, made inert.
    let ids = complete(&["distml-search", "show", ""]);
    assert!(
        ids.contains("gizmo\tGizmo: \u{FFFD}[31mA Make-Believe\u{FFFD} Trainer"),
        "{ids}"
    );
    // A section whose name holds escapes is not offered at all.
    let sections = complete(&["distml-search", "list", "--section", ""]);
    assert!(!sections.contains("Invented"), "{sections}");
}
