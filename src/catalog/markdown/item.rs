//! Interpreting one list item or table row: which link is the work and
//! which are extras ([Code], [Slides]), the title (with a subtitle written
//! after the link), and what the rest says: authors, venue and year, or a
//! description. Text is never taken for authors unless it is a list of names.

use super::links::{Class, classify, is_code_host, is_label, is_paper_url, link_key, with_scheme};
use super::names;
use super::pieces::{Link, Piece, RawItem, Role};
use super::title::{
    clean_title, collapse, strip_prefix_ci, strip_shortcodes, titled, trailing_parenthetical,
    untitled,
};
use super::venue::{self, Found};
use crate::catalog::Kind;

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
