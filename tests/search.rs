//! `search`, `show`, `similar`, `list` and `stats` on a small catalog: what a
//! user sees, and the exit statuses scripts rely on (0 hits, 1 none, 2 error).

mod common;

use common::{BIN, Fixture, Run, TAGS, search_ids};

fn search(fixture: &Fixture, args: &[&str]) -> Run {
    fixture.cmd().arg("search").args(args).run()
}

#[test]
fn first_search_builds_the_index_and_finds_by_title() {
    let fixture = Fixture::new();
    search(&fixture, &["zero bubble"])
        .success()
        .stderr_is("")
        .stdout_is(
            " 1. Zero Bubble Pipeline Parallelism
    Penghui Qi et al. · ICLR 2024 · Pipeline Parallelism
    pipeline-parallelism
    https://arxiv.org/abs/2401.10241
    Splits the backward pass so weight-gradient work fills idle slots.
",
        );
    assert!(fixture.index().join("CURRENT").exists());
}

#[test]
fn a_synonym_finds_work_that_never_names_the_technique() {
    let fixture = Fixture::new();
    assert_eq!(
        search_ids(&fixture, &["gradient checkpointing"])[..2],
        ["gpipe-2019", "megatron-lm"]
    );
}

#[test]
fn an_alias_of_several_words_finds_its_technique() {
    assert_eq!(
        search_ids(&Fixture::new(), &["sparsely", "gated"]),
        ["fastermoe-2022"]
    );
}

#[test]
fn a_technique_name_says_which_technique_it_stands_for() {
    search(&Fixture::new(), &["MoE"])
        .success()
        .stderr_is("including synonyms: MoE → mixture-of-experts\n");
}

#[test]
fn acronyms_joined_by_a_plus_are_each_a_technique() {
    let fixture = Fixture::new();
    let spaced = search_ids(&fixture, &["MoE pipeline"]);
    assert!(!spaced.is_empty());
    assert_eq!(search_ids(&fixture, &["MoE+pipeline"]), spaced);
    search(&fixture, &["MoE + pipeline"])
        .success()
        .stderr_is("including synonyms: MoE → mixture-of-experts\n");
}

#[test]
fn a_technique_says_its_other_names_not_itself_again() {
    search(&Fixture::new(), &["mixture of experts"])
        .success()
        .stderr_is("including synonyms: mixture of experts → MoE, sparsely gated\n");
}

#[test]
fn technical_spellings_agree() {
    let fixture = Fixture::new();
    fixture.write(
        "mixture-of-experts-system.toml",
        &common::MOE.replace(
            "overlaps all-to-all with expert compute",
            "overlaps all-to-all and all-reduce with expert compute",
        ),
    );
    for query in ["all-reduce", "allreduce", "all reduce", "AllReduce"] {
        let ids = search_ids(&fixture, &[query]);
        assert_eq!(
            ids.first().map(String::as_str),
            Some("fastermoe-2022"),
            "{query}"
        );
    }
}

#[test]
fn typos_are_repaired_and_said() {
    search(&Fixture::new(), &["megatorn"])
        .success()
        .stderr_is("searched for megatron (not megatorn)\n")
        .stdout_has(" 1. Megatron-LM: Ongoing Research Training Transformer Models at Scale\n");
}

#[test]
fn a_name_that_is_an_english_word_is_a_name_when_typed_in_its_capitals() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "quiet-2021"
kind = "paper"
title = "QuIet: Hushed Gradients"
url = "https://example.org/q1"
year = 2021
tags = ["pipeline-parallelism"]
note = "Sends fewer gradients."

[[entry]]
id = "blorp-2022"
kind = "paper"
title = "Blorp: a Paper on Quiet Training"
url = "https://example.org/q2"
year = 2022
tags = ["pipeline-parallelism"]
note = "This paper introduced quiet training, quietly."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("q.toml", files)]);
    assert_eq!(
        search_ids(&fixture, &["which paper introduced QuIet"])[0],
        "quiet-2021"
    );
    // In small letters among other words, it is the English word.
    assert_eq!(
        search_ids(&fixture, &["which paper introduced quiet"])[0],
        "blorp-2022"
    );
}

#[test]
fn a_long_word_written_together_and_misspelt_is_repaired() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "quuxo-2021"
kind = "paper"
title = "Quuxo: Zibble-Frobnication at Scale"
url = "https://example.org/z1"
year = 2021
tags = ["pipeline-parallelism"]
note = "Frobnicates zibbles."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("z.toml", files)]);
    search(&fixture, &["zibblefrobnicaton"])
        .success()
        .stderr_is("searched for zibblefrobnication (not zibblefrobnicaton)\n")
        .stdout_has(" 1. Quuxo: Zibble-Frobnication at Scale\n");
}

#[test]
fn a_name_split_in_two_is_joined_and_said() {
    let fixture = Fixture::new();
    search(&fixture, &["mega tron"])
        .success()
        .stderr_is("searched for megatron (not mega tron)\n")
        .stdout_has(" 1. Megatron-LM: Ongoing Research Training Transformer Models at Scale\n");
    search(&fixture, &["faster moe"])
        .success()
        .stderr_is("searched for fastermoe (not faster moe)\n");
    // Misspelt too: the two together are repaired to the name.
    search(&fixture, &["fastr moe"])
        .success()
        .stderr_is("searched for fastermoe (not fastr moe)\n");
    // Not when one word alone comes close: the other is a word of its own.
    search(&fixture, &["megatrn 2"])
        .success()
        .stderr_is("searched for megatron (not megatrn)\n");
    // Two words the index knows apart stay apart.
    search(&fixture, &["zero bubble"]).success().stderr_is("");
}

#[test]
fn a_typo_in_one_part_of_a_hyphenated_word_is_repaired_in_that_part() {
    search(&Fixture::new(), &["megatorn-lm"])
        .success()
        .stderr_is("searched for megatron (not megatorn)\n")
        .stdout_has(" 1. Megatron-LM: Ongoing Research Training Transformer Models at Scale\n");
}

#[test]
fn an_acronym_in_capitals_is_repaired_only_into_an_acronym_of_the_vocabulary() {
    let fixture = Fixture::new();
    // Typed in capitals, "megatorn" is an acronym the index lacks, not a
    // typo of megatron.
    search(&fixture, &["MEGATORN"]).code(1).stdout_is("");
    search(&fixture, &["NCLL"]).success().stderr_is(
        "searched for NCCL (not NCLL)\nincluding synonyms: NCCL → collective-communication\n",
    );
}

#[test]
fn a_misspelt_technique_name_still_expands() {
    let fixture = Fixture::new();
    let right = search(&fixture, &["--json", "gradient", "checkpointing"]).success();
    assert!(!right.stdout().is_empty());
    search(&fixture, &["--json", "gradient", "checkpointng"])
        .success()
        .stderr_has("searched for checkpointing (not checkpointng)")
        .stdout_is(right.stdout());
}

#[test]
fn json_lines_carry_the_documented_fields() {
    let run = search(&Fixture::new(), &["--json", "pipeline"]).success();
    let first = &run.json_lines()[0];
    for field in [
        "rank", "score", "id", "kind", "title", "authors", "venue", "year", "section", "tags",
        "url", "arxiv", "doi", "snippet",
    ] {
        assert!(first.get(field).is_some(), "missing {field} in {first}");
    }
    assert_eq!(first["rank"], 1);
    assert!(first["authors"].is_array() && first["tags"].is_array());
}

#[test]
fn json_identifiers_are_strings_or_null() {
    let run = search(&Fixture::new(), &["--json", "id:zero-bubble-2024"]).success();
    let [zero] = &run.json_lines()[..] else {
        run.fail("expected one hit");
    };
    assert_eq!(zero["arxiv"], "2401.10241");
    assert_eq!(zero["doi"], serde_json::Value::Null);
}

#[test]
fn bibtex_braces_the_capitals_of_a_title() {
    search(&Fixture::new(), &["--format", "bibtex", "-n", "1", "gpipe"])
        .success()
        .stdout_is(
            "@inproceedings{huang2019gpipe,
  title         = {{GPipe}: Efficient Training of Giant Neural Networks using Pipeline Parallelism},
  author        = {Yanping Huang and others},
  booktitle     = {Advances in Neural Information Processing Systems (NeurIPS)},
  year          = {2019},
  url           = {https://proceedings.neurips.cc/paper/2019/file/gpipe-Paper.pdf},
}
",
        );
}

#[test]
fn kind_filters_in_the_query_and_as_a_flag() {
    let fixture = Fixture::new();
    assert_eq!(
        search_ids(&fixture, &["pipeline", "kind:project"]),
        ["megatron-lm"]
    );
    assert_eq!(
        search_ids(&fixture, &["--kind", "project", "pipeline"]),
        ["megatron-lm"]
    );
}

#[test]
fn year_filters_in_the_query_and_as_a_flag() {
    let fixture = Fixture::new();
    assert!(search_ids(&fixture, &["pipeline year:2020..2023"]).is_empty());
    assert_eq!(
        search_ids(&fixture, &["--year", "2019", "pipeline"]),
        ["gpipe-2019"]
    );
}

#[test]
fn a_tag_filter_takes_an_alias() {
    assert_eq!(
        search_ids(&Fixture::new(), &["tag:MoE"]),
        ["fastermoe-2022"]
    );
}

#[test]
fn a_section_filter_takes_part_of_the_name() {
    assert_eq!(
        search_ids(&Fixture::new(), &["--section", "mixture", "training"]),
        ["fastermoe-2022"]
    );
}

#[test]
fn an_author_filter_takes_a_surname() {
    assert_eq!(
        search_ids(&Fixture::new(), &["author:huang"]),
        ["gpipe-2019"]
    );
}

#[test]
fn a_minus_excludes_a_word() {
    assert_eq!(
        search_ids(&Fixture::new(), &["pipeline -gpipe kind:paper"]),
        ["zero-bubble-2024"]
    );
}

#[test]
fn no_hit_exits_1_with_a_hint() {
    search(&Fixture::new(), &["quantum chromodynamics"])
        .code(1)
        .stdout_is("")
        .stderr_is(
            "no results for \"quantum chromodynamics\": try fewer words, or a technique's common name\n",
        );
}

#[test]
fn bad_queries_get_one_line_errors_with_positions() {
    let fixture = Fixture::new();
    for (query, message) in [
        (
            "(pipeline bubble",
            "unbalanced '(' at column 1: add a ')' to close it",
        ),
        (
            "pipeline)",
            "unbalanced ')' at column 9: remove it or add a '(' before it",
        ),
        (
            "colour:red",
            "unknown field `colour:` at column 1 (fields: tag, about, section, author, venue, kind, year, title, id, arxiv, doi, collection); put the words in quotes to search for them",
        ),
        (
            "tag:nonsense",
            "tag:nonsense at column 1: unknown tag (closest: mixture-of-experts, pipeline-parallelism, activation-recomputation; `distml-search stats` lists them all)",
        ),
        (
            "year:soon",
            "year:soon at column 1: expected a year such as 2021, or a range such as 2020..2023",
        ),
        ("", "the query has no words to search for"),
        ("🚀🚀", "the query has no searchable words: 🚀🚀"),
        (
            "the of and",
            "the query has only common words (the, of, and): add a more specific one",
        ),
    ] {
        search(&fixture, &[query])
            .code(2)
            .stdout_is("")
            .stderr_is(&format!("distml-search: error: {message}\n"));
    }
}

#[test]
fn a_bad_filter_flag_is_named_not_given_a_column() {
    let fixture = Fixture::new();
    search(&fixture, &["--tag", "nonsense", "pipeline"])
        .code(2)
        .stdout_is("")
        .stderr_is(
            "distml-search: error: --tag nonsense: unknown tag (closest: mixture-of-experts, pipeline-parallelism, activation-recomputation; `distml-search stats` lists them all)\n",
        );
    search(&fixture, &["--section", "nowhere", "pipeline"])
        .code(2)
        .stderr_has("distml-search: error: --section nowhere: no such section");
}

#[test]
fn a_year_flag_that_is_not_a_year_is_refused_by_name() {
    search(&Fixture::new(), &["pipeline", "--year", "soon"])
        .code(2)
        .stdout_is("")
        .stderr_has(
            "invalid value 'soon' for '--year <YEARS>': expected a year such as 2021, or a range such as 2020..2023",
        );
}

#[test]
fn a_reversed_year_range_says_so() {
    let expected = "the range 2023..2020 runs backwards: write 2020..2023";
    search(&Fixture::new(), &["pipeline", "--year", "2023..2020"])
        .code(2)
        .stderr_has(expected);
    search(&Fixture::new(), &["pipeline year:2023..2020"])
        .code(2)
        .stderr_is(&format!(
            "distml-search: error: year:2023..2020 at column 10: {expected}\n"
        ));
}

#[test]
fn an_unclosed_quote_is_closed_and_said() {
    search(&Fixture::new(), &["\"zero bubble"])
        .success()
        .stderr_is("distml-search: note: closed the quote opened at column 1\n");
}

#[test]
fn a_very_long_query_is_cut_and_said() {
    search(&Fixture::new(), &[&"pipeline ".repeat(1200)])
        .success()
        .stderr_has("distml-search: note: query cut to its first 4096 characters\n");
}

#[test]
fn words_of_an_unindexed_script_find_nothing() {
    search(&Fixture::new(), &["并行 训练"])
        .code(1)
        .stdout_is("");
}

#[test]
fn colour_only_when_asked() {
    let fixture = Fixture::new();
    let plain = search(&fixture, &["pipeline"]).success();
    assert!(!plain.stdout().contains('\x1b'), "{:?}", plain.stdout());
    search(&fixture, &["--color", "always", "pipeline"])
        .success()
        .stdout_has("\x1b[1m");
}

#[test]
fn control_characters_in_data_never_reach_the_terminal() {
    let fixture = Fixture::new();
    fixture.write(
        "pipeline-parallelism.toml",
        &common::PIPELINES.replace(
            "Splits the backward pass so weight-gradient work fills idle slots.",
            "Evil \\u001b[2J\\u001b]0;pwned\\u0007 bubble \\u202e reversed",
        ),
    );
    let run = search(&fixture, &["--color", "always", "bubble"]).success();
    let stdout = run.stdout();
    assert!(
        !stdout.contains("\x1b[2J")
            && !stdout.contains("\x1b]0")
            && !stdout.contains('\u{7}')
            && !stdout.contains('\u{202e}'),
        "{stdout:?}"
    );
}

#[test]
fn json_keeps_control_characters_escaped() {
    let fixture = Fixture::new();
    fixture.write(
        "pipeline-parallelism.toml",
        &common::PIPELINES.replace(
            "Splits the backward pass so weight-gradient work fills idle slots.",
            "Evil \\u001b[2J bubble",
        ),
    );
    let run = search(&fixture, &["--json", "bubble"]).success();
    assert!(run.stdout().contains("Evil \\u001b[2J bubble"), "escaped");
    assert_eq!(run.json_lines()[0]["snippet"], "Evil \u{1b}[2J bubble");
}

#[test]
fn a_changed_catalog_is_reindexed_before_searching() {
    let fixture = Fixture::new();
    search(&fixture, &["chimera"]).code(1);
    let added = format!(
        "{}\n[[entry]]\nid = \"chimera-2021\"\nkind = \"paper\"\ntitle = \"Chimera: bidirectional pipelines\"\nurl = \"https://example.org/chimera\"\nauthors = [\"Shigang Li\"]\nvenue = \"SC\"\nyear = 2021\ntags = [\"pipeline-parallelism\"]\nnote = \"Two pipelines in opposite directions.\"\n",
        common::PIPELINES
    );
    fixture.write("pipeline-parallelism.toml", &added);
    assert_eq!(search_ids(&fixture, &["chimera"]), ["chimera-2021"]);
}

#[test]
fn explain_shows_the_parsed_query_and_its_expansions() {
    search(&Fixture::new(), &["--explain", "gradient checkpointing"])
        .success()
        .stderr_has("query: (gradient checkpointing)")
        .stderr_has("expanded \"gradient checkpointing\" to tag activation-recomputation");
}

#[test]
fn explain_says_which_fields_and_terms_scored_with_their_weights() {
    let run = search(
        &Fixture::new(),
        &["--explain", "--json", "-n", "1", "gradient checkpointing"],
    )
    .success();
    let hits = run.json_lines();
    // The tag the phrase names (its weight of 4 raised: in a catalog of
    // four, every tag is broad), and one of the technique's other names
    // ("activation recomputation", stemmed) in the tags' text, at the
    // weight of other names (a quarter of the field's).
    assert_eq!(
        hits[0]["explanation"].as_str().unwrap(),
        "19.570 score, from:\n   18.896  tagged activation-recomputation ×28.85\n    0.675  tag_text: \"activ recomput\" ×0.5\n"
    );
}

#[test]
fn explain_raw_prints_the_whole_score_tree() {
    search(
        &Fixture::new(),
        &["--explain=raw", "gradient checkpointing"],
    )
    .success()
    .stdout_has("Boost x0.5 of")
    .stdout_has("TermQuery");
}

#[test]
fn a_tag_flag_alone_lists_its_entries_newest_first() {
    let fixture = Fixture::new();
    assert_eq!(
        search_ids(&fixture, &["--tag", "activation-recomputation"]),
        ["gpipe-2019", "megatron-lm"]
    );
    assert_eq!(
        search_ids(&fixture, &["--tag", "pipeline-parallelism", "-n", "2"]),
        ["zero-bubble-2024", "gpipe-2019"]
    );
}

#[test]
fn neither_words_nor_filters_is_a_usage_error() {
    search(&Fixture::new(), &[])
        .code(2)
        .stdout_is("")
        .stderr_has("<QUERY>");
}

#[test]
fn the_more_line_counts_in_words() {
    let fixture = Fixture::new();
    search(&fixture, &["-n", "1", "pipeline"])
        .success()
        .stderr_is("1 result shown; more with --limit 2\n");
    search(&fixture, &["-n", "2", "pipeline"])
        .success()
        .stderr_is("2 results shown; more with --limit 4\n");
}

#[test]
fn names_that_stem_alike_are_sought_once() {
    let tags = common::TAGS.replace(
        r#""activation checkpointing", "rematerialization"]"#,
        r#""activation checkpointing", "rematerialization", "recomputation", "recompute"]"#,
    );
    assert_ne!(tags, common::TAGS);
    let fixture = Fixture::with_files(&[
        ("tags.toml", tags.as_str()),
        ("pipeline-parallelism.toml", common::PIPELINES),
    ]);
    // To the stemmer "recompute" is "recomputation": one name, counted once.
    search(&fixture, &["--explain", "gradient checkpointing"])
        .success()
        .stderr_has("rematerialization, recomputation\n")
        .stderr_lacks("recompute");
}

/// `search` with stdout a pipe whose reader has gone: each write fails
/// with EPIPE, which must end the run quietly with status 0.
fn search_into_a_closed_pipe(fixture: &Fixture, args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    fixture
        .cmd()
        .arg("search")
        .args(args)
        .into_command()
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn a_closed_pipe_before_the_first_line_is_not_an_error() {
    let fixture = Fixture::new();
    fixture.run(["index"]).success();
    let output = search_into_a_closed_pipe(&fixture, &["pipeline"]);
    assert_eq!(
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        ),
        (Some(0), "".into())
    );
}

#[test]
fn a_reader_that_leaves_after_one_line_is_not_an_error() {
    // Far more than a pipe holds (64 KiB), so that the writes after the
    // reader has gone must fail.
    let fixture = Fixture::new();
    let mut many = String::from("[section]\nname = \"Generated\"\norder = 9\n");
    for i in 0..2_000 {
        many.push_str(&format!(
            "\n[[entry]]\nid = \"g-{i}\"\nkind = \"project\"\ntitle = \"Generated pipeline project {i}\"\nurl = \"https://example.org/{i}\"\ntags = [\"pipeline-parallelism\"]\nnote = \"A generated pipeline note {i}, long enough to fill a pipe quickly.\"\n"
        ));
    }
    fixture.write("generated.toml", &many);
    fixture.run(["index"]).success();
    let mut child = std::process::Command::new(BIN)
        .current_dir(fixture.dir.path())
        .env("DISTML_OFFLINE", "1")
        .args(["search", "--json", "-n", "5000", "pipeline"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    assert!(first.starts_with("{\"arxiv\""), "{first}");
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        ),
        (Some(0), "".into())
    );
}

#[test]
fn show_prints_the_entry_as_the_list_gives_it() {
    Fixture::new()
        .run(["show", "gpipe-2019"])
        .success()
        .stdout_is(
            "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism
  id        gpipe-2019
  kind      paper
  section   Pipeline Parallelism
  authors   Yanping Huang et al.  (as the list gives them)
  venue     NeurIPS
  year      2019
  url       https://proceedings.neurips.cc/paper/2019/file/gpipe-Paper.pdf
  tags      pipeline-parallelism, activation-recomputation
  note      Streams micro-batches through stages and recomputes activations in
            backward.
  defined   catalog: catalog/pipeline-parallelism.toml:6:1

  no abstract cached yet: run `distml-search index` with network access
",
        );
}

#[test]
fn show_of_an_unknown_id_is_an_error() {
    Fixture::new().run(["show", "nope"]).code(2).stdout_is("");
}

#[test]
fn similar_finds_related_entries_but_not_the_entry_itself() {
    let run = Fixture::new()
        .run(["similar", "--json", "gpipe-2019"])
        .success();
    let ids = run.ids();
    assert!(
        !ids.contains(&"gpipe-2019".to_string()) && ids.contains(&"megatron-lm".to_string()),
        "{ids:?}"
    );
}

#[test]
fn list_by_tag_follows_the_catalog_order() {
    let run = Fixture::new()
        .run(["list", "--json", "--tag", "pipeline-parallelism"])
        .success();
    assert_eq!(run.ids(), ["megatron-lm", "gpipe-2019", "zero-bubble-2024"]);
}

#[test]
fn stats_counts_entries_and_abstracts() {
    let run = Fixture::new().run(["stats"]).success();
    let lines = run.stdout_lines();
    assert_eq!(
        lines[..2],
        [
            "4 entries: 3 papers, 1 project, in 3 sections; 4 tags",
            "metadata: abstracts 0/3 (0%), full author lists 0, arXiv ids 1, DOIs 1",
        ]
    );
}

#[test]
fn show_finds_a_catalog_entry_by_its_arxiv_id_or_doi() {
    let fixture = Fixture::invented();
    for id in ["arxiv:1412.99990", "arxiv:1412.99990v3"] {
        let run = fixture.run(["show", "--json", id]).success();
        assert_eq!(run.json()["id"], "wobble-2021", "{id}");
    }
    let run = fixture
        .run(["show", "--json", "doi:10.5555/FICTIONAL.77"])
        .success();
    assert_eq!(run.json()["id"], "snarkshard-2023");
}

#[test]
fn similar_takes_an_arxiv_id_of_a_catalog_entry() {
    let fixture = Fixture::invented();
    let by_id = fixture.run(["similar", "--json", "wobble-2021"]).success();
    let by_arxiv = fixture
        .run(["similar", "--json", "arxiv:1412.99990"])
        .success();
    assert_eq!(by_arxiv.ids(), by_id.ids());
}

/// Four works about quibble sharding: which venue and year each has decides
/// the order when the query names them.
const QUIBBLES: &str = r#"[section]
name = "Quibbles"
order = 1

[[entry]]
id = "quibble-fict-2022"
kind = "paper"
title = "Quibble Sharding for Pretend Clusters"
url = "https://example.org/q1"
authors = ["Ada Example"]
venue = "FICTCONF"
year = 2022
tags = ["pipeline-parallelism"]
note = "Shards quibbles."

[[entry]]
id = "quibble-fict-2021"
kind = "paper"
title = "Quibble Sharding for Imaginary Clusters"
url = "https://example.org/q2"
authors = ["Bob Placeholder"]
venue = "FICTCONF"
year = 2021
tags = ["pipeline-parallelism"]
note = "Shards quibbles."

[[entry]]
id = "quibble-other-2022"
kind = "paper"
title = "Quibble Sharding for Invented Clusters"
url = "https://example.org/q3"
authors = ["Cy Nobody"]
venue = "MADEUPSYS"
year = 2022
tags = ["pipeline-parallelism"]
note = "Shards quibbles."

[[entry]]
id = "unrelated-fict-2022"
kind = "paper"
title = "Wobble Scheduling"
url = "https://example.org/q4"
authors = ["Di Nemo"]
venue = "FICTCONF"
year = 2022
tags = ["pipeline-parallelism"]
note = "Schedules wobbles."
"#;

#[test]
fn a_venue_and_year_typed_as_words_rank_their_works_first_and_keep_the_others() {
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("quibbles.toml", QUIBBLES)]);
    // The work at both, then those at one of them, then a work at both
    // that lacks the words: still shown, last.
    let ids = search_ids(&fixture, &["fictconf 2022 quibble sharding"]);
    assert_eq!(ids.len(), 4, "{ids:?}");
    assert_eq!(ids[0], "quibble-fict-2022");
    let mut middle = ids[1..3].to_vec();
    middle.sort();
    assert_eq!(middle, ["quibble-fict-2021", "quibble-other-2022"]);
    assert_eq!(ids[3], "unrelated-fict-2022");
    // Without the facets the four words rank the three quibbles alike.
    assert_eq!(search_ids(&fixture, &["quibble sharding"]).len(), 3);
    search(&fixture, &["--explain", "-n", "1", "FICTCONF 2022 quibble"])
        .success()
        .stdout_has("×3.00 venue:\"FICTCONF\"")
        .stdout_has("×1.50 year:\"2022\"");
}

/// Two works on glims: one at SC, one whose title says supercomputing.
const GLIMS: &str = r#"[section]
name = "Glims"
order = 1

[[entry]]
id = "glim-sc-2021"
kind = "paper"
title = "Sharding Glims"
url = "https://example.org/g1"
authors = ["Ex Ample"]
venue = "SC"
year = 2021
tags = ["pipeline-parallelism"]
note = "Shards glims."

[[entry]]
id = "glim-super-2021"
kind = "paper"
title = "Supercomputing Glims"
url = "https://example.org/g2"
authors = ["Oy Ample"]
venue = "FICTCONF"
year = 2021
tags = ["pipeline-parallelism"]
note = "Glims on a supercomputing cluster."
"#;

#[test]
fn a_venue_is_known_by_its_other_name() {
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("glims.toml", GLIMS)]);
    // "Supercomputing" is SC's name: its work first, then the work that
    // only has the word.
    assert_eq!(
        search_ids(&fixture, &["supercomputing glims"]),
        ["glim-sc-2021", "glim-super-2021"]
    );
    search(&fixture, &["--explain", "-n", "1", "Supercomputing glims"])
        .success()
        .stdout_has("venue:\"SC\"");
}

/// A hyphenated word in a title, its words apart in a note, and neither.
const WUBBLES: &str = r#"[section]
name = "Wubbles"
order = 1

[[entry]]
id = "wubble-joined-2021"
kind = "paper"
title = "Million-Token Wubbles"
url = "https://example.org/w1"
tags = ["pipeline-parallelism"]
note = "Wubbles pretend text."

[[entry]]
id = "wubble-apart-2022"
kind = "paper"
title = "Loose Wubbles"
url = "https://example.org/w2"
tags = ["pipeline-parallelism"]
note = "Wubbles over a million pretend tokens."

[[entry]]
id = "wubble-short-2023"
kind = "paper"
title = "Short Wubbles"
url = "https://example.org/w3"
tags = ["pipeline-parallelism"]
note = "Wubbles over short pretend text."
"#;

#[test]
fn a_hyphenated_word_also_finds_its_words_apart() {
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("wubbles.toml", WUBBLES)]);
    // Side by side first; apart after; neither word, not at all.
    assert_eq!(
        search_ids(&fixture, &["million-token"]),
        ["wubble-joined-2021", "wubble-apart-2022"]
    );
}

/// Two projects whose code one account hosts, and one hosted elsewhere.
const HOSTED: &str = r#"[section]
name = "Hosted"
order = 1

[[entry]]
id = "quarble"
kind = "project"
title = "Quarble: Pretend Sharding"
url = "https://github.com/Zentorix/quarble"
tags = ["pipeline-parallelism"]
note = "Shards pretend models."

[[entry]]
id = "flimmet"
kind = "project"
title = "Flimmet: Pretend Planning"
url = "https://gitlab.com/zentorix/flimmet#readme"
tags = ["pipeline-parallelism"]
note = "Plans pretend models."

[[entry]]
id = "dorvel"
kind = "project"
title = "Dorvel: Pretend Zentorix Clone"
url = "https://example.org/zentorix/dorvel"
tags = ["pipeline-parallelism"]
note = "Copies pretend models."

[[entry]]
id = "snorvak"
kind = "project"
title = "Snorvak: Pretend Balancing"
url = "https://github.com/snorvak-projects/snorvak"
tags = ["pipeline-parallelism"]
note = "Balances pretend models."
"#;

#[test]
fn a_project_is_found_by_the_account_that_hosts_its_code() {
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("hosted.toml", HOSTED)]);
    // The two hosted by Zentorix, on any code host, in either case; the
    // other names it in its title only, and a URL path elsewhere is no owner.
    let mut found = search_ids(&fixture, &["zentorix"]);
    found.sort();
    assert_eq!(found, ["dorvel", "flimmet", "quarble"]);
    assert_eq!(
        search_ids(&fixture, &["zentorix", "sharding"])[0],
        "quarble"
    );
    search(&fixture, &["--explain", "-n", "1", "zentorix sharding"])
        .success()
        .stdout_has("owner: zentorix");
    // An account is one name: "snorvak-projects" hosts no work of "projects".
    assert_eq!(search_ids(&fixture, &["snorvakprojects"]), ["snorvak"]);
    assert!(search_ids(&fixture, &["projects"]).is_empty());
}

/// Two projects whose code one account hosts, about different techniques,
/// and a library by another maker about the first one's techniques.
const MAKERS: &str = r#"[section]
name = "Makers"
order = 1

[[entry]]
id = "quarble"
kind = "project"
title = "Quarble: Pretend Sharding Library"
url = "https://github.com/zentorix/quarble"
tags = ["pipeline-parallelism", "collective-communication"]
note = "Shards pretend models."

[[entry]]
id = "flimmet"
kind = "project"
title = "Flimmet: Pretend Expert Routing"
url = "https://github.com/zentorix/flimmet"
tags = ["mixture-of-experts"]
note = "Routes pretend tokens."

[[entry]]
id = "brask"
kind = "project"
title = "Brask: Another Pretend Library"
url = "https://github.com/vorpling/brask"
tags = ["pipeline-parallelism", "collective-communication"]
note = "Pipelines pretend models."
"#;

#[test]
fn a_query_naming_a_maker_brings_its_other_projects_after_the_first() {
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("makers.toml", MAKERS)]);
    // Brask shares Quarble's techniques and the word "library"; Flimmet
    // shares only its maker, which is what the query asks for.
    assert_eq!(
        search_ids(&fixture, &["zentorix library"]),
        ["quarble", "flimmet", "brask"]
    );
    search(&fixture, &["--explain", "zentorix library"])
        .success()
        .stdout_has("feedback: shares maker zentorix with result 1");
    // Without the maker named, its other project gains nothing.
    assert_eq!(
        search_ids(&fixture, &["pretend library"])
            .last()
            .map(String::as_str),
        Some("flimmet")
    );
}

/// A project known by its name, and two frameworks that say "framework"
/// everywhere.
const FRAMEWORKS: &str = r#"[section]
name = "Frameworks"
order = 1

[[entry]]
id = "zorbix"
kind = "project"
title = "Zorbix: Pretend Parallel Training"
url = "https://example.org/zorbix"
tags = ["pipeline-parallelism"]
note = "Trains pretend models on imaginary clusters."

[[entry]]
id = "quux-2021"
kind = "paper"
title = "Quux: A Framework for Framework Builders"
url = "https://example.org/quux"
authors = ["Ex Ample"]
venue = "FICTCONF"
year = 2021
tags = ["pipeline-parallelism"]
note = "A framework whose framework builds pretend frameworks."

[[entry]]
id = "blip-2022"
kind = "paper"
title = "Blip: Framework Frameworks"
url = "https://example.org/blip"
authors = ["Oy Ample"]
venue = "FICTCONF"
year = 2022
tags = ["pipeline-parallelism"]
note = "Another framework of pretend frameworks."

[[entry]]
id = "zero-pretend"
kind = "project"
title = "Zero: Pretend Memory Savings"
url = "https://example.org/zero"
tags = ["activation-recomputation"]
note = "Saves pretend memory."

[[entry]]
id = "bubble-2023"
kind = "paper"
title = "Filling Bubbles of Pretend Pipelines"
url = "https://example.org/bubble"
authors = ["Ay Ample"]
venue = "FICTCONF"
year = 2023
tags = ["pipeline-parallelism"]
note = "Fills the bubbles of pretend pipelines."
"#;

#[test]
fn a_works_name_among_other_words_ranks_that_work_first() {
    let fixture =
        Fixture::with_files(&[("tags.toml", common::TAGS), ("frameworks.toml", FRAMEWORKS)]);
    // "framework" is everywhere in the other two; "Zorbix" names a work.
    let ids = search_ids(&fixture, &["Zorbix framework"]);
    assert_eq!(ids[0], "zorbix", "{ids:?}");
    search(&fixture, &["--explain", "-n", "1", "Zorbix framework"])
        .success()
        .stdout_has("the name of zorbix");
    // A name that is an English word is a word among others: "zero" here
    // is not the Zero project.
    let ids = search_ids(&fixture, &["zero bubble pipelines"]);
    assert_eq!(ids[0], "bubble-2023", "{ids:?}");
}

/// A tag whose description says what its label does not.
const GLIM_TAGS: &str = r#"[[tag]]
id = "glim-sharding"
label = "Glim sharding"
category = "parallelism"
description = "Split a model's glims over many zorps so that no zorp holds them all."

[[tag]]
id = "wobbling"
label = "Wobbling"
category = "parallelism"
description = "Wobbles."
"#;

const GLIM_WORKS: &str = r#"[section]
name = "Glim Works"
order = 1

[[entry]]
id = "frobnicator-2021"
kind = "paper"
title = "Frobnicator"
url = "https://example.org/frob"
authors = ["Ex Ample"]
venue = "FICTCONF"
year = 2021
tags = ["glim-sharding"]
note = "Frobs quickly."

[[entry]]
id = "zorp-wobbling-2022"
kind = "paper"
title = "Zorp Wobbling"
url = "https://example.org/zorp"
authors = ["Oy Ample"]
venue = "FICTCONF"
year = 2022
tags = ["wobbling"]
note = "Wobbles a zorp."
"#;

#[test]
fn a_need_in_plain_words_finds_the_works_whose_tags_it_describes() {
    let fixture = Fixture::with_files(&[("tags.toml", GLIM_TAGS), ("glims.toml", GLIM_WORKS)]);
    // Only the description of glim sharding says glims are spread so that
    // no zorp holds them all; the other work has "zorp" in its own words.
    assert_eq!(
        search_ids(&fixture, &["no zorp should hold every glim"]),
        ["frobnicator-2021", "zorp-wobbling-2022"]
    );
    // A description is the vocabulary's words, not the work's: a negated
    // word found only there leaves the work in.
    assert_eq!(
        search_ids(&fixture, &["frobs -zorps"]),
        ["frobnicator-2021"]
    );
}

#[test]
fn recent_means_the_catalogs_newest_three_years() {
    let fixture = Fixture::new();
    assert_eq!(
        search_ids(&fixture, &["training"]),
        ["megatron-lm", "gpipe-2019", "fastermoe-2022"]
    );
    // The catalog's newest work is of 2024: "recent" is 2022 on. The 2022
    // work passes the 2019 one, and so does the 2024 one without the word:
    // a recent work is what was asked, as with a typed year.
    assert_eq!(
        search_ids(&fixture, &["recent training"]),
        [
            "megatron-lm",
            "fastermoe-2022",
            "zero-bubble-2024",
            "gpipe-2019"
        ]
    );
    search(
        &fixture,
        &["--explain", "-n", "1", "latest pipeline parallelism"],
    )
    .success()
    .stdout_has("year:\"2022..\"");
}

#[test]
fn a_year_typed_as_a_word_raises_the_years_beside_it_less() {
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("quibbles.toml", QUIBBLES)]);
    // The two 2022 quibbles, then 2021's; 2020 would rank all three alike.
    let ids = search_ids(&fixture, &["quibble sharding 2022"]);
    let mut first = ids[..2].to_vec();
    first.sort();
    assert_eq!(first, ["quibble-fict-2022", "quibble-other-2022"]);
    assert_eq!(ids[2], "quibble-fict-2021");
    search(&fixture, &["--explain", "quibble 2020"])
        .success()
        .stdout_has("×1.50 year:\"2019..2021\"");
    let ids = search_ids(&fixture, &["quibble sharding 2020"]);
    assert_eq!(ids[0], "quibble-fict-2021");
}

#[test]
fn a_technique_told_in_other_words_finds_its_tagged_works() {
    let fixture = Fixture::new();
    // "gradient checkpointing", reworded: neither phrase is typed.
    let run = search(
        &fixture,
        &["--json", "--explain", "checkpointing of the gradients"],
    )
    .success();
    let hits = run.json_lines();
    let ids: Vec<&str> = hits.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids[..2], ["gpipe-2019", "megatron-lm"]);
    assert!(
        hits[0]["explanation"].as_str().unwrap().contains(
            "tagged activation-recomputation (\"gradient checkpointing\" in other words)"
        ),
        "{}",
        hits[0]["explanation"]
    );
}

#[test]
fn a_technique_told_in_other_words_may_share_a_word_with_a_technique_typed() {
    let tags = format!(
        "{}
[[tag]]
id = \"plan-search\"
label = \"Plan search\"
category = \"parallelism\"
description = \"Search for a plan.\"
aliases = [\"choosing the parallelism\"]
",
        common::TAGS
    );
    let works = r#"[section]
name = "Plans"
order = 1

[[entry]]
id = "plannix-2021"
kind = "paper"
title = "Plannix: Pretend Planner"
url = "https://example.org/p1"
year = 2021
tags = ["plan-search"]
note = "Plans pretend things."

[[entry]]
id = "stagger-2022"
kind = "paper"
title = "Stagger: Pretend Pipelines"
url = "https://example.org/p2"
year = 2022
tags = ["pipeline-parallelism"]
note = "Stages pretend models."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", &tags), ("plans.toml", works)]);
    // "parallelism" is in the technique typed; "choose" is the query's own.
    let run = search(
        &fixture,
        &["--json", "--explain", "choose pipeline parallelism"],
    )
    .success();
    let planner = run
        .json_lines()
        .into_iter()
        .find(|h| h["id"] == "plannix-2021")
        .expect("the planner is found");
    assert!(
        (planner["explanation"].as_str().unwrap())
            .contains("tagged plan-search (\"choosing the parallelism\" in other words)")
    );
    // Every word inside the technique typed: nothing told in other words.
    assert_eq!(
        search_ids(&fixture, &["pipeline parallelism"]),
        ["stagger-2022"]
    );
}

#[test]
fn a_query_that_is_a_works_name_finds_that_work_first() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "frobnicator-moe-2023"
kind = "paper"
title = "Frobnicator-MoE: Frobnicator Experts for Frobnicator Training"
url = "https://example.org/f1"
authors = ["Ada Example"]
venue = "FICTCONF"
year = 2023
tags = ["mixture-of-experts"]
note = "Frobnicator, with experts, as Frobnicator does."

[[entry]]
id = "frobnicator"
kind = "project"
title = "Frobnicator: A Library"
url = "https://example.org/f2"
tags = ["pipeline-parallelism"]
note = "A library."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("frob.toml", files)]);
    assert_eq!(
        search_ids(&fixture, &["Frobnicator"]),
        ["frobnicator", "frobnicator-moe-2023"]
    );
    // Its name is its title before the colon, not any title holding it.
    assert_eq!(
        search_ids(&fixture, &["frobnicator", "moe"])[0],
        "frobnicator-moe-2023"
    );
}

#[test]
fn a_broad_technique_finds_the_works_of_its_narrower_kinds_after_its_own() {
    let tags = format!(
        "{}\n[[tag]]\nid = \"blorp-scheduling\"\nlabel = \"Blorp scheduling\"\ncategory = \"parallelism\"\nbroader = [\"pipeline-parallelism\"]\ndescription = \"The order in which blorp stages run.\"\naliases = []\n",
        common::TAGS
    );
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "frob-pipe-2023"
kind = "paper"
title = "Frobnicating Stages Across Devices"
url = "https://example.org/f1"
authors = ["Ada Example"]
year = 2023
tags = ["pipeline-parallelism"]
note = "Frobnicated stages."

[[entry]]
id = "blorp-order-2024"
kind = "paper"
title = "Blorp Ordering for Frobnicated Stages"
url = "https://example.org/f2"
authors = ["Bo Example"]
year = 2024
tags = ["blorp-scheduling"]
note = "An order of blorps."

[[entry]]
id = "unrelated-2022"
kind = "paper"
title = "Zint Caching"
url = "https://example.org/f3"
authors = ["Cy Example"]
year = 2022
tags = ["collective-communication"]
note = "Zints, cached."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", &tags), ("frob.toml", files)]);
    assert_eq!(
        search_ids(&fixture, &["pipeline parallelism"]),
        ["frob-pipe-2023", "blorp-order-2024"]
    );
    // The narrower kind does not widen to its broader tag.
    assert_eq!(
        search_ids(&fixture, &["blorp scheduling"]),
        ["blorp-order-2024"]
    );
    // Told in other words ("pipeline bubble"), the broad technique finds
    // its narrower kinds' works too.
    let run = search(&fixture, &["--json", "--explain", "bubbles in my pipeline"]).success();
    let hits = run.json_lines();
    let ids: Vec<&str> = hits.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["frob-pipe-2023", "blorp-order-2024"]);
    assert!(hits[1]["explanation"].as_str().unwrap().contains(
        "tagged blorp-scheduling (a kind of pipeline-parallelism, \"pipeline bubble\" in other words)"
    ));
}

#[test]
fn techniques_enumerated_before_a_shared_word_are_each_sought() {
    let tags = r#"[[tag]]
id = "blorp-sharding"
label = "Blorp sharding"
category = "parallelism"
description = "Shard the blorps."
aliases = []

[[tag]]
id = "zint-sharding"
label = "Zint sharding"
category = "parallelism"
description = "Shard the zints."
aliases = []
"#;
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "frob-blorps-2023"
kind = "paper"
title = "Frobnicating Blorps"
url = "https://example.org/f1"
authors = ["Ada Example"]
year = 2023
tags = ["blorp-sharding"]
note = "Blorps, frobnicated."

[[entry]]
id = "quux-2024"
kind = "paper"
title = "Quux: Splitting Small Things"
url = "https://example.org/f2"
authors = ["Bo Example"]
year = 2024
tags = ["zint-sharding"]
note = "Small things, split."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", tags), ("frob.toml", files)]);
    let run = search(&fixture, &["zint and blorp sharding"]).success();
    assert_eq!(
        run.stderr(),
        "including synonyms: zint sharding → zint-sharding, blorp sharding → blorp-sharding\n"
    );
    let quux_explained = |query: &str| {
        let run = search(&fixture, &["--json", "--explain", query]).success();
        let hits = run.json_lines();
        let quux = hits.iter().find(|h| h["id"] == "quux-2024").unwrap();
        quux["explanation"].as_str().unwrap().to_string()
    };
    assert!(quux_explained("zint and blorp sharding").contains("tagged zint-sharding"));
    // Without the connector, "zint" is a word of its own: zint sharding is
    // only told in other words, which weighs less than the name typed.
    assert!(
        quux_explained("zint blorp sharding")
            .contains("tagged zint-sharding (\"Zint sharding\" in other words)")
    );
}

#[test]
fn a_projects_name_finds_its_papers_after_the_project() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "frobnicator"
kind = "project"
title = "Frobnicator: A Library"
url = "https://example.org/f1"
tags = ["pipeline-parallelism"]
note = "A library of frobs."

[[entry]]
id = "zint-sharding-2023"
kind = "paper"
title = "Zint Sharding: Splitting Small Things"
url = "https://example.org/f2"
authors = ["Ada Example"]
venue = "FICTCONF"
year = 2023
tags = ["pipeline-parallelism"]
project = "frobnicator"
note = "Small things, split."

[[entry]]
id = "blorp-2024"
kind = "paper"
title = "Blorp Stages"
url = "https://example.org/f3"
authors = ["Bo Example"]
venue = "FICTCONF"
year = 2024
tags = ["pipeline-parallelism"]
note = "Blorps in stages."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("frob.toml", files)]);
    assert_eq!(
        search_ids(&fixture, &["Frobnicator"]),
        ["frobnicator", "zint-sharding-2023"]
    );
    fixture
        .run(["show", "zint-sharding-2023"])
        .success()
        .stdout_has("  project   frobnicator\n");
}

#[test]
fn works_about_the_first_results_technique_come_next() {
    let files = r#"[section]
name = "Frugality"
order = 1

[[entry]]
id = "quibble-2021"
kind = "paper"
title = "Quibble: Frugal Memory for Deep Nets"
url = "https://example.org/q1"
year = 2021
tags = ["activation-recomputation"]
note = "Keeps a few activations."

[[entry]]
id = "zorp-2022"
kind = "paper"
title = "Zorp: Deep Nets that Talk"
url = "https://example.org/q2"
year = 2022
tags = ["collective-communication"]
note = "Exchanges gradients."

[[entry]]
id = "grolt-2020"
kind = "paper"
title = "Grolt: Forward Passes Again"
url = "https://example.org/q3"
year = 2020
tags = ["activation-recomputation"]
note = "Repeats forward passes to save memory."

[[entry]]
id = "plonk-2019"
kind = "paper"
title = "Plonk: Gossip Among Workers"
url = "https://example.org/q4"
year = 2019
tags = ["collective-communication"]
uses = ["activation-recomputation"]
note = "Gossips gradients, recomputing activations for memory."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("frugal.toml", files)]);
    let query = "frugal memory for deep nets";
    // Zorp shares more of the query's words; Grolt is about Quibble's
    // technique, and Plonk uses it.
    assert_eq!(
        search_ids(&fixture, &[query]),
        ["quibble-2021", "grolt-2020", "plonk-2019", "zorp-2022"]
    );
    let run = fixture
        .cmd()
        .args(["search", "--explain", query])
        .run()
        .success();
    let bonus = |said: &str| -> f64 {
        let line = (run.stdout().lines())
            .find(|l| l.ends_with(said))
            .unwrap_or_else(|| panic!("no {said:?} in {}", run.stdout()));
        line.split_whitespace().next().unwrap().parse().unwrap()
    };
    let about = bonus("  feedback: shares activation-recomputation with result 1");
    let used = bonus("  feedback: shares activation-recomputation (used) with result 1");
    // As a use weighs against a tag (2.5 against 4).
    assert!(
        (used / about - 0.625).abs() < 0.01,
        "{used} against {about}"
    );
    // A stop word among other words counts a quarter of a word (the note's
    // weight is 2).
    run.stdout_has("  note: for ×0.5\n");
    // Without feedback, the words alone decide.
    std::fs::write(fixture.catalog().join("ranking.toml"), "feedback = 0\n").unwrap();
    assert_eq!(
        search_ids(&fixture, &[query]),
        ["quibble-2021", "zorp-2022", "plonk-2019", "grolt-2020"]
    );
}

#[test]
fn results_that_feedback_raises_close_to_the_first_keep_their_order() {
    let files = r#"[section]
name = "Widgets"
order = 1

[[entry]]
id = "widgets-2021"
kind = "paper"
title = "Zap: Frugal Widgets"
url = "https://example.org/w1"
year = 2021
tags = ["pipeline-parallelism"]
note = "Staged."

[[entry]]
id = "widgets-again-2020"
kind = "paper"
title = "Zop: Frugal Widgets Again"
url = "https://example.org/w2"
year = 2020
tags = ["pipeline-parallelism"]
note = "More stages."

[[entry]]
id = "widgets-more-2023"
kind = "paper"
title = "Zup: Frugal Widgets Once More"
url = "https://example.org/w3"
year = 2023
tags = ["pipeline-parallelism"]
note = "Still more stages."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("widgets.toml", files)]);
    // Both would gain more than their distance to the first: capped alike,
    // they would tie, and the newer would come first.
    let hits = fixture
        .cmd()
        .args(["search", "--json", "frugal widgets"])
        .run()
        .success()
        .json_lines();
    let ids: Vec<&str> = hits.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["widgets-2021", "widgets-again-2020", "widgets-more-2023"]
    );
}

#[test]
fn the_first_results_project_comes_next() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "frobnicator"
kind = "project"
title = "Frobnicator: A Library"
url = "https://example.org/f1"
tags = ["collective-communication"]
note = "A library that splits things."

[[entry]]
id = "zint-sharding-2023"
kind = "paper"
title = "Zint Sharding: Splitting Small Things"
url = "https://example.org/f2"
year = 2023
tags = ["pipeline-parallelism"]
project = "frobnicator"
note = "Small things, split."

[[entry]]
id = "blorp-2024"
kind = "paper"
title = "Blorp: Small Things Split Thrice"
url = "https://example.org/f3"
year = 2024
tags = ["mixture-of-experts"]
note = "Thrice over."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("frob.toml", files)]);
    let query = "splitting small things";
    assert_eq!(
        search_ids(&fixture, &[query]),
        ["zint-sharding-2023", "frobnicator", "blorp-2024"]
    );
    fixture
        .cmd()
        .args(["search", "--explain", "-n", "2", query])
        .run()
        .success()
        .stdout_has("  feedback: shares project frobnicator with result 1\n");
    std::fs::write(fixture.catalog().join("ranking.toml"), "feedback = 0\n").unwrap();
    assert_eq!(
        search_ids(&fixture, &[query]),
        ["zint-sharding-2023", "blorp-2024", "frobnicator"]
    );
}

#[test]
fn a_titles_initials_find_the_work_and_are_not_repaired() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "quibbling-2022"
kind = "paper"
title = "Quibbling Over Sparse Gradients"
url = "https://example.org/q1"
year = 2022
tags = ["pipeline-parallelism"]
note = "Argues about gradients, sparsely."

[[entry]]
id = "qosh-2023"
kind = "paper"
title = "Qosh: Sparse Gradients Quibbled Again"
url = "https://example.org/q2"
year = 2023
tags = ["mixture-of-experts"]
note = "More sparse gradients, and qosg in passing."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("q.toml", files)]);
    // Without the initials, "QOSG" is repaired to "qosh" or finds the
    // note's word first.
    for query in ["QOSG", "qosg gradients"] {
        (fixture.cmd().args(["search", query]).run())
            .success()
            .stderr_lacks("searched for");
        assert_eq!(
            search_ids(&fixture, &[query])[0],
            "quibbling-2022",
            "{query}"
        );
    }
    fixture
        .cmd()
        .args(["search", "--explain", "-n", "1", "QOSG"])
        .run()
        .success()
        .stdout_has("the initials of quibbling-2022");
}

#[test]
fn works_holding_every_technique_named_rank_above_works_strong_in_one() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "remat-only-2021"
kind = "paper"
title = "Rematerialization, Gradient Checkpointing and Activation Checkpointing"
url = "https://example.org/r1"
year = 2021
tags = ["activation-recomputation"]
note = "Rematerialization by gradient checkpointing, activation checkpointing at scale."

[[entry]]
id = "both-2022"
kind = "paper"
title = "Zint: Staged Training"
url = "https://example.org/r2"
year = 2022
tags = ["pipeline-parallelism"]
uses = ["activation-recomputation"]
note = "Stages that stream micro-batches, recomputing what they drop."

[[entry]]
id = "pipeline-only-2023"
kind = "paper"
title = "Blorp: Staged Streaming"
url = "https://example.org/r3"
year = 2023
tags = ["pipeline-parallelism"]
note = "Stages again."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("r.toml", files)]);
    let query = "rematerialization pipeline bubble";
    // Then the first result's technique (see feedback).
    assert_eq!(
        search_ids(&fixture, &[query]),
        ["both-2022", "pipeline-only-2023", "remat-only-2021"]
    );
    fixture
        .cmd()
        .args(["search", "--explain", "-n", "1", query])
        .run()
        .success()
        .stdout_has("holds activation-recomputation and pipeline-parallelism\n");
    // Without the bonus (and with a use weighed at half a tag, so that the
    // use alone does not decide), the work strong in one technique leads.
    std::fs::write(
        fixture.catalog().join("ranking.toml"),
        "all_techniques = 0\nuses = 2\n",
    )
    .unwrap();
    assert_eq!(search_ids(&fixture, &[query])[0], "remat-only-2021");
}

#[test]
fn a_note_that_says_a_technique_in_the_words_typed_holds_it_beside_a_tag() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "moe-only-2021"
kind = "paper"
title = "Quorb: Mixture of Experts Routing"
url = "https://example.org/m1"
year = 2021
tags = ["mixture-of-experts"]
note = "Routes tokens of a mixture of experts model to experts, balancing expert load across devices."

[[entry]]
id = "moe-bubbles-2022"
kind = "paper"
title = "Flarn: Expert Tuning Service"
url = "https://example.org/m2"
year = 2022
tags = ["mixture-of-experts"]
note = "Runs expert trials in the pipeline bubble of large training jobs."

[[entry]]
id = "pipe-only-2023"
kind = "paper"
title = "Blorp: Pipeline Bubble Reduction"
url = "https://example.org/m3"
year = 2023
tags = ["pipeline-parallelism"]
note = "Shrinks the pipeline bubble with a wave-shaped pipeline schedule."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("m.toml", files)]);
    let query = "MoE pipeline bubble";
    assert_eq!(search_ids(&fixture, &[query])[0], "moe-bubbles-2022");
    fixture
        .cmd()
        .args(["search", "--explain", "-n", "1", query])
        .run()
        .success()
        .stdout_has("holds mixture-of-experts and pipeline-parallelism\n");
}

#[test]
fn the_first_word_of_a_name_names_its_work_among_other_words() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "zorblat-lm"
kind = "project"
title = "Zorblat-LM: Training Transformers at Scale"
url = "https://github.com/fictional/zorblat-lm"
tags = ["pipeline-parallelism"]
note = "Splits transformer layers across GPUs, with fused kernels."

[[entry]]
id = "pipe-2021"
kind = "paper"
title = "Quarn: Layers Split Across GPUs for Attention Models"
url = "https://example.org/q"
year = 2021
tags = ["pipeline-parallelism"]
note = "Splits attention and MLP layers across GPUs in pipeline stages."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("z.toml", files)]);
    let query = "how does Zorblat split attention and MLP layers across GPUs";
    assert_eq!(search_ids(&fixture, &[query])[0], "zorblat-lm");
    fixture
        .cmd()
        .args(["search", "--explain", "-n", "1", query])
        .run()
        .success()
        .stdout_has("the name of zorblat-lm");
}

#[test]
fn a_half_remembered_title_finds_its_work_above_works_tagged_with_its_words() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "strewn-stages-2021"
kind = "paper"
title = "Strewn Stages: Pipeline Parallelism Everywhere"
url = "https://example.org/t1"
year = 2021
tags = ["pipeline-parallelism"]
note = "Pipeline parallelism for every deep network: stages, micro-batches, pipeline bubbles."

[[entry]]
id = "beyond-pipelines-2019"
kind = "paper"
title = "Beyond Pipeline and Pretend Parallelism for Deep Wobbly Networks"
url = "https://example.org/t2"
year = 2019
tags = ["mixture-of-experts"]
note = "Searches a space of splits of wobbly networks."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("t.toml", files)]);
    // Six content words, all in one title: the work so named comes first...
    let query = "beyond pipeline and pretend parallelism for deep networks";
    assert_eq!(
        search_ids(&fixture, &[query]),
        ["beyond-pipelines-2019", "strewn-stages-2021"]
    );
    search(&fixture, &["--explain", "-n", "1", query])
        .success()
        .stdout_has("title holds 5 or more of 6 words\n");
    // ...which the technique that its words name would otherwise decide.
    std::fs::write(fixture.catalog().join("ranking.toml"), "title_words = 0\n").unwrap();
    assert_eq!(search_ids(&fixture, &[query])[0], "strewn-stages-2021");
    // Three content words name a technique, not a title.
    std::fs::remove_file(fixture.catalog().join("ranking.toml")).unwrap();
    let run = search(
        &fixture,
        &["--explain", "pipeline parallelism for deep networks"],
    );
    assert!(!run.success().stdout().contains("title holds"));
}

#[test]
fn a_sections_name_typed_as_words_raises_its_works() {
    let blorping = r#"[section]
name = "Zint Efficient Blorping"
order = 1

[[entry]]
id = "quiet-2021"
kind = "paper"
title = "Quietude: Smaller Activations"
url = "https://example.org/s1"
year = 2021
tags = ["activation-recomputation"]
note = "Efficient blorping by recomputing activations."

[[entry]]
id = "offloader-2022"
kind = "paper"
title = "Offloader: Host Memory for Activations"
url = "https://example.org/s2"
year = 2022
tags = ["activation-recomputation"]
note = "Moves activations to host memory, an offload."
"#;
    let elsewhere = r#"[section]
name = "Pipeline Parallelism"
order = 2

[[entry]]
id = "staged-2020"
kind = "paper"
title = "Zint-Efficient Blorping of Stages"
url = "https://example.org/s3"
year = 2020
tags = ["pipeline-parallelism"]
note = "Stages."
"#;
    let fixture = Fixture::with_files(&[
        ("tags.toml", common::TAGS),
        ("blorping.toml", blorping),
        ("pipeline.toml", elsewhere),
    ]);
    // The section's works, then the title that holds the words.
    assert_eq!(
        search_ids(&fixture, &["zint efficient blorping -offload"]),
        ["quiet-2021", "staged-2020"]
    );
    std::fs::write(
        fixture.catalog().join("ranking.toml"),
        "section_word = 0\nsection_scale = 0\n",
    )
    .unwrap();
    assert_eq!(
        search_ids(&fixture, &["zint efficient blorping -offload"]),
        ["staged-2020", "quiet-2021"]
    );
    // A section named as a technique is not a facet: the technique decides.
    let run = search(&fixture, &["--explain", "pipeline parallelism"]);
    assert!(!run.success().stdout().contains("section"));
}

/// Fictional works on collectives: two of them named Quorble, one that
/// mentions Quorble, one that names NCCL, one that names neither.
const COLLECTIVES: &str = r#"[section]
name = "Collectives"
order = 1

[[entry]]
id = "quorble-2020"
kind = "paper"
title = "Quorble: Allreduce for Frobnicators"
url = "https://example.org/q1"
year = 2020
tags = ["collective-communication"]
note = "Allreduce trees for frobnicator clusters."

[[entry]]
id = "quorble-offload-2021"
kind = "paper"
title = "Quorble-Offload: Allreduce from Host Memory"
url = "https://example.org/q2"
year = 2021
tags = ["collective-communication"]
note = "Allreduce staged through host memory."

[[entry]]
id = "zint-2022"
kind = "paper"
title = "Zint: Allreduce without Trees"
url = "https://example.org/q3"
year = 2022
tags = ["collective-communication"]
note = "Allreduce rings, compared with Quorble's trees."

[[entry]]
id = "blorp-2023"
kind = "paper"
title = "Blorp: Allreduce over NCCL"
url = "https://example.org/q4"
year = 2023
tags = ["collective-communication"]
note = "Allreduce schedules run on NCCL."

[[entry]]
id = "snarf-2024"
kind = "paper"
title = "Snarf: Allreduce Compression"
url = "https://example.org/q5"
year = 2024
tags = ["collective-communication"]
note = "Allreduce with compressed gradients."
"#;

fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}

#[test]
fn a_negated_work_name_leaves_out_the_works_so_named_not_those_that_mention_it() {
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("c.toml", COLLECTIVES)]);
    assert_eq!(
        sorted(search_ids(&fixture, &["allreduce -quorble"])),
        ["blorp-2023", "snarf-2024", "zint-2022"]
    );
    fixture
        .cmd()
        .args(["search", "--explain", "-n", "1", "allreduce -quorble"])
        .run()
        .success()
        .stderr_has(
            "left out \"quorble\": the works so named (quorble-2020, quorble-offload-2021) and titles holding it\n",
        );
}

#[test]
fn a_negated_name_of_the_technique_asked_for_leaves_out_only_the_works_that_name_it() {
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("c.toml", COLLECTIVES)]);
    // NCCL names collective communication, which "allreduce" asks for:
    // leaving out the whole technique would leave nothing.
    assert_eq!(
        sorted(search_ids(&fixture, &["allreduce -NCCL"])),
        [
            "quorble-2020",
            "quorble-offload-2021",
            "snarf-2024",
            "zint-2022"
        ]
    );
    // Beside another technique, it leaves out its technique's works.
    assert_eq!(
        search_ids(&fixture, &["frobnicators -NCCL"]),
        Vec::<String>::new()
    );
}

#[test]
fn an_authors_full_name_typed_beside_words_ranks_that_authors_works_first() {
    let files = r#"[section]
name = "Frobnication"
order = 1

[[entry]]
id = "wordy-2021"
kind = "paper"
title = "Frobnication Serving for Frobnication Clusters"
url = "https://example.org/a1"
authors = ["Pim Quarrel"]
year = 2021
tags = ["pipeline-parallelism"]
note = "Frobnication serving, frobnication batching and frobnication caches."

[[entry]]
id = "quiet-2022"
kind = "paper"
title = "Zint: Lessons from Years of Running Many Clusters, with Frobnication Serving"
url = "https://example.org/a2"
authors = ["Quin Blorpwell"]
et_al = true
year = 2022
tags = ["pipeline-parallelism"]
note = "Serving frobnicators."

[[entry]]
id = "other-2023"
kind = "paper"
title = "Snarf: Staged Frobnication"
url = "https://example.org/a3"
authors = ["Quin Blorpwell"]
year = 2023
tags = ["pipeline-parallelism"]
note = "Stages."
"#;
    let fixture = Fixture::with_files(&[("tags.toml", common::TAGS), ("a.toml", files)]);
    assert_eq!(
        search_ids(&fixture, &["quin blorpwell frobnication serving"]),
        ["quiet-2022", "wordy-2021", "other-2023"]
    );
    // Without the full name, the words decide.
    assert_eq!(
        search_ids(&fixture, &["frobnication serving"]),
        ["wordy-2021", "quiet-2022", "other-2023"]
    );
}

/// Three works that offload to host memory: one trains, one serves, one
/// keeps a serving cache (a tag narrower than serving).
const OFFLOADING: &str = r#"[[tag]]
id = "cpu-offloading"
label = "CPU offloading"
category = "memory"
description = "Keep tensors in host memory."
aliases = ["host memory offloading"]

[[tag]]
id = "inference-serving"
label = "Inference serving"
category = "serving"
description = "Answer requests with a trained model."
aliases = ["model serving"]

[[tag]]
id = "kv-cache"
label = "KV cache management"
category = "serving"
broader = ["inference-serving"]
description = "Keep the attention cache of decoding."
aliases = ["KV cache"]
"#;

const SIDES: &str = r#"[section]
name = "Offloading"
order = 1

[[entry]]
id = "glimmerstore-2022"
kind = "paper"
title = "Glimmerstore: Offloading Big Pretend Models to Host Memory on One GPU"
url = "https://example.org/glimmerstore"
year = 2022
tags = ["cpu-offloading", "inference-serving"]
note = "Offloads big pretend models to host memory on one GPU."

[[entry]]
id = "quillcache-2023"
kind = "paper"
title = "Quillcache: Offloading Big Pretend Models to Host Memory"
url = "https://example.org/quillcache"
year = 2023
tags = ["cpu-offloading", "kv-cache"]
note = "Offloads big pretend models to host memory."

[[entry]]
id = "pemberlift-2021"
kind = "paper"
title = "Pemberlift: Offloading Pretend Models"
url = "https://example.org/pemberlift"
year = 2021
tags = ["cpu-offloading"]
note = "Offloads pretend models."
"#;

#[test]
fn a_query_that_asks_about_training_ranks_serving_works_lower_and_one_about_serving_higher() {
    let fixture = Fixture::with_files(&[("tags.toml", OFFLOADING), ("sides.toml", SIDES)]);
    // On words alone, the works that say the most come first.
    let words = search_ids(
        &fixture,
        &["offloading big pretend models to host memory on one GPU"],
    );
    assert_eq!(
        words,
        ["glimmerstore-2022", "quillcache-2023", "pemberlift-2021"]
    );
    let training = [
        "fine-tune",
        "big pretend models",
        "with offloading to host memory on one GPU",
    ];
    assert_eq!(
        search_ids(&fixture, &[&training.join(" ")]),
        ["pemberlift-2021", "glimmerstore-2022", "quillcache-2023"]
    );
    // Asking about both sides, or negating one, asks about neither.
    assert_eq!(
        search_ids(
            &fixture,
            &["fine-tune or serve big pretend models offloading to host memory on one GPU"]
        ),
        words
    );
    assert_eq!(
        search_ids(
            &fixture,
            &["big pretend models offloading to host memory on one GPU -training"]
        ),
        words
    );
    assert_eq!(
        search_ids(&fixture, &["serving pretend models with offloading"])[..2],
        ["glimmerstore-2022", "quillcache-2023"]
    );
    search(&fixture, &["--explain", "-n", "3", &training.join(" ")])
        .success()
        .stdout_has("×0.40 a serving work, and the query asks about training");
}

/// A system's paper and its code, which say the same.
const PAPER_AND_CODE: &str = r#"[section]
name = "Sharding"
order = 1

[[entry]]
id = "glorpshard-2022"
kind = "paper"
title = "Glorpshard"
url = "https://example.org/glorpshard-paper"
year = 2022
tags = ["pipeline-parallelism"]
note = "Shards pretend model states across ranks."

[[entry]]
id = "glorpshard"
kind = "project"
title = "Glorpshard"
url = "https://github.com/example-org/glorpshard"
tags = ["pipeline-parallelism"]
note = "Shards pretend model states across ranks."
"#;

#[test]
fn a_query_that_asks_for_code_ranks_the_project_above_its_paper() {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("works.toml", PAPER_AND_CODE)]);
    // Tied on words, the paper (dated) comes first.
    let words = ["glorpshard-2022", "glorpshard"];
    assert_eq!(search_ids(&fixture, &["pretend model states"]), words);
    for code in [
        "pretend model states library",
        "open source pretend model states",
        "open-source framework for pretend model states",
    ] {
        assert_eq!(
            search_ids(&fixture, &[code]),
            ["glorpshard", "glorpshard-2022"],
            "{code}"
        );
    }
    // A negated code word asks for none.
    assert_eq!(
        search_ids(&fixture, &["pretend model states -library"]),
        words
    );
    search(&fixture, &["--explain", "pretend model states library"])
        .success()
        .stdout_has("×1.30 a project, and the query asks for code");
}

#[test]
fn a_misspelt_ask_for_code_ranks_the_project_first_as_the_word_would() {
    // "library" is a word of the index (the typo dictionary's), so that
    // "libary" is repaired to it.
    let other = r#"
[[entry]]
id = "quorble-2020"
kind = "paper"
title = "Quorble"
url = "https://example.org/quorble"
year = 2020
tags = ["pipeline-parallelism"]
note = "A pretend library of stage plans."
"#;
    let works = format!("{PAPER_AND_CODE}{other}");
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("works.toml", &works)]);
    for query in [
        "pretend model states library",
        "pretend model states libary",
    ] {
        let ids = search_ids(&fixture, &[query]);
        assert_eq!(ids[..2], ["glorpshard", "glorpshard-2022"], "{query}");
    }
    search(&fixture, &["--explain", "pretend model states libary"])
        .success()
        .stdout_has("×1.30 a project, and the query asks for code");
}

/// One work uses a technique that no work is about; another only has the
/// technique's other name in its words.
const ONLY_USED: &str = r#"[section]
name = "Memory"
order = 1

[[entry]]
id = "quillstage-2021"
kind = "paper"
title = "Quillstage"
url = "https://example.org/quillstage"
year = 2021
tags = ["pipeline-parallelism"]
uses = ["activation-recomputation"]
note = "Streams pretend micro-batches through stages and recomputes what they drop."

[[entry]]
id = "ledgerwise-2022"
kind = "paper"
title = "Ledgerwise: Gradient Checkpointing of Pretend Training Runs"
url = "https://example.org/ledgerwise"
year = 2022
tags = ["collective-communication"]
note = "Gradient checkpointing writes pretend ledgers of training runs to disk."
"#;

#[test]
fn a_technique_no_work_is_about_finds_the_works_that_use_it_first() {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("works.toml", ONLY_USED)]);
    assert_eq!(
        search_ids(&fixture, &["gradient checkpointing"]),
        ["quillstage-2021", "ledgerwise-2022"]
    );
}

/// A system and a survey of systems like it, which share its words.
const SYSTEM_AND_SURVEY: &str = r#"[section]
name = "Sharding"
order = 1

[[entry]]
id = "brambleshard-2023"
kind = "paper"
title = "Brambleshard: Pretend Sharding of Model States"
url = "https://example.org/brambleshard"
year = 2023
tags = ["pipeline-parallelism"]
note = "Pretend sharding of model states across ranks, with pretend sharding plans."

[[entry]]
id = "sharding-survey-2021"
kind = "paper"
title = "Pretend Sharding Systems"
url = "https://example.org/sharding-survey"
year = 2021
tags = ["survey"]
note = "Compares pretend sharding systems and their model states."
"#;

const SURVEY_TAG: &str = r#"
[[tag]]
id = "survey"
label = "Survey"
category = "meta"
description = "Surveys of distributed training systems."
aliases = ["literature review"]
"#;

#[test]
fn a_query_that_asks_for_an_overview_ranks_the_survey_above_a_system() {
    let tags = format!("{TAGS}{SURVEY_TAG}");
    let fixture = Fixture::with_files(&[("tags.toml", &tags), ("works.toml", SYSTEM_AND_SURVEY)]);
    let system_first = ["brambleshard-2023", "sharding-survey-2021"];
    assert_eq!(search_ids(&fixture, &["pretend sharding"]), system_first);
    for overview in ["overview of pretend sharding", "pretend sharding review"] {
        assert_eq!(
            search_ids(&fixture, &[overview]),
            ["sharding-survey-2021", "brambleshard-2023"],
            "{overview}"
        );
    }
    search(&fixture, &["--explain", "overview of pretend sharding"])
        .success()
        .stdout_has("×1.60 a survey, and the query asks for an overview");
}

/// A work whose name is an English word, and a later work that compares
/// itself with it at length.
const ENGLISH_NAME: &str = r#"[section]
name = "Pipelines"
order = 1

[[entry]]
id = "lantern-2022"
kind = "paper"
title = "Lantern: Bidirectional Pretend Pipelines"
url = "https://example.org/lantern"
year = 2022
tags = ["pipeline-parallelism"]
note = "Runs two pretend pipelines in opposite directions."

[[entry]]
id = "wavelet-2023"
kind = "paper"
title = "Wavelet: Wave-like Pretend Pipelines"
url = "https://example.org/wavelet"
year = 2023
tags = ["pipeline-parallelism"]
note = "Pretend pipeline waves that beat Lantern's, with fewer bubbles than Lantern."
"#;

#[test]
fn a_work_named_by_an_english_word_among_other_words_comes_first() {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("works.toml", ENGLISH_NAME)]);
    for query in ["lantern pipeline", "lantrn pipeline"] {
        assert_eq!(
            search_ids(&fixture, &[query]),
            ["lantern-2022", "wavelet-2023"],
            "{query}"
        );
    }
}

/// Two projects: one supports a technique (it uses it), the other only
/// names it in passing; and a paper about the technique.
const SUPPORTING_PROJECTS: &str = r#"[section]
name = "Projects"
order = 1

[[entry]]
id = "gadgetron"
kind = "project"
title = "Gadgetron"
url = "https://github.com/example-org/gadgetron"
tags = ["collective-communication"]
uses = ["activation-recomputation"]
note = "Pretend collectives for training, with recomputed activations."

[[entry]]
id = "widgetry"
kind = "project"
title = "Widgetry"
url = "https://github.com/example-org/widgetry"
tags = ["collective-communication"]
note = "Pretend collectives, whose activation recomputation library is left to the user."

[[entry]]
id = "rewind-2021"
kind = "paper"
title = "Rewind"
url = "https://example.org/rewind"
year = 2021
tags = ["activation-recomputation"]
note = "Drops pretend activations and computes them again."
"#;

#[test]
fn asked_for_code_a_project_supports_what_it_uses() {
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("works.toml", SUPPORTING_PROJECTS)]);
    assert_eq!(
        search_ids(&fixture, &["library with activation recomputation"]),
        ["rewind-2021", "gadgetron", "widgetry"]
    );
    search(
        &fixture,
        &["--explain", "library with activation recomputation"],
    )
    .success()
    .stdout_has("  supports activation-recomputation ×");
    search(&fixture, &["--explain", "activation recomputation"])
        .success()
        .stdout_lacks("supports");
}
