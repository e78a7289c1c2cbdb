//! Shared fixtures: a small catalog in a temporary folder, and the binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

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

    pub fn with_files(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
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

    /// The binary, run in the fixture's folder with no location variables.
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::cargo_bin("distml-search").unwrap();
        cmd.current_dir(self.dir.path())
            .env_remove("DISTML_CATALOG")
            .env_remove("DISTML_INDEX")
            .env("NO_COLOR", "1")
            .env("DISTML_OFFLINE", "1");
        cmd
    }
}

/// The path a problem line starts with, as the binary prints it.
pub fn at(file: &str, line: u32, column: u32) -> String {
    format!(
        "{}:{line}:{column}: ",
        Path::new("catalog").join(file).display()
    )
}

pub fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The entry ids of a `--json` output, best first.
pub fn json_ids(output: &std::process::Output) -> Vec<String> {
    stdout_of(output)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// The ids `search --json ARGS` finds in the fixture.
pub fn search_ids(fixture: &Fixture, args: &[&str]) -> Vec<String> {
    json_ids(
        &fixture
            .cmd()
            .args(["search", "--json"])
            .args(args)
            .output()
            .unwrap(),
    )
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
