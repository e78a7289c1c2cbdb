//! Awesome-list Markdown: reading one into sections and entries, and
//! writing the catalog back as one.

mod export;
mod import;
mod item;
mod layout;
mod links;
mod names;
mod pieces;
mod title;
mod venue;
mod years;

pub use export::export_markdown;
pub use import::{ImportedEntry, ImportedList, ImportedSection, SkippedItem, parse_list};
pub use layout::ListLayout;
