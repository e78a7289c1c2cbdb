//! How well a record belongs in the list (`belongs`), the tags proposed
//! for it (the tag predictor's, which the index holds; else those whose
//! names it spells out) and why: the words that raised its score, and the
//! tag names it holds.

use super::belongs::{Classifier, record_terms};
use crate::catalog::{Catalog, normalize_title};
use crate::model::Record;
use crate::model::metadata::Cache;

/// Tags proposed at most: the README asks 1 to 4 of a curated entry.
const PROPOSED_TAGS: usize = 4;

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
        // Each tag named, weighed by how many of its names the text has.
        let mut tags: Vec<(String, f32)> = Vec::new();
        let mut named = Vec::new();
        for (tag, name) in &self.names {
            if text.contains(&format!(" {name} ")) {
                match tags.iter_mut().find(|(t, _)| t == tag) {
                    Some((_, weight)) => *weight += 1.0,
                    None => {
                        named.push(format!("\"{name}\" ({tag})"));
                        tags.push((tag.clone(), 1.0));
                    }
                }
            }
        }
        tags.sort_by(|a, b| b.1.total_cmp(&a.1));
        // The tag predictor's tags (written to the index), else those named.
        if !record.predicted.is_empty() {
            tags = record
                .predicted
                .iter()
                .map(|p| (p.tag.clone(), p.confidence))
                .collect();
        }
        let (score, mut why) = match &self.classifier {
            Some(c) => {
                let (odds, words) = c.log_odds(&record_terms(record));
                let why = words.into_iter().map(|(w, _)| w).collect();
                (1.0 / (1.0 + (-odds).exp()), why)
            }
            None => (1.0 - 1.0 / (1.0 + tags.len() as f32), Vec::new()),
        };
        why.extend(named);
        Assessment {
            score,
            proposed: tags
                .iter()
                .take(PROPOSED_TAGS)
                .map(|(t, _)| t.clone())
                .collect(),
            tags,
            why,
        }
    }
}
