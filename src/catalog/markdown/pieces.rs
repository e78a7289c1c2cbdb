//! An item of a list as read from Markdown: its text and links in order,
//! with the line breaks, `<br>`s and table cells that separate its parts.

use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Link(Link),
    /// An image outside any link (a badge), by its URL.
    Image(String),
    /// A line break, `<br>`, or a sub-bullet's start.
    Break,
    /// The start of a table cell, with the role its column's header gives it.
    Cell(Role),
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Link {
    pub label: String,
    pub url: String,
    /// The URL of an image the link wraps (a badge), if any.
    pub image: Option<String>,
}

/// What a table column holds, from its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Title,
    Date,
    Venue,
    Authors,
    Links,
    Other,
}

impl Role {
    pub fn from_header(header: &str) -> Role {
        let h = header.to_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| h.contains(w));
        if has(&["title", "name", "题目", "论文"]) {
            Role::Title
        } else if has(&["date", "year", "time", "日期", "时间"]) {
            Role::Date
        } else if has(&["venue", "conference", "publication", "会议", "发表"]) {
            Role::Venue
        } else if has(&["author", "作者"]) && !has(&["单位", "affiliation"]) {
            Role::Authors
        } else if has(&["code", "link", "paper", "pdf", "github", "repo", "url"]) {
            Role::Links
        } else {
            Role::Other
        }
    }
}

/// A list item or table row with a link, before interpretation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawItem {
    pub line: usize,
    /// The bytes an export replaces when the entry changed: the item, less
    /// any sub-items that are entries of their own.
    pub span: Range<usize>,
    pub pieces: Vec<Piece>,
    pub table_row: bool,
}

impl RawItem {
    pub fn links(&self) -> impl Iterator<Item = &Link> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Link(link) => Some(link),
            _ => None,
        })
    }
}
