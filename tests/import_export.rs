//! `import` merges an awesome list into a catalog without touching curated
//! entries; `export --format markdown` writes one that imports back unchanged.

mod common;

use common::Fixture;

const LIST: &str = include_str!("fixtures/awesome-list.md");

fn list_fixture() -> Fixture {
    let fixture = Fixture::new();
    std::fs::write(fixture.dir.path().join("list.md"), LIST).unwrap();
    fixture
}

/// What importing the list adds to the fixture, as the plan prints it.
const PLAN: &str = "\
+ catalog/open-source-projects.toml: oneflow (OneFlow: A Performance-Centered and Open-Source Deep Learning Framework)
+ catalog/pipeline-parallelism.toml: memory-efficient-pipeline-parallel-dnn-2021 (Memory-Efficient Pipeline-Parallel DNN Training)
+ catalog/pipeline-parallelism.toml: ring-attention-blockwise-2023 (Ring Attention with Blockwise Transformers for Near-Infinite Context)
+ catalog/hybrid-parallelism-framework.toml: unity-2022 (Unity: Accelerating DNN Training Through Joint Optimization of Algebraic Transformations and Parallelization)
+ catalog/hybrid-parallelism-framework.toml: survey-auto-parallelism-neural-2022 (A Survey on Auto-Parallelism of Neural Networks Training)
+ catalog/hybrid-parallelism-framework.toml: pipad-2023 (PiPAD: Pipelined and Parallel Dynamic GNN Training on GPUs)
";

/// Sections written by importing the list into an empty folder: the
/// identifier taken from the URL without its version, "et al." kept, the
/// workshop in the venue, navigation and "Contribute" left out.
const FRESH_PIPELINES: &str = r#"[section]
name = "Pipeline Parallelism"
group = "Papers"
order = 2

[[entry]]
id = "gpipe-2019"
kind = "paper"
title = "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism"
url = "https://proceedings.neurips.cc/paper/2019/file/gpipe-Paper.pdf"
authors = ["Yanping Huang"]
et_al = true
venue = "NeurIPS"
year = 2019
tags = []
note = ""
draft = true

[[entry]]
id = "memory-efficient-pipeline-parallel-dnn-2021"
kind = "paper"
title = "Memory-Efficient Pipeline-Parallel DNN Training"
url = "https://arxiv.org/abs/2006.09503v3"
authors = ["Deepak Narayanan"]
et_al = true
venue = "ICML"
year = 2021
arxiv = "2006.09503"
tags = []
note = ""
draft = true

[[entry]]
id = "ring-attention-blockwise-2023"
kind = "paper"
title = "Ring Attention with Blockwise Transformers for Near-Infinite Context"
url = "https://arxiv.org/abs/2310.01889"
authors = ["Hao Liu"]
et_al = true
venue = "NeurIPS Workshop"
year = 2023
arxiv = "2310.01889"
tags = []
note = ""
draft = true
"#;
const FRESH_HYBRID: &str = r#"[section]
name = "Hybrid Parallelism & Framework"
group = "Papers"
order = 3

[[entry]]
id = "unity-2022"
kind = "paper"
title = "Unity: Accelerating DNN Training Through Joint Optimization of Algebraic Transformations and Parallelization"
url = "https://www.usenix.org/conference/osdi22/presentation/unger"
authors = ["Colin Unger", "Zhihao Jia"]
et_al = true
venue = "OSDI"
year = 2022
tags = []
note = ""
draft = true

[[entry]]
id = "survey-auto-parallelism-neural-2022"
kind = "paper"
title = "A Survey on Auto-Parallelism of Neural Networks Training"
url = "https://www.techrxiv.org/articles/preprint/19522414"
authors = ["Peng Liang"]
venue = "techrxiv"
year = 2022
tags = []
note = ""
draft = true

[[entry]]
id = "pipad-2023"
kind = "paper"
title = "PiPAD: Pipelined and Parallel Dynamic GNN Training on GPUs"
url = "https://dl.acm.org/doi/10.1145/3572848.3577487"
authors = ["Chunyang Wang"]
et_al = true
venue = "PPoPP"
year = 2023
doi = "10.1145/3572848.3577487"
tags = []
note = ""
draft = true
"#;
const FRESH_PROJECTS: &str = r#"[section]
name = "Open Source Projects"
order = 1

[[entry]]
id = "megatron-lm"
kind = "project"
title = "Megatron-LM: Ongoing Research Training Transformer Models at Scale"
url = "https://github.com/NVIDIA/Megatron-LM"
tags = []
note = ""
draft = true

[[entry]]
id = "oneflow"
kind = "project"
title = "OneFlow: A Performance-Centered and Open-Source Deep Learning Framework"
url = "https://www.oneflow.org"
tags = []
note = ""
draft = true
"#;

#[test]
fn import_into_an_empty_folder_says_what_it_added() {
    let fixture = list_fixture();
    let plan = format!(
        "{}{}",
        PLAN.replace("catalog/", "fresh/").replace(
            "+ fresh/open-source-projects.toml: oneflow",
            "+ fresh/open-source-projects.toml: megatron-lm (Megatron-LM: Ongoing Research Training Transformer Models at Scale)\n+ fresh/open-source-projects.toml: oneflow"
        ).replace(
            "+ fresh/pipeline-parallelism.toml: memory",
            "+ fresh/pipeline-parallelism.toml: gpipe-2019 (GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism)\n+ fresh/pipeline-parallelism.toml: memory"
        ),
        "+ fresh/tags.toml: the shipped tag vocabulary\n\
         added 8 entries (3 new section files); 0 already in the catalog, unchanged\n\
         new entries are drafts (`draft = true`): curate them; `distml-search check` says what each needs\n"
    );
    fixture
        .run(["--catalog", "fresh", "import", "list.md"])
        .success()
        .stdout_is(&plan);
}

#[test]
fn import_into_an_empty_folder_writes_one_file_per_section() {
    let fixture = list_fixture();
    fixture
        .run(["--catalog", "fresh", "import", "list.md"])
        .success();
    let fresh = fixture.dir.path().join("fresh");
    let read = |name: &str| std::fs::read_to_string(fresh.join(name)).unwrap();
    assert_eq!(read("pipeline-parallelism.toml"), FRESH_PIPELINES);
    assert_eq!(read("hybrid-parallelism-framework.toml"), FRESH_HYBRID);
    assert_eq!(read("open-source-projects.toml"), FRESH_PROJECTS);
    // And the vocabulary `check` needs, and the list's own text for export.
    let mut names: Vec<String> = std::fs::read_dir(&fresh)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            // The catalog's lock, which every writer takes.
            ".lock",
            "hybrid-parallelism-framework.toml",
            "list.toml",
            "open-source-projects.toml",
            "pipeline-parallelism.toml",
            "tags.toml"
        ]
    );
}

#[test]
fn import_keeps_curated_entries_and_appends_new_ones() {
    let fixture = list_fixture();
    let before = fixture.read("pipeline-parallelism.toml");
    // GPipe and Megatron-LM match existing entries by URL.
    fixture
        .run(["import", "list.md"])
        .success()
        .stdout_is(&format!(
            "{PLAN}added 6 entries (1 new section file); 2 already in the catalog, unchanged\n\
         new entries are drafts (`draft = true`): curate them; `distml-search check` says what each needs\n"
        ));
    let after = fixture.read("pipeline-parallelism.toml");
    assert!(
        after.starts_with(&before),
        "curated text must be kept as written"
    );
    let appended = &after[before.len()..];
    let fresh_entries = &FRESH_PIPELINES[FRESH_PIPELINES
        .find("[[entry]]\nid = \"memory-efficient")
        .unwrap()..];
    assert_eq!(appended, format!("\n{fresh_entries}"));
}

#[test]
fn import_matches_existing_entries_by_title_too() {
    let fixture = list_fixture();
    let moved = LIST.replace(
        "https://proceedings.neurips.cc/paper/2019/file/gpipe-Paper.pdf",
        "https://example.org/moved-gpipe",
    );
    std::fs::write(fixture.dir.path().join("list.md"), moved).unwrap();
    fixture
        .run(["import", "--dry-run", "list.md"])
        .success()
        .stdout_is(&format!(
            "{PLAN}would add 6 entries (1 new section file); 2 already in the catalog, unchanged\n"
        ));
}

#[test]
fn dry_run_prints_the_plan() {
    list_fixture()
        .run(["import", "--dry-run", "list.md"])
        .success()
        .stdout_is(&format!(
            "{PLAN}would add 6 entries (1 new section file); 2 already in the catalog, unchanged\n"
        ));
}

#[test]
fn dry_run_writes_nothing() {
    let fixture = list_fixture();
    let before = fixture.read("pipeline-parallelism.toml");
    fixture.run(["import", "--dry-run", "list.md"]).success();
    assert_eq!(fixture.read("pipeline-parallelism.toml"), before);
    assert!(
        !fixture
            .catalog()
            .join("hybrid-parallelism-framework.toml")
            .exists()
    );
}

/// The fixture exported as markdown to `list.md`; and the text.
fn exported() -> (Fixture, String) {
    let fixture = Fixture::new();
    fixture
        .run(["export", "--format", "markdown", "-o", "list.md"])
        .success()
        .stdout_is("");
    let text = std::fs::read_to_string(fixture.dir.path().join("list.md")).unwrap();
    (fixture, text)
}

#[test]
fn export_writes_entries_and_contents_as_the_list_does() {
    let (_, exported) = exported();
    assert_eq!(exported, EXPORTED);
}

const EXPORTED: &str = r#"# Awesome Distributed Machine Learning System

Projects and papers on distributed training and inference of large models, exported by distml-search.

## Contents

- [Open Source Projects](#open-source-projects)
- [Papers](#papers)
  - [Pipeline Parallelism](#pipeline-parallelism)
  - [Mixture-of-Experts System](#mixture-of-experts-system)

## Open Source Projects

- [Megatron-LM: Ongoing Research Training Transformer Models at Scale](https://github.com/NVIDIA/Megatron-LM)

## Papers

### Pipeline Parallelism

- [GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism](https://proceedings.neurips.cc/paper/2019/file/gpipe-Paper.pdf) by Yanping Huang et al., NeurIPS 2019
- [Zero Bubble Pipeline Parallelism](https://arxiv.org/abs/2401.10241) by Penghui Qi et al., ICLR 2024

### Mixture-of-Experts System

- [FasterMoE: modeling and optimizing training of large-scale dynamic pre-trained models](https://dl.acm.org/doi/abs/10.1145/3503221.3508418) by Jiaao He et al., PPoPP 2022
"#;

#[test]
fn importing_the_export_changes_nothing() {
    let (fixture, _) = exported();
    let before: Vec<String> = ["pipeline-parallelism.toml", "open-source-projects.toml"]
        .iter()
        .map(|f| fixture.read(f))
        .collect();
    fixture
        .run(["import", "list.md"])
        .success()
        .stdout_is("added 0 entries (0 new section files); 4 already in the catalog, unchanged\n");
    let after: Vec<String> = ["pipeline-parallelism.toml", "open-source-projects.toml"]
        .iter()
        .map(|f| fixture.read(f))
        .collect();
    assert_eq!(after, before);
}

#[test]
fn the_export_imported_into_an_empty_folder_exports_the_same() {
    let (fixture, exported) = exported();
    fixture
        .run(["--catalog", "again", "import", "list.md"])
        .success();
    fixture
        .run(["--catalog", "again", "export"])
        .success()
        .stdout_is(&exported);
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
    fixture.run(["export", "-o", "list.md"]).success();
    fixture
        .run(["--catalog", "again", "import", "list.md"])
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
    fixture
        .run(["import", "empty.md"])
        .code(2)
        .stderr_is("distml-search: error: empty.md: no list items with links found; is it an awesome-list Markdown file?\n");
}

#[test]
fn a_newline_in_a_note_adds_no_heading_to_the_export() {
    let fixture = Fixture::invented();
    let text = fixture.read("invented-systems.toml").replace(
        "note = \"Streams pretend micro-batches through imaginary stages.\"",
        "note = \"Streams pretend stages.\\n## Injected Heading\\n- [Fake](https://example.org/fake)\"",
    );
    fixture.write("invented-systems.toml", &text);
    let run = fixture
        .run(["export", "--format", "markdown", "--notes"])
        .success();
    for line in run.stdout().lines() {
        assert!(
            !line.starts_with("## Injected") && !line.starts_with("- [Fake]"),
            "{line}"
        );
    }
}
