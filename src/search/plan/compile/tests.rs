//! The invariants of each compilation mode, on an index of the built-in
//! catalog: two-phase ranking (see `two_phase`) is exact only if they hold.

use std::collections::HashMap;

use tantivy::collector::TopDocs;
use tantivy::query::Query;
use tantivy::{DocAddress, Searcher};

use super::{Compiled, Context, Mode, compile};
use crate::catalog::builtin::{builtin_file, builtin_files};
use crate::catalog::{Catalog, load_files};
use crate::index::{Fields, IndexDir, OpenIndex, fingerprint, rebuild};
use crate::model::metadata::Cache;
use crate::search::signals::Boosts;
use crate::search::understand::facets;
use crate::search::understand::query::{self, Node};
use crate::search::understand::synonyms::Synonyms;

/// Words, techniques, joined spellings, quoted phrases, exclusions and
/// alternatives: queries that two-phase ranking may split.
const QUERIES: &[&str] = &[
    "pipeline bubble",
    "all-reduce communication",
    "gradient checkpointing memory",
    "expert parallelism",
    "zero offload",
    "\"tensor parallelism\" training",
    "moe -gshard",
    "deepspeed OR colossal",
    "memory efficient large model training",
    "OSDI 2023",
    "OSDI 2022 auto parallelism",
    "data, tensor and pipeline parallelism",
    "intra- and inter-operator parallelism",
    "recover quickly from node failures",
    "DeepSpeed",
    "serving since 2023",
];

struct Fixture {
    _dir: tempfile::TempDir,
    open: OpenIndex,
    catalog: Catalog,
    fields: Fields,
}

fn fixture() -> Fixture {
    let (catalog, problems) = load_files(&builtin_files());
    assert!(problems.is_empty(), "{problems:?}");
    let cache = builtin_file("metadata.json")
        .map(|text| Cache::parse(text, "metadata.json".as_ref()).unwrap())
        .unwrap_or_default();
    let dir = tempfile::tempdir().unwrap();
    let index = IndexDir::new(dir.path());
    let lock = index.lock_waiting(|| ()).unwrap();
    rebuild(&index, &lock, &catalog, &cache, &fingerprint([])).unwrap();
    let open = index.open().unwrap().unwrap();
    let fields = Fields::from_schema(&open.index.schema()).unwrap();
    Fixture {
        _dir: dir,
        open,
        catalog,
        fields,
    }
}

/// `check` with a compilation context on the fixture's index.
fn with_context(f: &Fixture, check: impl FnOnce(&Context<'_>, &Searcher)) {
    let searcher = f.open.reader.searcher();
    let synonyms = Synonyms::new(&f.catalog.vocabulary);
    let sections = f.catalog.section_names();
    let venues = f.catalog.venue_names();
    let authors = f.catalog.author_names();
    let work_names = f.catalog.work_names();
    let name_heads = f.catalog.work_name_heads();
    let members = f.catalog.project_members();
    let references = f.catalog.reference_works();
    let initials = f.catalog.title_initials();
    let named_sections = f.catalog.named_sections();
    let statistics = crate::search::statistics::Statistics::new(&searcher, &f.fields).unwrap();
    let cx = Context {
        searcher: &searcher,
        generation: std::path::Path::new(""),
        statistics: &statistics,
        fields: &f.fields,
        synonyms: &synonyms,
        sections: &sections,
        named_sections: &named_sections,
        venues: &venues,
        authors: &authors,
        work_names: &work_names,
        name_heads: &name_heads,
        initials: &initials,
        members: &members,
        references: &references,
        newest_year: Some(2024),
        name_stems: Default::default(),
        boosts: Boosts::default(),
    };
    check(&cx, &searcher);
}

/// Compiles every query in every mode.
fn each_query(f: &Fixture, mut check: impl FnMut(&str, &Searcher, &dyn Fn(Mode) -> Compiled)) {
    with_context(f, |cx, searcher| {
        for text in QUERIES {
            let tree: Node = facets::recognize(query::parse(text).unwrap().root, cx.known());
            let compiled = |mode| compile(cx, &tree, mode).unwrap();
            check(text, searcher, &compiled);
        }
    });
}

fn scores(searcher: &Searcher, query: &dyn Query) -> HashMap<DocAddress, f32> {
    let top = TopDocs::with_limit(100_000).order_by_score();
    searcher
        .search(query, &top)
        .unwrap()
        .into_iter()
        .map(|(score, address)| (address, score))
        .collect()
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(1.0)
}

#[test]
fn the_terms_and_phrases_parts_add_up_to_the_exact_score() {
    each_query(&fixture(), |text, searcher, compiled| {
        let exact = scores(searcher, &*compiled(Mode::Exhaustive).query);
        let terms = scores(searcher, &*compiled(Mode::Terms).query);
        let phrases = scores(searcher, &*compiled(Mode::Phrases).query);
        assert!(!exact.is_empty(), "{text}: matches nothing");
        for (address, score) in &exact {
            let parts = terms.get(address).unwrap_or(&0.0) + phrases.get(address).unwrap_or(&0.0);
            assert!(close(*score, parts), "{text}: {score} != {parts}");
        }
        for address in terms.keys().chain(phrases.keys()) {
            assert!(
                exact.contains_key(address),
                "{text}: a part matches more: exact {} terms {} phrases {} {:?}",
                exact.len(),
                terms.len(),
                phrases.len(),
                phrases.values().take(3).collect::<Vec<_>>()
            );
        }
    });
}

#[test]
fn the_seeking_form_scores_as_the_exact_query() {
    each_query(&fixture(), |text, searcher, compiled| {
        let exact = scores(searcher, &*compiled(Mode::Exhaustive).query);
        let rank = scores(searcher, &*compiled(Mode::Rank).query);
        assert_eq!(exact.len(), rank.len(), "{text}");
        for (address, score) in &exact {
            assert!(
                close(*score, rank[address]),
                "{text}: {score} != {}",
                rank[address]
            );
        }
    });
}

#[test]
fn the_matching_form_matches_what_the_exact_query_does_with_fewer_phrases() {
    let mut fewer = 0;
    each_query(&fixture(), |text, searcher, compiled| {
        let exact = compiled(Mode::Exhaustive).query;
        let matching = compiled(Mode::Matching).query;
        let mut expected: Vec<DocAddress> = scores(searcher, &*exact).into_keys().collect();
        let mut found: Vec<DocAddress> = scores(searcher, &*matching).into_keys().collect();
        expected.sort();
        found.sort();
        assert_eq!(found, expected, "{text}");
        let phrases = |q: &dyn Query| format!("{q:?}").matches("PhraseQuery").count();
        assert!(phrases(&*matching) <= phrases(&*exact), "{text}");
        fewer += usize::from(phrases(&*matching) < phrases(&*exact));
    });
    // "pipeline bubble" in titles holds "pipeline", sought in titles too.
    assert!(fewer > 0);
}

#[test]
fn the_terms_part_holds_no_phrase_and_the_phrases_part_no_term() {
    each_query(&fixture(), |text, _, compiled| {
        // (What a query excludes, each part excludes whole.)
        if text.contains(" -") {
            return;
        }
        let terms = format!("{:?}", compiled(Mode::Terms).query);
        let phrases = format!("{:?}", compiled(Mode::Phrases).query);
        assert!(!terms.contains("PhraseQuery"), "{text}: {terms}");
        assert!(!phrases.contains("TermQuery"), "{text}: {phrases}");
    });
}

#[test]
fn compiling_is_a_function_of_the_tree_and_the_mode() {
    each_query(&fixture(), |text, _, compiled| {
        for mode in [
            Mode::Exhaustive,
            Mode::Terms,
            Mode::Phrases,
            Mode::Rank,
            Mode::Matching,
        ] {
            let (a, b) = (compiled(mode), compiled(mode));
            assert_eq!(format!("{:?}", a.query), format!("{:?}", b.query), "{text}");
            assert_eq!(a.expansions, b.expansions, "{text}");
        }
    });
}

#[test]
fn filters_alone_select_without_scoring() {
    with_context(&fixture(), |cx, searcher| {
        let tree = query::parse("tag:pipeline-parallelism year:2019..")
            .unwrap()
            .root;
        let compiled = compile(cx, &tree, Mode::Exhaustive).unwrap();
        assert!(compiled.filtered && !compiled.scoring);
        let matches = scores(searcher, &*compiled.query);
        assert!(!matches.is_empty());
        assert!(matches.values().all(|s| *s == 0.0));
    });
}
