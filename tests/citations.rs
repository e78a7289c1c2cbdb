//! The shipped catalog's citations read by real consumers: pandoc's citeproc
//! renders a bibliography from the CSL-JSON of every entry, and biber
//! validates the BibTeX of every entry against biblatex's data model, both
//! without a warning. (The formats themselves are compared whole on the
//! invented catalog in `tests/output.rs`.)
//!
//! Without pandoc or biber a test says why and passes, unless `CI=true`:
//! there it must run (`.ci/run` installs Debian's `pandoc` and `biber`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::Cmd;
use tempfile::TempDir;

/// `program --version` runs; else the test is skipped, or fails under CI.
fn installed(program: &str, package: &str) -> bool {
    if Command::new(program).arg("--version").output().is_ok() {
        return true;
    }
    let under_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !under_ci,
        "CI=true but {program} is missing: apt-get install {package}"
    );
    eprintln!("skipped: {program} not installed (apt-get install {package})");
    false
}

/// The shipped catalog's entries exported in `format` to `name` in a new
/// folder: the folder, the file and its text.
fn export(format: &str, name: &str) -> (TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    let catalog = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
    Cmd::bare()
        .arg("--catalog")
        .arg(&catalog)
        .args(["export", "--format", format, "--output"])
        .arg(&file)
        .run()
        .success();
    let text = std::fs::read_to_string(&file).unwrap();
    (dir, file, text)
}

/// `output`'s stdout, or a panic with what it said when it failed.
fn stdout_of(what: &str, output: Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success() && stderr.is_empty(),
        "{what}: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    stdout
}

#[test]
fn pandoc_renders_every_entry_from_csl_json_without_a_warning() {
    if !installed("pandoc", "pandoc") {
        return;
    }
    let (dir, bibliography, text) = export("csl-json", "catalog.json");
    let items: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    assert!(items.len() > 50, "{} items", items.len());
    // pandoc keeps one of two items with an id, and says nothing.
    let ids: std::collections::HashSet<&str> = items
        .iter()
        .map(|item| item["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), items.len(), "ids repeat");
    let document = dir.path().join("cite.md");
    std::fs::write(&document, "---\nnocite: '@*'\n---\n").unwrap();
    let output = Command::new("pandoc")
        .arg("--citeproc")
        .arg(format!("--bibliography={}", bibliography.display()))
        .args(["--to", "plain", "--wrap", "none"])
        .arg(&document)
        .output()
        .unwrap();
    let rendered = stdout_of("pandoc --citeproc", output);
    // One paragraph a reference: every item was read and rendered.
    let references = rendered.lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(references, items.len(), "{rendered}");
    for item in &items {
        if let Some(doi) = item["DOI"].as_str() {
            assert!(rendered.contains(doi), "{doi} not rendered:\n{rendered}");
        }
    }
}

#[test]
fn biber_validates_every_entry_of_the_bibtex_against_the_data_model() {
    if !installed("biber", "biber") {
        return;
    }
    let (dir, bibliography, text) = export("bibtex", "catalog.bib");
    let entries = text.matches("\n@").count() + 1;
    assert!(entries > 50, "{entries} entries");
    let written = dir.path().join("validated.bib");
    let output = Command::new("biber")
        .args(["--tool", "--validate-datamodel", "--nolog", "--output-file"])
        .arg(&written)
        .arg(&bibliography)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let log = stdout_of("biber --tool --validate-datamodel", output);
    let complaints: Vec<&str> = (log.lines())
        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        .collect();
    assert!(complaints.is_empty(), "{}", complaints.join("\n"));
    // biber kept every entry (a duplicate key, say, would be dropped).
    let kept = std::fs::read_to_string(&written).unwrap();
    assert_eq!(
        kept.lines().filter(|l| l.starts_with('@')).count(),
        entries,
        "{kept}"
    );
}
