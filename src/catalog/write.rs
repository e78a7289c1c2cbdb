//! Writing catalog TOML in the shipped layout: a `[section]` table, then one
//! `[[entry]]` per item with fields in a fixed order.

use std::fmt::Write;

use super::{Entry, Kind, Listing};

fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn quoted_list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("[{}]", items.join(", "))
}

pub fn render_section_header(name: &str, group: Option<&str>, order: i64) -> String {
    let mut out = format!("[section]\nname = {}\n", quoted(name));
    if let Some(group) = group {
        let _ = writeln!(out, "group = {}", quoted(group));
    }
    let _ = writeln!(out, "order = {order}");
    out
}

/// An imported entry's block: its fields, what else the list said of it,
/// and `draft = true` until a curator gives it tags and a note.
/// One `[[entry]]` block, preceded by a blank line.
pub fn render_draft(entry: &Entry, listing: &Listing) -> String {
    let mut out = String::from("\n[[entry]]\n");
    let mut field = |key: &str, value: String| {
        let _ = writeln!(out, "{key} = {value}");
    };
    field("id", quoted(&entry.id));
    field("kind", quoted(entry.kind.as_str()));
    field("title", quoted(&entry.title));
    field("url", quoted(&entry.url));
    if entry.kind == Kind::Paper || !entry.authors.is_empty() {
        field("authors", quoted_list(&entry.authors));
    }
    if entry.et_al {
        field("et_al", "true".into());
    }
    if let Some(venue) = &entry.venue {
        field("venue", quoted(venue));
    }
    if let Some(year) = entry.year {
        field("year", year.to_string());
    }
    if let Some(arxiv) = &entry.arxiv {
        field("arxiv", quoted(arxiv));
    }
    if let Some(doi) = &entry.doi {
        field("doi", quoted(doi));
    }
    {
        if !listing.links.is_empty() {
            let links: Vec<String> = listing
                .links
                .iter()
                .map(|(key, url)| format!("{} = {}", bare_key(key), quoted(url)))
                .collect();
            field("links", format!("{{ {} }}", links.join(", ")));
        }
        if let Some(description) = &listing.description {
            field("description", quoted(description));
        }
    }
    field("tags", quoted_list(&entry.tags));
    if !entry.uses.is_empty() {
        field("uses", quoted_list(&entry.uses));
    }
    if let Some(project) = &entry.project {
        field("project", quoted(project));
    }
    field("note", quoted(&entry.note));
    if listing.draft {
        field("draft", "true".into());
    }
    out
}

/// A table key: bare when it can be, else quoted.
fn bare_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare { key.to_string() } else { quoted(key) }
}
