//! `distml-search check`: a clean catalog gets a summary; each class of
//! problem is reported at its exact file:line:column, with exit status 2.
//! Problem lines are compared whole: editors and CI parse them.

mod common;

use common::{Cmd, Fixture, PIPELINES, Run, at};

/// `check` on the fixture with `PIPELINES` edited by `edit`.
fn check_after(edit: impl FnOnce(&str) -> String) -> Run {
    let fixture = Fixture::new();
    fixture.write("pipeline-parallelism.toml", &edit(PIPELINES));
    fixture.run(["check"])
}

/// Exit status 2, and stderr exactly these problem lines and their count.
#[track_caller]
fn reports(run: Run, problems: &[(String, &str)]) {
    let mut expected: String = problems
        .iter()
        .map(|(location, message)| format!("{location}{message}\n"))
        .collect();
    let plural = if problems.len() == 1 { "" } else { "s" };
    expected.push_str(&format!(
        "distml-search: error: {} problem{plural} in catalog\n",
        problems.len()
    ));
    run.code(2).stderr_is(&expected).stdout_is("");
}

fn pipelines(line: u32, column: u32) -> String {
    at("pipeline-parallelism.toml", line, column)
}

#[test]
fn clean_catalog_prints_a_summary_and_exits_0() {
    Fixture::new().run(["check"]).success().stderr_is("").stdout_is(
        "catalog: ok: 4 entries (3 papers, 1 project) in 3 sections, 4 tags

  Open Source Projects                 1
  Pipeline Parallelism                 2
  Mixture-of-Experts System            1

  most used primary tags: pipeline-parallelism 3, activation-recomputation 2, collective-communication 1, mixture-of-experts 1
",
    );
}

#[test]
fn a_tag_no_work_has_is_listed_unless_it_gathers_narrower_tags() {
    let fixture = Fixture::new();
    let tags = common::TAGS.replace(
        "category = \"memory\"\n",
        "category = \"memory\"\nbroader = [\"memory-limits\"]\n",
    );
    fixture.write(
        "tags.toml",
        &format!(
            "{tags}
[[tag]]
id = \"memory-limits\"
label = \"Memory limits\"
category = \"memory\"
description = \"Gathers the ways to fit in memory.\"
aliases = [\"OOM\"]
deliberate = [\"OOM\"]

[[tag]]
id = \"zorbling\"
label = \"Zorbling\"
category = \"model\"
description = \"A technique no work has.\"
"
        ),
    );
    fixture
        .run(["check"])
        .success()
        .stdout_has("4 entries (3 papers, 1 project) in 3 sections, 6 tags")
        .stdout_has("\n  unused tags: zorbling\n");
}

#[test]
fn toml_syntax_error() {
    let run = check_after(|t| t.replace("year = 2019", "year = 2019 ]"));
    reports(
        run,
        &[(
            pipelines(14, 13),
            "TOML syntax: unexpected key or value, expected newline, `#`",
        )],
    );
}

#[test]
fn unknown_field() {
    let run = check_after(|t| t.replace("year = 2024\n", "year = 2024\nyaer = 2024\n"));
    reports(
        run,
        &[(
            pipelines(27, 1),
            "unknown field `yaer` in [[entry]] (expected one of: id, kind, title, url, authors, et_al, venue, year, arxiv, doi, links, description, tags, uses, project, note, draft)",
        )],
    );
}

#[test]
fn missing_field_points_at_the_entry() {
    let run = check_after(|t| t.replace("title = \"Zero Bubble Pipeline Parallelism\"\n", ""));
    reports(
        run,
        &[(
            pipelines(18, 1),
            "[[entry]] is missing required field `title`",
        )],
    );
}

#[test]
fn wrong_type() {
    let run = check_after(|t| t.replace("year = 2019", "year = \"2019\""));
    reports(
        run,
        &[(
            pipelines(14, 8),
            "field `year` must be an integer, found string",
        )],
    );
}

#[test]
fn duplicate_id_names_the_first_use() {
    let run = check_after(|t| t.replace("id = \"zero-bubble-2024\"", "id = \"gpipe-2019\""));
    reports(
        run,
        &[(
            pipelines(19, 6),
            "duplicate id `gpipe-2019` (first used at catalog/pipeline-parallelism.toml:7:6)",
        )],
    );
}

#[test]
fn duplicate_url_across_versions() {
    let run = check_after(|t| {
        t.replace(
            "https://proceedings.neurips.cc/paper/2019/file/gpipe-Paper.pdf",
            "https://arxiv.org/abs/2401.10241v2",
        )
        .replace(
            "venue = \"NeurIPS\"",
            "venue = \"NeurIPS\"\narxiv = \"2401.10241\"",
        )
    });
    reports(
        run,
        &[(
            pipelines(23, 7),
            "duplicate url https://arxiv.org/abs/2401.10241 (also at catalog/pipeline-parallelism.toml:10:7)",
        )],
    );
}

#[test]
fn duplicate_title_ignores_case_and_punctuation() {
    let run = check_after(|t| {
        t.replace(
            "\"Zero Bubble Pipeline Parallelism\"",
            "\"GPipe - efficient training of giant neural networks using pipeline parallelism\"",
        )
    });
    reports(
        run,
        &[(
            pipelines(21, 9),
            "duplicate title \"GPipe - efficient training of giant neural networks using pipeline parallelism\" (also at catalog/pipeline-parallelism.toml:9:9)",
        )],
    );
}

#[test]
fn unknown_tag_points_at_the_element() {
    let run = check_after(|t| {
        t.replace(
            "tags = [\"pipeline-parallelism\"]",
            "tags = [\"pipeline-parallelism\", \"pipeline-paralelism\"]",
        )
    });
    reports(
        run,
        &[(
            pipelines(28, 33),
            "unknown tag `pipeline-paralelism` (not in tags.toml)",
        )],
    );
}

#[test]
fn malformed_arxiv_id() {
    let run = check_after(|t| t.replace("arxiv = \"2401.10241\"", "arxiv = \"2401.10241v2\""));
    reports(
        run,
        &[(
            pipelines(27, 9),
            "`arxiv` \"2401.10241v2\" is malformed: expected an arXiv id such as 2006.09503 (no version suffix)",
        )],
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
    reports(
        fixture.run(["check"]),
        &[(
            at("mixture-of-experts-system.toml", 15, 7),
            "`doi` \"doi:10.1145/3503221.3508418\" is malformed: expected a DOI such as 10.1145/3341301.3359646",
        )],
    );
}

#[test]
fn identifier_that_disagrees_with_the_url() {
    let run = check_after(|t| t.replace("arxiv = \"2401.10241\"", "arxiv = \"2401.10242\""));
    reports(
        run,
        &[(
            pipelines(27, 9),
            "`arxiv` \"2401.10242\" disagrees with the url, which carries \"2401.10241\"",
        )],
    );
}

#[test]
fn identifier_the_url_carries_but_the_entry_lacks() {
    let run = check_after(|t| t.replace("arxiv = \"2401.10241\"\n", ""));
    reports(
        run,
        &[(
            pipelines(18, 1),
            "the url carries arxiv \"2401.10241\": add `arxiv = \"2401.10241\"`",
        )],
    );
}

#[test]
fn year_out_of_range() {
    // The range ends a year after this one.
    let range = format!(
        "year 1989 is outside 1990..{}",
        distml_search::clock::current_year() + 1
    );
    let run = check_after(|t| t.replace("year = 2019", "year = 1989"));
    reports(run, &[(pipelines(14, 8), &range)]);
}

#[test]
fn empty_title() {
    let run = check_after(|t| t.replace("\"Zero Bubble Pipeline Parallelism\"", "\"  \""));
    reports(run, &[(pipelines(21, 9), "title is empty")]);
}

#[test]
fn entry_without_tags_or_note() {
    let run = check_after(|t| {
        t.replace("tags = [\"pipeline-parallelism\"]", "tags = []")
            .replace(
                "note = \"Splits the backward pass so weight-gradient work fills idle slots.\"",
                "note = \"\"",
            )
    });
    reports(
        run,
        &[
            (pipelines(28, 8), "entry `zero-bubble-2024` has no tags"),
            (
                pipelines(29, 8),
                "entry `zero-bubble-2024` has an empty note",
            ),
        ],
    );
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let run = check_after(|t| {
        t.replace("year = 2019", "year = 3019")
            .replace("tags = [\"pipeline-parallelism\"]", "tags = [\"nope\"]")
            .replace("id = \"zero-bubble-2024\"", "id = \"Zero Bubble\"")
    });
    let range = format!(
        "year 3019 is outside 1990..{}",
        distml_search::clock::current_year() + 1
    );
    reports(
        run,
        &[
            (pipelines(14, 8), &range),
            (
                pipelines(19, 6),
                "id `Zero Bubble` must be lower-case letters, digits and single dashes",
            ),
            (pipelines(28, 9), "unknown tag `nope` (not in tags.toml)"),
        ],
    );
}

#[test]
fn alias_shared_by_two_tags() {
    let fixture = Fixture::new();
    fixture.write(
        "tags.toml",
        &common::TAGS.replace("\"NCCL\"", "\"NCCL\", \"Mixture-of-Experts\""),
    );
    reports(
        fixture.run(["check"]),
        &[(
            at("tags.toml", 24, 6),
            "alias \"Mixture-of-Experts\" of tag `collective-communication` is also a name of tag `mixture-of-experts`",
        )],
    );
}

#[test]
fn an_alias_that_is_an_english_word_must_be_deliberate() {
    let fixture = Fixture::new();
    fixture.write(
        "tags.toml",
        &common::TAGS.replace("\"NCCL\"", "\"NCCL\", \"collectives\""),
    );
    reports(
        fixture.run(["check"]),
        &[(
            at("tags.toml", 24, 6),
            "alias \"collectives\" of tag `collective-communication` is the English word \"collectives\": list it in `deliberate` if it must stay",
        )],
    );
}

#[test]
fn a_tag_in_uses_must_be_known_and_not_also_primary() {
    reports(
        check_after(|text| {
            text.replacen(
                "tags = [\"pipeline-parallelism\"]",
                "tags = [\"pipeline-parallelism\"]\nuses = [\"pipeline-parallelism\", \"nope\"]",
                1,
            )
        }),
        &[
            (
                pipelines(29, 9),
                "tag `pipeline-parallelism` is in both `tags` and `uses`",
            ),
            (
                pipelines(29, 33),
                "unknown tag `nope` in `uses` (not in tags.toml)",
            ),
        ],
    );
}

#[test]
fn invalid_utf8_is_a_problem_not_a_crash() {
    let fixture = Fixture::new();
    std::fs::write(
        fixture.catalog().join("broken.toml"),
        b"[section]\nname = \"caf\xe9\"\n",
    )
    .unwrap();
    reports(
        fixture.run(["check"]),
        &[(at("broken.toml", 2, 12), "file is not valid UTF-8")],
    );
}

#[test]
fn missing_catalog_folder_is_a_usage_error() {
    Fixture::new()
        .run(["--catalog", "nowhere", "check"])
        .code(2)
        .stdout_is("")
        .stderr_is(
            "distml-search: error: catalog folder nowhere does not exist: pass --catalog DIR\n",
        );
}

#[test]
fn shipped_catalog_is_clean_with_every_list_entry() {
    Cmd::bare()
        .args([
            "--catalog",
            concat!(env!("CARGO_MANIFEST_DIR"), "/catalog"),
            "check",
        ])
        .run()
        .success()
        .stderr_is("")
        .stdout_has("ok: 94 entries (80 papers, 14 projects) in 14 sections");
}

#[test]
fn a_broader_tag_must_exist_and_not_lead_back_to_itself() {
    let fixture = Fixture::new();
    let tags = common::TAGS
        .replacen(
            "category = \"parallelism\"",
            "category = \"parallelism\"\nbroader = [\"collective-communication\"]",
            1,
        )
        .replacen(
            "category = \"communication\"",
            "category = \"communication\"\nbroader = [\"pipeline-parallelism\", \"nope\"]",
            1,
        );
    fixture.write("tags.toml", &tags);
    reports(
        fixture.run(["check"]),
        &[
            (
                at("tags.toml", 2, 6),
                "tag `pipeline-parallelism` is broader than itself through `broader`",
            ),
            (
                at("tags.toml", 25, 6),
                "tag `collective-communication` is broader than itself through `broader`",
            ),
            (
                at("tags.toml", 25, 6),
                "tag `collective-communication` names unknown tag `nope` as broader",
            ),
        ],
    );
}

#[test]
fn a_project_named_by_a_work_must_be_a_project_of_the_catalog() {
    let named = |project: &str| {
        check_after(|text| {
            text.replacen(
                "tags = [\"pipeline-parallelism\"]",
                &format!("tags = [\"pipeline-parallelism\"]\nproject = \"{project}\""),
                1,
            )
        })
    };
    reports(
        named("nope"),
        &[(
            at("pipeline-parallelism.toml", 29, 11),
            "`project` names `nope`, which is no entry of the catalog",
        )],
    );
    reports(
        named("gpipe-2019"),
        &[(
            at("pipeline-parallelism.toml", 29, 11),
            "`project` names `gpipe-2019`, which is a paper, not a project",
        )],
    );
}

#[test]
fn check_warns_of_control_and_bidi_characters_in_curated_fields() {
    let fixture = Fixture::invented();
    let text = fixture
        .read("invented-systems.toml")
        .replace(
            "title = \"Wobble: Pretend Pipelines",
            "title = \"Wobble: \\u202Eseniltsp\\u202C Pretend Pipelines",
        )
        .replace(
            "authors = [\"Carol Sample\"]",
            "authors = [\"Carol\\u0007 Sample\"]",
        );
    fixture.write("invented-systems.toml", &text);
    fixture
        .run(["check"])
        .success()
        .stderr_has("warning: title of `wobble-2021` holds U+202E")
        .stderr_has("warning: authors of `snarkshard-2023` holds U+0007");
}
