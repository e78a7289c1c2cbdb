//! What a new user tripped on: names after a `-`, names cased as names,
//! colons that are text, ids given as URLs or names, listings on a pipe.

mod common;

use common::{Fixture, MOE, PIPELINES, PROJECTS, TAGS};

/// Fictional collective-communication works: one named for the tag's
/// alias "ZORCL", and one that is not.
const COLLECTIVES: &str = r#"[section]
name = "Collectives"
order = 4

[[entry]]
id = "zorclang-2023"
kind = "paper"
title = "ZORCLang: A Make-Believe Collective Communication Language"
url = "https://example.org/zorclang"
authors = ["Dee Fiction"]
venue = "FICT"
year = 2023
tags = ["collective-communication"]
note = "Writes pretend collective algorithms as chunk movements."

[[entry]]
id = "ringwise-2022"
kind = "paper"
title = "Ringwise: Topology-Aware Collective Communication for LLM Training"
url = "https://example.org/ringwise"
authors = ["Eve Invented"]
venue = "FICT"
year = 2022
tags = ["collective-communication"]
note = "Picks rings and trees for pretend all-reduce on imaginary clusters with 2:4 sparse gradients."
"#;

/// A technique no fixture work is about, though some share its words.
const GRADIENT_COMPRESSION: &str = r#"
[[tag]]
id = "gradient-compression"
label = "Gradient compression"
category = "communication"
description = "Quantized or sparsified gradients to cut communication."
aliases = ["compressed gradients"]
"#;

fn fixture() -> Fixture {
    let tags = TAGS.replace(r#""NCCL"]"#, r#""NCCL", "ZORCL"]"#) + GRADIENT_COMPRESSION;
    Fixture::with_files(&[
        ("tags.toml", &tags),
        ("open-source-projects.toml", PROJECTS),
        ("pipeline-parallelism.toml", PIPELINES),
        ("mixture-of-experts-system.toml", MOE),
        ("collectives.toml", COLLECTIVES),
    ])
}

#[test]
fn excluding_the_start_of_a_works_name_takes_the_work_out() {
    let fixture = fixture();
    let all = fixture
        .run(["search", "--json", "collective communication"])
        .success()
        .ids();
    assert!(all.contains(&"zorclang-2023".to_string()), "{all:?}");
    let run = fixture
        .run(["search", "--json", "collective communication -zorcl"])
        .success();
    let without = run.ids();
    assert!(
        !without.contains(&"zorclang-2023".to_string()),
        "{without:?}"
    );
    assert!(
        without.contains(&"ringwise-2022".to_string()),
        "{without:?}"
    );
}

#[test]
fn a_short_name_the_index_lacks_is_not_repaired_into_a_word() {
    fixture()
        .run(["search", "vLLM"])
        .code(1)
        .stdout_is("")
        .stderr_lacks("searched for")
        .stderr_has("no results for \"vLLM\": no work in the index names it");
    // A misspelt word is still repaired.
    fixture()
        .run(["search", "--json", "colective"])
        .success()
        .stderr_has("searched for collective (not colective)");
}

#[test]
fn a_colon_after_what_no_field_is_named_is_text() {
    let run = fixture().run(["search", "--json", "2:4 sparse"]).success();
    assert_eq!(run.ids()[0], "ringwise-2022");
    // A field's name misspelt is still an error that says where.
    fixture()
        .run(["search", "autor:fiction"])
        .code(2)
        .stderr_has("unknown field `autor:` at column 1");
}

#[test]
fn show_and_similar_take_a_pasted_url_a_unique_start_or_a_works_name() {
    let fixture = fixture();
    let shown = |id: &str| {
        fixture.run(["show", "--json", id]).success().json()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        shown("https://arxiv.org/abs/2401.10241v2"),
        "zero-bubble-2024"
    );
    assert_eq!(
        shown("https://arxiv.org/pdf/2401.10241"),
        "zero-bubble-2024"
    );
    assert_eq!(
        shown("https://dl.acm.org/doi/10.1145/3503221.3508418"),
        "fastermoe-2022"
    );
    assert_eq!(shown("https://example.org/zorclang/"), "zorclang-2023");
    assert_eq!(shown("gpipe"), "gpipe-2019");
    assert_eq!(shown("FasterMoE"), "fastermoe-2022");
    // An entry's own id wins over the start of another's.
    assert_eq!(shown("megatron-lm"), "megatron-lm");
    let similar = fixture.run(["similar", "--json", "gpipe"]).success();
    assert!(!similar.ids().contains(&"gpipe-2019".to_string()));
    // Ambiguous: still an error with the candidates.
    fixture
        .run(["show", "z"])
        .code(2)
        .stderr_has("no entry with id `z`");
}

#[test]
fn a_listing_on_a_pipe_keeps_whole_titles() {
    let fixture = fixture();
    let title = "Ringwise: Topology-Aware Collective Communication for LLM Training";
    let piped = fixture
        .cmd()
        .env_remove("COLUMNS")
        .arg("list")
        .run()
        .success();
    assert!(piped.stdout().contains(title), "{}", piped.stdout());
    // COLUMNS asks for lines cut to it.
    let cut = (fixture.cmd().env("COLUMNS", "60"))
        .arg("list")
        .run()
        .success();
    assert!(!cut.stdout().contains(title));
    assert!(
        cut.stdout().lines().all(|l| l.chars().count() <= 60),
        "{}",
        cut.stdout()
    );
}

#[test]
fn an_empty_inbox_says_why() {
    let fixture = fixture();
    fixture
        .run(["inbox"])
        .code(1)
        .stderr_has("no candidates: the arxiv collection is empty");
    fixture.import_snapshot(&common::inbox_stream());
    fixture
        .run(["inbox", "--since", "2999-01-01"])
        .code(1)
        .stderr_has("no candidates since that day");
}

#[test]
fn every_error_has_one_prefix_and_queries_are_quoted_as_typed() {
    let fixture = fixture();
    let run = fixture.run(["search", "--limit", "x", "pipeline"]).code(2);
    assert!(
        run.stderr()
            .starts_with("distml-search: error: invalid value 'x' for '--limit <N>'"),
        "{}",
        run.stderr()
    );
    fixture
        .run(["search", "\"zzqx unclosed"])
        .code(1)
        .stderr_has("no results for '\"zzqx unclosed':");
}

#[test]
fn a_technique_no_work_is_about_is_said_so() {
    let fixture = fixture();
    fixture.run(["search", "gradient compression"]).stderr_has(
        "note: no work in the index is about gradient-compression; these only share its words",
    );
    fixture
        .run(["search", "collective communication"])
        .success()
        .stderr_lacks("no work in the index is about");
}

/// A list that links a catalog work's preprint (an arXiv id) where the
/// catalog links its published version (a DOI) lists the same work.
#[test]
fn importing_a_works_preprint_finds_its_published_entry_by_title() {
    let fixture = fixture();
    fixture.write(
        "../list.md",
        "# Papers\n\n## Mixture of Experts\n\n- [FasterMoE: Modeling and Optimizing Training of Large-Scale Dynamic Pre-Trained Models](https://arxiv.org/abs/1412.99977)\n",
    );
    let before = fixture.run(["list", "--json"]).success().ids();
    fixture
        .run(["import", "list.md"])
        .success()
        .stdout_has("added 0 entries (0 new section files); 1 already in the catalog, unchanged");
    assert_eq!(fixture.run(["list", "--json"]).success().ids(), before);
}

/// Outside a catalog folder, a dry run says what the import itself needs.
#[test]
fn a_dry_run_outside_a_catalog_folder_says_how_to_import() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("list.md"),
        "# Papers\n\n- [Glimmer: Make-Believe Widgets](https://example.org/glimmer)\n",
    )
    .unwrap();
    let dry = common::Cmd::bare()
        .in_dir(dir.path())
        .args(["import", "list.md", "--dry-run"])
        .run()
        .success();
    assert!(
        dry.stderr()
            .contains("note: compared with the built-in catalog; to import, pass --catalog DIR"),
        "{}",
        dry.stderr()
    );
    // What it says works.
    common::Cmd::bare()
        .in_dir(dir.path())
        .args(["--catalog", "mine", "import", "list.md"])
        .run()
        .success()
        .stdout_has("added 1 entry");
}

/// The shipped catalog spells arXiv as imported records do, so that the
/// page's venue facet shows one "arXiv", not "arXiv" and "arxiv".
#[test]
fn the_shipped_catalog_spells_arxiv_as_imported_records_do() {
    let index = tempfile::tempdir().unwrap();
    let run = common::Cmd::bare()
        .env("DISTML_OFFLINE", "1")
        .args([
            "--catalog",
            concat!(env!("CARGO_MANIFEST_DIR"), "/catalog"),
            "--index",
        ])
        .arg(index.path())
        .args(["stats", "--json"])
        .run()
        .success();
    let venues: Vec<String> = (run.json()["by_venue"].as_array().unwrap().iter())
        .map(|v| v["venue"].as_str().unwrap().to_string())
        .collect();
    let arxiv: Vec<&String> = (venues.iter())
        .filter(|v| v.eq_ignore_ascii_case("arxiv"))
        .collect();
    assert_eq!(arxiv, ["arXiv"], "{venues:?}");
}

/// A list grouped by year in `<details>` blocks, with topic headings in
/// each: the topics are the sections, one per topic across the years, and
/// a year's block dates the papers that give no year of their own.
const BY_YEAR: &str = "# Awesome Imaginary Models

## Papers

<details><summary>2024</summary>

### Pre-training

- [Wombat: Pretend Pre-training at Scale](https://arxiv.org/abs/2999.07001) by Ada Quillfeather et al.
- [Dingo: Imaginary Data Mixtures](https://arxiv.org/abs/2999.07002) by Bo Tumbleweed, NeurIPS 2023

### LLM serving

- [Quokka: Serving Made-up Models](https://arxiv.org/abs/2999.07003) by Cy Larkspur et al.

</details>

<details><summary>Before 2024</summary>

### Pre-training

- [Numbat: Fictional Scaling Laws](https://arxiv.org/abs/2999.07004) by Di Marrowby et al., ICML 2022
- [Bilby: Pretend Curricula](https://arxiv.org/abs/2999.07005) by Ed Thistlewood

### Agent systems

- [Potoroo: Invented Tool Use](https://arxiv.org/abs/2999.07006) by Flo Brackenridge, COLM 2023

</details>
";

#[test]
fn a_list_grouped_by_year_keeps_its_topics_as_sections() {
    let fixture = Fixture::new();
    std::fs::write(fixture.dir.path().join("list.md"), BY_YEAR).unwrap();
    let fresh = || common::Cmd::new(&fixture).args(["--catalog", "fresh"]);
    fresh().args(["import", "list.md"]).run().success();
    let mut files: Vec<String> = std::fs::read_dir(fixture.dir.path().join("fresh"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml") && n != "tags.toml" && n != "list.toml")
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "agent-systems.toml",
            "llm-serving.toml",
            "pre-training.toml"
        ]
    );
    let listed = fresh().args(["list", "--json"]).run().success();
    let by_id: Vec<(String, String, Option<i64>)> = listed
        .json_lines()
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_string(),
                e["section"].as_str().unwrap().to_string(),
                e["year"].as_i64(),
            )
        })
        .collect();
    let expected = [
        ("wombat-2024", "Pre-training", Some(2024)),
        ("dingo-2023", "Pre-training", Some(2023)),
        ("numbat-2022", "Pre-training", Some(2022)),
        ("bilby", "Pre-training", None),
        ("quokka-2024", "LLM serving", Some(2024)),
        ("potoroo-2023", "Agent systems", Some(2023)),
    ]
    .map(|(id, section, year)| (id.to_string(), section.to_string(), year));
    assert_eq!(by_id, expected);
    // The list comes back as it was written.
    fresh().arg("export").run().success().stdout_is(BY_YEAR);
}

/// The same, with the years inside each topic.
#[test]
fn a_list_with_years_inside_its_topics_keeps_the_topics() {
    let fixture = Fixture::new();
    let list = "# Awesome Imaginary Models\n\n## Pre-training\n\n<details><summary>2024</summary>\n\n- [Wombat: Pretend Pre-training at Scale](https://arxiv.org/abs/2999.07001) by Ada Quillfeather et al.\n\n</details>\n\n<details><summary>Before 2024</summary>\n\n- [Numbat: Fictional Scaling Laws](https://arxiv.org/abs/2999.07004) by Di Marrowby et al., ICML 2022\n\n</details>\n\n## LLM serving\n\n<details><summary>2024</summary>\n\n- [Quokka: Serving Made-up Models](https://arxiv.org/abs/2999.07003) by Cy Larkspur et al.\n\n</details>\n";
    std::fs::write(fixture.dir.path().join("list.md"), list).unwrap();
    let fresh = || common::Cmd::new(&fixture).args(["--catalog", "fresh"]);
    fresh().args(["import", "list.md"]).run().success();
    let listed = fresh().args(["list", "--json"]).run().success();
    let lines = listed.json_lines();
    let sections: Vec<(&str, &str)> = lines
        .iter()
        .map(|e| (e["id"].as_str().unwrap(), e["section"].as_str().unwrap()))
        .collect();
    assert_eq!(
        sections,
        [
            ("wombat-2024", "Pre-training"),
            ("numbat-2022", "Pre-training"),
            ("quokka-2024", "LLM serving"),
        ]
    );
    fresh().arg("export").run().success().stdout_is(list);
}

/// A work that only uses a technique, beside works about it.
const USES_PIPELINES: &str = r#"[section]
name = "Collectives"
order = 4

[[entry]]
id = "ringwise-2022"
kind = "paper"
title = "Ringwise: Topology-Aware Collective Communication for LLM Training"
url = "https://example.org/ringwise"
authors = ["Eve Invented"]
venue = "FICT"
year = 2022
tags = ["collective-communication"]
uses = ["pipeline-parallelism"]
note = "Picks rings and trees for pretend all-reduce between pipeline stages."
"#;

/// `--tag` holds the works about a technique and those that only use it;
/// `--about` (`about:`) only the first, and `stats` says which it counts.
#[test]
fn works_about_a_tag_are_told_from_works_that_use_it() {
    let fixture = Fixture::with_files(&[
        ("tags.toml", TAGS),
        ("pipeline-parallelism.toml", PIPELINES),
        ("collectives.toml", USES_PIPELINES),
    ]);
    let sorted = |mut ids: Vec<String>| {
        ids.sort();
        ids
    };
    let tagged = fixture
        .run(["search", "--json", "--tag", "pipeline-parallelism"])
        .success()
        .ids();
    assert_eq!(
        sorted(tagged),
        ["gpipe-2019", "ringwise-2022", "zero-bubble-2024"]
    );
    let about = ["gpipe-2019", "zero-bubble-2024"];
    for args in [
        &["search", "--json", "--about", "pipeline-parallelism"][..],
        &["search", "--json", "about:pipeline-parallelism"],
        &[
            "search",
            "--json",
            "pipeline about:\"pipeline parallelism\"",
        ],
        &["list", "--json", "--about", "pipeline-parallelism"],
    ] {
        assert_eq!(sorted(fixture.run(args).success().ids()), about, "{args:?}");
    }
    fixture
        .run(["search", "--about", "pipeline-paralelism"])
        .code(2)
        .stderr_has("--about pipeline-paralelism: unknown tag (closest: pipeline-parallelism");
    let stats = fixture.run(["stats", "--json"]).success().json();
    let pipelines = stats["by_tag"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tag"] == "pipeline-parallelism")
        .cloned();
    assert_eq!(
        pipelines,
        Some(serde_json::json!({"tag": "pipeline-parallelism", "entries": 2, "uses": 1}))
    );
    fixture
        .run(["stats"])
        .success()
        .stdout_has("by tag: works about it (primary tags), +works that only use it\n")
        .stdout_has("  pipeline-parallelism           2 +1");
}

/// A command on the shipped catalog, indexed in `index`.
fn shipped(index: &tempfile::TempDir) -> common::Cmd {
    common::Cmd::bare()
        .env("DISTML_OFFLINE", "1")
        .args([
            "--catalog",
            concat!(env!("CARGO_MANIFEST_DIR"), "/catalog"),
            "--index",
        ])
        .arg(index.path())
}

/// A technique asked for by name shows its reference work among the first
/// five: Megatron-LM's paper (PTD-P), about tensor, pipeline and hybrid
/// parallelism as its project is, tied with every other work tagged
/// tensor parallelism and scored below those with fewer tags.
#[test]
fn a_technique_asked_by_name_shows_its_reference_work() {
    let index = tempfile::tempdir().unwrap();
    for query in [
        "TP",
        "tensor parallelism",
        "3D parallelism",
        "model parallelism",
    ] {
        let ids = shipped(&index)
            .args(["search", "--json", "-n", "5", query])
            .run()
            .success()
            .ids();
        assert!(
            ids.iter().any(|id| id == "megatron-lm-2021"),
            "{query}: {ids:?}"
        );
    }
}

/// The works most like a training work are training works: ZeRO's are
/// the other sharded data parallel libraries and memory savers, not an
/// inference system that shares a few of its note's words.
#[test]
fn similar_to_a_training_work_shows_training_works_first() {
    let index = tempfile::tempdir().unwrap();
    let run = shipped(&index)
        .args(["similar", "--json", "-n", "5", "zero-2020"])
        .run()
        .success();
    let hits = run.json_lines();
    let serving: Vec<&str> = (hits.iter())
        .filter(|h| (h["tags"].as_array().unwrap().iter()).any(|t| t == "inference-serving"))
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert_eq!(serving, Vec::<&str>::new(), "{:?}", run.ids());
    assert!(
        run.ids().iter().any(|id| id == "fairscale"),
        "{:?}",
        run.ids()
    );
}
