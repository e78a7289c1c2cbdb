//! Parsing an awesome-list README with pulldown-cmark: headings (and
//! `<details>` summaries) become sections, except a year's summary, which
//! dates what it holds (`years`); list items, sub-items and table rows with
//! a link become entries, interpreted by `item`; every other item with a
//! link is kept as skipped, with its line and the reason.

use std::collections::HashSet;
use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::imported::{ImportedEntry, ImportedList, ImportedSection, SkippedItem};
use super::item::{self, Fields};
use super::links;
use super::pieces::{Link, Piece, RawItem, Role};
use super::years::{HtmlTag, YearLabel, html_tags, year_label};
use crate::catalog::Kind;

/// Headings whose lists are navigation or about the list, not entries
/// (compared by their letters, lower case).
const SKIPPED_SECTIONS: &[&str] = &["contents", "table of contents", "license", "star history"];
const SKIPPED_PREFIXES: &[&str] = &["contribut", "citation", "cite", "acknowledg"];

fn is_skipped_section(name: &str) -> bool {
    let letters: String = name
        .chars()
        .filter(|c| c.is_alphabetic() || *c == ' ')
        .collect::<String>()
        .trim()
        .to_lowercase();
    SKIPPED_SECTIONS.contains(&letters.as_str())
        || SKIPPED_PREFIXES.iter().any(|p| letters.starts_with(p))
}

/// Reads the sections, entries and skipped items of an awesome-list
/// Markdown text. Sections without entries (such as "Papers", which only
/// groups subsections) are left out; a deeper section records the `##`
/// heading above it as its group.
pub fn parse_list(markdown: &str) -> ImportedList {
    let mut reader = ListReader::new(markdown);
    let options = Options::ENABLE_TABLES;
    for (event, range) in Parser::new_ext(markdown, options).into_offset_iter() {
        reader.event(event, range);
    }
    reader.finish()
}

/// A list item or row being read.
struct Builder {
    line: usize,
    range: Range<usize>,
    pieces: Vec<Piece>,
    link: Option<Link>,
    image_depth: usize,
    /// Where its first sub-list starts.
    list_start: Option<usize>,
    /// Whether a sub-item is an entry of its own (so the span ends at the
    /// sub-list).
    split: bool,
}

impl Builder {
    fn new(line: usize, range: Range<usize>) -> Builder {
        Builder {
            line,
            range,
            pieces: Vec::new(),
            link: None,
            image_depth: 0,
            list_start: None,
            split: false,
        }
    }

    fn text(&mut self, text: &str) {
        if self.image_depth > 0 {
            return;
        }
        match self.link.as_mut() {
            Some(link) => link.label.push_str(text),
            None => match self.pieces.last_mut() {
                Some(Piece::Text(t)) => t.push_str(text),
                _ => self.pieces.push(Piece::Text(text.to_string())),
            },
        }
    }

    fn start_image(&mut self, url: &str) {
        self.image_depth += 1;
        match self.link.as_mut() {
            Some(link) => link.image = Some(url.to_string()),
            None => self.pieces.push(Piece::Image(url.to_string())),
        }
    }

    fn has_links(&self) -> bool {
        self.pieces.iter().any(|p| matches!(p, Piece::Link(_)))
    }

    /// Whether it only adds to the item above: no link of its own to a
    /// work, a page section or another file (only [Code]-style links).
    fn only_adds(&self) -> bool {
        self.pieces
            .iter()
            .all(|p| !matches!(p, Piece::Link(l) if !links::is_extra(l)))
    }

    fn into_raw(self, table_row: bool) -> RawItem {
        let end = match (self.split, self.list_start) {
            (true, Some(start)) => start,
            _ => self.range.end,
        };
        RawItem {
            line: self.line,
            span: self.range.start..end,
            pieces: self.pieces,
            table_row,
        }
    }
}

struct Table {
    head: bool,
    headers: Vec<String>,
    roles: Vec<Role>,
    cell: usize,
}

struct SectionState {
    name: String,
    group: Option<String>,
    skipping: bool,
    /// Started inside a year's `<details>`: a topic, which the same
    /// heading under another year continues.
    in_year: bool,
}

/// The state of [`parse_list`] between two Markdown events.
struct ListReader {
    line_starts: Vec<usize>,
    title: Option<String>,
    heading: Option<(HeadingLevel, String)>,
    heading_link_is_anchor: bool,
    group: Option<String>,
    sections: Vec<SectionState>,
    /// The section items go to: the last one started, or the one a year's
    /// `<details>` is inside.
    current: Option<usize>,
    /// The `<details>` blocks open, innermost last, with the year label of
    /// those whose summary is one.
    details: Vec<Option<YearLabel>>,
    /// The sections' names, normalized: looked up once a heading.
    section_names: HashSet<String>,
    items: Vec<Builder>,
    table: Option<Table>,
    row: Option<Builder>,
    /// Items with a link, with the index of their section and the year of
    /// the year's `<details>` they are in.
    found: Vec<(Option<usize>, Option<i64>, RawItem)>,
    /// Sub-items with links read as part of the item above them.
    attached: Vec<SkippedItem>,
}

impl ListReader {
    fn new(markdown: &str) -> ListReader {
        ListReader {
            line_starts: std::iter::once(0)
                .chain(markdown.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
            title: None,
            heading: None,
            heading_link_is_anchor: false,
            group: None,
            sections: Vec::new(),
            current: None,
            details: Vec::new(),
            section_names: HashSet::new(),
            items: Vec::new(),
            table: None,
            row: None,
            found: Vec::new(),
            attached: Vec::new(),
        }
    }

    fn builder(&mut self) -> Option<&mut Builder> {
        match self.row.as_mut() {
            Some(row) => Some(row),
            None => self.items.last_mut(),
        }
    }

    fn event(&mut self, event: Event, range: Range<usize>) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => self.heading = Some((level, String::new())),
            Event::End(TagEnd::Heading(_)) => self.end_heading(),
            Event::Start(Tag::List(_)) => {
                if let Some(top) = self.items.last_mut() {
                    top.list_start.get_or_insert(range.start);
                }
            }
            Event::Start(Tag::Item) => {
                let line = self.line_of(range.start);
                self.items.push(Builder::new(line, range));
            }
            Event::End(TagEnd::Item) => self.end_item(),
            Event::Start(Tag::Link { dest_url, .. }) => {
                if self.heading.is_some() {
                    self.heading_link_is_anchor = dest_url.starts_with('#');
                } else if let Some(b) = self.builder()
                    && b.image_depth == 0
                {
                    b.link = Some(Link {
                        url: dest_url.to_string(),
                        ..Link::default()
                    });
                }
            }
            Event::End(TagEnd::Link) => {
                self.heading_link_is_anchor = false;
                if let Some(b) = self.builder()
                    && b.image_depth == 0
                    && let Some(link) = b.link.take()
                {
                    b.pieces.push(Piece::Link(link));
                }
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                if let Some(b) = self.builder() {
                    b.start_image(&dest_url);
                }
            }
            Event::End(TagEnd::Image) => {
                if let Some(b) = self.builder() {
                    b.image_depth = b.image_depth.saturating_sub(1);
                }
            }
            Event::Text(text) | Event::Code(text) => self.text(&text),
            // A soft break wraps a sentence; a hard one separates parts.
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => {
                if let Some((_, heading)) = self.heading.as_mut() {
                    heading.push(' ');
                } else if let Some(b) = self.builder() {
                    b.pieces.push(Piece::Break);
                }
            }
            Event::InlineHtml(html) if html.trim_start().to_lowercase().starts_with("<br") => {
                if let Some(b) = self.builder() {
                    b.pieces.push(Piece::Break);
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => self.html(&html),
            Event::Start(Tag::Table(_)) => {
                self.table = Some(Table {
                    head: false,
                    headers: Vec::new(),
                    roles: Vec::new(),
                    cell: 0,
                });
            }
            Event::Start(Tag::TableHead) => {
                if let Some(t) = self.table.as_mut() {
                    t.head = true;
                }
            }
            Event::End(TagEnd::TableHead) => {
                if let Some(t) = self.table.as_mut() {
                    t.head = false;
                    t.roles = t.headers.iter().map(|h| Role::from_header(h)).collect();
                }
            }
            Event::Start(Tag::TableRow) => {
                let line = self.line_of(range.start);
                self.row = Some(Builder::new(line, range));
                if let Some(t) = self.table.as_mut() {
                    t.cell = 0;
                }
            }
            Event::End(TagEnd::TableRow) => {
                if let Some(row) = self.row.take()
                    && row.has_links()
                {
                    self.found
                        .push((self.current, self.year(), row.into_raw(true)));
                }
            }
            Event::Start(Tag::TableCell) => self.start_cell(),
            Event::End(TagEnd::Table) => self.table = None,
            _ => {}
        }
    }

    fn start_cell(&mut self) {
        let Some(table) = self.table.as_mut() else {
            return;
        };
        if table.head {
            table.headers.push(String::new());
        } else {
            let role = table.roles.get(table.cell).copied().unwrap_or(Role::Other);
            table.cell += 1;
            if let Some(row) = self.row.as_mut() {
                row.pieces.push(Piece::Cell(role));
            }
        }
    }

    fn text(&mut self, text: &str) {
        if let Some((_, heading)) = self.heading.as_mut() {
            if !self.heading_link_is_anchor {
                heading.push_str(text);
            }
        } else if let Some(table) = self.table.as_mut().filter(|t| t.head) {
            if let Some(header) = table.headers.last_mut() {
                header.push_str(text);
            }
        } else if let Some(b) = self.builder() {
            b.text(text);
        }
    }

    /// A `<details>` group's `<summary>` starts a section, as a heading;
    /// a year's summary instead dates the items inside, which go to the
    /// topic headings inside it, else to the section it is in.
    fn html(&mut self, html: &str) {
        for tag in html_tags(html) {
            match tag {
                HtmlTag::Open => self.details.push(None),
                HtmlTag::Close => {
                    self.details.pop();
                }
                HtmlTag::Summary(summary) => {
                    let text = strip_tags(&summary);
                    if text.is_empty() {
                        continue;
                    }
                    if self.details.is_empty() {
                        self.details.push(None);
                    }
                    match year_label(&text) {
                        Some(label) => {
                            if let Some(top) = self.details.last_mut() {
                                *top = Some(label);
                            }
                            // Out of the previous year's last topic.
                            self.current = self.sections.iter().rposition(|s| !s.in_year);
                        }
                        None => self.start_section(text, self.group.clone()),
                    }
                }
            }
        }
    }

    /// The year's `<details>` the reader is in, if any.
    fn year_block(&self) -> Option<YearLabel> {
        self.details.iter().rev().find_map(|d| *d)
    }

    /// The one year of the year's `<details>` the reader is in.
    fn year(&self) -> Option<i64> {
        self.year_block().and_then(|label| label.year)
    }

    fn finish(mut self) -> ImportedList {
        while !self.items.is_empty() {
            self.end_item();
        }
        let mut sections: Vec<ImportedSection> = self
            .sections
            .iter()
            .map(|s| ImportedSection {
                name: s.name.clone(),
                group: s.group.clone(),
                entries: Vec::new(),
            })
            .collect();
        let mut skipped = std::mem::take(&mut self.attached);
        self.found.sort_by_key(|(_, _, item)| item.span.start);
        // Items before any heading belong to a section named after the list.
        let mut loose: Option<usize> = None;
        for (section, year, raw) in self.found {
            let section = match section {
                Some(i) => i,
                None => *loose.get_or_insert_with(|| {
                    sections.push(ImportedSection {
                        name: self.title.clone().unwrap_or_else(|| "Links".into()),
                        group: None,
                        entries: Vec::new(),
                    });
                    sections.len() - 1
                }),
            };
            let state = self.sections.get(section);
            let heads = [
                Some(sections[section].name.as_str()),
                sections[section].group.as_deref(),
            ];
            let under_papers = heads
                .into_iter()
                .flatten()
                .any(|h| h.to_lowercase().contains("paper"));
            match item::interpret(&raw, under_papers) {
                Ok(_) if state.is_some_and(|s| s.skipping) => {
                    let name = &sections[section].name;
                    skipped.push(skip(
                        &raw,
                        format!("in the section \"{name}\", which is not a list of works"),
                    ));
                }
                Ok(mut fields) => {
                    // A paper dated only by the year it is listed under.
                    if fields.kind == Kind::Paper && fields.year.is_none() {
                        fields.year = year;
                    }
                    sections[section].entries.push(entry(fields, &raw));
                }
                Err(unlisted) => skipped.push(SkippedItem {
                    line: raw.line,
                    title: unlisted.title,
                    url: unlisted.url,
                    reason: unlisted.reason,
                }),
            }
        }
        sections.retain(|s| !s.entries.is_empty());
        skipped.sort_by_key(|s| s.line);
        ImportedList {
            title: self.title,
            sections,
            skipped,
        }
    }

    /// The 1-based line of byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset)
    }

    /// The first `#` heading is the list's title; any other heading starts
    /// a section.
    fn end_heading(&mut self) {
        let Some((level, text)) = self.heading.take() else {
            return;
        };
        let text = clean_heading(&text);
        if level == HeadingLevel::H1 && self.title.is_none() {
            self.title = Some(text);
            return;
        }
        if text.is_empty() {
            return;
        }
        match level {
            HeadingLevel::H1 | HeadingLevel::H2 => {
                self.group = Some(text.clone());
                self.start_section(text, None);
            }
            _ => self.start_section(text, self.group.clone()),
        }
    }

    fn start_section(&mut self, name: String, group: Option<String>) {
        let in_year = self.year_block().is_some();
        // A topic under a year continues the same topic under another.
        if in_year {
            let key = crate::catalog::normalize_title(&name);
            let same = self.sections.iter().position(|s| {
                s.in_year && s.group == group && crate::catalog::normalize_title(&s.name) == key
            });
            if let Some(i) = same {
                self.current = Some(i);
                return;
            }
        }
        let skipping = is_skipped_section(&name);
        // Two sections of one name ("Training" under two headings) stay
        // two. A set, not a scan of the sections: a scan per heading made
        // a list of 10,000 sections take half a minute.
        let names = &self.section_names;
        let taken = |n: &str| names.contains(&crate::catalog::normalize_title(n));
        let mut unique = name.clone();
        if taken(&unique)
            && let Some(group) = &group
        {
            unique = format!("{name} ({group})");
        }
        let mut n = 2;
        while taken(&unique) {
            unique = format!("{name} {n}");
            n += 1;
        }
        (self.section_names).insert(crate::catalog::normalize_title(&unique));
        self.sections.push(SectionState {
            name: unique,
            group,
            skipping,
            in_year,
        });
        self.current = Some(self.sections.len() - 1);
    }

    /// A finished item is an entry of its own, or, when it only adds to
    /// the item above it (authors, venue, a [Code] link), part of that one.
    fn end_item(&mut self) {
        let Some(child) = self.items.pop() else {
            return;
        };
        if let Some(parent) = self.items.last_mut() {
            if child.only_adds() && parent.has_links() {
                if child.has_links() {
                    let raw = child.into_raw(false);
                    let reason = format!(
                        "part of the item at line {}: its extra link or details",
                        parent.line
                    );
                    self.attached.push(skip(&raw, reason));
                    parent.pieces.push(Piece::Break);
                    parent.pieces.extend(raw.pieces);
                } else {
                    parent.pieces.push(Piece::Break);
                    parent.pieces.extend(child.pieces);
                }
                return;
            }
            parent.split = true;
        }
        if child.has_links() {
            self.found
                .push((self.current, self.year(), child.into_raw(false)));
        }
    }
}

fn skip(raw: &RawItem, reason: String) -> SkippedItem {
    let link = raw.links().next();
    SkippedItem {
        line: raw.line,
        title: link.map(|l| l.label.trim().to_string()).unwrap_or_default(),
        url: link.map(|l| l.url.clone()).unwrap_or_default(),
        reason,
    }
}

fn entry(fields: Fields, raw: &RawItem) -> ImportedEntry {
    ImportedEntry {
        work: fields,
        line: raw.line,
        span: raw.span.clone(),
        table_row: raw.table_row,
    }
}

/// A heading's text without decoration: leading emoji, and the "(back to
/// top)" links that headings carry.
fn clean_heading(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = text.replace("()", "");
    text.trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim()
        .to_string()
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    clean_heading(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "# Awesome Things\n\n## Contents\n- [Projects](#projects)\n- [Papers](#papers)\n  - [Pipelines](#pipelines)\n\n## Projects\n\n- [Tool: does things](www.tool.org)\n\n## Papers\n\n### Pipelines\n\n- [GPipe: Giant Models](https://example.org/gpipe.pdf) by Yanping Huang et al., NeurIPS 2019\n- [Unity: Joint \\[Optimization\\]](https://example.org/unity) by Colin Unger, Zhihao Jia, et al., OSDI 2022\n- [Survey](https://example.org/s) by Peng Liang., techrxiv 2022\n- [PiPAD](https://example.org/p) Chunyang Wang et al., PPoPP 2023\n- [Ring](https://example.org/r) by Hao Liu et al., NeurIPS 2023 Workshop\n\n## Contribute\n\n- [issue](https://example.org/issues)\n";

    #[test]
    fn sections_entries_and_bylines() {
        let list = parse_list(LIST);
        assert_eq!(list.title.as_deref(), Some("Awesome Things"));
        let names: Vec<_> = list
            .sections
            .iter()
            .map(|s| (s.name.as_str(), s.group.as_deref()))
            .collect();
        assert_eq!(names, [("Projects", None), ("Pipelines", Some("Papers"))]);
        let tool = &list.sections[0].entries[0];
        assert_eq!(
            (tool.work.kind, tool.work.url.as_str()),
            (Kind::Project, "https://www.tool.org")
        );
        assert_eq!(tool.line, 10);
        let papers = &list.sections[1].entries;
        assert_eq!(papers.len(), 5);
        assert_eq!(papers[0].work.authors, ["Yanping Huang"]);
        assert!(papers[0].work.et_al);
        assert_eq!(
            (papers[0].work.venue.as_deref(), papers[0].work.year),
            (Some("NeurIPS"), Some(2019))
        );
        assert_eq!(papers[1].work.title, "Unity: Joint [Optimization]");
        assert_eq!(papers[1].work.authors, ["Colin Unger", "Zhihao Jia"]);
        assert_eq!(papers[2].work.authors, ["Peng Liang"]);
        assert!(!papers[2].work.et_al);
        assert_eq!(papers[3].work.authors, ["Chunyang Wang"]);
        assert_eq!(
            (papers[4].work.venue.as_deref(), papers[4].work.year),
            (Some("NeurIPS Workshop"), Some(2023))
        );
    }

    #[test]
    fn navigation_and_contribution_links_are_reported_not_lost() {
        let list = parse_list(LIST);
        let skipped: Vec<(usize, &str)> = list
            .skipped
            .iter()
            .map(|s| (s.line, s.reason.as_str()))
            .collect();
        assert_eq!(
            skipped,
            [
                (4, "a link within the page (navigation), not a work"),
                (5, "a link within the page (navigation), not a work"),
                (6, "a link within the page (navigation), not a work"),
                (
                    24,
                    "in the section \"Contribute\", which is not a list of works"
                ),
            ]
        );
        assert_eq!(list.item_count(), 10);
    }
}
