//! Interpreting one list item or table row: which link is the work and
//! which are extras ([Code], [Slides]), the title (with a subtitle written
//! after the link), and what the rest says: authors, venue and year, or a
//! description. Text is never taken for authors unless it is a list of names.

use super::names;
use super::pieces::{Link, Piece, RawItem, Role};
use super::venue::{self, Found};
use crate::catalog::{Kind, slugify};

/// What an item says about a work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fields {
    pub kind: Kind,
    pub title: String,
    pub url: String,
    /// Other links, by what they are ("code", "slides", "paper", ...).
    pub links: Vec<(String, String)>,
    pub authors: Vec<String>,
    pub et_al: bool,
    pub venue: Option<String>,
    pub year: Option<i64>,
    pub description: Option<String>,
}

/// An item with a link that is not an entry, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unlisted {
    pub title: String,
    pub url: String,
    pub reason: String,
}

/// Words a link's text is when it labels a link of the item rather than
/// naming the work: `[Paper]`, `[arXiv]`, `[Code]`.
const LABELS: &[&str] = &[
    "paper",
    "pdf",
    "arxiv",
    "code",
    "github",
    "gitlab",
    "slides",
    "slide",
    "ppt",
    "video",
    "talk",
    "youtube",
    "website",
    "web",
    "homepage",
    "project",
    "project page",
    "page",
    "blog",
    "docs",
    "doc",
    "documentation",
    "report",
    "poster",
    "link",
    "html",
    "openreview",
    "dataset",
    "demo",
    "bibtex",
    "bib",
    "notes",
    "tutorial",
    "abstract",
    "article",
    "preprint",
    "repo",
    "repository",
    "source",
    "huggingface",
    "hf",
    "model",
    "weights",
    "acm",
    "ieee",
    "usenix",
    "here",
    "official",
    "pytorch",
    "tensorflow",
    "jax",
    "site",
    "home",
];

/// The last word of a short label: "MIT short paper", "2021 notes".
const LABEL_TAILS: &[&str] = &["paper", "code", "slides", "video", "pdf", "website", "blog"];

/// Words that continue a title written past its link: "[Ring](url) with ...".
const CONTINUATIONS: &[&str] = &[
    "with", "for", "via", "and", "of", "in", "on", "to", "from", "through", "using", "at",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Class {
    Anchor,
    Relative,
    Empty,
    Badge,
    /// A labelled extra link, by what it is.
    Label(String),
    /// A link whose text is its URL.
    Bare,
    Title,
}

fn classify(link: &Link) -> Class {
    let url = link.url.trim();
    let label = link.label.trim();
    if url.is_empty() {
        Class::Empty
    } else if url.starts_with('#') {
        Class::Anchor
    } else if !is_absolute(url) {
        Class::Relative
    } else if label.is_empty() && link.image.is_some() {
        Class::Badge
    } else if label.is_empty() || label.starts_with("http") || label.starts_with("www.") {
        Class::Bare
    } else if is_label(label) {
        Class::Label(link_key(label, url))
    } else {
        Class::Title
    }
}

/// A link that adds to an item (a [Code] link, a bare URL, a badge)
/// rather than naming a work, a page section or another file.
pub fn is_extra(link: &Link) -> bool {
    matches!(
        classify(link),
        Class::Label(_) | Class::Bare | Class::Badge | Class::Empty
    )
}

fn is_label(label: &str) -> bool {
    let bracketed = label.starts_with('[') && label.ends_with(']');
    let inner = label.trim_matches(|c: char| c == '[' || c == ']' || c.is_whitespace());
    let lower = inner.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    bracketed
        || LABELS.contains(&lower.as_str())
        || (words.len() <= 3 && words.last().is_some_and(|w| LABEL_TAILS.contains(w)))
}

/// What an extra link is, from its label and host.
fn link_key(label: &str, url: &str) -> String {
    let inner = label
        .trim_matches(|c: char| c == '[' || c == ']' || c.is_whitespace())
        .to_lowercase();
    let last = inner
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .to_string();
    if is_code_host(url) {
        return "code".into();
    }
    let key = match last.as_str() {
        "paper" | "pdf" | "arxiv" | "openreview" | "acm" | "ieee" | "usenix" | "preprint"
        | "article" | "html" | "abstract" => "paper",
        "code" | "github" | "gitlab" | "repo" | "repository" | "source" => "code",
        "slides" | "slide" | "ppt" | "deck" => "slides",
        "video" | "talk" | "youtube" | "recording" => "video",
        "website" | "homepage" | "project" | "page" | "web" | "home" | "site" => "website",
        "blog" | "post" => "blog",
        _ => "",
    };
    if key.is_empty() {
        let slug = slugify(&inner);
        if slug.is_empty() { "link".into() } else { slug }
    } else {
        key.into()
    }
}

fn is_code_host(url: &str) -> bool {
    crate::ident::is_code_host(&host_of(url))
}

fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default()
        .to_lowercase();
    host.strip_prefix("www.").unwrap_or(&host).to_string()
}

/// A URL with a scheme, or a host name such as `www.example.org`.
pub(crate) fn is_absolute(url: &str) -> bool {
    if url.contains("://") || url.starts_with("www.") || url.starts_with("mailto:") {
        return true;
    }
    let host = url.split(['/', '#', '?']).next().unwrap_or_default();
    let tld = host.rsplit('.').next().unwrap_or_default();
    host.contains('.')
        && matches!(
            tld,
            "org" | "com" | "net" | "io" | "ai" | "edu" | "dev" | "cn" | "me" | "cc" | "info"
        )
}

fn is_paper_url(url: &str) -> bool {
    let host = host_of(url);
    let path = url
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .to_lowercase();
    crate::ident::arxiv_from_url(url).is_some()
        || crate::ident::doi_from_url(url).is_some()
        || path.ends_with(".pdf")
        || host.starts_with("proceedings.")
        || [
            "arxiv.org",
            "dl.acm.org",
            "ieeexplore.ieee.org",
            "usenix.org",
            "openreview.net",
            "papers.nips.cc",
            "neurips.cc",
            "mlsys.org",
            "aclanthology.org",
            "link.springer.com",
            "sciencedirect.com",
            "semanticscholar.org",
            "techrxiv.org",
        ]
        .iter()
        .any(|h| host == *h || host.ends_with(&format!(".{h}")))
}

/// Reads an item; `under_papers` when a heading above it speaks of papers.
pub fn interpret(item: &RawItem, under_papers: bool) -> Result<Fields, Unlisted> {
    let cells = cells(item);
    let title_cell = cells.iter().position(|(role, _)| *role == Role::Title);
    let mut reading = Reading::default();
    // The pieces the title is looked for in: the title column, else all.
    let title_pieces: Vec<Piece> = match title_cell {
        Some(i) => cells[i].1.clone(),
        None => cells
            .iter()
            .flat_map(|(_, p)| std::iter::once(Piece::Break).chain(p.iter().cloned()))
            .collect(),
    };
    for (i, (role, pieces)) in cells.iter().enumerate() {
        if title_cell.is_some() && Some(i) != title_cell {
            reading.cell(*role, pieces);
        }
    }
    reading.title_pieces(&title_pieces);
    reading.finish(item, under_papers)
}

/// The item's pieces by table cell (one cell for a list item).
fn cells(item: &RawItem) -> Vec<(Role, Vec<Piece>)> {
    let mut cells: Vec<(Role, Vec<Piece>)> = Vec::new();
    for piece in &item.pieces {
        match piece {
            Piece::Cell(role) => cells.push((*role, Vec::new())),
            other => {
                if cells.is_empty() {
                    cells.push((Role::Other, Vec::new()));
                }
                if let Some((_, pieces)) = cells.last_mut() {
                    pieces.push(other.clone());
                }
            }
        }
    }
    cells
}

/// What has been read of an item so far.
#[derive(Default)]
struct Reading {
    title: Option<String>,
    title_url: Option<String>,
    /// Extra links in order, by key.
    labels: Vec<(String, String)>,
    bare: Vec<String>,
    anchors: usize,
    relative: Vec<String>,
    authors: Option<(Vec<String>, bool)>,
    venue: Option<String>,
    year: Option<i64>,
    description: Vec<String>,
}

impl Reading {
    fn link(&mut self, link: &Link) {
        if let Some(image) = &link.image {
            self.badge(image);
        }
        match classify(link) {
            Class::Anchor => self.anchors += 1,
            Class::Relative => self.relative.push(link.url.clone()),
            Class::Empty | Class::Badge => {}
            Class::Label(key) => self.labels.push((key, link.url.trim().to_string())),
            Class::Bare => self.bare.push(link.url.trim().to_string()),
            Class::Title => {}
        }
    }

    fn badge(&mut self, url: &str) {
        if let Some(found) = venue::badge_venue(url) {
            self.venue_year(found);
        }
    }

    fn venue_year(&mut self, found: Found) {
        if self.year.is_none() {
            self.year = Some(found.year);
            if self.venue.is_none() {
                self.venue = found.venue;
            }
        }
        self.describe(&found.rest);
    }

    fn describe(&mut self, text: &str) {
        let mut text = collapse(text);
        // A parenthesis opened and not closed here held a date or venue.
        if text.matches('(').count() > text.matches(')').count()
            && let Some(open) = text.rfind('(')
        {
            text.truncate(open);
        }
        let text = text.trim_matches(|c: char| {
            c.is_whitespace() || matches!(c, '-' | '–' | '—' | ',' | ';' | ':' | '|')
        });
        if text.chars().any(char::is_alphabetic) {
            self.description.push(text.to_string());
        }
    }

    /// A non-title column of a table row.
    fn cell(&mut self, role: Role, pieces: &[Piece]) {
        let mut text = String::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) => text.push_str(t),
                Piece::Link(link) => {
                    if classify(link) == Class::Title {
                        // A named link in a links column: "[[Repo-Name]]" is
                        // bracketed, a bare name is an extra link too.
                        self.labels.push((
                            link_key(&link.label, &link.url),
                            link.url.trim().to_string(),
                        ));
                        if let Some(image) = &link.image {
                            self.badge(image);
                        }
                    } else {
                        self.link(link);
                    }
                }
                Piece::Image(url) => self.badge(url),
                Piece::Break | Piece::Cell(_) => text.push(' '),
            }
        }
        let text = collapse(&text);
        match role {
            Role::Date | Role::Venue => match venue::venue_year(&text) {
                Some(found) => self.venue_year(found),
                None if role == Role::Venue && text.split_whitespace().count() <= 6 => {
                    if self.venue.is_none() && text.chars().any(char::is_alphabetic) {
                        self.venue = Some(text);
                    }
                }
                None => self.describe(&text),
            },
            Role::Authors => match names::authors(&text) {
                Some(found) if self.authors.is_none() => self.authors = Some(found),
                _ => self.describe(&text),
            },
            Role::Links | Role::Other | Role::Title => self.describe(&text),
        }
    }

    /// The pieces that hold the title: text before the work's link, its
    /// text, and what follows.
    fn title_pieces(&mut self, pieces: &[Piece]) {
        let title_at = pieces
            .iter()
            .position(|p| matches!(p, Piece::Link(l) if classify(l) == Class::Title));
        let mut before = String::new();
        let mut after = String::new();
        for (i, piece) in pieces.iter().enumerate() {
            let out = match title_at {
                Some(t) if i > t => &mut after,
                Some(t) if i == t => continue,
                _ => &mut before,
            };
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Link(link) => {
                    self.link(link);
                    if classify(link) == Class::Title {
                        out.push_str(&link.label);
                    } else {
                        out.push('\n');
                    }
                }
                Piece::Image(url) => self.badge(url),
                Piece::Break | Piece::Cell(_) => out.push('\n'),
            }
        }
        let (title, tail) = match title_at.map(|t| &pieces[t]) {
            Some(Piece::Link(link)) => {
                if let Some(image) = &link.image {
                    self.badge(image);
                }
                self.title_url = Some(link.url.trim().to_string());
                let pre = before.replace('\n', " ");
                if let Some(found) = names::authors(pre.trim_end_matches([' ', '.', ':'])) {
                    self.authors = Some(found);
                } else {
                    self.describe(&strip_shortcodes(&pre));
                }
                titled(&link.label, &after)
            }
            _ => untitled(&before),
        };
        let (title, moved) = clean_title(&title);
        self.title = Some(title);
        for text in moved {
            self.segment(&text);
        }
        for segment in tail.split(['\n', '|', '｜']) {
            self.segment(segment);
        }
    }

    /// A part of the text after the title: a byline, a venue, a description.
    fn segment(&mut self, segment: &str) {
        let segment = collapse(segment);
        let segment = segment.trim_matches(|c: char| {
            c.is_whitespace() || matches!(c, '-' | '–' | '—' | ',' | ';' | ':' | '\\')
        });
        if segment.is_empty() {
            return;
        }
        let text = strip_prefix_ci(segment, "by ").unwrap_or(segment);
        let clauses: Vec<&str> = text.split(", ").collect();
        // The last clause with a venue and year ends a byline.
        let mut people_end = clauses.len();
        if let Some(i) = clauses
            .iter()
            .rposition(|c| c.split_whitespace().count() <= 8 && venue::venue_year(c).is_some())
        {
            if let Some(found) = venue::venue_year(clauses[i]) {
                self.venue_year(found);
            }
            people_end = i;
            for clause in &clauses[i + 1..] {
                self.describe(clause);
            }
        } else if let Some((head, paren)) = trailing_parenthetical(text)
            && let Some(found) = venue::venue_year(paren)
        {
            self.venue_year(found);
            self.people_or_description(head);
            return;
        }
        let people = clauses[..people_end].join(", ");
        self.people_or_description(&people);
    }

    fn people_or_description(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        match names::authors(text) {
            Some(found) if self.authors.is_none() => self.authors = Some(found),
            _ => self.describe(text),
        }
    }

    fn finish(mut self, item: &RawItem, under_papers: bool) -> Result<Fields, Unlisted> {
        let title = self.title.take().unwrap_or_default();
        // The work's link: the titled one, else a [Paper] link, else any.
        let paper_label = self.labels.iter().position(|(k, _)| k == "paper");
        let url = match (&self.title_url, paper_label) {
            (Some(url), Some(p)) if is_code_host(url) => {
                let (_, paper) = self.labels.remove(p);
                self.labels.insert(0, ("code".into(), url.clone()));
                Some(paper)
            }
            (Some(url), _) => Some(url.clone()),
            (None, Some(p)) => Some(self.labels.remove(p).1),
            (None, None) if !self.labels.is_empty() => Some(self.labels.remove(0).1),
            (None, None) => (!self.bare.is_empty()).then(|| self.bare.remove(0)),
        };
        let Some(url) = url else {
            let url = item
                .links()
                .map(|l| l.url.trim().to_string())
                .find(|u| !u.is_empty())
                .unwrap_or_default();
            let reason = if self.anchors > 0 && self.relative.is_empty() {
                "a link within the page (navigation), not a work".to_string()
            } else if let Some(file) = self.relative.first() {
                format!("a link to another file ({file}): import that file")
            } else {
                "only badges or empty links: no link to a work".to_string()
            };
            return Err(Unlisted { title, url, reason });
        };
        let url = with_scheme(&url);
        if !title.chars().any(char::is_alphabetic) || title.starts_with("http") || is_label(&title)
        {
            return Err(Unlisted {
                title,
                url,
                reason: "no title: the item has only link labels or a bare URL".into(),
            });
        }
        for bare in std::mem::take(&mut self.bare) {
            self.labels.push(("link".into(), bare));
        }
        let mut links: Vec<(String, String)> = Vec::new();
        for (key, link) in std::mem::take(&mut self.labels) {
            let link = with_scheme(&link);
            if link == url || links.iter().any(|(_, l)| *l == link) {
                continue;
            }
            let mut unique = key.clone();
            let mut n = 2;
            while links.iter().any(|(k, _)| *k == unique) {
                unique = format!("{key}-{n}");
                n += 1;
            }
            links.push((unique, link));
        }
        let paper_signal = self.venue.is_some()
            || self.year.is_some()
            || under_papers
            || is_paper_url(&url)
            || links.iter().any(|(k, _)| k == "paper");
        let kind = if paper_signal && !(is_code_host(&url) && self.year.is_none()) {
            Kind::Paper
        } else {
            Kind::Project
        };
        let (authors, et_al) = self.authors.unwrap_or_default();
        let description = (!self.description.is_empty()).then(|| self.description.join("; "));
        Ok(Fields {
            kind,
            title,
            url,
            links,
            authors,
            et_al,
            venue: self.venue,
            year: self.year,
            description,
        })
    }
}

/// The title from a link's text and what follows it: "[Name](url):
/// subtitle", "[Name:](url) subtitle", "[Ring](url) with more words".
fn titled(label: &str, after: &str) -> (String, String) {
    let label = collapse(label);
    let after_trim = after.trim_start_matches([' ', '\t']);
    let end = after_trim
        .find(['\n', '|', '｜'])
        .unwrap_or(after_trim.len());
    let (first, rest) = after_trim.split_at(end);
    let subtitle = first.trim();
    let first_word = subtitle.split_whitespace().next().unwrap_or_default();
    if label.trim_end().ends_with(':') || subtitle.starts_with(':') {
        let subtitle = subtitle.trim_start_matches(':').trim();
        let name = label.trim().trim_end_matches(':').trim();
        if subtitle.is_empty() || strip_prefix_ci(subtitle, "by ").is_some() {
            return (name.to_string(), after.to_string());
        }
        return (format!("{name}: {subtitle}"), rest.to_string());
    }
    if CONTINUATIONS.contains(&first_word) {
        return (format!("{} {subtitle}", label.trim()), rest.to_string());
    }
    (label, after.to_string())
}

/// The title of an item whose links are all labels: a quoted title, else
/// the text up to the first break or sentence end.
fn untitled(text: &str) -> (String, String) {
    for (open, close) in [('“', '”'), ('"', '"')] {
        if let Some(start) = text.find(open) {
            let inner_start = start + open.len_utf8();
            if let Some(len) = text[inner_start..].find(close) {
                let inner = &text[inner_start..inner_start + len];
                if inner.split_whitespace().count() >= 2 {
                    let before = &text[..start];
                    let after = &text[inner_start + len + close.len_utf8()..];
                    return (inner.to_string(), format!("{before}\n{after}"));
                }
            }
        }
    }
    let text = text.trim_start_matches(['\n', ' ']);
    let end = text.find(['\n', '|', '｜']).unwrap_or(text.len());
    let (first, rest) = text.split_at(end);
    // "Name: subtitle. A description." keeps the first sentence.
    let sentence_end = first.match_indices(". ").map(|(i, _)| i).find(|&i| {
        first[i + 2..].starts_with(|c: char| c.is_uppercase())
            && !first[..i].ends_with(|c: char| c.is_uppercase())
    });
    match sentence_end {
        Some(i) => (first[..i].to_string(), format!("{}{rest}", &first[i + 1..])),
        None => (first.to_string(), rest.to_string()),
    }
}

/// The title without decoration, and the text taken off it (an
/// affiliation in "(@Org)", a venue in "(SOSP2019)").
fn clean_title(title: &str) -> (String, Vec<String>) {
    let mut moved = Vec::new();
    let mut title = collapse(&strip_shortcodes(title).replace(['{', '}'], ""));
    title = title
        .trim_start_matches(|c: char| !(c.is_alphanumeric() || matches!(c, '[' | '"' | '“' | '(')))
        .to_string();
    // "[Short-Name] Full title" names the work twice.
    if title.starts_with('[')
        && let Some(close) = title.find(']')
        && title[close + 1..]
            .chars()
            .filter(|c| c.is_alphabetic())
            .count()
            > 3
        && !title[close + 1..].starts_with('(')
    {
        title = title[close + 1..].trim().to_string();
    }
    while let Some((head, paren)) = trailing_parenthetical(&title) {
        let is_venue = venue::venue_year(paren).is_some();
        if paren.starts_with('@') || is_venue {
            moved.push(paren.to_string());
            title = head.trim_end().to_string();
        } else {
            break;
        }
    }
    let title = title
        .trim()
        .trim_end_matches([',', ';', ':', '.'])
        .trim_matches(|c| matches!(c, '"' | '“' | '”'))
        .trim()
        .to_string();
    (title, moved)
}

/// "Head text (inside)" split at a final parenthesis.
fn trailing_parenthetical(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_end().trim_end_matches('.');
    let inner = text.strip_suffix(')')?;
    let open = inner.rfind('(')?;
    Some((&text[..open], &inner[open + 1..]))
}

/// Removes GitHub emoji codes such as `:star:`.
fn strip_shortcodes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(':') {
        let after = &rest[start + 1..];
        let code_len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '+'))
            .unwrap_or(after.len());
        let is_code = after.starts_with(|c: char| c.is_ascii_lowercase());
        if is_code && code_len > 0 && after[code_len..].starts_with(':') {
            out.push_str(&rest[..start]);
            rest = &after[code_len + 1..];
        } else {
            out.push_str(&rest[..start + 1]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// URLs written without a scheme (`www.oneflow.org`) are web pages; one
/// with a scheme of its own (`mailto:`) keeps it, and the import then
/// skips it as no web page.
pub(crate) fn with_scheme(url: &str) -> String {
    if url.contains("://") || has_scheme(url) {
        url.to_string()
    } else {
        format!("https://{url}")
    }
}

/// `mailto:x`, `javascript:x`: a scheme (RFC 3986's: a letter, then letters,
/// digits, `+`, `-`; not `.`, which a host has) before a colon, but not a host before its port
/// (`example.org:8080`, `localhost:8080/x`).
fn has_scheme(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once(':') else {
        return false;
    };
    let port = rest.split(['/', '?', '#']).next().unwrap_or_default();
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && (scheme.chars()).all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-'))
        && (port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()))
}
