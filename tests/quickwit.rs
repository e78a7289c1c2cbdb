//! `quickwit/distml-index.yaml` against the rules Quickwit 0.9 applies to an
//! index configuration (as its doc mapper's source states them: the
//! configuration versions, the built-in and custom tokenizers and their
//! filters, each field type's options with unknown keys refused, no
//! tokenizer on a field that is not indexed), and against the documents
//! `export --format ndjson` writes, which a strict mapping must take whole.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::Fixture;
use serde::Deserialize;
use serde_json::Value;

const CONFIG: &str = include_str!("../quickwit/distml-index.yaml");

/// Quickwit's built-in tokenizers (quickwit-query's default manager).
const BUILT_IN_TOKENIZERS: [&str; 8] = [
    "raw",
    "raw_lowercase",
    "lowercase",
    "default",
    "whitespace",
    "chinese_compatible",
    "source_code_default",
    "source_code_with_hex",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexConfig {
    version: String,
    index_id: String,
    doc_mapping: DocMapping,
    search_settings: SearchSettings,
    #[allow(dead_code)]
    indexing_settings: serde_yaml_ng::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DocMapping {
    mode: String,
    #[serde(default)]
    tokenizers: Vec<Tokenizer>,
    field_mappings: Vec<FieldMapping>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Tokenizer {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    filters: Vec<String>,
}

#[derive(Deserialize)]
struct FieldMapping {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(flatten)]
    options: BTreeMap<String, serde_yaml_ng::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchSettings {
    default_search_fields: Vec<String>,
}

fn config() -> IndexConfig {
    serde_yaml_ng::from_str(CONFIG).unwrap_or_else(|e| panic!("distml-index.yaml: {e}"))
}

/// What Quickwit would refuse in one field mapping, if anything.
fn field_problem(field: &FieldMapping, tokenizers: &BTreeSet<&str>) -> Option<String> {
    let element = field
        .kind
        .strip_prefix("array<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(&field.kind);
    let allowed: &[&str] = match element {
        "text" => &[
            "description",
            "indexed",
            "tokenizer",
            "record",
            "fieldnorms",
            "stored",
            "fast",
        ],
        "i64" | "u64" | "f64" => &[
            "description",
            "stored",
            "indexed",
            "fast",
            "coerce",
            "output_format",
        ],
        "bool" => &["description", "stored", "indexed", "fast"],
        other => return Some(format!("type {other} is not one this index should use")),
    };
    if let Some(key) = field
        .options
        .keys()
        .find(|k| !allowed.contains(&k.as_str()))
    {
        return Some(format!("unknown option {key}"));
    }
    if element != "text" {
        return None;
    }
    let indexed = field.options.get("indexed").and_then(|v| v.as_bool()) != Some(false);
    let indexing = ["tokenizer", "record", "fieldnorms"];
    if !indexed && indexing.iter().any(|k| field.options.contains_key(*k)) {
        return Some("record, tokenizer and fieldnorms need indexed: true".into());
    }
    if let Some(name) = field.options.get("tokenizer").and_then(|v| v.as_str())
        && !tokenizers.contains(name)
    {
        return Some(format!("unknown tokenizer {name}"));
    }
    if let Some(record) = field.options.get("record").and_then(|v| v.as_str())
        && !["basic", "freq", "position"].contains(&record)
    {
        return Some(format!("unknown record option {record}"));
    }
    None
}

#[test]
fn the_configuration_follows_quickwits_rules() {
    let config = config();
    assert_eq!(config.version, "0.9", "the current configuration version");
    assert_eq!(config.index_id, "distml");
    assert!(["lenient", "strict", "dynamic"].contains(&config.doc_mapping.mode.as_str()));
    for tokenizer in &config.doc_mapping.tokenizers {
        assert!(
            ["simple", "ngram", "regex", "source_code"].contains(&tokenizer.kind.as_str()),
            "tokenizer {}: type {}",
            tokenizer.name,
            tokenizer.kind
        );
        for filter in &tokenizer.filters {
            // Quickwit has no stemming filter: these three are all it has.
            assert!(
                ["remove_long", "lower_caser", "ascii_folding"].contains(&filter.as_str()),
                "tokenizer {}: filter {filter}",
                tokenizer.name
            );
        }
    }
    let tokenizers: BTreeSet<&str> = BUILT_IN_TOKENIZERS
        .into_iter()
        .chain(
            config
                .doc_mapping
                .tokenizers
                .iter()
                .map(|t| t.name.as_str()),
        )
        .collect();
    let problems: Vec<String> = config
        .doc_mapping
        .field_mappings
        .iter()
        .filter_map(|f| field_problem(f, &tokenizers).map(|p| format!("{}: {p}", f.name)))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
    let searched: BTreeSet<&str> = config
        .doc_mapping
        .field_mappings
        .iter()
        .filter(|f| f.options.get("indexed").and_then(|v| v.as_bool()) != Some(false))
        .map(|f| f.name.as_str())
        .collect();
    for field in &config.search_settings.default_search_fields {
        assert!(searched.contains(field.as_str()), "{field} is not indexed");
    }
}

#[test]
fn the_rules_catch_what_quickwit_refuses() {
    let tokenizers = BTreeSet::from(["raw", "default"]);
    let field = |yaml: &str| -> FieldMapping { serde_yaml_ng::from_str(yaml).unwrap() };
    let refused = [
        "{name: title, type: text, tokenizer: en_stem}",
        "{name: url, type: text, tokenizer: raw, indexed: false}",
        "{name: year, type: i64, tokenizer: raw}",
        "{name: tags, type: array<text>, record: positions}",
    ];
    for yaml in refused {
        assert!(field_problem(&field(yaml), &tokenizers).is_some(), "{yaml}");
    }
    let taken = "{name: title, type: text, tokenizer: default, record: position}";
    assert_eq!(field_problem(&field(taken), &tokenizers), None);
}

/// Whether a JSON value fits a field of this Quickwit type (null is absent).
fn fits(kind: &str, value: &Value) -> bool {
    match (kind, value) {
        (_, Value::Null) => true,
        ("text", Value::String(_)) => true,
        ("i64", Value::Number(n)) => n.is_i64(),
        ("bool", Value::Bool(_)) => true,
        (array, Value::Array(items)) if array.starts_with("array<") => {
            let element = &array["array<".len()..array.len() - 1];
            items.iter().all(|item| fits(element, item))
        }
        _ => false,
    }
}

#[test]
fn every_exported_document_fits_the_strict_mapping() {
    let fixture = Fixture::invented();
    let record = serde_json::json!({
        "id": "1412.99971", "submitter": "Ada Example", "authors": "Ada Example",
        "title": "Quillwort Sharding for Pretend Clusters", "comments": null,
        "journal-ref": null, "doi": "10.99999/fict.2014.1", "report-no": null,
        "categories": "cs.DC", "license": null,
        "abstract": "We shard quillworts across pretend devices.",
        "versions": [{"version": "v1", "created": "Mon, 1 Dec 2014 10:00:00 GMT"}],
        "update_date": "2014-12-01", "authors_parsed": [["Example", "Ada", ""]]
    });
    std::fs::write(
        fixture.dir.path().join("snapshot.jsonl"),
        format!("{record}\n"),
    )
    .unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", "snapshot.jsonl"])
        .success();
    let export = fixture.run(["export", "--format", "ndjson"]).success();

    let config = config();
    let mapped: BTreeMap<&str, &str> = config
        .doc_mapping
        .field_mappings
        .iter()
        .map(|f| (f.name.as_str(), f.kind.as_str()))
        .collect();
    let mut exported = BTreeSet::new();
    let mut collections = BTreeSet::new();
    for line in export.stdout().lines() {
        let doc: Value = serde_json::from_str(line).unwrap();
        collections.insert(doc["collection"].as_str().unwrap_or_default().to_owned());
        for (name, value) in doc.as_object().unwrap() {
            exported.insert(name.clone());
            let kind = mapped.get(name.as_str());
            assert!(
                kind.is_some_and(|kind| fits(kind, value)),
                "{name} = {value} does not fit {kind:?}"
            );
        }
    }
    assert_eq!(
        collections,
        BTreeSet::from(["arxiv".into(), "catalog".into()])
    );
    // Nothing mapped that the export never writes.
    let mapped: BTreeSet<String> = mapped.keys().map(|k| k.to_string()).collect();
    assert_eq!(mapped, exported);
}
