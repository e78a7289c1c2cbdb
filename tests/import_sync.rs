//! `import --sync FILE`: a catalog imported from `sync-before.md` follows
//! `sync-after.md`, the list's next version (fictional fixtures in
//! `tests/fixtures/lists/`): each kind of change is reported with its line,
//! `--apply` makes them in place keeping what the curator wrote, `check`
//! passes, `export` gives the new list back, and a second sync has nothing
//! to say. Entries a curator added by hand are never taken for the list's.

mod common;

use common::{Cmd, Fixture};

fn list(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/lists/{name}.md",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

/// A catalog imported from `sync-before.md` (beside it, with `sync-after.md`).
fn imported() -> Fixture {
    let fixture = Fixture::with_files(&[]);
    for name in ["sync-before", "sync-after"] {
        std::fs::write(fixture.dir.path().join(format!("{name}.md")), list(name)).unwrap();
    }
    fixture
        .run(["import", "sync-before.md"])
        .success()
        .stdout_has("added 9 entries");
    fixture
}

fn sync(fixture: &Fixture) -> Cmd {
    fixture.cmd().args(["import", "--sync", "sync-after.md"])
}

/// The entry `id` of `file` with `from` (its first occurrence after the
/// entry's id) replaced by `to`.
fn edit_entry(fixture: &Fixture, file: &str, id: &str, from: &str, to: &str) {
    let text = fixture.read(file);
    let start = text.find(&format!("id = \"{id}\"")).unwrap();
    let at = start + text[start..].find(from).unwrap();
    let edited = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
    fixture.write(file, &edited);
}

/// A curator's work on `fernwhistle-2021`: tags, a use, a note, no draft.
fn curate_fernwhistle(fixture: &Fixture) {
    edit_entry(
        fixture,
        "papers.toml",
        "fernwhistle-2021",
        "tags = []\nnote = \"\"\ndraft = true\n",
        "tags = [\"elastic-training\"]\nuses = [\"fault-tolerance\"]\nnote = \"Resizes pretend jobs as invented machines come and go.\"\n",
    );
}

/// Every file of the catalog folder, by name.
fn files(fixture: &Fixture) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(fixture.catalog())
        .unwrap()
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name.clone(), fixture.read(&name))
        })
        .collect();
    files.sort();
    files
}

const REPORT: &str = r#"sync-after.md:12: new: inkwell-2023: "Inkwell: Sparse Experts for Imaginary Workloads"
sync-after.md:14: retitled: marrowbind-2021: "Marrowbind: Sharding Pretend Tensors" -> "Marrowbind: Sharding Pretend Tensors at Any Scale"
sync-after.md:15: url-changed: tessellate-2022: "https://example.org/tessellate-preprint" -> "https://doi.org/10.99999/tessellate.2022"
sync-after.md:16: venue-changed: fernwhistle-2021: "SoCC" -> "EuroSys"
sync-after.md:17: year-changed: glimmerlock-2021: 2021 -> 2022
sync-after.md:18: authors-changed: mossgrove-2021: "Ivy Placeholder et al." -> "Ivy Placeholder, Jon Sample"
sync-after.md:22: url-changed: kestrelkit: "https://github.com/example-org/kestrelkit" -> "https://github.com/example-org/kestrel-kit"
sync-after.md: removed: hollowmere-2020: "Hollowmere: A Retired Pretend Scheduler" (line 16 of the list before)
8 changes (1 new, 1 removed, 1 retitled, 2 url-changed, 1 authors-changed, 1 venue-changed, 1 year-changed); --apply makes them
"#;

const REPORT_JSON: &str = r#"{"change":"new","id":"inkwell-2023","line":12,"new":"Inkwell: Sparse Experts for Imaginary Workloads","old":null}
{"change":"retitled","id":"marrowbind-2021","line":14,"new":"Marrowbind: Sharding Pretend Tensors at Any Scale","old":"Marrowbind: Sharding Pretend Tensors"}
{"change":"url-changed","id":"tessellate-2022","line":15,"new":"https://doi.org/10.99999/tessellate.2022","old":"https://example.org/tessellate-preprint"}
{"change":"venue-changed","id":"fernwhistle-2021","line":16,"new":"EuroSys","old":"SoCC"}
{"change":"year-changed","id":"glimmerlock-2021","line":17,"new":2022,"old":2021}
{"change":"authors-changed","id":"mossgrove-2021","line":18,"new":"Ivy Placeholder, Jon Sample","old":"Ivy Placeholder et al."}
{"change":"url-changed","id":"kestrelkit","line":22,"new":"https://github.com/example-org/kestrel-kit","old":"https://github.com/example-org/kestrelkit"}
{"change":"removed","id":"hollowmere-2020","line":16,"new":null,"old":"Hollowmere: A Retired Pretend Scheduler"}
"#;

#[test]
fn the_report_names_every_change_with_its_line_and_writes_nothing() {
    let fixture = imported();
    curate_fernwhistle(&fixture);
    let before = files(&fixture);
    sync(&fixture)
        .run()
        .success()
        .stdout_is(REPORT)
        .stderr_is("");
    sync(&fixture)
        .arg("--json")
        .run()
        .success()
        .stdout_is(REPORT_JSON);
    assert_eq!(files(&fixture), before, "a report wrote to the catalog");
}

/// The papers after `--apply`: the retitled entry keeps its id (no copy),
/// a new link brings the DOI it carries, authors lose "et al.", the
/// removed entry is gone, the new one is added as a draft, and the curated
/// entry keeps its tags, use and note under its new venue.
const PAPERS_AFTER: &str = r#"[section]
name = "Papers"
order = 1

[[entry]]
id = "juniper-drift-2021"
kind = "paper"
title = "Juniper Drift: Overlapping Pretend Collectives"
url = "https://arxiv.org/abs/2999.06006"
authors = ["Hal Example"]
venue = "SC"
year = 2021
tags = []
note = ""
draft = true

[[entry]]
id = "marrowbind-2021"
kind = "paper"
title = "Marrowbind: Sharding Pretend Tensors at Any Scale"
url = "https://doi.org/10.99999/marrowbind.2021"
authors = ["Bob Placeholder"]
venue = "MLSys"
year = 2021
doi = "10.99999/marrowbind.2021"
tags = []
note = ""
draft = true

[[entry]]
id = "tessellate-2022"
kind = "paper"
title = "Tessellate: Gradient Compression for Made-up Clusters"
url = "https://doi.org/10.99999/tessellate.2022"
authors = ["Cora Invent"]
venue = "NSDI"
year = 2022
doi = "10.99999/tessellate.2022"
tags = []
note = ""
draft = true

[[entry]]
id = "fernwhistle-2021"
kind = "paper"
title = "Fernwhistle: Elastic Training on Invented Hardware"
url = "https://arxiv.org/abs/2999.06003"
authors = ["Dov Sample"]
et_al = true
venue = "EuroSys"
year = 2021
tags = ["elastic-training"]
uses = ["fault-tolerance"]
note = "Resizes pretend jobs as invented machines come and go."

[[entry]]
id = "glimmerlock-2021"
kind = "paper"
title = "Glimmerlock: Memory Offload for Pretend Models"
url = "https://arxiv.org/abs/2999.06004"
authors = ["Eve Mock"]
venue = "ATC"
year = 2022
tags = []
note = ""
draft = true

[[entry]]
id = "mossgrove-2021"
kind = "paper"
title = "Mossgrove: Checkpointing Imaginary Jobs"
url = "https://arxiv.org/abs/2999.06007"
authors = ["Ivy Placeholder", "Jon Sample"]
venue = "FAST"
year = 2021
tags = []
note = ""
draft = true

[[entry]]
id = "inkwell-2023"
kind = "paper"
title = "Inkwell: Sparse Experts for Imaginary Workloads"
url = "https://arxiv.org/abs/2999.06005"
authors = ["Gus Pretend"]
et_al = true
venue = "OSDI"
year = 2023
tags = []
note = ""
draft = true
"#;

const REMOVED: &str = r#"# Entries `import --sync --apply` removed because the list no longer has them,
# kept with their notes and tags. Not part of the catalog: move one back
# into a section file to restore it.

# from papers.toml
[[entry]]
id = "hollowmere-2020"
kind = "paper"
title = "Hollowmere: A Retired Pretend Scheduler"
url = "https://example.org/hollowmere"
authors = ["Finn Fake"]
venue = "SOSP"
year = 2020
tags = []
note = ""
draft = true
"#;

#[test]
fn apply_makes_the_changes_in_place_and_keeps_the_curation() {
    let fixture = imported();
    curate_fernwhistle(&fixture);
    sync(&fixture)
        .arg("--apply")
        .run()
        .success()
        .stdout_has("applied 8 changes (1 new, 1 removed, 1 retitled, 2 url-changed, 1 authors-changed, 1 venue-changed, 1 year-changed)\n");
    assert_eq!(fixture.read("papers.toml"), PAPERS_AFTER);
    assert_eq!(fixture.read("removed.toml"), REMOVED);
    assert!(
        fixture
            .read("projects.toml")
            .contains("url = \"https://github.com/example-org/kestrel-kit\"\n")
    );
    // Drafts are warnings; nothing is a duplicate of anything.
    fixture
        .run(["check"])
        .success()
        .stdout_has("ok: 9 entries (7 papers, 2 projects) in 2 sections");
    fixture
        .run(["export", "--format", "markdown"])
        .success()
        .stdout_is(&list("sync-after"));
    // Synced: nothing more to say, and nothing written.
    let synced = files(&fixture);
    sync(&fixture)
        .run()
        .success()
        .stdout_is("no changes: the catalog is in sync with sync-after.md\n");
    sync(&fixture)
        .args(["--json", "--apply"])
        .run()
        .success()
        .stdout_is("");
    assert_eq!(files(&fixture), synced);
}

#[test]
fn entries_added_by_hand_are_not_the_lists() {
    let fixture = imported();
    // One the list never had, and one it lists from its next version on
    // (its link written another way).
    let by_hand = r#"[section]
name = "Chosen by Hand"
order = 9

[[entry]]
id = "hand-picked-2022"
kind = "paper"
title = "Hand-Picked: A Pretend Paper No List Has"
url = "https://example.org/hand-picked"
authors = ["Kit Curator"]
venue = "NSDI"
year = 2022
tags = ["fault-tolerance"]
note = "Chosen by the curator."

[[entry]]
id = "inkwell"
kind = "paper"
title = "Inkwell: Sparse Experts for Imaginary Workloads"
url = "http://www.arxiv.org/abs/2999.06005/"
authors = ["Gus Pretend"]
et_al = true
venue = "OSDI"
year = 2023
tags = ["mixture-of-experts"]
note = "Added before the list had it."
"#;
    fixture.write("by-hand.toml", by_hand);
    let report: Vec<serde_json::Value> = sync(&fixture).arg("--json").run().success().json_lines();
    let changes: Vec<(&str, &str)> = report
        .iter()
        .map(|c| (c["change"].as_str().unwrap(), c["id"].as_str().unwrap()))
        .collect();
    assert_eq!(
        changes,
        [
            ("retitled", "marrowbind-2021"),
            ("url-changed", "tessellate-2022"),
            ("venue-changed", "fernwhistle-2021"),
            ("year-changed", "glimmerlock-2021"),
            ("authors-changed", "mossgrove-2021"),
            ("url-changed", "kestrelkit"),
            ("removed", "hollowmere-2020"),
        ]
    );
    sync(&fixture).arg("--apply").run().success();
    assert_eq!(fixture.read("by-hand.toml"), by_hand);
    // Inkwell is the list's now: it is placed at its line, the other one
    // stays the curator's.
    let list_toml = fixture.read("list.toml");
    assert!(list_toml.contains("12 = \"inkwell\"\n"), "{list_toml}");
    assert!(!list_toml.contains("hand-picked"));
    sync(&fixture)
        .run()
        .success()
        .stdout_is("no changes: the catalog is in sync with sync-after.md\n");
    fixture.run(["check"]).success();
}

#[test]
fn a_field_the_curator_edited_is_kept_and_the_change_upstream_said() {
    let fixture = imported();
    edit_entry(
        &fixture,
        "papers.toml",
        "fernwhistle-2021",
        "venue = \"SoCC\"",
        "venue = \"SoCC Workshop\"",
    );
    let run = sync(&fixture).arg("--apply").run().success();
    assert!(!run.stdout().contains("venue-changed"), "{}", run.stdout());
    run.stdout_has("; 1 change to fields edited in the catalog not applied (see the warnings)\n")
        .stderr_is("distml-search: warning: sync-after.md:16: venue-changed upstream for `fernwhistle-2021` (\"SoCC\" -> \"EuroSys\"), but the catalog has \"SoCC Workshop\", edited since: kept\n");
    assert!(
        fixture
            .read("papers.toml")
            .contains("venue = \"SoCC Workshop\"\n")
    );
    // Said once: the list it was said about is the catalog's now.
    sync(&fixture).run().success().stderr_is("");
}

#[test]
fn a_retitled_copy_of_an_entry_fails_check() {
    let fixture = imported();
    // The same paper (one DOI) under a second id, a new title and another
    // form of its link: what a sync never makes, and check catches.
    let copy = r#"[section]
name = "Copies"
order = 9

[[entry]]
id = "marrowbind-at-any-scale-2021"
kind = "paper"
title = "Marrowbind: Sharding Pretend Tensors at Any Scale"
url = "https://dl.acm.org/doi/abs/10.99999/marrowbind.2021"
authors = ["Bob Placeholder"]
venue = "MLSys"
year = 2021
doi = "10.99999/marrowbind.2021"
tags = []
note = ""
draft = true
"#;
    fixture.write("copies.toml", copy);
    fixture.run(["check"]).code(2).stderr_has(
        "catalog/papers.toml:21:7: duplicate url https://doi.org/10.99999/marrowbind.2021 (also at catalog/copies.toml:9:7)",
    );
}

#[test]
fn sync_needs_the_list_the_catalog_came_from() {
    let fixture = Fixture::new();
    std::fs::write(fixture.dir.path().join("new.md"), list("sync-after")).unwrap();
    fixture
        .run(["import", "--sync", "new.md"])
        .code(2)
        .stderr_has("catalog: no list.toml, which records the entries that came from a list");
    fixture
        .run(["import", "new.md", "--apply"])
        .code(2)
        .stderr_has("--sync");
}

#[test]
fn a_catalog_that_does_not_load_is_not_synced() {
    // Its entries would look removed upstream.
    let fixture = imported();
    let papers = fixture.read("papers.toml");
    fixture.write("papers.toml", &papers.replacen("[[entry]]", "[[entry]", 1));
    let before = files(&fixture);
    sync(&fixture)
        .arg("--apply")
        .run()
        .code(2)
        .stderr_has("catalog/papers.toml:5:")
        .stderr_has(
            "the catalog must load before a sync (1 problem; `distml-search check` lists them)",
        );
    assert_eq!(files(&fixture), before);
}
