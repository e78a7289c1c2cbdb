//! Output: the terminal view, JSON Lines, and citations (BibTeX, CSL-JSON,
//! RIS). Everything printed from data passes through `text::inert` first, so
//! that no control character in a title or abstract ever reaches the terminal.

pub mod atom;
pub mod bibtex;
pub mod csl;
pub mod json;
mod names;
pub mod notes;
pub mod ris;
pub mod table;
pub mod text;
mod venue;

use crate::model::Record;

/// The formats reference managers import, each written whole for a list of
/// records (a CSL-JSON array cannot be written a record at a time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Citations {
    Bibtex,
    CslJson,
    Ris,
}

impl Citations {
    pub fn of<'r>(self, records: impl IntoIterator<Item = &'r Record>) -> String {
        match self {
            Citations::Bibtex => (records.into_iter().map(bibtex::entry))
                .collect::<Vec<_>>()
                .join("\n"),
            Citations::CslJson => csl::items(records),
            Citations::Ris => ris::records(records),
        }
    }
}

/// Colour on or off, decided once from `--color`, `NO_COLOR` and the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
    pub width: usize,
    /// Whether lines are cut to the width: on a terminal or when `COLUMNS`
    /// says so, never on a pipe (`list | grep` must see whole titles).
    pub cut: bool,
}

/// Wrapped prose is not widened past this, for the eye's sake.
const PROSE_WIDTH: usize = 120;

impl Style {
    /// The width to wrap prose to: the terminal's, up to [`PROSE_WIDTH`].
    pub fn prose_width(&self) -> usize {
        self.width.min(PROSE_WIDTH)
    }

    /// `text` cut to `max` characters with an ellipsis, when lines are cut.
    pub fn fit(&self, text: &str, max: usize) -> String {
        if self.cut {
            text::truncate(text, max)
        } else {
            text.to_string()
        }
    }

    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }

    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }

    pub fn highlight(&self, s: &str) -> String {
        self.paint("1;33", s)
    }

    pub fn link(&self, s: &str) -> String {
        self.paint("36", s)
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color && !s.is_empty() {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}
