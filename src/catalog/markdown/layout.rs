//! The list a catalog was imported from (`list.toml`): its own text, and
//! which entry each of its items became. Export writes that text back: an
//! unchanged entry's item as written, a changed one rendered anew, a removed
//! one left out, and entries the list did not have added to their section.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::export::{annotation, item};
use super::import::parse_list;
use super::imported::ImportedEntry;
use crate::catalog::{Catalog, Entry, ItemReport, LIST_FILE, Outcome};
use crate::error::Error;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListLayout {
    /// The list's Markdown, byte for byte.
    pub text: String,
    /// The entry id of the item starting on each line (as a string key).
    pub items: BTreeMap<String, String>,
}

impl ListLayout {
    /// The layout of `markdown`, whose items the import planned as `report`.
    pub fn new(markdown: &str, report: &crate::catalog::MergeReport) -> ListLayout {
        let items = report
            .items
            .iter()
            .filter(|i| matches!(i.outcome, Outcome::Add | Outcome::AlreadyListed))
            .filter_map(|i: &ItemReport| Some((i.line.to_string(), i.id.clone()?)))
            .collect();
        ListLayout {
            text: markdown.to_string(),
            items,
        }
    }

    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# The list this catalog was imported from, written back by `export`.\n# `items` maps the line of each item to the entry it became.\n{body}"
        )
    }

    /// The layout kept in catalog folder `dir`, if any.
    pub fn load(dir: &Path) -> Result<Option<ListLayout>, Error> {
        let path = dir.join(LIST_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        toml::from_str(&text).map(Some).map_err(|e| {
            Error::Usage(format!(
                "{}: {}: fix it or remove it (export then writes a list of its own)",
                path.display(),
                e.message()
            ))
        })
    }

    /// The list's text with the catalog's entries in it.
    pub fn export(&self, catalog: &Catalog, annotate: bool) -> String {
        let list = parse_list(&self.text);
        let mut edits: Vec<(usize, usize, String)> = Vec::new();
        let mut placed: HashSet<&str> = HashSet::new();
        // Where each section's last item ends, for entries added since.
        let mut section_end: BTreeMap<&str, usize> = BTreeMap::new();
        for imported in list.entries() {
            let Some(id) = self.items.get(&imported.line.to_string()) else {
                continue;
            };
            let span = &imported.span;
            let Some(entry) = catalog.entry(id) else {
                // Removed from the catalog: its item goes too.
                edits.push((span.start, span.end, String::new()));
                continue;
            };
            placed.insert(entry.id.as_str());
            let end = line_end(&self.text, span.end);
            section_end.insert(entry.section.as_str(), end);
            if !unchanged(entry, imported) {
                edits.push((span.start, span.end, changed(&self.text, imported, entry)));
            }
            if annotate && !imported.table_row {
                let indent = indentation(&self.text, span.start) + 2;
                edits.push((end, end, annotation(catalog, entry, indent)));
            }
        }
        let mut appended = String::new();
        for (section, entries) in catalog.sections_with_entries() {
            let new: Vec<&Entry> = entries
                .into_iter()
                .filter(|e| !placed.contains(e.id.as_str()))
                .collect();
            if new.is_empty() {
                continue;
            }
            let mut block = String::new();
            for entry in &new {
                block.push_str(&item(entry));
                block.push('\n');
                if annotate {
                    block.push_str(&annotation(catalog, entry, 2));
                }
            }
            match section_end.get(section.name.as_str()) {
                Some(&end) => edits.push((end, end, block)),
                None => {
                    appended.push_str(&format!("\n## {}\n\n{block}", section.name));
                }
            }
        }
        edits.sort_by_key(|(start, end, _)| (*start, *end));
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for (start, end, text) in edits {
            if start < at {
                continue;
            }
            out.push_str(&self.text[at..start]);
            out.push_str(&text);
            at = end;
        }
        out.push_str(&self.text[at..]);
        out.push_str(&appended);
        out
    }
}

/// Whether the catalog still says what the list's item said.
fn unchanged(entry: &Entry, imported: &ImportedEntry) -> bool {
    entry.title == imported.work.title
        && entry.url == imported.work.url
        && entry.authors == imported.work.authors
        && entry.et_al == imported.work.et_al
        && entry.venue == imported.work.venue
        && entry.year == imported.work.year
}

/// The new text of a changed entry's item: a list item rendered anew at its
/// indentation; a table row with its title and link replaced in place.
fn changed(text: &str, imported: &ImportedEntry, entry: &Entry) -> String {
    let old = &text[imported.span.clone()];
    if imported.table_row {
        let replaced = old
            .replacen(&imported.work.title, &entry.title, 1)
            .replacen(&imported.work.url, &entry.url, 1);
        return replaced;
    }
    // The item's own spacing after it (a newline, a blank line) stays.
    let trailing = &old[old.trim_end().len()..];
    format!("{}{trailing}", item(entry))
}

/// The column an item starts at.
fn indentation(text: &str, offset: usize) -> usize {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    offset - line_start
}

/// The offset just past the line that contains `offset - 1`.
fn line_end(text: &str, offset: usize) -> usize {
    if offset > 0 && text[..offset].ends_with('\n') {
        return offset;
    }
    text[offset..]
        .find('\n')
        .map_or(text.len(), |i| offset + i + 1)
}
