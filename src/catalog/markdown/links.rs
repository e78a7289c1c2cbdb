//! Telling an item's links apart (the work's, extras like `[Code]`, badges), and what a URL is.

use super::pieces::Link;
use crate::catalog::slugify;

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Class {
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

pub(super) fn classify(link: &Link) -> Class {
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

pub(super) fn is_label(label: &str) -> bool {
    let bracketed = label.starts_with('[') && label.ends_with(']');
    let inner = label.trim_matches(|c: char| c == '[' || c == ']' || c.is_whitespace());
    let lower = inner.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    bracketed
        || LABELS.contains(&lower.as_str())
        || (words.len() <= 3 && words.last().is_some_and(|w| LABEL_TAILS.contains(w)))
}

/// What an extra link is, from its label and host.
pub(super) fn link_key(label: &str, url: &str) -> String {
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

pub(super) fn is_code_host(url: &str) -> bool {
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

pub(super) fn is_paper_url(url: &str) -> bool {
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
