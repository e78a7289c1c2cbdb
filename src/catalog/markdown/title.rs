//! An item's title from the text around its link, and the text clean-ups reading an item uses.

use super::venue;

/// Words that continue a title written past its link: "[Ring](url) with ...".
const CONTINUATIONS: &[&str] = &[
    "with", "for", "via", "and", "of", "in", "on", "to", "from", "through", "using", "at",
];

/// The title from a link's text and what follows it: "[Name](url):
/// subtitle", "[Name:](url) subtitle", "[Ring](url) with more words".
pub(super) fn titled(label: &str, after: &str) -> (String, String) {
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
pub(super) fn untitled(text: &str) -> (String, String) {
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
pub(super) fn clean_title(title: &str) -> (String, Vec<String>) {
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
pub(super) fn trailing_parenthetical(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_end().trim_end_matches('.');
    let inner = text.strip_suffix(')')?;
    let open = inner.rfind('(')?;
    Some((&text[..open], &inner[open + 1..]))
}

/// Removes GitHub emoji codes such as `:star:`.
pub(super) fn strip_shortcodes(text: &str) -> String {
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

pub(super) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}
