//! The predictor on a fictional mini catalog: three techniques, each
//! described by its own words.

use super::evaluate::{Counts, leave_one_out};
use super::*;
use crate::catalog::{SourceFile, load_files};
use crate::model::Collection;
use crate::model::metadata::Cache;

const TAGS: &str = r#"
[[tag]]
id = "blorp-sharding"
label = "Blorp sharding"
category = "c"
description = "d"
aliases = ["sharded blorps"]

[[tag]]
id = "zint-caching"
label = "Zint caching"
category = "c"
description = "d"
aliases = ["ZC"]

[[tag]]
id = "quux-routing"
label = "Quux routing"
category = "c"
description = "d"
aliases = []
"#;

fn entry(id: &str, tags: &[&str], note: &str) -> String {
    let tags: Vec<String> = tags.iter().map(|t| format!("\"{t}\"")).collect();
    format!(
        "[[entry]]\nid = \"{id}\"\nkind = \"project\"\ntitle = \"{id}\"\nurl = \"https://example.org/{id}\"\ntags = [{}]\nnote = \"{note}\"\n\n",
        tags.join(", ")
    )
}

pub(super) fn catalog() -> Catalog {
    catalog_with(TAGS)
}

/// The mini catalog's entries under the vocabulary of `tags`.
fn catalog_with(tags: &str) -> Catalog {
    let mut section =
        String::from("[section]\nname = \"Fiction\"\ngroup = \"Papers\"\norder = 1\n\n");
    for (id, tags, note) in [
        (
            "a",
            &["blorp-sharding"][..],
            "Splits the frobnicator state across glimmer ranks.",
        ),
        (
            "b",
            &["blorp-sharding"],
            "Glimmer ranks each hold a slice of frobnicator state.",
        ),
        (
            "c",
            &["blorp-sharding"],
            "Frobnicator slices spread over glimmer ranks.",
        ),
        (
            "d",
            &["zint-caching"],
            "Keeps warm wubbles in a spindle buffer for reuse.",
        ),
        (
            "e",
            &["zint-caching"],
            "A spindle buffer of wubbles avoids recomputing them.",
        ),
        (
            "f",
            &["zint-caching"],
            "Wubbles evicted from the spindle buffer by age.",
        ),
        (
            "g",
            &["quux-routing"],
            "Sends each token to a trellis gate by its plonk score.",
        ),
        (
            "h",
            &["quux-routing"],
            "Trellis gates choose tokens by plonk score.",
        ),
        (
            "i",
            &["quux-routing"],
            "Plonk scores balance tokens across trellis gates.",
        ),
    ] {
        section.push_str(&entry(id, tags, note));
    }
    let files = [
        SourceFile::new("tags.toml", tags.to_string()),
        SourceFile::new("fiction.toml", section),
    ];
    let (catalog, problems) = load_files(&files);
    assert!(problems.is_empty(), "{problems:?}");
    catalog
}

pub(super) fn imported(title: &str, abstract_text: &str) -> Record {
    Record {
        collection: Collection::Arxiv,
        title: title.into(),
        abstract_text: Some(abstract_text.into()),
        ..Record::default()
    }
}

fn tags(predicted: &[PredictedTag]) -> Vec<&str> {
    predicted.iter().map(|p| p.tag.as_str()).collect()
}

#[test]
fn a_record_gets_the_tag_whose_words_it_uses_without_naming_it() {
    let predictor = Predictor::train(&catalog(), &Cache::default());
    let record = imported(
        "Faster frobnicator state",
        "We spread frobnicator state over many glimmer ranks.",
    );
    let predicted = predictor.predict(&record);
    assert_eq!(tags(&predicted), ["blorp-sharding"]);
    let confidence = predicted[0].confidence;
    assert!((THRESHOLD..=1.0).contains(&confidence), "{confidence}");
}

#[test]
fn unrelated_text_gets_no_tag() {
    let predictor = Predictor::train(&catalog(), &Cache::default());
    let record = imported("On teapots", "A survey of porcelain glazes.");
    assert!(predictor.predict(&record).is_empty());
}

#[test]
fn a_record_with_curated_tags_gets_no_prediction() {
    let predictor = Predictor::train(&catalog(), &Cache::default());
    let mut record = imported("Spindle buffer", "Warm wubbles in a spindle buffer.");
    assert_eq!(tags(&predictor.predict(&record)), ["zint-caching"]);
    record.tags = vec!["quux-routing".into()];
    assert!(predictor.predict(&record).is_empty());
}

/// A tag no entry carries has too few texts to learn from: a text that
/// spells out its name gets it, and no other text does.
#[test]
fn a_tag_too_rare_to_learn_is_predicted_where_a_text_names_it() {
    const RARE: &str = r#"
[[tag]]
id = "wibble-fusion"
label = "Wibble fusion"
category = "c"
description = "d"
aliases = []
"#;
    let catalog = catalog_with(&format!("{TAGS}{RARE}"));
    let predictor = Predictor::train(&catalog, &Cache::default());
    let named = predictor.predict(&imported("Wibble fusion", "A survey of porcelain glazes."));
    assert_eq!(tags(&named), ["wibble-fusion"]);
    let confidence = named[0].confidence;
    assert!((THRESHOLD..=1.0).contains(&confidence), "{confidence}");
    let unnamed = imported("On teapots", "A survey of porcelain glazes.");
    assert!(predictor.predict(&unnamed).is_empty());
}

#[test]
fn the_vocabulary_baseline_predicts_the_tags_a_text_names() {
    let catalog = catalog();
    let all_examples = examples(&catalog, &Cache::default());
    let all: Vec<&Example> = all_examples.iter().collect();
    let baseline = Predictor::learn(&all, &catalog, Method::Vocabulary, 0.5);
    let record = imported("Sharded blorps and ZC", "Nothing else.");
    let predicted = baseline.predict(&record);
    assert_eq!(tags(&predicted), ["blorp-sharding", "zint-caching"]);
    assert!(predicted.iter().all(|p| p.confidence == 1.0));
}

#[test]
fn examples_are_the_entries_with_tags_and_their_text() {
    let mut catalog = catalog();
    catalog.entries[0].tags.clear();
    let examples = examples(&catalog, &Cache::default());
    assert_eq!(examples.len(), 8);
    assert_eq!(
        examples[0].parts,
        ["b", "Glimmer ranks each hold a slice of frobnicator state."]
    );
    assert_eq!(examples[0].tags, ["blorp-sharding"]);
}

#[test]
fn leave_one_out_predicts_each_entry_from_the_others() {
    let catalog = catalog();
    let examples = examples(&catalog, &Cache::default());
    let scores = leave_one_out(&catalog, &examples, Method::Combined);
    // Each technique is told by its own words, so every entry is found from
    // the other two of its kind, and nothing else is predicted.
    let counts = scores.at(THRESHOLD);
    assert_eq!(
        counts,
        Counts {
            true_positives: 9,
            false_positives: 0,
            false_negatives: 0
        }
    );
    assert_eq!(scores.nested(), counts);
    // No name of a tag appears in the notes: the baseline finds nothing.
    let baseline = leave_one_out(&catalog, &examples, Method::Vocabulary).at(0.5);
    assert_eq!(baseline.true_positives + baseline.false_positives, 0);
    assert_eq!(baseline.recall(), 0.0);
}

#[test]
fn words_past_the_abstracts_bound_do_not_change_the_prediction() {
    let predictor = Predictor::train(&catalog(), &Cache::default());
    let telling = "Warm wubbles in a spindle buffer.";
    let filler = "A survey of porcelain glazes. ".repeat(ABSTRACT_BYTES / 30 + 1);
    assert!(filler.len() > ABSTRACT_BYTES);
    let within = imported("On teapots", telling);
    assert_eq!(tags(&predictor.predict(&within)), ["zint-caching"]);
    let past = imported("On teapots", &format!("{filler}{telling}"));
    let alone = imported("On teapots", &filler);
    assert_eq!(predictor.predict(&past), predictor.predict(&alone));
    assert!(predictor.predict(&past).is_empty());
}

#[test]
fn an_abstract_is_cut_after_a_word_within_the_bound() {
    let word = "glimmer ";
    let text = word.repeat(ABSTRACT_BYTES / word.len() + 2);
    let start = abstract_start(&text);
    assert!(start.len() <= ABSTRACT_BYTES);
    assert!(start.ends_with("glimmer"), "{start:?}");
    // A character across the bound is not cut in two.
    let text = format!("{}é and more", "a".repeat(ABSTRACT_BYTES - 1));
    assert_eq!(abstract_start(&text), &text[..ABSTRACT_BYTES - 1]);
    assert_eq!(abstract_start("short"), "short");
}

#[test]
fn micro_scores_sum_over_entries() {
    let counts = Counts {
        true_positives: 6,
        false_positives: 2,
        false_negatives: 4,
    };
    assert_eq!(counts.precision(), 0.75);
    assert_eq!(counts.recall(), 0.6);
    assert!((counts.f1() - 2.0 * 0.75 * 0.6 / 1.35).abs() < 1e-12);
    assert_eq!(Counts::default().f1(), 0.0);
}

/// The shipped catalog (its vocabulary and curated entries), with no cache.
fn shipped() -> Catalog {
    let (catalog, problems) = load_files(&crate::catalog::builtin::builtin_files());
    assert!(problems.is_empty(), "{problems:?}");
    catalog
}

/// A fictional record about sequence parallelism that never names it.
#[test]
fn a_record_about_a_technique_it_does_not_name_gets_its_tag() {
    let catalog = shipped();
    let record = imported(
        "Ring-scheduled million-token attention across devices",
        "We split a very long input sequence over many accelerators and pass \
         key and value blocks around a ring.",
    );
    let shipped = Predictor::train(&catalog, &Cache::default());
    let found = shipped.predict(&record);
    assert!(tags(&found).contains(&"sequence-parallelism"), "{found:?}");
}

/// An import's path, the record's vector read through its word pieces,
/// predicts what the record alone does: the same tags, their confidences
/// equal but for float rounding, on the fictional stream's records.
#[test]
fn a_record_read_by_its_pieces_predicts_as_by_its_vector() {
    let catalog = shipped();
    let predictor = Predictor::train(&catalog, &Cache::default());
    let stream = include_str!("../../tests/fixtures/stream/records.jsonl");
    let mut reading = crate::embed::Reading::default();
    let mut tagged = 0;
    for line in stream.lines() {
        let fields: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = |key: &str| fields[key].as_str().unwrap_or_default();
        let record = imported(text("title"), text("abstract"));
        crate::embed::read_record(&record, &mut reading);
        let mut read = Vec::new();
        predictor.predict_each_read(&record, &reading, |tag, confidence| {
            read.push((tag.to_string(), confidence));
        });
        let direct = predictor.predict(&record);
        assert_eq!(
            tags(&direct),
            read.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>()
        );
        for (d, (_, confidence)) in direct.iter().zip(&read) {
            assert!(
                (d.confidence - confidence).abs() < 1e-5,
                "{d:?} {confidence}"
            );
        }
        tagged += usize::from(!read.is_empty());
    }
    assert!(tagged > 30, "{tagged}");
}
