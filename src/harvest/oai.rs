//! OAI-PMH `ListRecords` in arXiv's metadata format: the request URLs and a
//! pure parser (text in, values out). Elements are matched by local name, so
//! whichever prefixes a server binds its namespaces to, the same values come
//! out; a response cut off before `</OAI-PMH>` is an error, never a shorter
//! page (a harvest must not take a truncated page for the whole of it).

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use url::Url;

use crate::ident;
use crate::ingest::arxiv::resolve_reference;

/// arXiv's metadata format: authors split into key names and forenames,
/// categories, licence.
pub const METADATA_PREFIX: &str = "arXiv";

/// The first request of a harvest: records of `set` changed from `from` to
/// `until` (days, inclusive, as OAI-PMH defines them).
pub fn first_url(base: &Url, set: &str, from: Option<&str>, until: Option<&str>) -> Url {
    let mut url = base.clone();
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("verb", "ListRecords")
            .append_pair("metadataPrefix", METADATA_PREFIX)
            .append_pair("set", set);
        if let Some(from) = from {
            query.append_pair("from", from);
        }
        if let Some(until) = until {
            query.append_pair("until", until);
        }
    }
    url
}

/// The next page: a resumption token is an exclusive argument, sent alone
/// with the verb.
pub fn resume_url(base: &Url, token: &str) -> Url {
    let mut url = base.clone();
    url.query_pairs_mut()
        .append_pair("verb", "ListRecords")
        .append_pair("resumptionToken", token);
    url
}

/// One page of a `ListRecords` answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    pub records: Vec<OaiRecord>,
    /// `None` or an empty value: this was the last page.
    pub token: Option<ResumptionToken>,
    /// When the server answered (`responseDate`), as it wrote it.
    pub response_date: Option<String>,
}

impl Page {
    /// The token to ask for the next page with, if there is one.
    pub fn next_token(&self) -> Option<&str> {
        self.token
            .as_ref()
            .map(|t| t.value.as_str())
            .filter(|v| !v.is_empty())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResumptionToken {
    pub value: String,
    /// Records of the whole list sent before this page's successor.
    pub cursor: Option<u64>,
    pub complete_list_size: Option<u64>,
    pub expiration_date: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OaiRecord {
    /// `oai:arXiv.org:1412.80001`.
    pub identifier: String,
    /// The last change of the record, `YYYY-MM-DD`.
    pub datestamp: String,
    pub set_specs: Vec<String>,
    /// `status="deleted"`: the record has no metadata.
    pub deleted: bool,
    pub metadata: Option<ArxivMetadata>,
}

impl OaiRecord {
    /// The record's arXiv id without its version (the metadata's, else the
    /// header's), if it is one: anything else (a path, words, control
    /// characters) is no record of arXiv's.
    pub fn arxiv_id(&self) -> Option<String> {
        let id = match &self.metadata {
            Some(metadata) => metadata.id.trim(),
            None => self.identifier.rsplit(':').next().unwrap_or_default(),
        };
        let id = ident::strip_version(id);
        ident::is_arxiv_id(id).then(|| id.to_string())
    }
}

/// The `<arXiv>` element of a record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArxivMetadata {
    pub id: String,
    /// The first version's day.
    pub created: Option<String>,
    /// The latest version's day.
    pub updated: Option<String>,
    pub authors: Vec<Author>,
    pub title: String,
    /// Primary first.
    pub categories: Vec<String>,
    pub comments: Option<String>,
    pub report_no: Option<String>,
    pub journal_ref: Option<String>,
    pub doi: Option<String>,
    pub license: Option<String>,
    pub abstract_text: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Author {
    pub keyname: String,
    pub forenames: String,
    pub suffix: String,
}

/// An OAI-PMH error code (section 3.6 of the protocol).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorCode {
    BadArgument,
    /// Expired or unknown: the list must be asked for again.
    BadResumptionToken,
    BadVerb,
    CannotDisseminateFormat,
    /// The window holds no record: an empty harvest, not a failure.
    NoRecordsMatch,
    NoSetHierarchy,
    Other(String),
}

impl ErrorCode {
    fn parse(code: &str) -> ErrorCode {
        match code {
            "badArgument" => ErrorCode::BadArgument,
            "badResumptionToken" => ErrorCode::BadResumptionToken,
            "badVerb" => ErrorCode::BadVerb,
            "cannotDisseminateFormat" => ErrorCode::CannotDisseminateFormat,
            "noRecordsMatch" => ErrorCode::NoRecordsMatch,
            "noSetHierarchy" => ErrorCode::NoSetHierarchy,
            other => ErrorCode::Other(other.to_string()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OaiError {
    pub code: ErrorCode,
    /// The code as the server wrote it.
    pub name: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The server answered with OAI-PMH errors instead of records.
    #[error("OAI-PMH error {}", describe(.0))]
    Protocol(Vec<OaiError>),
    #[error("malformed OAI-PMH response at byte {position}: {message}")]
    Malformed { position: u64, message: String },
    #[error("not an OAI-PMH response: found {found}")]
    NotOai { found: String },
}

fn describe(errors: &[OaiError]) -> String {
    errors
        .iter()
        .map(|e| format!("{}: {}", e.name, e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

impl ParseError {
    /// Whether the server reported `code`.
    pub fn has(&self, code: &ErrorCode) -> bool {
        matches!(self, ParseError::Protocol(errors) if errors.iter().any(|e| &e.code == code))
    }
}

/// Parses a `ListRecords` response.
pub fn parse_list_records(xml: &str) -> Result<Page, ParseError> {
    let mut reader = Reader::from_str(xml);
    let mut parser = Parser::default();
    loop {
        let event = reader.read_event().map_err(|e| ParseError::Malformed {
            position: reader.error_position(),
            message: e.to_string(),
        })?;
        let position = reader.buffer_position();
        let malformed = |message: String| ParseError::Malformed { position, message };
        match event {
            Event::Start(start) => parser.start(&start, false).map_err(malformed)?,
            Event::Empty(start) => parser.start(&start, true).map_err(malformed)?,
            Event::End(_) => {
                if parser.end() {
                    return parser.finish();
                }
            }
            Event::Text(text) => parser.text(&text.xml10_content()),
            Event::CData(cdata) => parser.text(&cdata.xml10_content()),
            Event::GeneralRef(reference) => {
                parser.text(&resolve_reference(&reference).map_err(malformed)?);
            }
            Event::Eof => {
                return Err(if parser.path.is_empty() && !parser.seen_root {
                    let found = if xml.trim().is_empty() {
                        "an empty body"
                    } else {
                        "no XML element"
                    };
                    ParseError::NotOai {
                        found: found.to_string(),
                    }
                } else {
                    malformed("the response ends before </OAI-PMH>: truncated".to_string())
                });
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
        }
    }
}

/// The element path from the root, by local name, and what was read so far.
#[derive(Default)]
struct Parser {
    path: Vec<String>,
    seen_root: bool,
    text: String,
    page: Page,
    errors: Vec<OaiError>,
    record: Option<OaiRecord>,
    author: Option<Author>,
    /// The attributes of an `<error>` or `<resumptionToken>` being read.
    error_code: String,
    token: Option<ResumptionToken>,
}

fn local_name(start: &BytesStart<'_>) -> String {
    start.local_name().into_inner().to_string()
}

/// The attribute `name` (by local name), unescaped.
fn attribute(start: &BytesStart<'_>, name: &str) -> Result<Option<String>, String> {
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| e.to_string())?;
        if attribute.key.local_name().into_inner() == name {
            let value = attribute
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|e| e.to_string())?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

impl Parser {
    fn start(&mut self, start: &BytesStart<'_>, empty: bool) -> Result<(), String> {
        let name = local_name(start);
        if self.path.is_empty() {
            if self.seen_root || name != "OAI-PMH" {
                return Err(format!("the root element is <{name}>, not <OAI-PMH>"));
            }
            self.seen_root = true;
        }
        self.text.clear();
        match (self.parent(), name.as_str()) {
            (Some("ListRecords"), "record") => self.record = Some(OaiRecord::default()),
            (Some("record"), "header") => {
                if let Some(record) = &mut self.record {
                    record.deleted = attribute(start, "status")?.as_deref() == Some("deleted");
                }
            }
            (Some("authors"), "author") => self.author = Some(Author::default()),
            (Some("metadata"), "arXiv") => {
                if let Some(record) = &mut self.record {
                    record.metadata = Some(ArxivMetadata::default());
                }
            }
            (Some("OAI-PMH"), "error") => {
                self.error_code = attribute(start, "code")?.unwrap_or_default();
            }
            (Some("ListRecords"), "resumptionToken") => {
                let number = |name| -> Result<Option<u64>, String> {
                    Ok(attribute(start, name)?.and_then(|v| v.trim().parse().ok()))
                };
                self.token = Some(ResumptionToken {
                    value: String::new(),
                    cursor: number("cursor")?,
                    complete_list_size: number("completeListSize")?,
                    expiration_date: attribute(start, "expirationDate")?,
                });
            }
            _ => {}
        }
        self.path.push(name);
        if empty {
            self.end();
        }
        Ok(())
    }

    fn parent(&self) -> Option<&str> {
        self.path.last().map(String::as_str)
    }

    fn text(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Closes the innermost element; true once the root is closed.
    fn end(&mut self) -> bool {
        let Some(name) = self.path.pop() else {
            return false;
        };
        let text = std::mem::take(&mut self.text);
        self.close(&name, text);
        self.path.is_empty()
    }

    fn close(&mut self, name: &str, text: String) {
        let parent = self.parent().unwrap_or_default().to_string();
        match (parent.as_str(), name) {
            ("ListRecords", "record") => {
                if let Some(record) = self.record.take() {
                    self.page.records.push(record);
                }
            }
            ("header", field) => {
                if let Some(record) = &mut self.record {
                    let value = text.trim().to_string();
                    match field {
                        "identifier" => record.identifier = value,
                        "datestamp" => record.datestamp = value,
                        "setSpec" => record.set_specs.push(value),
                        _ => {}
                    }
                }
            }
            ("author", field) => {
                if let Some(author) = &mut self.author {
                    let value = collapse(&text);
                    match field {
                        "keyname" => author.keyname = value,
                        "forenames" => author.forenames = value,
                        "suffix" => author.suffix = value,
                        _ => {}
                    }
                }
            }
            ("authors", "author") => {
                let author = self.author.take();
                if let Some((author, metadata)) = author.zip(self.metadata()) {
                    metadata.authors.push(author);
                }
            }
            ("arXiv", field) => {
                if let Some(metadata) = self.metadata() {
                    metadata.set(field, text);
                }
            }
            ("OAI-PMH", "error") => self.errors.push(OaiError {
                code: ErrorCode::parse(&self.error_code),
                name: std::mem::take(&mut self.error_code),
                message: collapse(&text),
            }),
            ("OAI-PMH", "responseDate") => self.page.response_date = Some(text.trim().to_string()),
            ("ListRecords", "resumptionToken") => {
                if let Some(mut token) = self.token.take() {
                    token.value = text.trim().to_string();
                    self.page.token = Some(token);
                }
            }
            _ => {}
        }
    }

    fn metadata(&mut self) -> Option<&mut ArxivMetadata> {
        self.record.as_mut().and_then(|r| r.metadata.as_mut())
    }

    fn finish(self) -> Result<Page, ParseError> {
        if self.errors.is_empty() {
            Ok(self.page)
        } else {
            Err(ParseError::Protocol(self.errors))
        }
    }
}

impl ArxivMetadata {
    fn set(&mut self, field: &str, text: String) {
        let optional = || Some(collapse(&text)).filter(|t| !t.is_empty());
        match field {
            "id" => self.id = text.trim().to_string(),
            "created" => self.created = optional(),
            "updated" => self.updated = optional(),
            "title" => self.title = collapse(&text),
            "categories" => self.categories = text.split_whitespace().map(String::from).collect(),
            "comments" => self.comments = optional(),
            "report-no" => self.report_no = optional(),
            "journal-ref" => self.journal_ref = optional(),
            "doi" => self.doi = optional(),
            "license" => self.license = optional(),
            // Kept as written, as the snapshot keeps it.
            "abstract" => self.abstract_text = text,
            _ => {}
        }
    }
}

/// Runs of whitespace (line breaks of wrapped titles) become one space.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    // A fictional page in the layout of arXiv's OAI-PMH answers.
    const PAGE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">
<responseDate>2999-01-06T00:00:00Z</responseDate>
<request verb="ListRecords" metadataPrefix="arXiv" set="cs">http://127.0.0.1/oai</request>
<ListRecords>
<record>
<header>
 <identifier>oai:arXiv.org:1412.80001</identifier>
 <datestamp>2999-01-05</datestamp>
 <setSpec>cs</setSpec>
</header>
<metadata>
 <arXiv xmlns="http://arxiv.org/OAI/arXiv/">
 <id>1412.80001</id>
 <created>2999-01-02</created>
 <updated>2999-01-04</updated>
 <authors><author><keyname>Example</keyname><forenames>Ada</forenames></author><author><keyname>Placeholder</keyname><forenames>Bob</forenames><suffix>Jr</suffix></author></authors>
 <title>Pretend Pipelines
  &amp; Imaginary Bubbles</title>
 <categories>cs.DC cs.LG</categories>
 <comments>9 pages</comments>
 <journal-ref>Journal of Fiction 1 (2999)</journal-ref>
 <doi>10.99999/fict.1</doi>
 <abstract>  We pretend to
 schedule micro-batches.
</abstract>
 </arXiv>
</metadata>
</record>
<record><header status="deleted"><identifier>oai:arXiv.org:1412.80002</identifier><datestamp>2999-01-05</datestamp></header></record>
<resumptionToken cursor="0" completeListSize="3">page-2</resumptionToken>
</ListRecords>
</OAI-PMH>"#;

    #[test]
    fn a_page_of_records() {
        let page = parse_list_records(PAGE).unwrap();
        assert_eq!(page.records.len(), 2);
        let first = &page.records[0];
        assert_eq!(first.datestamp, "2999-01-05");
        assert_eq!(first.set_specs, ["cs"]);
        assert!(!first.deleted);
        let meta = first.metadata.as_ref().unwrap();
        assert_eq!(meta.id, "1412.80001");
        assert_eq!(meta.title, "Pretend Pipelines & Imaginary Bubbles");
        assert_eq!(meta.categories, ["cs.DC", "cs.LG"]);
        assert_eq!(meta.authors[1].suffix, "Jr");
        assert_eq!(meta.doi.as_deref(), Some("10.99999/fict.1"));
        assert_eq!(meta.created.as_deref(), Some("2999-01-02"));
        assert!(meta.abstract_text.contains("micro-batches"));
        assert!(page.records[1].deleted);
        assert!(page.records[1].metadata.is_none());
        assert_eq!(page.next_token(), Some("page-2"));
        assert_eq!(page.response_date.as_deref(), Some("2999-01-06T00:00:00Z"));
        assert_eq!(page.token.unwrap().complete_list_size, Some(3));
    }

    #[test]
    fn a_records_arxiv_id_is_one_or_none() {
        let page = parse_list_records(PAGE).unwrap();
        assert_eq!(page.records[0].arxiv_id().as_deref(), Some("1412.80001"));
        // A deleted record has only its header's identifier.
        assert_eq!(page.records[1].arxiv_id().as_deref(), Some("1412.80002"));
        for bad in [
            "../../../../tmp/x",
            "a b",
            "2612.60006/../x",
            "2612.60006\u{1b}[31m",
            "",
        ] {
            let xml = PAGE.replace("<id>1412.80001</id>", &format!("<id>{bad}</id>"));
            let page = parse_list_records(&xml).unwrap();
            assert_eq!(page.records[0].arxiv_id(), None, "{bad}");
        }
        let versioned = PAGE.replace("<id>1412.80001</id>", "<id>1412.80001v3</id>");
        let page = parse_list_records(&versioned).unwrap();
        assert_eq!(page.records[0].arxiv_id().as_deref(), Some("1412.80001"));
    }

    #[test]
    fn an_empty_token_ends_the_list() {
        let last = PAGE.replace(
            r#"<resumptionToken cursor="0" completeListSize="3">page-2</resumptionToken>"#,
            r#"<resumptionToken cursor="2" completeListSize="3"/>"#,
        );
        let page = parse_list_records(&last).unwrap();
        assert_eq!(page.next_token(), None);
        assert_eq!(page.token.unwrap().cursor, Some(2));
    }

    #[test]
    fn errors_are_typed() {
        let xml = r#"<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>x</responseDate><request>y</request><error code="noRecordsMatch">No records in
 that window</error></OAI-PMH>"#;
        let error = parse_list_records(xml).unwrap_err();
        assert!(error.has(&ErrorCode::NoRecordsMatch));
        assert_eq!(
            error.to_string(),
            "OAI-PMH error noRecordsMatch: No records in that window"
        );
        let bad = xml.replace("noRecordsMatch", "badResumptionToken");
        assert!(
            parse_list_records(&bad)
                .unwrap_err()
                .has(&ErrorCode::BadResumptionToken)
        );
    }

    #[test]
    fn a_truncated_page_is_an_error_at_every_cut() {
        let end = PAGE.find("</OAI-PMH>").unwrap();
        for cut in (0..end).step_by(7) {
            let result = parse_list_records(&PAGE[..cut]);
            assert!(result.is_err(), "cut at {cut} parsed as a page");
        }
    }

    #[test]
    fn other_bodies_are_not_oai() {
        assert!(matches!(
            parse_list_records(""),
            Err(ParseError::NotOai { .. })
        ));
        assert!(parse_list_records("<html><body>busy</body></html>").is_err());
    }

    #[test]
    fn urls_follow_the_protocol() {
        let base = Url::parse("http://127.0.0.1:1/oai").unwrap();
        assert_eq!(
            first_url(&base, "cs", Some("2999-01-01"), None).as_str(),
            "http://127.0.0.1:1/oai?verb=ListRecords&metadataPrefix=arXiv&set=cs&from=2999-01-01"
        );
        assert_eq!(
            resume_url(&base, "a b/c").as_str(),
            "http://127.0.0.1:1/oai?verb=ListRecords&resumptionToken=a+b%2Fc"
        );
    }
}
