//! Atomic rebuilds: a killed rebuild loses nothing, concurrent rebuilds end
//! with one good index, and searches keep answering while rebuilds run.

mod common;

use std::process::Stdio;

use common::{Fixture, generations, has_files, search_ids, wait_for};

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

/// The fixture indexed, then given 8,000 more entries, and a rebuild of
/// them killed once its new generation has files, that is mid-write.
fn killed_rebuild() -> (Fixture, String) {
    let fixture = Fixture::new();
    fixture.run(["index"]).success();
    let before = generations(&fixture.index());
    assert_eq!(before.len(), 1);

    fixture.write("generated.toml", &large_section(8_000));
    let mut child = fixture
        .cmd()
        .arg("index")
        .into_command()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the rebuild to write its new generation", || {
        let now = generations(&fixture.index());
        now.len() == 2 && has_files(&fixture.index().join(&now[1]))
    });
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the rebuild finished before it could be killed"
    );
    (fixture, before[0].clone())
}

#[test]
fn a_killed_rebuild_leaves_current_on_the_previous_generation() {
    let (fixture, before) = killed_rebuild();
    let current = std::fs::read_to_string(fixture.index().join("CURRENT")).unwrap();
    assert_eq!(current, format!("{before}\n"));
}

#[test]
fn the_rebuild_after_a_killed_one_succeeds_and_removes_its_leftovers() {
    let (fixture, _) = killed_rebuild();
    fixture
        .run(["index"])
        .success()
        .stdout_has("indexed 8004 entries");
    assert_eq!(
        generations(&fixture.index()).len(),
        1,
        "the killed generation is cleaned up"
    );
    assert_eq!(
        search_ids(&fixture, &["-n", "1", "generated study 17"]),
        ["generated-17"]
    );
}

#[test]
fn a_search_beside_a_crashed_rebuilds_leftover_uses_the_current_index() {
    let fixture = Fixture::new();
    fixture.run(["index"]).success();
    // A leftover generation, as a crash would leave it, with no CURRENT change.
    std::fs::create_dir_all(fixture.index().join("gen-1-1")).unwrap();
    std::fs::write(fixture.index().join("gen-1-1/meta.json"), "{ truncated").unwrap();
    assert_eq!(
        search_ids(&fixture, &["zero bubble"])[0],
        "zero-bubble-2024"
    );
    assert_eq!(
        generations(&fixture.index()).len(),
        1,
        "the search removed the leftover"
    );
}

#[test]
fn concurrent_rebuilds_end_with_one_index() {
    let fixture = Fixture::new();
    fixture.write("generated.toml", &large_section(2_000));
    let children: Vec<_> = (0..3)
        .map(|_| {
            fixture
                .cmd()
                .arg("index")
                .into_command()
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_eq!(generations(&fixture.index()).len(), 1);
    assert_eq!(
        search_ids(&fixture, &["-n", "1", "zero bubble"]),
        ["zero-bubble-2024"]
    );
}

#[test]
fn searches_answer_while_rebuilds_run() {
    let fixture = Fixture::new();
    fixture.write("generated.toml", &large_section(1_000));
    fixture.run(["index"]).success();
    let rebuilds: Vec<_> = (0..5).map(|_| fixture.cmd().arg("index")).collect();
    let rebuilder = std::thread::spawn(move || {
        for rebuild in rebuilds {
            rebuild.run().success();
        }
    });
    let mut searches = 0;
    while !rebuilder.is_finished() || searches < 5 {
        assert_eq!(
            search_ids(&fixture, &["-n", "1", "zero bubble"]),
            ["zero-bubble-2024"],
            "search {searches}"
        );
        searches += 1;
    }
    rebuilder.join().unwrap();
}

/// The fixture searched once, so that it has an index, and its generation.
fn indexed() -> (Fixture, std::path::PathBuf) {
    let fixture = Fixture::new();
    assert!(!search_ids(&fixture, &["gpipe"]).is_empty());
    let generation = fixture.index().join(&generations(&fixture.index())[0]);
    (fixture, generation)
}

/// The generation's first segment file with this extension.
fn segment_file(generation: &std::path::Path, extension: &str) -> std::path::PathBuf {
    std::fs::read_dir(generation)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == extension))
        .expect("a segment file")
}

/// Searching a damaged index sets it aside with one warning, rebuilds, and
/// finds again.
#[track_caller]
fn heals(fixture: &Fixture) {
    let run = fixture.run(["search", "gpipe"]).success();
    let warnings: Vec<&str> = run
        .stderr()
        .lines()
        .filter(|l| l.starts_with("distml-search: warning: the index could not be read"))
        .collect();
    if warnings.len() != 1 || !warnings[0].ends_with("and rebuilt from the catalog") {
        run.fail("expected one warning that the index was set aside and rebuilt");
    }
    fixture.run(["search", "gpipe"]).success().stderr_is("");
}

#[test]
fn an_index_without_its_meta_file_is_set_aside_and_rebuilt() {
    let (fixture, generation) = indexed();
    std::fs::remove_file(generation.join("meta.json")).unwrap();
    heals(&fixture);
    let name = generation.file_name().unwrap().to_string_lossy();
    assert!(fixture.index().join(format!("set-aside-{name}")).is_dir());
}

#[test]
fn a_current_pointer_to_a_missing_generation_is_rebuilt() {
    let (fixture, generation) = indexed();
    std::fs::remove_dir_all(&generation).unwrap();
    fixture.run(["search", "gpipe"]).success();
    assert_eq!(generations(&fixture.index()).len(), 1);
}

#[test]
fn a_truncated_segment_file_is_set_aside_and_rebuilt() {
    let (fixture, generation) = indexed();
    std::fs::write(segment_file(&generation, "idx"), b"").unwrap();
    heals(&fixture);
}

#[test]
fn a_segment_of_random_bytes_behind_a_whole_footer_is_set_aside_not_a_panic() {
    let (fixture, generation) = indexed();
    let postings = segment_file(&generation, "idx");
    // The footer's last 200 bytes stay, so tantivy opens the file and only
    // reading the postings finds them wrong (it panicked, exit 101).
    let mut bytes = std::fs::read(&postings).unwrap();
    let body = bytes.len().saturating_sub(200);
    let mut state: u32 = 7;
    for byte in &mut bytes[..body] {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        *byte = (state >> 16) as u8;
    }
    std::fs::write(&postings, bytes).unwrap();
    let run = fixture.run(["search", "pipeline gpipe memory"]).success();
    if !run
        .stderr()
        .contains("distml-search: warning: the index could not be read")
    {
        run.fail("expected the damaged index to be set aside");
    }
    fixture.run(["search", "gpipe"]).success().stderr_is("");
}

/// Ways to damage a file: random bytes behind its last 200 (a whole
/// footer, so that tantivy opens it), cut to half, and zeroed.
fn damage(path: &std::path::Path, how: usize, seed: u32) {
    let mut bytes = std::fs::read(path).unwrap();
    match how {
        0 => {
            let body = bytes.len().saturating_sub(200);
            let mut state = seed;
            for byte in &mut bytes[..body] {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                *byte = (state >> 16) as u8;
            }
        }
        1 => bytes.truncate(bytes.len() / 2),
        _ => bytes.iter_mut().for_each(|b| *b = 0),
    }
    std::fs::write(path, bytes).unwrap();
}

/// Every kind of a generation's files, damaged in each way, under each
/// command that reads the index: none fails or panics, each answers (a
/// warning that the index was set aside, when it noticed), and searches
/// then find as before, warning once at most.
#[test]
fn every_command_recovers_from_every_kind_of_damage() {
    let commands: [&[&str]; 5] = [
        &["search", "pipeline gpipe memory"],
        &["similar", "gpipe-2019"],
        &["list"],
        &["inbox"],
        &["index", "--offline"],
    ];
    let kinds = ["term", "idx", "pos", "store", "fast", "fieldnorm", "json"];
    let mut case = 0;
    for kind in kinds {
        for how in 0..3 {
            let fixture = Fixture::new();
            fixture.import_snapshot(&common::inbox_stream());
            let generation = fixture.index().join(&generations(&fixture.index())[0]);
            let file = if kind == "json" {
                generation.join("meta.json")
            } else {
                segment_file(&generation, kind)
            };
            damage(&file, how, 7 + case as u32);
            let command = commands[case % commands.len()];
            case += 1;
            let run = fixture.run(command);
            let status = run.status.code();
            if !matches!(status, Some(0 | 1)) || run.stderr().contains("internal error") {
                run.fail(format!("{command:?} on a damaged .{kind} (damage {how})"));
            }
            // A command that read no damaged byte cannot have noticed: the
            // next search then sets the index aside itself, once.
            let next = fixture.run(["search", "gpipe"]).success();
            let stderr = next.stderr();
            if !stderr.is_empty()
                && !stderr.starts_with("distml-search: warning: the index could not be read")
            {
                next.fail(format!(
                    "after {command:?} on a damaged .{kind} (damage {how})"
                ));
            }
            fixture.run(["search", "gpipe"]).success().stderr_is("");
            assert!(fixture.run(["search", "--json", "gpipe"]).success().ids()[0] == "gpipe-2019");
        }
    }
}

#[test]
fn the_catalog_kept_beside_the_index_is_read_only_while_the_catalog_is_unchanged() {
    let fixture = Fixture::new();
    let kept = fixture.index().join("catalog.bin");
    // The first search builds the index; the next keeps the catalog there.
    for _ in 0..2 {
        let ids = common::search_ids(&fixture, &["giant"]);
        assert_eq!(ids, ["gpipe-2019"]);
    }
    assert!(kept.is_file(), "no {}", kept.display());

    // An edited title is found, the other one no longer.
    let edited = fixture.read("pipeline-parallelism.toml").replacen(
        "GPipe: Efficient Training of Giant Neural Networks",
        "GPipe: Efficient Training of Colossal Neural Networks",
        1,
    );
    fixture.write("pipeline-parallelism.toml", &edited);
    assert_eq!(common::search_ids(&fixture, &["colossal"]), ["gpipe-2019"]);
    assert!(common::search_ids(&fixture, &["giant"]).is_empty());

    // Bytes that are no catalog, or none, are read as no catalog, and
    // replaced.
    for damaged in [&b"not a catalog"[..], b""] {
        std::fs::write(&kept, damaged).unwrap();
        assert_eq!(common::search_ids(&fixture, &["colossal"]), ["gpipe-2019"]);
        assert_ne!(std::fs::read(&kept).unwrap(), damaged);
    }

    // A catalog with a problem is refused though one was kept before it.
    fixture.write(
        "pipeline-parallelism.toml",
        &edited.replacen("year = 2019", "year = \"soon\"", 1),
    );
    let run = fixture.run(["search", "colossal"]).code(2);
    assert!(
        run.stderr().contains("pipeline-parallelism.toml:"),
        "{}",
        run.stderr()
    );
}
