//! The section a candidate would go in: the one whose entries are most
//! about the tags proposed for it. Sections of projects only take no papers.

use crate::catalog::{Catalog, Kind};

/// The name of the section whose papers share most of `tags` (tag,
/// confidence), each shared tag counted by its confidence; ties and a
/// candidate without tags go to the section listed first.
pub fn propose<'c>(catalog: &'c Catalog, tags: &[(String, f32)]) -> Option<&'c str> {
    let mut best: Option<(&str, f32)> = None;
    for (section, entries) in catalog.sections_with_entries() {
        let papers: Vec<_> = entries.iter().filter(|e| e.kind == Kind::Paper).collect();
        if papers.is_empty() {
            continue;
        }
        let score: f32 = papers
            .iter()
            .flat_map(|e| &e.tags)
            .filter_map(|t| tags.iter().find(|(tag, _)| tag == t).map(|(_, c)| c))
            .sum();
        if best.is_none_or(|(_, s)| score > s) {
            best = Some((&section.name, score));
        }
    }
    best.map(|(name, _)| name)
}
