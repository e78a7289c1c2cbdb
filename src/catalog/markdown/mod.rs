//! Awesome-list Markdown: reading one into sections and entries, and
//! writing the catalog back as one.

mod export;
mod import;
mod imported;
mod item;
mod layout;
mod links;
mod names;
mod pieces;
mod title;
mod venue;
mod years;

pub use export::export_markdown;
pub use import::parse_list;
pub use imported::{ImportedEntry, ImportedList, ImportedSection, SkippedItem};
pub use layout::ListLayout;
