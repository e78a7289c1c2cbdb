//! Shared fixtures: a small catalog in a temporary folder, and the binary
//! run on it (`Cmd`, in `cmd.rs`).
#![allow(dead_code)]

mod cmd;
mod server;

use std::path::{Path, PathBuf};

use tempfile::TempDir;

#[allow(unused_imports)]
pub use cmd::{BIN, Cmd, Run};
#[allow(unused_imports)]
pub use server::Server;

pub const TAGS: &str = r#"[[tag]]
id = "pipeline-parallelism"
label = "Pipeline parallelism"
category = "parallelism"
description = "Layers split into stages that stream micro-batches."
aliases = ["1F1B", "pipeline bubble", "inter-operator parallelism"]

[[tag]]
id = "activation-recomputation"
label = "Activation recomputation"
category = "memory"
description = "Recompute activations in backward instead of storing them."
aliases = ["gradient checkpointing", "activation checkpointing", "rematerialization"]

[[tag]]
id = "mixture-of-experts"
label = "Mixture of experts"
category = "model"
description = "Sparsely activated expert layers."
aliases = ["MoE", "sparsely gated"]
deliberate = ["MoE"]

[[tag]]
id = "collective-communication"
label = "Collective communication"
category = "communication"
description = "All-reduce, all-gather and all-to-all."
aliases = ["allreduce", "all-to-all", "NCCL"]
"#;

/// A section file with two well-formed entries (lines matter: tests assert them).
pub const PIPELINES: &str = r#"[section]
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
tags = ["pipeline-parallelism", "activation-recomputation"]
note = "Streams micro-batches through stages and recomputes activations in backward."

[[entry]]
id = "zero-bubble-2024"
kind = "paper"
title = "Zero Bubble Pipeline Parallelism"
url = "https://arxiv.org/abs/2401.10241"
authors = ["Penghui Qi"]
et_al = true
venue = "ICLR"
year = 2024
arxiv = "2401.10241"
tags = ["pipeline-parallelism"]
note = "Splits the backward pass so weight-gradient work fills idle slots."
"#;

pub const PROJECTS: &str = r#"[section]
name = "Open Source Projects"
order = 1

[[entry]]
id = "megatron-lm"
kind = "project"
title = "Megatron-LM: Ongoing Research Training Transformer Models at Scale"
url = "https://github.com/NVIDIA/Megatron-LM"
tags = ["pipeline-parallelism", "activation-recomputation"]
note = "NVIDIA's codebase for training large transformers."
"#;

pub const MOE: &str = r#"[section]
name = "Mixture-of-Experts System"
group = "Papers"
order = 3

[[entry]]
id = "fastermoe-2022"
kind = "paper"
title = "FasterMoE: modeling and optimizing training of large-scale dynamic pre-trained models"
url = "https://dl.acm.org/doi/abs/10.1145/3503221.3508418"
authors = ["Jiaao He"]
et_al = true
venue = "PPoPP"
year = 2022
doi = "10.1145/3503221.3508418"
tags = ["mixture-of-experts", "collective-communication"]
note = "Shadows popular experts and overlaps all-to-all with expert compute."
"#;

/// A wholly invented section (2014 arXiv ids had four digits, and 10.5555
/// is a test prefix), for the tests that compare outputs whole.
pub const INVENTED: &str = r#"[section]
name = "Invented Systems"
group = "Papers"
order = 1

[[entry]]
id = "wobble-2021"
kind = "paper"
title = "Wobble: Pretend Pipelines for Imaginary Accelerators"
url = "https://arxiv.org/abs/1412.99990"
authors = ["Ada Example", "Bob Placeholder"]
venue = "FICT"
year = 2021
arxiv = "1412.99990"
tags = ["pipeline-parallelism"]
note = "Streams pretend micro-batches through imaginary stages."

[[entry]]
id = "snarkshard-2023"
kind = "paper"
title = "SnarkShard: Routing Make-Believe Experts"
url = "https://doi.org/10.5555/fictional.77"
authors = ["Carol Sample"]
et_al = true
venue = "FICTCONF"
year = 2023
doi = "10.5555/fictional.77"
tags = ["mixture-of-experts", "collective-communication"]
note = "Routes tokens to invented experts over a pretend all-to-all."

[[entry]]
id = "gizmo"
kind = "project"
title = "Gizmo: A Make-Believe Trainer"
url = "https://example.org/gizmo"
tags = ["activation-recomputation"]
note = "An invented codebase that recomputes pretend activations."
"#;

/// A fictional entry whose text fields hold markup: the web page must show
/// it as text (`tests/web.rs`, `tests/browser.rs`).
pub const HOSTILE: &str = r#"[section]
name = "Hostile Data"
order = 2

[[entry]]
id = "hostile-2022"
kind = "paper"
title = "<img src=x onerror=alert(1)> Hostile Pipelines"
url = "https://example.org/hostile"
authors = ["<script>alert(2)</script>"]
venue = "FICT"
year = 2022
tags = ["pipeline-parallelism"]
note = "Pretend pipelines whose <i>note</i> holds <b onmouseover=alert(3)>markup</b>."
"#;

/// A temporary project folder holding `catalog/`.
pub struct Fixture {
    pub dir: TempDir,
}

impl Fixture {
    /// The three sections above and the vocabulary.
    pub fn new() -> Self {
        Fixture::with_files(&[
            ("tags.toml", TAGS),
            ("open-source-projects.toml", PROJECTS),
            ("pipeline-parallelism.toml", PIPELINES),
            ("mixture-of-experts-system.toml", MOE),
        ])
    }

    /// The invented section and the hostile one.
    pub fn hostile() -> Self {
        Fixture::with_files(&[
            ("tags.toml", TAGS),
            ("invented-systems.toml", INVENTED),
            ("hostile-data.toml", HOSTILE),
        ])
    }

    /// [`Fixture::hostile`] with [`inbox_stream`] imported: four candidates
    /// for the inbox, one hostile.
    pub fn hostile_inbox() -> Self {
        let fixture = Fixture::hostile();
        fixture.import_snapshot(&inbox_stream());
        fixture
    }

    /// The vocabulary and the invented section alone.
    pub fn invented() -> Self {
        Fixture::with_files(&[("tags.toml", TAGS), ("invented-systems.toml", INVENTED)])
    }

    pub fn with_files(files: &[(&str, &str)]) -> Self {
        Fixture::with_files_in(std::env::temp_dir(), files)
    }

    /// As [`Fixture::with_files`], in a temporary folder under `parent`.
    pub fn with_files_in(parent: impl AsRef<Path>, files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir_in(parent).unwrap();
        std::fs::create_dir(dir.path().join("catalog")).unwrap();
        let fixture = Fixture { dir };
        for (name, text) in files {
            fixture.write(name, text);
        }
        fixture
    }

    pub fn catalog(&self) -> PathBuf {
        self.dir.path().join("catalog")
    }

    pub fn index(&self) -> PathBuf {
        self.dir.path().join("index")
    }

    pub fn write(&self, name: &str, text: &str) {
        std::fs::write(self.catalog().join(name), text).unwrap();
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.catalog().join(name)).unwrap()
    }

    /// The binary, run in the fixture's folder (see [`Cmd::new`]).
    pub fn cmd(&self) -> Cmd {
        Cmd::new(self)
    }

    /// Runs `args` on the fixture.
    pub fn run<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(&self, args: I) -> Run {
        self.cmd().args(args).run()
    }

    /// Imports `lines` (of [`snapshot_line`]) into the arxiv collection.
    pub fn import_snapshot(&self, lines: &[String]) {
        std::fs::write(self.dir.path().join("stream.jsonl"), lines.join("\n")).unwrap();
        self.run(["import", "--arxiv-snapshot", "stream.jsonl"])
            .success();
    }
}

/// The title of the inbox's hostile record, as it must be shown.
pub const HOSTILE_RECORD_TITLE: &str =
    "<img src=x onerror=alert(4)> Routing Hostile Experts over All-to-All";

/// Fictional arXiv records for the inbox, none listed: two of the field,
/// one not, and one whose title, author and abstract hold markup.
pub fn inbox_stream() -> Vec<String> {
    let authors = [("Dora", "Fictive"), ("Eli", "Madeup")];
    vec![
        snapshot_line(
            "1412.99983",
            "Glorp: Pipeline Parallelism with Fewer Bubbles on Pretend Accelerators",
            &authors,
            "Fri, 2 Oct 2026 10:00:00 GMT",
            "We split the model into pipeline stages and schedule micro-batches so that the pipeline bubble shrinks; 1F1B with activation checkpointing.",
            None,
        ),
        snapshot_line(
            "1412.99984",
            "Routing Invented Experts with a Two-Level All-to-All",
            &authors,
            "Mon, 16 Nov 2026 10:00:00 GMT",
            "Mixture of experts layers send tokens to experts with all-to-all collectives across GPUs.",
            None,
        ),
        snapshot_line(
            "1412.99985",
            "A Cookbook of Zorblat Recipes",
            &authors,
            "Tue, 17 Nov 2026 10:00:00 GMT",
            "We collect recipes for zorblats and rate their taste.",
            None,
        ),
        snapshot_line(
            "1412.99987",
            HOSTILE_RECORD_TITLE,
            &[("<script>alert(5)</script>", "Nobody")],
            "Wed, 7 Oct 2026 10:00:00 GMT",
            "Experts of a <b onmouseover=alert(6)>mixture of experts</b> exchange tokens with all-to-all.",
            None,
        ),
    ]
}

/// A fictional record of an arXiv metadata snapshot (one JSON line) with
/// these authors (first name, last name), first submitted on `created`
/// (`Thu, 1 Oct 2026 10:00:00 GMT`).
pub fn snapshot_line(
    id: &str,
    title: &str,
    authors: &[(&str, &str)],
    created: &str,
    summary: &str,
    doi: Option<&str>,
) -> String {
    let names: Vec<String> = authors.iter().map(|(f, l)| format!("{f} {l}")).collect();
    let parsed: Vec<[&str; 3]> = authors.iter().map(|(f, l)| [*l, *f, ""]).collect();
    serde_json::json!({
        "id": id, "submitter": "Ada Example", "authors": names.join(", "),
        "title": title, "comments": null, "journal-ref": null, "doi": doi, "report-no": null,
        "categories": "cs.DC cs.LG", "license": null, "abstract": summary,
        "versions": [{"version": "v1", "created": created}], "update_date": "2026-12-01",
        "authors_parsed": parsed
    })
    .to_string()
}

/// The path a problem line starts with, as the binary prints it.
pub fn at(file: &str, line: u32, column: u32) -> String {
    format!(
        "{}:{line}:{column}: ",
        Path::new("catalog").join(file).display()
    )
}

/// The ids `search --json ARGS` finds in the fixture, best first; the exit
/// status says whether there were any (0) or none (1).
#[track_caller]
pub fn search_ids(fixture: &Fixture, args: &[&str]) -> Vec<String> {
    let run = fixture.cmd().args(["search", "--json"]).args(args).run();
    let ids = run.ids();
    run.code(if ids.is_empty() { 1 } else { 0 });
    ids
}

/// The index generation folders (`gen-*`) under `index`.
pub fn generations(index: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(index)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("gen-"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Waits until `condition` holds, polling, and panics if it does not within
/// two minutes: a bound for a hang, not a measure of speed.
#[track_caller]
pub fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !condition() {
        assert!(
            std::time::Instant::now() < deadline,
            "gave up waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Whether `dir` holds at least one file.
pub fn has_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

/// Runs `cmd` to its end and captures its outputs, killing it (and failing
/// the test) if it has not ended within `limit`: a bound for a hang, not a
/// measure of speed.
pub fn output_within(cmd: Cmd, limit: std::time::Duration) -> std::process::Output {
    use std::time::Instant;
    let mut child = cmd
        .into_command()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// Makes the current generation of `index` one an older build wrote: its
/// schema lacks fields this build has and has one it dropped, and it holds
/// imported records of the arxiv collection, each `(arXiv id, title)` with
/// an abstract, plus `unreadable` ones stored without an arXiv id.
pub fn older_schema_index(index: &Path, records: &[(&str, &str)], unreadable: usize) {
    use tantivy::schema::{STORED, STRING, TEXT};
    let mut builder = tantivy::schema::Schema::builder();
    let collection = builder.add_text_field("collection", STRING | STORED);
    let arxiv = builder.add_text_field("arxiv", STRING | STORED);
    let title = builder.add_text_field("title", TEXT | STORED);
    let abstract_text = builder.add_text_field("abstract", TEXT | STORED);
    let year = builder.add_i64_field("year", STORED);
    let dropped = builder.add_u64_field("legacy_rank", STORED);
    let generation = index.join("gen-1-1");
    std::fs::create_dir_all(&generation).unwrap();
    let created = tantivy::Index::create_in_dir(&generation, builder.build()).unwrap();
    let mut writer: tantivy::IndexWriter = created.writer(15_000_000).unwrap();
    for (id, name) in records {
        writer
            .add_document(tantivy::doc!(
                collection => "arxiv",
                arxiv => *id,
                title => *name,
                abstract_text => format!("{name}, as an older build stored it."),
                year => 2014i64,
                dropped => 7u64
            ))
            .unwrap();
    }
    for _ in 0..unreadable {
        writer
            .add_document(tantivy::doc!(collection => "arxiv", dropped => 7u64))
            .unwrap();
    }
    writer.commit().unwrap();
    std::fs::write(index.join("CURRENT"), "gen-1-1").unwrap();
}

/// `field:value (a, b, ...)` in `text` (a help text, a tool's
/// description), its names in order: what says which query fields exist.
pub fn fields_listed(text: &str) -> Vec<String> {
    let text: Vec<&str> = text.split_whitespace().collect();
    let text = text.join(" ");
    let start = text.find("field:value (").expect("field:value (...)") + "field:value (".len();
    let end = start + text[start..].find(')').unwrap();
    text[start..end].split(", ").map(str::to_string).collect()
}
