//! Atom 1.0 feeds (RFC 4287) of records, written with quick-xml: every
//! text and attribute escaped by the writer, and characters XML 1.0 does
//! not allow (control characters an abstract may hold) left out.
//!
//! Ids are stable: an entry's is its record's id
//! (`urn:distml-search:entry:arxiv:2401.00001`), the same in every feed
//! and every run; a feed's is given by its caller. An entry is `updated`
//! on the day its record is dated by (see `search::present::newest::day_key`), and
//! the feed on the latest of its entries' days.

use std::borrow::Cow;
use std::io;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use crate::model::Record;
use crate::search::record_day;

const ATOM: &str = "http://www.w3.org/2005/Atom";

/// What an id keeps as it is: unreserved characters and the separators of
/// the ids themselves (`arxiv:hep-th/9901001`).
const ID_KEEPS: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b':')
    .remove(b'/');

/// A feed of records, newest first.
pub struct Feed {
    /// Stable across runs (see [`feed_id`]).
    pub id: String,
    pub title: String,
    pub subtitle: Option<String>,
    /// Where the feed itself is (`rel="self"`).
    pub self_url: String,
    /// The page that shows what the feed does (`rel="alternate"`).
    pub page_url: String,
    /// `updated` of a feed without entries (RFC 3339).
    pub empty_updated: String,
    pub entries: Vec<FeedEntry>,
}

/// One record in a feed.
pub struct FeedEntry {
    pub record: Record,
    /// The record's view on the page (`rel="alternate"`).
    pub view_url: String,
    /// Said before the record's abstract or note (the inbox's proposal).
    pub preface: Option<String>,
}

/// `urn:distml-search:feed:NAME`, the name's characters kept as ids keep
/// them.
pub fn feed_id(name: &str) -> String {
    format!(
        "urn:distml-search:feed:{}",
        utf8_percent_encode(name, ID_KEEPS)
    )
}

/// The id of the entry of record `id`.
pub fn entry_id(id: &str) -> String {
    format!(
        "urn:distml-search:entry:{}",
        utf8_percent_encode(id, ID_KEEPS)
    )
}

/// The start of day `YYYYMMDD` in UTC, RFC 3339.
fn day_time(day: i64) -> String {
    if day <= 0 {
        return "1970-01-01T00:00:00Z".to_string();
    }
    format!(
        "{:04}-{:02}-{:02}T00:00:00Z",
        day / 10_000,
        (day / 100 % 100).clamp(1, 12),
        (day % 100).clamp(1, 31)
    )
}

/// `updated` of an entry: its record's day.
pub fn updated(record: &Record) -> String {
    day_time(record_day(record))
}

/// `text` without the characters XML 1.0 does not allow.
fn xml_text(text: &str) -> Cow<'_, str> {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r')
            || ('\u{20}'..='\u{D7FF}').contains(&c)
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}'
    };
    if text.chars().all(allowed) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.chars().filter(|&c| allowed(c)).collect())
    }
}

/// The feed as XML, UTF-8.
pub fn write(feed: &Feed) -> Vec<u8> {
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing into memory does not fail.
    let _ = write_feed(&mut writer, feed);
    let mut bytes = writer.into_inner();
    bytes.push(b'\n');
    bytes
}

type Xml = Writer<Vec<u8>>;

fn write_feed(w: &mut Xml, feed: &Feed) -> io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("utf-8"), None)))?;
    let newest = feed.entries.iter().map(|e| record_day(&e.record)).max();
    let updated = match newest {
        Some(day) => day_time(day),
        None => feed.empty_updated.clone(),
    };
    w.create_element("feed")
        .with_attribute(("xmlns", ATOM))
        .write_inner_content(|w| {
            text_element(w, "id", &feed.id)?;
            text_element(w, "title", &feed.title)?;
            if let Some(subtitle) = &feed.subtitle {
                text_element(w, "subtitle", subtitle)?;
            }
            text_element(w, "updated", &updated)?;
            link(w, "self", "application/atom+xml", &feed.self_url)?;
            link(w, "alternate", "text/html", &feed.page_url)?;
            w.create_element("author")
                .write_inner_content(|w| text_element(w, "name", "distml-search"))?;
            w.create_element("generator")
                .with_attribute(("version", env!("CARGO_PKG_VERSION")))
                .write_text_content(BytesText::new("distml-search"))?;
            for entry in &feed.entries {
                write_entry(w, entry)?;
            }
            Ok(())
        })?;
    Ok(())
}

fn write_entry(w: &mut Xml, entry: &FeedEntry) -> io::Result<()> {
    let r = &entry.record;
    w.create_element("entry").write_inner_content(|w| {
        text_element(w, "id", &entry_id(&r.id))?;
        text_element(w, "title", &r.title)?;
        text_element(w, "updated", &updated(r))?;
        if let Some(day) = &r.submitted {
            text_element(w, "published", &format!("{day}T00:00:00Z"))?;
        }
        for name in &r.authors {
            w.create_element("author")
                .write_inner_content(|w| text_element(w, "name", name))?;
        }
        link(w, "alternate", "text/html", &entry.view_url)?;
        if !r.url.is_empty() {
            w.create_element("link")
                .with_attribute(("rel", "related"))
                .with_attribute(("href", &*xml_text(&r.url)))
                .with_attribute((
                    "title",
                    match r.kind {
                        crate::model::Kind::Paper => "the paper",
                        crate::model::Kind::Project => "the project",
                    },
                ))
                .write_empty()?;
        }
        let predicted = r.predicted.iter().map(|p| &p.tag);
        for tag in r.tags.iter().chain(&r.uses).chain(predicted) {
            w.create_element("category")
                .with_attribute(("term", &*xml_text(tag)))
                .write_empty()?;
        }
        if !r.section.is_empty() {
            let label = if r.is_imported() {
                "arXiv category"
            } else {
                "section"
            };
            w.create_element("category")
                .with_attribute(("term", &*xml_text(&r.section)))
                .with_attribute(("label", label))
                .write_empty()?;
        }
        let text = summary(entry);
        if !text.is_empty() {
            w.create_element("summary")
                .with_attribute(("type", "text"))
                .write_text_content(BytesText::new(&xml_text(&text)))?;
        }
        Ok(())
    })?;
    Ok(())
}

/// The preface, then the note and the abstract.
fn summary(entry: &FeedEntry) -> String {
    let r = &entry.record;
    let parts = [
        entry.preface.as_deref(),
        Some(r.note.as_str()),
        r.abstract_text.as_deref(),
    ];
    (parts.into_iter().flatten())
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn text_element(w: &mut Xml, name: &str, text: &str) -> io::Result<()> {
    w.create_element(name)
        .write_text_content(BytesText::new(&xml_text(text)))?;
    Ok(())
}

fn link(w: &mut Xml, rel: &str, kind: &str, href: &str) -> io::Result<()> {
    w.create_element("link")
        .with_attribute(("rel", rel))
        .with_attribute(("type", kind))
        .with_attribute(("href", &*xml_text(href)))
        .write_empty()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Collection;

    fn feed(title: &str, abstract_text: &str) -> Feed {
        Feed {
            id: feed_id("watch:moe"),
            title: "distml-search: a & b".into(),
            subtitle: None,
            self_url: "http://127.0.0.1:8765/feed/search.atom?q=a+%26+b&tag=x".into(),
            page_url: "http://127.0.0.1:8765/?q=a+%26+b".into(),
            empty_updated: "1970-01-01T00:00:00Z".into(),
            entries: vec![FeedEntry {
                record: Record {
                    collection: Collection::Arxiv,
                    id: "arxiv:hep-th/9901001".into(),
                    title: title.into(),
                    authors: vec!["Ada <Example>".into()],
                    year: Some(2026),
                    submitted: Some("2026-10-02".into()),
                    section: "cs.DC".into(),
                    url: "https://arxiv.org/abs/hep-th/9901001".into(),
                    abstract_text: Some(abstract_text.into()),
                    ..Record::default()
                },
                view_url: "http://127.0.0.1:8765/?entry=arxiv%3Ahep-th%2F9901001".into(),
                preface: None,
            }],
        }
    }

    #[test]
    fn markup_is_text_and_forbidden_characters_are_left_out() {
        let xml = String::from_utf8(write(&feed(
            "<img src=x onerror=alert(1)> & more",
            "bell\u{7} and \u{1b}[31mred\u{fffe}",
        )))
        .unwrap();
        assert!(
            xml.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>"),
            "{xml}"
        );
        assert!(
            xml.contains("<title>&lt;img src=x onerror=alert(1)&gt; &amp; more</title>"),
            "{xml}"
        );
        assert!(xml.contains("<name>Ada &lt;Example&gt;</name>"), "{xml}");
        assert!(xml.contains("bell and [31mred</summary>"), "{xml}");
        assert!(
            xml.contains("href=\"http://127.0.0.1:8765/feed/search.atom?q=a+%26+b&amp;tag=x\""),
            "{xml}"
        );
        assert!(
            xml.contains("<id>urn:distml-search:entry:arxiv:hep-th/9901001</id>"),
            "{xml}"
        );
        assert!(
            xml.contains("<updated>2026-10-02T00:00:00Z</updated>"),
            "{xml}"
        );
        // The XML reads back whole.
        let mut reader = quick_xml::Reader::from_str(&xml);
        loop {
            match reader.read_event() {
                Ok(Event::Eof) => break,
                Ok(_) => {}
                Err(e) => panic!("{e}: {xml}"),
            }
        }
    }

    #[test]
    fn days_are_instants_and_ids_keep_their_separators() {
        assert_eq!(day_time(20_261_002), "2026-10-02T00:00:00Z");
        assert_eq!(day_time(20_190_101), "2019-01-01T00:00:00Z");
        assert_eq!(day_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(entry_id("gpipe-2019"), "urn:distml-search:entry:gpipe-2019");
        assert_eq!(feed_id("watch:moe"), "urn:distml-search:feed:watch:moe");
        assert_eq!(feed_id("a b"), "urn:distml-search:feed:a%20b");
    }
}
