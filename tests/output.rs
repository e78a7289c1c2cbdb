//! What other tools read, compared whole on the invented catalog: the JSON
//! lines of `search`, `similar` and `list`, BibTeX, CSL-JSON and RIS, the
//! terminal listing, `show`, `stats` and the exported markdown. Scores are the one thing left
//! out of the comparisons, explicitly, as ranking work changes them.

mod common;

use common::{Fixture, INVENTED, TAGS, generations};
use serde_json::{Value, json};

/// Each JSON line, with its `score` checked to be a positive number and
/// then removed, so that the rest compares whole.
fn without_scores(lines: Vec<Value>) -> Vec<Value> {
    lines
        .into_iter()
        .map(|mut hit| {
            let score = hit["score"].as_f64();
            assert!(score.is_some_and(|s| s > 0.0), "score in {hit}");
            hit.as_object_mut().unwrap().remove("score");
            hit
        })
        .collect()
}

fn wobble() -> Value {
    json!({
        "arxiv": "1412.99990", "authors": ["Ada Example", "Bob Placeholder"], "et_al": false,
        "collection": "catalog", "doi": null, "id": "wobble-2021", "kind": "paper",
        "note": "Streams pretend micro-batches through imaginary stages.",
        "section": "Invented Systems", "tags": ["pipeline-parallelism"], "uses": [], "predicted_tags": [],
        "title": "Wobble: Pretend Pipelines for Imaginary Accelerators",
        "url": "https://arxiv.org/abs/1412.99990", "venue": "FICT", "year": 2021
    })
}

fn snarkshard() -> Value {
    json!({
        "arxiv": null, "authors": ["Carol Sample"], "et_al": true, "collection": "catalog",
        "doi": "10.5555/fictional.77", "id": "snarkshard-2023", "kind": "paper",
        "note": "Routes tokens to invented experts over a pretend all-to-all.",
        "section": "Invented Systems",
        "tags": ["mixture-of-experts", "collective-communication"], "uses": [], "predicted_tags": [],
        "title": "SnarkShard: Routing Make-Believe Experts",
        "url": "https://doi.org/10.5555/fictional.77", "venue": "FICTCONF", "year": 2023
    })
}

fn gizmo() -> Value {
    json!({
        "arxiv": null, "authors": [], "et_al": false, "collection": "catalog", "doi": null, "id": "gizmo",
        "kind": "project",
        "note": "An invented codebase that recomputes pretend activations.",
        "section": "Invented Systems", "tags": ["activation-recomputation"], "uses": [], "predicted_tags": [],
        "title": "Gizmo: A Make-Believe Trainer", "url": "https://example.org/gizmo",
        "venue": null, "year": null
    })
}

/// `entry` as a search hit: its rank, and its snippet with where the words
/// matched.
fn hit(mut entry: Value, rank: u32, snippet_field: &str, highlights: Value) -> Value {
    let snippet = entry[snippet_field].clone();
    let object = entry.as_object_mut().unwrap();
    object.insert("rank".into(), json!(rank));
    object.insert("snippet".into(), snippet);
    object.insert("snippet_field".into(), json!(snippet_field));
    object.insert("highlights".into(), highlights);
    entry
}

#[test]
fn search_json_prints_one_whole_object_per_hit_best_first() {
    let run = Fixture::invented()
        .run(["search", "--json", "pretend"])
        .success()
        .stderr_is("");
    assert_eq!(
        without_scores(run.json_lines()),
        [
            hit(wobble(), 1, "note", json!([[8, 15]])),
            hit(gizmo(), 2, "note", json!([[37, 44]])),
            hit(snarkshard(), 3, "note", json!([[41, 48]])),
        ]
    );
}

#[test]
fn search_json_scores_fall_with_rank() {
    let run = Fixture::invented().run(["search", "--json", "pretend"]);
    let scores: Vec<f64> = run
        .json_lines()
        .iter()
        .map(|hit| hit["score"].as_f64().unwrap())
        .collect();
    assert_eq!(scores.len(), 3);
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}

#[test]
fn similar_json_leaves_out_the_entry_and_has_no_snippet() {
    let run = Fixture::invented()
        .run(["similar", "--json", "wobble-2021"])
        .success();
    let with = |mut entry: Value, rank: u32| {
        let object = entry.as_object_mut().unwrap();
        object.insert("rank".into(), json!(rank));
        object.insert("snippet".into(), Value::Null);
        entry
    };
    assert_eq!(
        without_scores(run.json_lines()),
        [with(gizmo(), 1), with(snarkshard(), 2)]
    );
}

#[test]
fn list_json_prints_the_catalog_in_its_order() {
    let run = Fixture::invented().run(["list", "--json"]).success();
    assert_eq!(run.json_lines(), [wobble(), snarkshard(), gizmo()]);
}

#[test]
fn bibtex_entries_are_whole_and_braced() {
    Fixture::invented()
        .run(["search", "--format", "bibtex", "pretend"])
        .success()
        .stdout_is(
            "@inproceedings{example2021wobble,
  title         = {Wobble: Pretend Pipelines for Imaginary Accelerators},
  author        = {Ada Example and Bob Placeholder},
  booktitle     = {FICT},
  year          = {2021},
  eprint        = {1412.99990},
  archiveprefix = {arXiv},
  url           = {https://arxiv.org/abs/1412.99990},
}

@software{gizmo,
  title         = {Gizmo: A {Make-Believe} Trainer},
  key           = {gizmo},
  url           = {https://example.org/gizmo},
}

@inproceedings{sample2023snarkshard,
  title         = {{SnarkShard}: Routing {Make-Believe} Experts},
  author        = {Carol Sample and others},
  booktitle     = {FICTCONF},
  year          = {2023},
  doi           = {10.5555/fictional.77},
  url           = {https://doi.org/10.5555/fictional.77},
}
",
        );
}

#[test]
fn export_bibtex_is_the_catalogs_list_in_bibtex() {
    let fixture = Fixture::invented();
    let listed = fixture.run(["list", "--format", "bibtex"]).success();
    fixture
        .run(["export", "--format", "bibtex"])
        .success()
        .stdout_is(listed.stdout());
    assert_eq!(listed.stdout().matches("\n@").count() + 1, 3);
}

/// An invented preprint, in a section after the invented systems.
const PREPRINTS: &str = r#"[section]
name = "Invented Preprints"
group = "Papers"
order = 2

[[entry]]
id = "quibble-2015"
kind = "paper"
title = "Quibble: Make-Believe Bubbles"
url = "https://arxiv.org/abs/1501.99992"
authors = ["Dora van Mock"]
venue = "arxiv"
year = 2015
arxiv = "1501.99992"
tags = ["pipeline-parallelism"]
note = "Counts pretend bubbles."
"#;

/// The invented catalog and a preprint: every type of citation.
fn with_a_preprint() -> Fixture {
    Fixture::with_files(&[
        ("tags.toml", TAGS),
        ("invented-systems.toml", INVENTED),
        ("invented-preprints.toml", PREPRINTS),
    ])
}

/// The CSL items of the invented entries, by id.
fn csl_item(id: &str) -> Value {
    match id {
        "wobble-2021" => json!({
            "id": "example2021wobble", "type": "paper-conference",
            "title": "Wobble: Pretend Pipelines for Imaginary Accelerators",
            "author": [{"family": "Example", "given": "Ada"}, {"family": "Placeholder", "given": "Bob"}],
            "issued": {"date-parts": [[2021]]}, "container-title": "FICT",
            "URL": "https://arxiv.org/abs/1412.99990", "note": "arXiv: 1412.99990"
        }),
        // et_al: only the author the catalog names.
        "snarkshard-2023" => json!({
            "id": "sample2023snarkshard", "type": "paper-conference",
            "title": "SnarkShard: Routing Make-Believe Experts",
            "author": [{"family": "Sample", "given": "Carol"}],
            "issued": {"date-parts": [[2023]]}, "container-title": "FICTCONF",
            "DOI": "10.5555/fictional.77", "URL": "https://doi.org/10.5555/fictional.77"
        }),
        "gizmo" => json!({
            "id": "gizmo", "type": "software", "title": "Gizmo: A Make-Believe Trainer",
            "URL": "https://example.org/gizmo"
        }),
        "quibble-2015" => json!({
            "id": "mock2015quibble", "type": "article", "title": "Quibble: Make-Believe Bubbles",
            "author": [{"family": "Mock", "given": "Dora", "dropping-particle": "van"}],
            "issued": {"date-parts": [[2015]]}, "publisher": "arXiv", "number": "arXiv:1501.99992",
            "URL": "https://arxiv.org/abs/1501.99992"
        }),
        _ => panic!("no CSL item for {id}"),
    }
}

/// The RIS record of an invented entry, by id.
fn ris_record(id: &str) -> String {
    let lines: &[&str] = match id {
        "wobble-2021" => &[
            "TY  - CPAPER",
            "ID  - example2021wobble",
            "TI  - Wobble: Pretend Pipelines for Imaginary Accelerators",
            "AU  - Example, Ada",
            "AU  - Placeholder, Bob",
            "PY  - 2021",
            "T2  - FICT",
            "DB  - arXiv",
            "AN  - 1412.99990",
            "UR  - https://arxiv.org/abs/1412.99990",
            "ER  - ",
        ],
        "snarkshard-2023" => &[
            "TY  - CPAPER",
            "ID  - sample2023snarkshard",
            "TI  - SnarkShard: Routing Make-Believe Experts",
            "AU  - Sample, Carol",
            "PY  - 2023",
            "T2  - FICTCONF",
            "DO  - 10.5555/fictional.77",
            "UR  - https://doi.org/10.5555/fictional.77",
            "ER  - ",
        ],
        "gizmo" => &[
            "TY  - COMP",
            "ID  - gizmo",
            "TI  - Gizmo: A Make-Believe Trainer",
            "UR  - https://example.org/gizmo",
            "ER  - ",
        ],
        "quibble-2015" => &[
            "TY  - UNPB",
            "ID  - mock2015quibble",
            "TI  - Quibble: Make-Believe Bubbles",
            "AU  - Mock, Dora van",
            "PY  - 2015",
            "DB  - arXiv",
            "AN  - 1501.99992",
            "UR  - https://arxiv.org/abs/1501.99992",
            "ER  - ",
        ],
        _ => panic!("no RIS record for {id}"),
    };
    lines.iter().map(|line| format!("{line}\n")).collect()
}

const LIST_ORDER: [&str; 4] = ["wobble-2021", "snarkshard-2023", "gizmo", "quibble-2015"];

#[test]
fn csl_json_is_one_pretty_array_of_items_keyed_as_bibtex() {
    let run = with_a_preprint()
        .run(["list", "--format", "csl-json"])
        .success()
        .stderr_is("");
    assert!(
        run.stdout()
            .starts_with("[\n  {\n    \"id\": \"example2021wobble\",\n")
            && run.stdout().ends_with("}\n]\n"),
        "{}",
        run.stdout()
    );
    assert_eq!(run.json(), Value::Array(LIST_ORDER.map(csl_item).to_vec()));
}

#[test]
fn ris_records_run_from_ty_to_er_a_blank_line_apart() {
    let records: Vec<String> = LIST_ORDER.map(ris_record).to_vec();
    with_a_preprint()
        .run(["list", "--format", "ris"])
        .success()
        .stderr_is("")
        .stdout_is(&records.join("\n"));
}

#[test]
fn search_and_show_cite_as_list_does_in_their_own_order() {
    let fixture = with_a_preprint();
    let searched = ["wobble-2021", "quibble-2015", "gizmo", "snarkshard-2023"];
    let run = fixture
        .run(["search", "--format", "csl-json", "pretend"])
        .success();
    assert_eq!(run.json(), Value::Array(searched.map(csl_item).to_vec()));
    let records: Vec<String> = searched.map(ris_record).to_vec();
    fixture
        .run(["search", "--format", "ris", "pretend"])
        .success()
        .stdout_is(&records.join("\n"));
    let run = fixture
        .run(["show", "--format", "csl-json", "quibble-2015"])
        .success();
    assert_eq!(run.json(), json!([csl_item("quibble-2015")]));
    fixture
        .run(["show", "--format", "ris", "arxiv:1501.99992"])
        .success()
        .stdout_is(&ris_record("quibble-2015"));
    let bibtex = fixture
        .run(["search", "--format", "bibtex", "id:gizmo"])
        .success();
    fixture
        .run(["show", "--format", "bibtex", "gizmo"])
        .success()
        .stdout_is(bibtex.stdout());
}

#[test]
fn no_hit_is_an_empty_csl_array_and_no_ris() {
    let fixture = Fixture::invented();
    fixture
        .run(["search", "--format", "csl-json", "nothingmatchesthis"])
        .code(1)
        .stdout_is("[]\n");
    fixture
        .run(["search", "--format", "ris", "nothingmatchesthis"])
        .code(1)
        .stdout_is("");
}

#[test]
fn export_citations_are_the_catalogs_list() {
    let fixture = with_a_preprint();
    for format in ["csl-json", "ris"] {
        let listed = fixture.run(["list", "--format", format]).success();
        fixture
            .run(["export", "--format", format])
            .success()
            .stdout_is(listed.stdout());
    }
}

#[test]
fn the_terminal_listing_shows_each_hit_in_five_lines() {
    Fixture::invented()
        .run(["search", "pretend"])
        .success()
        .stderr_is("")
        .stdout_is(
            " 1. Wobble: Pretend Pipelines for Imaginary Accelerators
    Ada Example et al. · FICT 2021 · Invented Systems
    pipeline-parallelism
    https://arxiv.org/abs/1412.99990
    Streams pretend micro-batches through imaginary stages.

 2. Gizmo: A Make-Believe Trainer
    project · Invented Systems
    activation-recomputation
    https://example.org/gizmo
    An invented codebase that recomputes pretend activations.

 3. SnarkShard: Routing Make-Believe Experts
    Carol Sample et al. · FICTCONF 2023 · Invented Systems
    mixture-of-experts, collective-communication
    https://doi.org/10.5555/fictional.77
    Routes tokens to invented experts over a pretend all-to-all.
",
        );
}

#[test]
fn list_cuts_long_titles_to_the_width() {
    Fixture::invented()
        .cmd()
        .env("COLUMNS", "60")
        .args(["list"])
        .run()
        .success()
        .stdout_is(
            "wobble-2021      Wobble: Pretend Pipelines for Imaginary Ac…
                 Ada Example et al. · FICT 2021 · Invented …
snarkshard-2023  SnarkShard: Routing Make-Believe Experts
                 Carol Sample et al. · FICTCONF 2023 · Inve…
gizmo            Gizmo: A Make-Believe Trainer
                 project · Invented Systems
",
        );
}

#[test]
fn show_prints_every_field_and_where_it_came_from() {
    Fixture::invented()
        .run(["show", "wobble-2021"])
        .success()
        .stdout_is(
            "Wobble: Pretend Pipelines for Imaginary Accelerators
  id        wobble-2021
  kind      paper
  section   Invented Systems
  authors   Ada Example, Bob Placeholder  (as the list gives them)
  venue     FICT
  year      2021
  url       https://arxiv.org/abs/1412.99990
  arxiv     1412.99990  (from the url)
  tags      pipeline-parallelism
  note      Streams pretend micro-batches through imaginary stages.
  defined   catalog: catalog/invented-systems.toml:6:1

  no abstract cached yet: run `distml-search index` with network access
",
        );
}

#[test]
fn show_of_a_project_leaves_out_the_fields_it_lacks() {
    Fixture::invented()
        .run(["show", "gizmo"])
        .success()
        .stdout_is(
            "Gizmo: A Make-Believe Trainer
  id        gizmo
  kind      project
  section   Invented Systems
  url       https://example.org/gizmo
  tags      activation-recomputation
  note      An invented codebase that recomputes pretend activations.
  defined   catalog: catalog/invented-systems.toml:31:1

  no abstract cached yet: run `distml-search index` with network access
",
        );
}

#[test]
fn show_json_is_the_entry_with_its_provenance() {
    let run = Fixture::invented()
        .run(["show", "--json", "wobble-2021"])
        .success();
    let mut expected = wobble();
    let object = expected.as_object_mut().unwrap();
    for (key, value) in [
        ("abstract", Value::Null),
        ("abstract_source", Value::Null),
        ("defined_at", json!("catalog/invented-systems.toml:6:1")),
        ("et_al", json!(false)),
        ("metadata", Value::Null),
        ("predicted", json!([])),
    ] {
        object.insert(key.into(), value);
    }
    assert_eq!(run.json(), expected);
}

#[test]
fn stats_counts_entries_metadata_and_the_index() {
    let fixture = Fixture::invented();
    fixture.run(["index"]).success();
    let generation = &generations(&fixture.index())[0];
    fixture.run(["stats"]).success().stdout_is(&format!(
        "3 entries: 2 papers, 1 project, in 1 section; 4 tags
metadata: abstracts 0/2 (0%), full author lists 0, arXiv ids 1, DOIs 1
index: catalog 3, imported from arXiv 0; 0.0 MB in index/{generation}

by section
  Invented Systems                     3

by tag: works about it (primary tags), +works that only use it
  activation-recomputation       1        collective-communication       1
  mixture-of-experts             1        pipeline-parallelism           1

by year
  2021  1   #
  2023  1   #

by venue: FICT 1, FICTCONF 1
"
    ));
}

#[test]
fn export_writes_the_awesome_list_markdown() {
    Fixture::invented()
        .run(["export"])
        .success()
        .stdout_is(
            "# Awesome Distributed Machine Learning System

Projects and papers on distributed training and inference of large models, exported by distml-search.

## Contents

- [Papers](#papers)
  - [Invented Systems](#invented-systems)

## Papers

### Invented Systems

- [Wobble: Pretend Pipelines for Imaginary Accelerators](https://arxiv.org/abs/1412.99990) by Ada Example, Bob Placeholder, FICT 2021
- [SnarkShard: Routing Make-Believe Experts](https://doi.org/10.5555/fictional.77) by Carol Sample et al., FICTCONF 2023
- [Gizmo: A Make-Believe Trainer](https://example.org/gizmo)
",
        );
}

#[test]
fn check_summarises_a_clean_catalog_on_stdout() {
    Fixture::invented()
        .run(["check"])
        .success()
        .stderr_is("")
        .stdout_is(
            "catalog: ok: 3 entries (2 papers, 1 project) in 1 section, 4 tags

  Invented Systems                     3

  most used primary tags: activation-recomputation 1, collective-communication 1, mixture-of-experts 1, pipeline-parallelism 1
",
        );
}
