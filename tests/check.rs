//! `distml-search check`: a clean catalog gets a summary; each class of
//! problem is reported at its exact file:line:column, with exit status 2.

mod common;

use common::{Fixture, PIPELINES, at, stderr_of, stdout_of};

/// Runs `check` on the fixture with `PIPELINES` edited by `edit`, expecting failure.
fn problems_after(edit: impl FnOnce(&str) -> String) -> String {
    let fixture = Fixture::new();
    fixture.write("pipeline-parallelism.toml", &edit(PIPELINES));
    let output = fixture.cmd().arg("check").output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr_of(&output));
    stderr_of(&output)
}

fn assert_reports(stderr: &str, location: &str, message: &str) {
    let wanted = format!("{location}{message}");
    assert!(
        stderr.lines().any(|l| l.starts_with(&wanted)),
        "expected a line starting with {wanted:?} in:\n{stderr}"
    );
}

#[test]
fn clean_catalog_prints_a_summary_and_exits_0() {
    let output = Fixture::new().cmd().arg("check").output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let stdout = stdout_of(&output);
    assert!(
        stdout.contains("ok: 4 entries (3 papers, 1 projects) in 3 sections, 4 tags"),
        "{stdout}"
    );
    assert!(stdout.contains("Pipeline Parallelism"));
    assert!(stdout.contains("pipeline-parallelism 3"), "{stdout}");
}

#[test]
fn toml_syntax_error() {
    let stderr = problems_after(|t| t.replace("year = 2019", "year = 2019 ]"));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 14, 13),
        "TOML syntax",
    );
}

#[test]
fn unknown_field() {
    let stderr = problems_after(|t| t.replace("year = 2024\n", "year = 2024\nyaer = 2024\n"));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 27, 1),
        "unknown field `yaer`",
    );
}

#[test]
fn missing_field_points_at_the_entry() {
    let stderr =
        problems_after(|t| t.replace("title = \"Zero Bubble Pipeline Parallelism\"\n", ""));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 18, 1),
        "[[entry]] is missing required field `title`",
    );
}

#[test]
fn wrong_type() {
    let stderr = problems_after(|t| t.replace("year = 2019", "year = \"2019\""));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 14, 8),
        "field `year` must be an integer, found string",
    );
}

#[test]
fn duplicate_id_names_the_first_use() {
    let stderr = problems_after(|t| t.replace("id = \"zero-bubble-2024\"", "id = \"gpipe-2019\""));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 19, 6),
        "duplicate id `gpipe-2019` (first used at catalog/pipeline-parallelism.toml:7:6)",
    );
}

#[test]
fn duplicate_url_across_versions() {
    let stderr = problems_after(|t| {
        t.replace(
            "https://proceedings.neurips.cc/paper/2019/file/gpipe-Paper.pdf",
            "https://arxiv.org/abs/2401.10241v2",
        )
        .replace(
            "venue = \"NeurIPS\"",
            "venue = \"NeurIPS\"\narxiv = \"2401.10241\"",
        )
    });
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 23, 7),
        "duplicate url https://arxiv.org/abs/2401.10241",
    );
}

#[test]
fn duplicate_title_ignores_case_and_punctuation() {
    let stderr = problems_after(|t| {
        t.replace(
            "\"Zero Bubble Pipeline Parallelism\"",
            "\"GPipe - efficient training of giant neural networks using pipeline parallelism\"",
        )
    });
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 21, 9),
        "duplicate title",
    );
}

#[test]
fn unknown_tag_points_at_the_element() {
    let stderr = problems_after(|t| {
        t.replace(
            "tags = [\"pipeline-parallelism\"]",
            "tags = [\"pipeline-parallelism\", \"pipeline-paralelism\"]",
        )
    });
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 28, 33),
        "unknown tag `pipeline-paralelism`",
    );
}

#[test]
fn malformed_arxiv_id() {
    let stderr =
        problems_after(|t| t.replace("arxiv = \"2401.10241\"", "arxiv = \"2401.10241v2\""));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 27, 9),
        "`arxiv` \"2401.10241v2\" is malformed",
    );
}

#[test]
fn malformed_doi() {
    let fixture = Fixture::new();
    fixture.write(
        "mixture-of-experts-system.toml",
        &common::MOE.replace(
            "doi = \"10.1145/3503221.3508418\"",
            "doi = \"doi:10.1145/3503221.3508418\"",
        ),
    );
    let output = fixture.cmd().arg("check").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_reports(
        &stderr_of(&output),
        &at("mixture-of-experts-system.toml", 15, 7),
        "`doi` \"doi:10.1145/3503221.3508418\" is malformed",
    );
}

#[test]
fn identifier_that_disagrees_with_the_url() {
    let stderr = problems_after(|t| t.replace("arxiv = \"2401.10241\"", "arxiv = \"2401.10242\""));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 27, 9),
        "`arxiv` \"2401.10242\" disagrees with the url, which carries \"2401.10241\"",
    );
}

#[test]
fn identifier_the_url_carries_but_the_entry_lacks() {
    let stderr = problems_after(|t| t.replace("arxiv = \"2401.10241\"\n", ""));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 18, 1),
        "the url carries arxiv \"2401.10241\"",
    );
}

#[test]
fn year_out_of_range() {
    let stderr = problems_after(|t| t.replace("year = 2019", "year = 1989"));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 14, 8),
        "year 1989 is outside 1990..",
    );
}

#[test]
fn empty_title() {
    let stderr = problems_after(|t| t.replace("\"Zero Bubble Pipeline Parallelism\"", "\"  \""));
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 21, 9),
        "title is empty",
    );
}

#[test]
fn entry_without_tags_or_note() {
    let stderr = problems_after(|t| {
        t.replace("tags = [\"pipeline-parallelism\"]", "tags = []")
            .replace(
                "note = \"Splits the backward pass so weight-gradient work fills idle slots.\"",
                "note = \"\"",
            )
    });
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 28, 8),
        "entry `zero-bubble-2024` has no tags",
    );
    assert_reports(
        &stderr,
        &at("pipeline-parallelism.toml", 29, 8),
        "entry `zero-bubble-2024` has an empty note",
    );
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let stderr = problems_after(|t| {
        t.replace("year = 2019", "year = 3019")
            .replace("tags = [\"pipeline-parallelism\"]", "tags = [\"nope\"]")
            .replace("id = \"zero-bubble-2024\"", "id = \"Zero Bubble\"")
    });
    assert!(stderr.contains("year 3019"), "{stderr}");
    assert!(stderr.contains("unknown tag `nope`"), "{stderr}");
    assert!(
        stderr.contains("id `Zero Bubble` must be lower-case"),
        "{stderr}"
    );
    assert!(stderr.contains("error: 3 problems"), "{stderr}");
}

#[test]
fn alias_shared_by_two_tags() {
    let fixture = Fixture::new();
    fixture.write(
        "tags.toml",
        &common::TAGS.replace("\"NCCL\"", "\"NCCL\", \"MoE\""),
    );
    let output = fixture.cmd().arg("check").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_of(&output).contains("alias \"MoE\" of tag `collective-communication` is also a name of tag `mixture-of-experts`"), "{}", stderr_of(&output));
}

#[test]
fn invalid_utf8_is_a_problem_not_a_crash() {
    let fixture = Fixture::new();
    std::fs::write(
        fixture.catalog().join("broken.toml"),
        b"[section]\nname = \"caf\xe9\"\n",
    )
    .unwrap();
    let output = fixture.cmd().arg("check").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_reports(
        &stderr_of(&output),
        &at("broken.toml", 2, 12),
        "file is not valid UTF-8",
    );
}

#[test]
fn missing_catalog_folder_is_a_usage_error() {
    let fixture = Fixture::new();
    let output = fixture
        .cmd()
        .args(["--catalog", "nowhere", "check"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_of(&output).contains("catalog folder nowhere does not exist"));
}

#[test]
fn shipped_catalog_is_clean_with_every_list_entry() {
    let output = assert_cmd::Command::cargo_bin("distml-search")
        .unwrap()
        .args([
            "--catalog",
            concat!(env!("CARGO_MANIFEST_DIR"), "/catalog"),
            "check",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(
        stdout_of(&output).contains("ok: 94 entries (80 papers, 14 projects) in 14 sections"),
        "{}",
        stdout_of(&output)
    );
}
