//! How well a record belongs in the list (`belongs`, by meaning), the tags
//! proposed for it (the tag predictor's, which the index holds; else those
//! whose names it spells out) and why: the catalog works it is closest to,
//! and the tag names it holds.

use super::belongs::{Closest, Meaning};
use crate::catalog::{Catalog, normalize_title};
use crate::embed::Vector;
use crate::embed::stored::{HEAD, Head};
use crate::model::Record;
use crate::model::metadata::Cache;

/// Tags proposed at most: docs/catalog.md asks 1 to 4 of a curated entry.
const PROPOSED_TAGS: usize = 4;
/// Closest works named as the reasons of a score.
const WHY_WORKS: usize = 2;

/// What the ranking says of one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    pub score: f32,
    /// Every tag with its confidence, for choosing a section.
    pub tags: Vec<(String, f32)>,
    /// The tags proposed, most confident first.
    pub proposed: Vec<String>,
    pub why: Vec<String>,
    /// The catalog works closest in meaning, closest first.
    pub closest: Vec<Closest>,
}

/// The model of what belongs in the list, learned from the catalog.
pub struct Belongs {
    names: Vec<(String, String)>,
    meaning: Meaning,
}

impl Belongs {
    pub fn train(catalog: &Catalog, cache: &Cache) -> Belongs {
        let names = catalog
            .vocabulary
            .tags
            .iter()
            .flat_map(|t| t.names().map(|n| (t.id.clone(), normalize_title(n))))
            .collect();
        Belongs {
            names,
            meaning: Meaning::train(catalog, cache),
        }
    }

    /// The score alone: what the scan of every record computes.
    pub fn score(&self, vector: &Vector, rejected: &[Vector]) -> f32 {
        self.meaning.score(vector, rejected)
    }

    /// About [`score`](Self::score), from a stored head (a scan's first
    /// pass).
    pub fn rough_score(&self, head: &[i8; HEAD], norm: f32, rejected: &[Head]) -> f32 {
        self.meaning.rough_score(head, norm, rejected)
    }

    pub fn assess(&self, record: &Record, vector: &Vector, rejected: &[Vector]) -> Assessment {
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
        let closest = self.meaning.closest(vector, WHY_WORKS);
        let mut why: Vec<String> = (closest.iter())
            .map(|c| format!("close to {} ({:.2})", c.id, c.similarity))
            .collect();
        why.extend(named);
        Assessment {
            score: self.meaning.score(vector, rejected),
            proposed: tags
                .iter()
                .take(PROPOSED_TAGS)
                .map(|(t, _)| t.clone())
                .collect(),
            tags,
            why,
            closest,
        }
    }
}
