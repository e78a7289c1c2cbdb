//! Atomic rebuilds: a killed rebuild loses nothing, concurrent rebuilds end
//! with one good index, and searches keep answering while rebuilds run.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Fixture, generations, stderr_of, stdout_of};

/// A section with `n` generated entries, so that a rebuild takes a while.
fn large_section(n: usize) -> String {
    let mut text = String::from("[section]\nname = \"Generated\"\norder = 9\n");
    for i in 0..n {
        text.push_str(&format!(
            "\n[[entry]]\nid = \"generated-{i}\"\nkind = \"paper\"\ntitle = \"Generated study {i} of pipeline schedules and offloading\"\nurl = \"https://example.org/g/{i}\"\nauthors = [\"Ada Example\"]\nvenue = \"Nowhere\"\nyear = 2020\ntags = [\"pipeline-parallelism\"]\nnote = \"A generated entry number {i} about micro-batches, bubbles, recomputation and all-reduce.\"\n"
        ));
    }
    text
}

fn binary(fixture: &Fixture) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("distml-search"));
    cmd.current_dir(fixture.dir.path())
        .env("DISTML_OFFLINE", "1")
        .env("NO_COLOR", "1")
        .env_remove("DISTML_CATALOG")
        .env_remove("DISTML_INDEX");
    cmd
}

#[test]
fn a_killed_rebuild_leaves_the_previous_index_searchable() {
    let fixture = Fixture::new();
    fixture.cmd().arg("index").assert().success();
    let before = generations(&fixture.index());
    assert_eq!(before.len(), 1);

    fixture.write("generated.toml", &large_section(8_000));
    let mut child = binary(&fixture)
        .arg("index")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once its new generation exists, that is in the middle of writing.
    let started = Instant::now();
    while generations(&fixture.index()).len() < 2 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the rebuild finished before it could be killed"
    );

    // CURRENT still names the previous generation; the next rebuild succeeds
    // and removes what the killed one left.
    let current = std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap();
    assert_eq!(current.trim(), before[0]);
    let output = fixture.cmd().args(["index"]).output().unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert!(
        stdout_of(&output).contains("indexed 8004 entries"),
        "{}",
        stdout_of(&output)
    );
    assert_eq!(
        generations(&fixture.index()).len(),
        1,
        "the killed generation is cleaned up"
    );
    let hits = fixture
        .cmd()
        .args(["search", "--json", "-n", "3", "generated study 17"])
        .output()
        .unwrap();
    assert_eq!(hits.status.code(), Some(0));
}

#[test]
fn a_search_during_a_killed_rebuild_uses_the_previous_index() {
    let fixture = Fixture::new();
    fixture.cmd().arg("index").assert().success();
    // A leftover generation, as a crash would leave it, with no CURRENT change.
    std::fs::create_dir_all(fixture.index().join("gen-1-1")).unwrap();
    std::fs::write(fixture.index().join("gen-1-1/meta.json"), "{ truncated").unwrap();
    let output = fixture
        .cmd()
        .args(["search", "zero bubble"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    fixture.cmd().arg("index").assert().success();
    assert_eq!(generations(&fixture.index()).len(), 1);
}

#[test]
fn concurrent_rebuilds_end_with_one_index() {
    let fixture = Fixture::new();
    fixture.write("generated.toml", &large_section(2_000));
    let children: Vec<_> = (0..3)
        .map(|_| {
            binary(&fixture)
                .arg("index")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", stderr_of(&output));
    }
    assert_eq!(generations(&fixture.index()).len(), 1);
    let output = fixture
        .cmd()
        .args(["search", "--json", "-n", "1", "zero bubble"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn searches_answer_while_rebuilds_run() {
    let fixture = Fixture::new();
    fixture.write("generated.toml", &large_section(1_000));
    fixture.cmd().arg("index").assert().success();
    let dir = fixture.dir.path().to_path_buf();
    let rebuilder = std::thread::spawn(move || {
        for _ in 0..5 {
            let status = Command::new(assert_cmd::cargo::cargo_bin("distml-search"))
                .current_dir(&dir)
                .env("DISTML_OFFLINE", "1")
                .arg("index")
                .stdout(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
        }
    });
    let mut searches = 0;
    while !rebuilder.is_finished() || searches < 5 {
        let output = fixture
            .cmd()
            .args(["search", "--json", "-n", "1", "zero bubble"])
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "search {searches} failed: {}",
            stderr_of(&output)
        );
        assert!(stdout_of(&output).contains("zero-bubble-2024"));
        searches += 1;
    }
    rebuilder.join().unwrap();
}
