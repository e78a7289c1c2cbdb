//! How well a record belongs in the list. (Placeholder until the tag
//! predictor lands: the tags whose names the record spells out.)

use super::belongs::{Classifier, record_terms};
use crate::catalog::{Catalog, normalize_title};
use crate::model::Record;
use crate::model::metadata::Cache;

/// What the ranking says of one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    pub score: f32,
    /// Every tag with its confidence, for choosing a section.
    pub tags: Vec<(String, f32)>,
    /// The tags proposed, most confident first.
    pub proposed: Vec<String>,
    pub why: Vec<String>,
}

/// The model of what belongs in the list, learned from the catalog.
pub struct Belongs {
    names: Vec<(String, String)>,
    classifier: Option<Classifier>,
}

impl Belongs {
    pub fn train(catalog: &Catalog, cache: &Cache, collection: &[Record]) -> Belongs {
        let names = catalog
            .vocabulary
            .tags
            .iter()
            .flat_map(|t| t.names().map(|n| (t.id.clone(), normalize_title(n))))
            .collect();
        Belongs {
            names,
            classifier: Classifier::train(catalog, cache, collection),
        }
    }

    pub fn assess(&self, record: &Record) -> Assessment {
        let text = format!(
            " {} {} ",
            normalize_title(&record.title),
            normalize_title(record.abstract_text.as_deref().unwrap_or_default())
        );
        let mut tags: Vec<(String, f32)> = Vec::new();
        let mut why = Vec::new();
        for (tag, name) in &self.names {
            if text.contains(&format!(" {name} ")) {
                why.push(format!("{name} ({tag})"));
                if !tags.iter().any(|(t, _)| t == tag) {
                    tags.push((tag.clone(), 1.0));
                }
            }
        }
        let score = match &self.classifier {
            Some(c) => {
                let (odds, words) = c.log_odds(&record_terms(record));
                why.extend(words.into_iter().map(|(w, _)| w));
                1.0 / (1.0 + (-odds).exp())
            }
            None => 1.0 - 1.0 / (1.0 + tags.len() as f32),
        };
        Assessment {
            score,
            proposed: tags.iter().map(|(t, _)| t.clone()).collect(),
            tags,
            why,
        }
    }
}
