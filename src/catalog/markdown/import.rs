//! Parsing an awesome-list README with pulldown-cmark: headings become
//! sections, list items with a link become entries, and a trailing
//! "by Author et al., Venue Year" becomes authors, venue and year.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

use crate::catalog::Kind;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedEntry {
    pub kind: Kind,
    pub title: String,
    pub url: String,
    pub authors: Vec<String>,
    pub et_al: bool,
    pub venue: Option<String>,
    pub year: Option<i64>,
    /// 1-based line of the list item, for reports.
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedSection {
    pub name: String,
    pub group: Option<String>,
    pub entries: Vec<ImportedEntry>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportedList {
    pub title: Option<String>,
    pub sections: Vec<ImportedSection>,
}

impl ImportedList {
    pub fn entry_count(&self) -> usize {
        self.sections.iter().map(|s| s.entries.len()).sum()
    }
}

/// Headings whose lists are navigation, not entries.
const SKIPPED_SECTIONS: &[&str] = &[
    "contents",
    "table of contents",
    "contribute",
    "contributing",
    "license",
];

/// Reads the sections and entries of an awesome-list Markdown text. Sections
/// without entries (such as "Papers", which only groups subsections) are left
/// out; a `###` section records the `##` heading above it as its group.
pub fn parse_list(markdown: &str) -> ImportedList {
    let mut reader = ListReader::new(markdown);
    for (event, range) in Parser::new(markdown).into_offset_iter() {
        reader.event(event, range.start);
    }
    reader.finish()
}

/// The state of [`parse_list`] between two Markdown events.
struct ListReader<'a> {
    markdown: &'a str,
    list: ImportedList,
    /// The heading being read, and its text so far.
    heading: Option<(HeadingLevel, String)>,
    /// The last `##` heading.
    group: Option<String>,
    current: Option<ImportedSection>,
    /// Whether the current section is navigation (see [`SKIPPED_SECTIONS`]).
    skipping: bool,
    /// The list items being read, innermost last.
    items: Vec<Item>,
}

impl<'a> ListReader<'a> {
    fn new(markdown: &'a str) -> ListReader<'a> {
        ListReader {
            markdown,
            list: ImportedList::default(),
            heading: None,
            group: None,
            current: None,
            skipping: false,
            items: Vec::new(),
        }
    }

    /// Takes one event, which starts at byte `offset` of the text.
    fn event(&mut self, event: Event, offset: usize) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => self.heading = Some((level, String::new())),
            Event::End(TagEnd::Heading(_)) => self.end_heading(),
            Event::Start(Tag::Item) => self.items.push(Item::new(self.line_of(offset))),
            Event::End(TagEnd::Item) => self.end_item(),
            Event::Start(Tag::Link { dest_url, .. }) => {
                if let Some(item) = self.items.last_mut() {
                    item.start_link(&dest_url);
                }
            }
            Event::End(TagEnd::Link) => {
                if let Some(item) = self.items.last_mut() {
                    item.end_link();
                }
            }
            Event::Text(text) | Event::Code(text) => self.text(&text),
            Event::SoftBreak | Event::HardBreak => {
                if let Some(item) = self.items.last_mut() {
                    item.line_break();
                }
            }
            _ => {}
        }
    }

    fn finish(mut self) -> ImportedList {
        flush(&mut self.list, self.current.take());
        self.list
    }

    /// The 1-based line of byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.markdown[..offset].matches('\n').count() + 1
    }

    /// The first `#` heading is the list's title; any other heading starts a
    /// section.
    fn end_heading(&mut self) {
        let Some((level, text)) = self.heading.take() else {
            return;
        };
        let text = text.trim().to_string();
        match level {
            HeadingLevel::H1 => {
                self.list.title.get_or_insert(text);
                return;
            }
            HeadingLevel::H2 => self.group = Some(text.clone()),
            _ => {}
        }
        self.start_section(level, text);
    }

    fn start_section(&mut self, level: HeadingLevel, name: String) {
        flush(&mut self.list, self.current.take());
        self.skipping = SKIPPED_SECTIONS.contains(&name.to_lowercase().as_str());
        let group = if level == HeadingLevel::H2 {
            None
        } else {
            self.group.clone()
        };
        self.current = Some(ImportedSection {
            name,
            group,
            entries: Vec::new(),
        });
    }

    /// An item whose first link goes to another page is an entry of the
    /// current section (unless that section is navigation).
    fn end_item(&mut self) {
        let Some(item) = self.items.pop() else { return };
        let (Some(section), false) = (self.current.as_mut(), self.skipping) else {
            return;
        };
        if let Some((title, url)) = item.link
            && !url.starts_with('#')
            && !title.trim().is_empty()
        {
            section
                .entries
                .push(entry(&title, &url, &item.tail, item.line, section));
        }
    }

    /// Text belongs to the heading being read, else to the innermost item.
    fn text(&mut self, text: &str) {
        if let Some((_, heading)) = self.heading.as_mut() {
            heading.push_str(text);
        } else if let Some(item) = self.items.last_mut() {
            item.text(text);
        }
    }
}

/// A list item being read: its first link, and the text after that link
/// (the byline).
struct Item {
    /// (title, URL) of the first link.
    link: Option<(String, String)>,
    in_link: bool,
    link_done: bool,
    tail: String,
    line: usize,
}

impl Item {
    fn new(line: usize) -> Item {
        Item {
            link: None,
            in_link: false,
            link_done: false,
            tail: String::new(),
            line,
        }
    }

    /// Only the first link counts; later ones are read as plain text.
    fn start_link(&mut self, url: &str) {
        if self.link.is_none() {
            self.link = Some((String::new(), url.to_string()));
            self.in_link = true;
        }
    }

    fn end_link(&mut self) {
        if self.in_link {
            self.in_link = false;
            self.link_done = true;
        }
    }

    /// Text inside the first link is its title; text before it is ignored.
    fn text(&mut self, text: &str) {
        if self.in_link {
            if let Some((title, _)) = self.link.as_mut() {
                title.push_str(text);
            }
        } else if self.link_done {
            self.tail.push_str(text);
        }
    }

    fn line_break(&mut self) {
        if self.link_done {
            self.tail.push(' ');
        }
    }
}

fn flush(list: &mut ImportedList, section: Option<ImportedSection>) {
    if let Some(section) = section.filter(|s| !s.entries.is_empty()) {
        list.sections.push(section);
    }
}

fn entry(
    title: &str,
    url: &str,
    tail: &str,
    line: usize,
    section: &ImportedSection,
) -> ImportedEntry {
    let byline = parse_byline(tail);
    let under_papers = [Some(section.name.as_str()), section.group.as_deref()]
        .into_iter()
        .flatten()
        .any(|h| h.to_lowercase().contains("paper"));
    let kind = if byline.year.is_some() || under_papers {
        Kind::Paper
    } else {
        Kind::Project
    };
    ImportedEntry {
        kind,
        title: title.trim().to_string(),
        url: with_scheme(url.trim()),
        authors: byline.authors,
        et_al: byline.et_al,
        venue: byline.venue,
        year: byline.year,
        line,
    }
}

/// URLs written without a scheme (`www.oneflow.org`) are web pages.
pub(crate) fn with_scheme(url: &str) -> String {
    if url.contains("://") {
        url.to_string()
    } else {
        format!("https://{url}")
    }
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Byline {
    authors: Vec<String>,
    et_al: bool,
    venue: Option<String>,
    year: Option<i64>,
}

/// "by Colin Unger, Zhihao Jia, et al., OSDI 2022" and its variants.
fn parse_byline(tail: &str) -> Byline {
    let tail = tail.split_whitespace().collect::<Vec<_>>().join(" ");
    let tail = tail.trim().trim_start_matches(['-', '–', '—', ':']).trim();
    let tail = strip_prefix_ci(tail, "by ").unwrap_or(tail).trim();
    if tail.is_empty() {
        return Byline::default();
    }
    let (people, venue_year) = match tail.rsplit_once(", ") {
        Some((people, last)) if year_in(last).is_some() => (people, Some(last)),
        _ => (tail, None),
    };
    let mut byline = Byline::default();
    if let Some(text) = venue_year
        && let Some((year, start, end)) = year_in(text)
    {
        byline.year = Some(year);
        let venue = format!("{} {}", &text[..start], &text[end..]);
        let venue = venue.split_whitespace().collect::<Vec<_>>().join(" ");
        byline.venue = (!venue.is_empty()).then_some(venue);
    }
    for name in people.split(',') {
        let name = name.trim().trim_end_matches('.').trim();
        let name = match strip_suffix_ci(name, "et al") {
            Some(rest) => {
                byline.et_al = true;
                rest.trim()
            }
            None => name,
        };
        if !name.is_empty() {
            byline.authors.push(name.to_string());
        }
    }
    byline
}

/// A four-digit year between 1900 and 2099 standing as its own word.
fn year_in(text: &str) -> Option<(i64, usize, usize)> {
    text.split_whitespace().find_map(|word| {
        let trimmed = word.trim_matches(|c: char| !c.is_ascii_digit());
        let year: i64 = trimmed.parse().ok()?;
        if trimmed.len() != 4 || !(1900..2100).contains(&year) {
            return None;
        }
        let start = word.as_ptr() as usize - text.as_ptr() as usize;
        Some((year, start, start + word.len()))
    })
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

fn strip_suffix_ci<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let start = s.len().checked_sub(suffix.len())?;
    let tail = s.get(start..)?;
    tail.eq_ignore_ascii_case(suffix).then(|| &s[..start])
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
            (tool.kind, tool.url.as_str()),
            (Kind::Project, "https://www.tool.org")
        );
        assert_eq!(tool.line, 10);
        let papers = &list.sections[1].entries;
        assert_eq!(papers.len(), 5);
        assert_eq!(papers[0].authors, ["Yanping Huang"]);
        assert!(papers[0].et_al);
        assert_eq!(
            (papers[0].venue.as_deref(), papers[0].year),
            (Some("NeurIPS"), Some(2019))
        );
        assert_eq!(papers[1].title, "Unity: Joint [Optimization]");
        assert_eq!(papers[1].authors, ["Colin Unger", "Zhihao Jia"]);
        assert_eq!(papers[2].authors, ["Peng Liang"]);
        assert!(!papers[2].et_al);
        assert_eq!(papers[3].authors, ["Chunyang Wang"]);
        assert_eq!(
            (papers[4].venue.as_deref(), papers[4].year),
            (Some("NeurIPS Workshop"), Some(2023))
        );
    }

    #[test]
    fn byline_without_venue_keeps_authors() {
        let b = parse_byline(" by Jane Doe");
        assert_eq!(b.authors, ["Jane Doe"]);
        assert_eq!(b.year, None);
    }
}
