//! The parser for arXiv's Atom 1.0 feeds: elements read by namespace and place into a [`Feed`].

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::name::{Namespace, ResolveResult};
use quick_xml::{NsReader, XmlVersion};

use super::feed::{EntryFields, Feed};

const ATOM_NS: &str = "http://www.w3.org/2005/Atom";
const ARXIV_NS: &str = "http://arxiv.org/schemas/atom";
const OPENSEARCH_NS: &str = "http://a9.com/-/spec/opensearch/1.1/";

#[derive(Debug, thiserror::Error)]
pub enum ArxivError {
    /// Not well-formed XML, or cut off before `</feed>`.
    #[error("malformed arXiv response at byte {position}: {message}")]
    Malformed { position: u64, message: String },
    /// Something else answered: an HTML error page, plain text, an empty body.
    #[error("arXiv response is not an Atom feed: found {found}")]
    NotAtomFeed { found: String },
}

/// Parses an arXiv API response. An error entry becomes a message in
/// [`Feed::errors`]; a body that ends before `</feed>` is an error, never a
/// shorter feed.
pub fn parse_feed(xml: &str) -> Result<Feed, ArxivError> {
    let mut reader = NsReader::from_str(xml);
    let mut parser = FeedParser::default();
    loop {
        let (ns, event) = match reader.read_resolved_event() {
            Ok((ns, event)) => (Ns::of(ns), event),
            Err(err) => {
                return Err(ArxivError::Malformed {
                    position: reader.error_position(),
                    message: err.to_string(),
                });
            }
        };
        let position = reader.buffer_position();
        let malformed = |message: String| ArxivError::Malformed { position, message };
        let done = match event {
            Event::Start(start) => parser
                .start(ns, &start, false)
                .map_err(|f| f.at(position))?,
            Event::Empty(start) => parser.start(ns, &start, true).map_err(|f| f.at(position))?,
            Event::End(_) => parser.end(),
            Event::Text(text) => {
                parser.text(&text.xml10_content());
                false
            }
            Event::CData(cdata) => {
                parser.text(&cdata.xml10_content());
                false
            }
            Event::GeneralRef(reference) => {
                parser.text(&resolve_reference(&reference).map_err(malformed)?);
                false
            }
            Event::Eof => {
                return Err(if parser.seen_root {
                    malformed("the response ends before </feed>: truncated".to_string())
                } else {
                    let found = if xml.trim().is_empty() {
                        "an empty body"
                    } else {
                        "no XML element"
                    };
                    ArxivError::NotAtomFeed {
                        found: found.to_string(),
                    }
                });
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => false,
        };
        // Whatever follows `</feed>` is not part of the response.
        if done {
            return Ok(parser.feed);
        }
    }
}

/// The namespaces the response uses, resolved from whatever prefix the
/// document binds them to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ns {
    Atom,
    Arxiv,
    OpenSearch,
    Other,
}

impl Ns {
    fn of(resolved: ResolveResult<'_>) -> Ns {
        match resolved {
            ResolveResult::Bound(Namespace(ATOM_NS)) => Ns::Atom,
            ResolveResult::Bound(Namespace(ARXIV_NS)) => Ns::Arxiv,
            ResolveResult::Bound(Namespace(OPENSEARCH_NS)) => Ns::OpenSearch,
            _ => Ns::Other,
        }
    }
}

/// An element, named by what it means where it stands: an `<id>` is `Id`
/// only inside an entry (the feed has its own), anything unused is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Feed,
    TotalResults,
    Entry,
    Id,
    Title,
    Summary,
    Published,
    Updated,
    Author,
    Name,
    Doi,
    JournalRef,
    Category,
    PrimaryCategory,
    Other,
}

impl Tag {
    fn child_of(parent: Tag, ns: Ns, local: &str) -> Tag {
        match (parent, ns, local) {
            (Tag::Feed, Ns::Atom, "entry") => Tag::Entry,
            (Tag::Feed, Ns::OpenSearch, "totalResults") => Tag::TotalResults,
            (Tag::Entry, Ns::Atom, "id") => Tag::Id,
            (Tag::Entry, Ns::Atom, "title") => Tag::Title,
            (Tag::Entry, Ns::Atom, "summary") => Tag::Summary,
            (Tag::Entry, Ns::Atom, "published") => Tag::Published,
            (Tag::Entry, Ns::Atom, "updated") => Tag::Updated,
            (Tag::Entry, Ns::Atom, "author") => Tag::Author,
            (Tag::Entry, Ns::Atom, "category") => Tag::Category,
            (Tag::Entry, Ns::Arxiv, "doi") => Tag::Doi,
            (Tag::Entry, Ns::Arxiv, "journal_ref") => Tag::JournalRef,
            (Tag::Entry, Ns::Arxiv, "primary_category") => Tag::PrimaryCategory,
            (Tag::Author, Ns::Atom, "name") => Tag::Name,
            _ => Tag::Other,
        }
    }

    fn holds_text(self) -> bool {
        matches!(
            self,
            Tag::TotalResults
                | Tag::Id
                | Tag::Title
                | Tag::Summary
                | Tag::Published
                | Tag::Updated
                | Tag::Name
                | Tag::Doi
                | Tag::JournalRef
        )
    }
}

/// A parse failure found by [`FeedParser`], which does not know the byte
/// position; the read loop adds it.
enum Fault {
    Malformed(String),
    NotAtomFeed(String),
}

impl Fault {
    fn at(self, position: u64) -> ArxivError {
        match self {
            Fault::Malformed(message) => ArxivError::Malformed { position, message },
            Fault::NotAtomFeed(found) => ArxivError::NotAtomFeed { found },
        }
    }
}

#[derive(Default)]
struct FeedParser {
    /// Open elements, innermost last.
    stack: Vec<Tag>,
    seen_root: bool,
    /// Text of the innermost open element, if it is one whose text is used.
    text: String,
    entry: Option<EntryFields>,
    feed: Feed,
}

impl FeedParser {
    /// Handles `<name ...>` (or `<name .../>` when `empty`); true once the
    /// feed is complete.
    fn start(&mut self, ns: Ns, element: &BytesStart<'_>, empty: bool) -> Result<bool, Fault> {
        let local = element.local_name().into_inner();
        let tag = match self.stack.last() {
            Some(&parent) => Tag::child_of(parent, ns, local),
            None if ns == Ns::Atom && local == "feed" => Tag::Feed,
            None => {
                let name = element.name().into_inner();
                return Err(Fault::NotAtomFeed(format!("a <{name}> document")));
            }
        };
        self.seen_root = true;
        self.text.clear();
        match tag {
            Tag::Entry => self.entry = Some(EntryFields::default()),
            Tag::Category | Tag::PrimaryCategory => {
                if let (Some(entry), Some(term)) = (self.entry.as_mut(), term(element)?) {
                    if tag == Tag::PrimaryCategory {
                        entry.primary_category = Some(term);
                    } else {
                        entry.categories.push(term);
                    }
                }
            }
            _ => {}
        }
        if empty {
            Ok(self.close(tag))
        } else {
            self.stack.push(tag);
            Ok(false)
        }
    }

    /// Handles `</name>`; true once the feed is complete. The reader has
    /// already checked that the name matches the open element.
    fn end(&mut self) -> bool {
        match self.stack.pop() {
            Some(tag) => self.close(tag),
            None => false,
        }
    }

    fn text(&mut self, text: &str) {
        if self.stack.last().is_some_and(|tag| tag.holds_text()) {
            self.text.push_str(text);
        }
    }

    fn close(&mut self, tag: Tag) -> bool {
        let text = std::mem::take(&mut self.text);
        if tag == Tag::Feed {
            return true;
        }
        if tag == Tag::TotalResults {
            self.feed.total_results = text.trim().parse().ok();
        } else if tag == Tag::Entry {
            if let Some(entry) = self.entry.take() {
                entry.finish(&mut self.feed);
            }
        } else if let Some(entry) = self.entry.as_mut() {
            let slot = match tag {
                Tag::Id => &mut entry.id,
                Tag::Title => &mut entry.title,
                Tag::Summary => &mut entry.summary,
                Tag::Published => &mut entry.published,
                Tag::Updated => &mut entry.updated,
                Tag::Doi => &mut entry.doi,
                Tag::JournalRef => &mut entry.journal_ref,
                Tag::Name => {
                    entry.authors.push(text);
                    return false;
                }
                _ => return false,
            };
            *slot = Some(text);
        }
        false
    }
}

/// The `term` attribute of a `<category>`, if present and not blank.
fn term(element: &BytesStart<'_>) -> Result<Option<String>, Fault> {
    let attribute = element
        .try_get_attribute("term")
        .map_err(|err| Fault::Malformed(err.to_string()))?;
    let Some(attribute) = attribute else {
        return Ok(None);
    };
    let value = attribute
        .normalized_value(XmlVersion::Implicit1_0)
        .map_err(|err| Fault::Malformed(err.to_string()))?;
    let value = value.trim();
    Ok((!value.is_empty()).then(|| value.to_string()))
}

/// The text of `&amp;`, `&#233;` and the other predefined or character
/// references; arXiv declares no other entities.
pub(crate) fn resolve_reference(reference: &BytesRef<'_>) -> Result<String, String> {
    if let Some(c) = reference
        .resolve_char_ref()
        .map_err(|err| err.to_string())?
    {
        return Ok(c.to_string());
    }
    quick_xml::escape::resolve_predefined_entity(reference)
        .map(str::to_string)
        .ok_or_else(|| format!("unknown entity &{};", &**reference))
}

#[cfg(test)]
mod tests {
    //! The fixtures are fictional papers laid out exactly as the arXiv API
    //! lays out its responses (the 2025 format: namespaces declared on the
    //! root, `arxiv:` and `opensearch:` prefixes).

    use super::*;
    use crate::model::paper::PaperRecord;

    const ID_LIST: &str = include_str!("../../../tests/fixtures/arxiv/id_list.xml");
    const ERROR_MALFORMED_ID: &str =
        include_str!("../../../tests/fixtures/arxiv/error_malformed_id.xml");
    const SEARCH_EMPTY: &str = include_str!("../../../tests/fixtures/arxiv/search_empty.xml");
    const TRUNCATED: &str = include_str!("../../../tests/fixtures/arxiv/truncated.xml");
    const UNAVAILABLE_HTML: &str = include_str!("../../../tests/fixtures/arxiv/unavailable.html");

    #[test]
    fn parses_an_id_list_response() {
        let feed = parse_feed(ID_LIST).expect("a well-formed feed");
        assert_eq!(feed.total_results, Some(2));
        assert!(feed.errors.is_empty(), "{:?}", feed.errors);
        assert_eq!(feed.entries.len(), 2);

        let first = &feed.entries[0];
        assert_eq!(first.version, Some(3));
        assert_eq!(
            first.record,
            PaperRecord {
                title: "A Fictional Study of Pipeline Bubbles: Scheduling & Memory".to_string(),
                authors: vec!["Ada Example".to_string(), "Bob Placeholder".to_string()],
                abstract_text: Some(
                    "This placeholder abstract exists only to exercise the parser. It spans \
                     several lines, keeps <angle brackets> and a character reference: café."
                        .to_string()
                ),
                published: Some("2014-12-31".to_string()),
                updated: Some("2016-02-03".to_string()),
                venue: None,
                year: Some(2014),
                arxiv: Some("1412.99999".to_string()),
                doi: Some("10.1000/example.2015.001".to_string()),
                categories: vec!["cs.LG".to_string(), "cs.DC".to_string()],
                journal_ref: Some("Journal of Fictional Systems 1, 1-10 (2015)".to_string()),
            }
        );

        let second = &feed.entries[1];
        assert_eq!(second.version, Some(1));
        assert_eq!(second.record.arxiv.as_deref(), Some("cs/9913001"));
        assert_eq!(second.record.authors, vec!["Carol Sample"]);
        assert_eq!(second.record.categories, vec!["cs.DC"]);
        assert_eq!(second.record.year, Some(1999));
        assert_eq!(second.record.doi, None);
        assert_eq!(second.record.journal_ref, None);
    }

    #[test]
    fn an_error_entry_is_an_error_not_a_paper() {
        let feed = parse_feed(ERROR_MALFORMED_ID).expect("a well-formed feed");
        assert!(feed.entries.is_empty());
        assert_eq!(feed.errors, vec!["incorrect id format for not-an-id"]);
        assert_eq!(feed.total_results, Some(1));
    }

    #[test]
    fn an_empty_search_is_an_empty_feed() {
        let feed = parse_feed(SEARCH_EMPTY).expect("a well-formed feed");
        assert_eq!(
            feed,
            Feed {
                entries: Vec::new(),
                total_results: Some(0),
                errors: Vec::new(),
            }
        );
    }

    #[test]
    fn a_truncated_response_is_an_error() {
        let err = parse_feed(TRUNCATED).expect_err("a truncated feed");
        assert!(matches!(err, ArxivError::Malformed { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("malformed arXiv response at byte "),
            "{err}"
        );
    }

    #[test]
    fn every_cut_before_the_feed_closes_is_an_error() {
        let end = ID_LIST
            .rfind("</feed>")
            .expect("the fixture closes its feed")
            + "</feed>".len();
        for cut in (0..end).filter(|&cut| ID_LIST.is_char_boundary(cut)) {
            assert!(parse_feed(&ID_LIST[..cut]).is_err(), "cut at byte {cut}");
        }
        assert!(parse_feed(&ID_LIST[..end]).is_ok());
    }

    #[test]
    fn an_html_page_or_an_empty_body_is_not_a_feed() {
        let err = parse_feed(UNAVAILABLE_HTML).expect_err("an HTML page");
        assert!(
            matches!(&err, ArxivError::NotAtomFeed { found } if found == "a <html> document"),
            "{err:?}"
        );
        for body in ["", "  \n", "Rate exceeded."] {
            let err = parse_feed(body).expect_err("no XML");
            assert!(matches!(err, ArxivError::NotAtomFeed { .. }), "{err:?}");
        }
        // A <feed> outside the Atom namespace is not an Atom feed either.
        let err = parse_feed("<feed><entry/></feed>").expect_err("no namespace");
        assert!(matches!(err, ArxivError::NotAtomFeed { .. }), "{err:?}");
    }

    #[test]
    fn ill_formed_xml_reports_where() {
        let xml = "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<entry></feed>";
        match parse_feed(xml) {
            Err(ArxivError::Malformed { position, message }) => {
                assert!(position > 0 && position <= xml.len() as u64, "{position}");
                assert!(message.contains("entry"), "{message}");
            }
            other => panic!("expected a malformed error, got {other:?}"),
        }
        let xml = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry>\
                   <title>&nbsp;</title></entry></feed>";
        assert!(matches!(
            parse_feed(xml),
            Err(ArxivError::Malformed { message, .. }) if message.contains("&nbsp;")
        ));
    }

    #[test]
    fn reads_the_old_layout_with_per_element_namespaces() {
        // Until 2025 the API declared `arxiv:` and `opensearch:` on each
        // element, and answered an unknown id with an entry without <id>.
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">ArXiv Query: search_query=&amp;id_list=1412.99999&amp;start=0&amp;max_results=2</title>
  <id>http://arxiv.org/api/Zml4dHVyZQ</id>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">2</opensearch:totalResults>
  <entry>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="" scheme="http://arxiv.org/schemas/atom"/>
    <category term="" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/1412.99999v12</id>
    <published>2014-12-31T23:59:59Z</published>
    <title>A Fictional Study</title>
    <author><name>Ada Example</name></author>
    <arxiv:doi xmlns:arxiv="http://arxiv.org/schemas/atom">10.1000/A 10.1000/B</arxiv:doi>
    <x:journal_ref xmlns:x="http://arxiv.org/schemas/atom"><![CDATA[J. Fict. & Co.]]></x:journal_ref>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.DC" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.DC" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>
"#;
        let feed = parse_feed(xml).expect("a well-formed feed");
        assert_eq!(feed.total_results, Some(2));
        assert!(feed.errors.is_empty(), "{:?}", feed.errors);
        assert_eq!(feed.entries.len(), 1);
        let entry = &feed.entries[0];
        assert_eq!(entry.version, Some(12));
        assert_eq!(entry.record.arxiv.as_deref(), Some("1412.99999"));
        assert_eq!(entry.record.doi.as_deref(), Some("10.1000/a"));
        assert_eq!(entry.record.journal_ref.as_deref(), Some("J. Fict. & Co."));
        assert_eq!(entry.record.categories, vec!["cs.DC"]);
        assert_eq!(entry.record.abstract_text, None);
    }

    #[test]
    fn elements_count_only_in_their_namespace_and_place() {
        // <doi> in the Atom namespace and a feed-level <title> are not paper
        // data; an entry id that is no arXiv paper is reported, not dropped.
        let xml = r#"<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Feed title</title>
  <entry>
    <id>https://arxiv.org/abs/2006.09503</id>
    <doi>10.1000/not-arxiv</doi>
    <author><name>Ada Example</name><uri>https://example.org/ada</uri></author>
  </entry>
  <entry><id>https://example.org/papers/42</id><title>Other</title></entry>
</feed>"#;
        let feed = parse_feed(xml).expect("a well-formed feed");
        assert_eq!(feed.entries.len(), 1);
        let entry = &feed.entries[0];
        assert_eq!(entry.version, None);
        assert_eq!(entry.record.title, "");
        assert_eq!(entry.record.doi, None);
        assert_eq!(entry.record.authors, vec!["Ada Example"]);
        assert_eq!(
            feed.errors,
            vec!["entry with an unrecognized id: \"https://example.org/papers/42\""]
        );
    }
}
