//! `import` merges an awesome list into a catalog without touching curated
//! entries; `export --format markdown` writes one that imports back unchanged.

mod common;

use common::{Fixture, stderr_of, stdout_of};

const LIST: &str = include_str!("fixtures/awesome-list.md");

fn list_fixture() -> Fixture {
    let fixture = Fixture::new();
    std::fs::write(fixture.dir.path().join("list.md"), LIST).unwrap();
    fixture
}

#[test]
fn import_into_an_empty_folder_creates_sections_and_entries() {
    let fixture = list_fixture();
    let output = fixture
        .cmd()
        .args(["--catalog", "fresh", "import", "list.md"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert!(
        stdout_of(&output).contains("added 8 entries (3 new section files)"),
        "{}",
        stdout_of(&output)
    );
    let fresh = fixture.dir.path().join("fresh");
    let pipelines = std::fs::read_to_string(fresh.join("pipeline-parallelism.toml")).unwrap();
    assert!(
        pipelines.starts_with(
            "[section]\nname = \"Pipeline Parallelism\"\ngroup = \"Papers\"\norder = 2\n"
        ),
        "{pipelines}"
    );
    // The identifier is taken from the URL, without its version.
    assert!(pipelines.contains("url = \"https://arxiv.org/abs/2006.09503v3\"\nauthors = [\"Deepak Narayanan\"]\net_al = true\nvenue = \"ICML\"\nyear = 2021\narxiv = \"2006.09503\"\n"), "{pipelines}");
    assert!(
        pipelines.contains("venue = \"NeurIPS Workshop\"\nyear = 2023"),
        "{pipelines}"
    );
    let hybrid = std::fs::read_to_string(fresh.join("hybrid-parallelism-framework.toml")).unwrap();
    assert!(
        hybrid.contains("authors = [\"Colin Unger\", \"Zhihao Jia\"]\net_al = true"),
        "{hybrid}"
    );
    assert!(
        hybrid.contains("authors = [\"Peng Liang\"]\nvenue = \"techrxiv\""),
        "{hybrid}"
    );
    assert!(
        hybrid.contains("doi = \"10.1145/3572848.3577487\""),
        "{hybrid}"
    );
    let projects = std::fs::read_to_string(fresh.join("open-source-projects.toml")).unwrap();
    assert!(projects.contains("id = \"oneflow\"\nkind = \"project\"\ntitle = \"OneFlow: A Performance-Centered and Open-Source Deep Learning Framework\"\nurl = \"https://www.oneflow.org\""), "{projects}");
    // Navigation and the "Contribute" section are not entries.
    assert!(!projects.contains("#papers") && !hybrid.contains("example.org/issues"));
}

#[test]
fn import_keeps_curated_entries_and_appends_new_ones() {
    let fixture = list_fixture();
    let before = fixture.read("pipeline-parallelism.toml");
    let output = fixture.cmd().args(["import", "list.md"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    let stdout = stdout_of(&output);
    // GPipe and Megatron-LM match existing entries by URL.
    assert!(
        stdout
            .contains("added 6 entries (1 new section files); 2 already in the catalog, unchanged"),
        "{stdout}"
    );
    let after = fixture.read("pipeline-parallelism.toml");
    assert!(
        after.starts_with(&before),
        "curated text must be kept as written"
    );
    assert!(
        after.contains("id = \"memory-efficient-pipeline-parallel-dnn-2021\""),
        "{after}"
    );
    assert_eq!(after.matches("[[entry]]").count(), 4);
}

#[test]
fn import_matches_existing_entries_by_title_too() {
    let fixture = list_fixture();
    let moved = LIST.replace(
        "https://proceedings.neurips.cc/paper/2019/file/gpipe-Paper.pdf",
        "https://example.org/moved-gpipe",
    );
    std::fs::write(fixture.dir.path().join("list.md"), moved).unwrap();
    let stdout = stdout_of(
        &fixture
            .cmd()
            .args(["import", "--dry-run", "list.md"])
            .output()
            .unwrap(),
    );
    assert!(!stdout.contains("GPipe"), "{stdout}");
}

#[test]
fn dry_run_prints_the_plan_and_writes_nothing() {
    let fixture = list_fixture();
    let before = fixture.read("pipeline-parallelism.toml");
    let output = fixture
        .cmd()
        .args(["import", "--dry-run", "list.md"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = stdout_of(&output);
    assert!(stdout.contains("+ catalog/pipeline-parallelism.toml: ring-attention-blockwise-2023 (Ring Attention with Blockwise Transformers for Near-Infinite Context)"), "{stdout}");
    assert!(stdout.contains("would add 6 entries"), "{stdout}");
    assert_eq!(fixture.read("pipeline-parallelism.toml"), before);
    assert!(
        !fixture
            .catalog()
            .join("hybrid-parallelism-framework.toml")
            .exists()
    );
}

#[test]
fn export_then_import_changes_nothing() {
    let fixture = Fixture::new();
    let output = fixture
        .cmd()
        .args(["export", "--format", "markdown", "-o", "list.md"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    let exported = std::fs::read_to_string(fixture.dir.path().join("list.md")).unwrap();
    assert!(exported.contains("- [GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism](https://proceedings.neurips.cc/paper/2019/file/gpipe-Paper.pdf) by Yanping Huang et al., NeurIPS 2019\n"), "{exported}");
    assert!(
        exported.contains("  - [Mixture-of-Experts System](#mixture-of-experts-system)\n"),
        "{exported}"
    );

    let stdout = stdout_of(&fixture.cmd().args(["import", "list.md"]).output().unwrap());
    assert!(
        stdout
            .contains("added 0 entries (0 new section files); 4 already in the catalog, unchanged"),
        "{stdout}"
    );

    // Into an empty folder, the same sections and fields come back.
    fixture
        .cmd()
        .args(["--catalog", "again", "import", "list.md"])
        .assert()
        .success();
    let again = fixture
        .cmd()
        .args(["--catalog", "again", "export"])
        .output()
        .unwrap();
    let reexported = stdout_of(&again);
    assert_eq!(reexported, exported);
}

#[test]
fn export_escapes_markdown_in_titles() {
    let fixture = Fixture::new();
    fixture.write(
        "pipeline-parallelism.toml",
        &common::PIPELINES.replace(
            "Zero Bubble Pipeline Parallelism",
            "Zero [Bubble] *Pipeline* Parallelism &amp; more",
        ),
    );
    fixture
        .cmd()
        .args(["export", "-o", "list.md"])
        .assert()
        .success();
    fixture
        .cmd()
        .args(["--catalog", "again", "import", "list.md"])
        .assert()
        .success();
    let again = std::fs::read_to_string(fixture.dir.path().join("again/pipeline-parallelism.toml"))
        .unwrap();
    assert!(
        again.contains("title = \"Zero [Bubble] *Pipeline* Parallelism &amp; more\""),
        "{again}"
    );
}

#[test]
fn importing_a_file_without_entries_is_an_error() {
    let fixture = Fixture::new();
    std::fs::write(
        fixture.dir.path().join("empty.md"),
        "# Nothing\n\nJust text.\n",
    )
    .unwrap();
    let output = fixture.cmd().args(["import", "empty.md"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_of(&output).contains("empty.md: no list items with links found"));
}

#[test]
fn completions_and_man_page() {
    let fixture = Fixture::new();
    let bash = stdout_of(
        &fixture
            .cmd()
            .args(["completions", "bash"])
            .output()
            .unwrap(),
    );
    assert!(bash.contains("distml-search") && bash.contains("--catalog"));
    let man = stdout_of(&fixture.cmd().arg("man").output().unwrap());
    assert!(
        man.starts_with(".ie") || man.contains(".TH distml-search"),
        "{man}"
    );
}
