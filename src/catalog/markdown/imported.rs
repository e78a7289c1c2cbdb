//! What reading a list gives (`ImportedList`): its sections, their entries, and items skipped.

use std::ops::Range;

use super::item::Fields;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedEntry {
    /// What the item says about the work.
    pub work: Fields,
    /// 1-based line of the list item, for reports.
    pub line: usize,
    /// The bytes of the item in the list (see
    /// [`RawItem::span`](super::pieces::RawItem::span)).
    pub span: Range<usize>,
    pub table_row: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedSection {
    pub name: String,
    pub group: Option<String>,
    pub entries: Vec<ImportedEntry>,
}

/// A list item with a link that is not an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedItem {
    pub line: usize,
    pub title: String,
    pub url: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportedList {
    pub title: Option<String>,
    pub sections: Vec<ImportedSection>,
    pub skipped: Vec<SkippedItem>,
}

impl ImportedList {
    pub fn entry_count(&self) -> usize {
        self.sections.iter().map(|s| s.entries.len()).sum()
    }

    /// Every item with a link: entries and skipped items.
    pub fn item_count(&self) -> usize {
        self.entry_count() + self.skipped.len()
    }

    pub fn entries(&self) -> impl Iterator<Item = &ImportedEntry> {
        self.sections.iter().flat_map(|s| &s.entries)
    }
}
