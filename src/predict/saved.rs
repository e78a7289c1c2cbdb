//! A trained model kept for the next run: training reads the same curated
//! entries and vocabulary import after import (about 0.45 s of CPU time,
//! most of a small harvest's), so the model is saved beside the index,
//! keyed by a fingerprint of all it was learned from. A file that is
//! missing, unreadable, of another fingerprint or malformed is ignored and
//! the model learned again (and saved, when the folder can be written).

use std::path::Path;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use super::learn::{Learned, Model, SETTINGS};
use super::{ABSTRACT_BYTES, Example, Method, Predictor, THRESHOLD, examples, tag_ids};
use crate::catalog::Catalog;
use crate::model::metadata::Cache;

/// The kept model's file name, in the index folder.
pub const FILE_NAME: &str = "predictor.json";

/// Bumped when what is saved, or how a model is learned, changes in a way
/// that [`SETTINGS`] and [`Method::SHIPPED`] do not show (2: the vector's
/// weights).
const FORMAT: u32 = 2;

/// The file: floats as their bits, so that a reloaded model predicts
/// exactly what the trained one did.
#[derive(Serialize, Deserialize)]
struct Saved {
    fingerprint: String,
    tags: Vec<String>,
    features: Vec<String>,
    idf: Vec<u32>,
    word_weights: Vec<u32>,
    name_weights: Vec<u32>,
    vector_weights: Vec<u32>,
    bias: Vec<Option<u32>>,
}

impl Predictor {
    /// [`Predictor::train`], or the model kept in `path` if it was learned
    /// from the same entries, vocabulary and settings; a model learned here
    /// is kept there (a folder that cannot be written only costs the next
    /// run the training).
    pub fn train_reusing(catalog: &Catalog, cache: &Cache, path: &Path) -> Predictor {
        let examples = examples(catalog, cache);
        let fingerprint = fingerprint(&examples, catalog);
        if let Some(predictor) = load(path, &fingerprint, &examples, catalog) {
            return predictor;
        }
        let predictor = Predictor::learn_all(&examples, catalog);
        let _ = save(path, &fingerprint, &predictor);
        predictor
    }
}

/// A hash of everything training reads: the examples' texts and tags, each
/// tag's id, description and names, the settings, and the embedding (a
/// probe text's vector: another table or tokenizer makes other vectors, and
/// the vector's weights would mean nothing).
fn fingerprint(examples: &[Example], catalog: &Catalog) -> String {
    let mut hash = Xxh3::new();
    let mut field = |text: &str| {
        hash.update(&(text.len() as u64).to_le_bytes());
        hash.update(text.as_bytes());
    };
    field(&format!(
        "{FORMAT} {} {SETTINGS:?} {:?} {THRESHOLD} {ABSTRACT_BYTES}",
        env!("CARGO_PKG_VERSION"),
        Method::SHIPPED,
    ));
    let probe =
        crate::embed::embedder().embed("Pipeline parallelism splits layers; ZeRO shards state.");
    probe.iter().for_each(|x| field(&x.to_bits().to_string()));
    for example in examples {
        field(&format!(
            "example {} {}",
            example.parts.len(),
            example.tags.len()
        ));
        field(&example.id);
        example.parts.iter().for_each(|p| field(p));
        example.tags.iter().for_each(|t| field(t));
    }
    for tag in &catalog.vocabulary.tags {
        field(&format!("tag {}", tag.names().count()));
        field(&tag.id);
        field(&tag.description);
        tag.names().for_each(&mut field);
    }
    format!("{:032x}", hash.digest128())
}

/// The model kept in `path`, if it is there, readable and of `fingerprint`
/// (learned from `examples`).
fn load(
    path: &Path,
    fingerprint: &str,
    examples: &[Example],
    catalog: &Catalog,
) -> Option<Predictor> {
    let bytes = crate::fsutil::read_regular_file(path).ok()??;
    let saved: Saved = serde_json::from_slice(&bytes).ok()?;
    let tags = tag_ids(catalog);
    if saved.fingerprint != fingerprint || saved.tags != tags {
        return None;
    }
    let floats = |bits: Vec<u32>| bits.into_iter().map(f32::from_bits).collect();
    let learned = Learned {
        features: saved.features,
        idf: floats(saved.idf),
        word_weights: floats(saved.word_weights),
        name_weights: floats(saved.name_weights),
        vector_weights: floats(saved.vector_weights),
        bias: saved
            .bias
            .into_iter()
            .map(|b| b.map(f32::from_bits))
            .collect(),
    };
    let method = Method::SHIPPED;
    let model = Model::from_learned(learned, &catalog.vocabulary, &tags, method.features())?;
    let examples: Vec<&Example> = examples.iter().collect();
    Some(Predictor::with_model(
        &examples,
        catalog,
        method,
        THRESHOLD,
        Some(model),
    ))
}

fn save(path: &Path, fingerprint: &str, predictor: &Predictor) -> Result<(), crate::error::Error> {
    let learned = predictor.model.learned();
    let bits = |floats: Vec<f32>| floats.into_iter().map(f32::to_bits).collect();
    let saved = Saved {
        fingerprint: fingerprint.to_string(),
        tags: predictor.tags.clone(),
        features: learned.features,
        idf: bits(learned.idf),
        word_weights: bits(learned.word_weights),
        name_weights: bits(learned.name_weights),
        vector_weights: bits(learned.vector_weights),
        bias: learned
            .bias
            .into_iter()
            .map(|b| b.map(f32::to_bits))
            .collect(),
    };
    let json = serde_json::to_vec(&saved)
        .map_err(|e| crate::error::Error::Index(format!("predictor: {e}")))?;
    crate::fsutil::write_atomic(path, &json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::tests::{catalog, imported};

    fn probe() -> crate::model::Record {
        imported(
            "Faster frobnicator state",
            "We spread frobnicator state over many glimmer ranks.",
        )
    }

    #[test]
    fn a_kept_model_is_reused_and_predicts_as_the_trained_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let catalog = catalog();
        let trained = Predictor::train(&catalog, &Cache::default());
        let first = Predictor::train_reusing(&catalog, &Cache::default(), &path);
        assert!(path.exists());
        let reloaded = Predictor::train_reusing(&catalog, &Cache::default(), &path);
        assert_eq!(reloaded.predict(&probe()), trained.predict(&probe()));
        assert_eq!(first.predict(&probe()), trained.predict(&probe()));
        // Reused, not learned again: a kept model whose biases were changed
        // predicts with them.
        let mut saved: Saved = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        saved
            .bias
            .iter_mut()
            .for_each(|b| *b = b.map(|_| 50f32.to_bits()));
        std::fs::write(&path, serde_json::to_vec(&saved).unwrap()).unwrap();
        let changed = Predictor::train_reusing(&catalog, &Cache::default(), &path);
        assert_ne!(changed.predict(&probe()), trained.predict(&probe()));
    }

    #[test]
    fn a_kept_model_of_other_entries_or_unreadable_is_learned_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut catalog = catalog();
        Predictor::train_reusing(&catalog, &Cache::default(), &path);
        let before = std::fs::read(&path).unwrap();
        // Another note: another fingerprint, so the kept model is stale.
        catalog.entries[0].note = "Keeps warm wubbles in a spindle buffer.".into();
        let trained = Predictor::train(&catalog, &Cache::default());
        let retrained = Predictor::train_reusing(&catalog, &Cache::default(), &path);
        assert_eq!(retrained.predict(&probe()), trained.predict(&probe()));
        assert_ne!(std::fs::read(&path).unwrap(), before, "saved again");
        for unreadable in [&b"{not json"[..], b"", br#"{"fingerprint": 3}"#] {
            std::fs::write(&path, unreadable).unwrap();
            let retrained = Predictor::train_reusing(&catalog, &Cache::default(), &path);
            assert_eq!(retrained.predict(&probe()), trained.predict(&probe()));
        }
        // A folder that cannot be written only costs the training.
        let missing = dir.path().join("file").join(FILE_NAME);
        std::fs::write(dir.path().join("file"), "").unwrap();
        let unsaved = Predictor::train_reusing(&catalog, &Cache::default(), &missing);
        assert_eq!(unsaved.predict(&probe()), trained.predict(&probe()));
    }
}
