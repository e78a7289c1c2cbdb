//! Writing the catalog as an awesome-list README that `parse_list` reads back
//! to the same sections, titles, URLs, authors, venues and years.

use std::fmt::Write;

use crate::catalog::{Catalog, Entry};

/// The whole list: title, table of contents, then each section in order;
/// `annotate` adds each entry's note and tags below it.
pub fn export_markdown(catalog: &Catalog, title: &str, annotate: bool) -> String {
    let sections = catalog.sections_with_entries();
    let mut out = format!("# {}\n\n", escape(title));
    out.push_str("Projects and papers on distributed training and inference of large models, exported by distml-search.\n\n## Contents\n\n");
    let mut last_group: Option<&str> = None;
    for (section, _) in &sections {
        match section.group.as_deref() {
            Some(group) => {
                if last_group != Some(group) {
                    let _ = writeln!(out, "- [{}](#{})", escape(group), anchor(group));
                }
                let _ = writeln!(
                    out,
                    "  - [{}](#{})",
                    escape(&section.name),
                    anchor(&section.name)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "- [{}](#{})",
                    escape(&section.name),
                    anchor(&section.name)
                );
            }
        }
        last_group = section.group.as_deref();
    }
    last_group = None;
    for (section, entries) in &sections {
        match section.group.as_deref() {
            Some(group) => {
                if last_group != Some(group) {
                    let _ = write!(out, "\n## {}\n", escape(group));
                }
                let _ = write!(out, "\n### {}\n\n", escape(&section.name));
            }
            None => {
                let _ = write!(out, "\n## {}\n\n", escape(&section.name));
            }
        }
        last_group = section.group.as_deref();
        for entry in entries {
            out.push_str(&item(entry));
            out.push('\n');
            if annotate {
                out.push_str(&annotation(catalog, entry, 2));
            }
        }
    }
    out
}

/// An entry's curated note and tags as sub-items at column `indent`
/// (nothing for an entry without either).
pub(super) fn annotation(catalog: &Catalog, entry: &Entry, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    if !entry.note.trim().is_empty() {
        let _ = writeln!(out, "{pad}- Note: {}", escape(entry.note.trim()));
    }
    if !entry.tags.is_empty() {
        let labels: Vec<String> = entry
            .tags
            .iter()
            .map(|t| {
                let label = catalog
                    .vocabulary
                    .get(t)
                    .map_or(t.as_str(), |tag| tag.label.as_str());
                format!("`{label}`")
            })
            .collect();
        let _ = writeln!(out, "{pad}- Tags: {}", labels.join(", "));
    }
    out
}

/// One entry as a list item, in the upstream list's "by ..." style.
pub(super) fn item(entry: &Entry) -> String {
    let mut line = format!("- [{}]({})", escape(&entry.title), destination(&entry.url));
    let mut byline = escape(&entry.authors.join(", "));
    if entry.et_al {
        byline.push_str(" et al.");
    }
    let venue_year = match (&entry.venue, entry.year) {
        (Some(venue), Some(year)) => format!("{} {year}", escape(venue)),
        (None, Some(year)) => year.to_string(),
        (Some(venue), None) => escape(venue),
        (None, None) => String::new(),
    };
    if !byline.is_empty() || !venue_year.is_empty() {
        line.push_str(" by ");
        line.push_str(&byline);
        if !venue_year.is_empty() {
            if !byline.is_empty() {
                line.push_str(", ");
            }
            line.push_str(&venue_year);
        }
    }
    line
}

/// Backslash-escapes the characters Markdown would read as markup, on one
/// line: a newline (or any control character) in a note or title becomes a
/// space, so that it cannot start a heading or an item of its own.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() || c.is_control() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
            continue;
        }
        // `&` only needs escaping where it could start an entity such as `&amp;`.
        let entity = c == '&'
            && chars
                .peek()
                .is_some_and(|n| n.is_alphanumeric() || *n == '#');
        if entity || matches!(c, '\\' | '[' | ']' | '*' | '_' | '`' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn destination(url: &str) -> String {
    if url.contains([' ', '(', ')', '<', '>']) {
        format!("<{}>", url.replace(['<', '>'], ""))
    } else {
        url.to_string()
    }
}

/// GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_follow_github() {
        assert_eq!(
            anchor("Hybrid Parallelism & Framework"),
            "hybrid-parallelism--framework"
        );
        assert_eq!(anchor("Fault-tolerant Training"), "fault-tolerant-training");
    }

    #[test]
    fn markup_in_titles_is_escaped() {
        assert_eq!(escape("a [b] *c*"), "a \\[b\\] \\*c\\*");
    }
}
