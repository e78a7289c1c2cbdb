//! Entries that are the same work: one arXiv id, one DOI (the entries' own
//! and those metadata.json found), or near-identical titles, by the rules
//! of `catalog::identity`. Pure: no network.

use std::collections::BTreeMap;

use crate::catalog::Entry;
use crate::catalog::identity::{identifiers, same_title, title_key};
use crate::model::metadata::Cache;

/// A later entry that repeats an earlier one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Duplicate {
    /// Index of the repeating entry in the slice given.
    pub entry: usize,
    /// Index of the entry it repeats (earlier in the slice).
    pub of: usize,
    /// "arXiv id 2912.01234", "DOI 10.99999/x", "a near-identical title".
    pub reason: String,
}

/// Every entry that repeats an earlier one, once, by the first reason found.
pub(crate) fn find(entries: &[&Entry], metadata: &Cache) -> Vec<Duplicate> {
    let mut found: BTreeMap<usize, Duplicate> = BTreeMap::new();
    let mut first_by_key: BTreeMap<String, usize> = BTreeMap::new();
    for (i, entry) in entries.iter().enumerate() {
        for (key, reason) in identifiers(entry, metadata) {
            match first_by_key.get(&key) {
                Some(&of) if of != i => {
                    found.entry(i).or_insert(Duplicate {
                        entry: i,
                        of,
                        reason,
                    });
                }
                Some(_) => {}
                None => {
                    first_by_key.insert(key, i);
                }
            }
        }
    }
    let titles: Vec<String> = entries.iter().map(|e| title_key(&e.title)).collect();
    for i in 0..entries.len() {
        if found.contains_key(&i) {
            continue;
        }
        // A project and the paper that presents it share a title, not a work.
        let same_work =
            |j: usize| entries[j].kind == entries[i].kind && same_title(&titles[j], &titles[i]);
        if let Some(of) = (0..i).find(|&j| same_work(j)) {
            let reason = "a near-identical title".to_owned();
            found.insert(
                i,
                Duplicate {
                    entry: i,
                    of,
                    reason,
                },
            );
        }
    }
    found.into_values().collect()
}

/// The first entry that names each DOI (normalized), by its id.
pub(crate) fn doi_owners(entries: &[&Entry], metadata: &Cache) -> BTreeMap<String, String> {
    let mut owners = BTreeMap::new();
    for entry in entries {
        for (key, _) in identifiers(entry, metadata) {
            if let Some(doi) = key.strip_prefix("doi:") {
                owners
                    .entry(doi.to_owned())
                    .or_insert_with(|| entry.id.clone());
            }
        }
    }
    owners
}
