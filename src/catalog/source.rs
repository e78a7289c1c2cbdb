//! Source files and positions: turning byte offsets into `file:line:column`.
//!
//! Everything the catalog reports points back into a file a person edits, so
//! positions are kept as 1-based line and column (columns count characters).

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A file's name and text, kept so that byte offsets can be turned into positions.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: Arc<Path>,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, text: String) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceFile {
            path: Arc::from(path.into()),
            text,
            line_starts,
        }
    }

    /// The position of a byte offset (clamped to the text).
    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let column = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        Position {
            line: line as u32 + 1,
            column: column as u32 + 1,
        }
    }

    pub fn location(&self, span: &Range<usize>) -> Location {
        Location {
            file: self.path.clone(),
            position: self.position(span.start),
        }
    }
}

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// A place in a file, printed as `file:line:column`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Location {
    pub file: Arc<Path>,
    pub position: Position,
}

impl Default for Location {
    fn default() -> Self {
        Location::file_only(Arc::from(Path::new("")))
    }
}

impl Location {
    pub fn file_only(file: Arc<Path>) -> Self {
        Location {
            file,
            position: Position { line: 1, column: 1 },
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}",
            self.file.display(),
            self.position.line,
            self.position.column
        )
    }
}

/// Something wrong with the catalog, at a place in it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    pub location: Location,
    pub message: String,
}

impl Problem {
    pub fn new(location: Location, message: impl Into<String>) -> Self {
        Problem {
            location,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let file = SourceFile::new("a.toml", "ab\nçd = 1\n".to_string());
        assert_eq!(file.position(0), Position { line: 1, column: 1 });
        assert_eq!(file.position(3), Position { line: 2, column: 1 });
        // 'ç' is two bytes but one column.
        assert_eq!(file.position(5), Position { line: 2, column: 2 });
        assert_eq!(file.position(999), Position { line: 3, column: 1 });
    }
}
