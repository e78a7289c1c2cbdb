//! Awesome-list Markdown: reading one into sections and entries (`import`), and
//! writing the catalog back as one (`export`).

mod export;
mod import;

pub use export::export_markdown;
pub use import::{ImportedEntry, ImportedList, parse_list};
