//! Plain text out of the JATS/HTML fragments publishers deposit for titles
//! and abstracts, with quick-xml reading leniently.

use quick_xml::Reader;
use quick_xml::events::{BytesRef, Event};

use crate::model::normalize_whitespace;

/// How many times stray `<`s may send a fragment back through the reader.
const MAX_REPARSE_DEPTH: usize = 8;

/// Plain text of a JATS/HTML fragment: text and CDATA kept, entities
/// decoded, tags dropped, whitespace collapsed. A leading "Abstract" heading
/// is dropped. Malformed markup degrades to best-effort text, never a panic.
pub(super) fn strip_markup(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    collect_text(markup, &mut out, 0);
    normalize_whitespace(&out)
}

/// Appends the text of `markup` to `out`. Returns whether the input ended
/// inside a tag that never closed (and was dropped).
fn collect_text(markup: &str, out: &mut String, depth: usize) -> bool {
    let mut reader = Reader::from_str(markup);
    let config = reader.config_mut();
    // Publisher JATS is often sloppy: a mismatched end tag or a bare `&`
    // should cost that tag, not the rest of the text.
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    // Where in `out` a leading <title> started, until its end tag.
    let mut heading: Option<usize> = None;
    loop {
        let before = reader.buffer_position();
        match reader.read_event() {
            Ok(Event::Eof) => return false,
            Ok(Event::Text(text)) => out.push_str(&text.xml10_content()),
            Ok(Event::CData(text)) => out.push_str(&text.xml10_content()),
            Ok(Event::GeneralRef(reference)) => push_reference(&reference, out),
            Ok(Event::Start(tag) | Event::Empty(tag)) => {
                let qname = tag.name();
                if !qname.as_ref().starts_with(is_name_start) {
                    // `a < b`: the reader took the `<` for a tag running to
                    // the next `>`. Keep the `<` and read what it swallowed.
                    out.push('<');
                    reparse(&tag, out, depth);
                    continue;
                }
                let local = tag.local_name();
                if !is_inline(qname.as_ref(), local.as_ref()) {
                    out.push(' ');
                }
                if local.as_ref() == "title" && out.trim().is_empty() {
                    heading = Some(out.len());
                }
            }
            Ok(Event::End(tag)) => {
                let local = tag.local_name();
                if local.as_ref() == "title"
                    && let Some(start) = heading.take()
                    && out.get(start..).is_some_and(is_abstract_heading)
                {
                    out.truncate(start);
                }
                if !is_inline(tag.name().as_ref(), local.as_ref()) {
                    out.push(' ');
                }
            }
            Ok(Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_)) => {}
            // Ill-formed errors are recoverable: the reader has skipped the
            // offending markup. Stop only if it did not move.
            Err(quick_xml::Error::IllFormed(_)) => {
                if reader.buffer_position() == before {
                    return false;
                }
            }
            // Anything else ends the document; typically a `<` that never
            // closes, which is either a truncated tag (dropped) or a literal
            // `<` (kept, with the text after it).
            Err(_) => {
                let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
                let Some(rest) = markup.get(at..).and_then(|r| r.strip_prefix('<')) else {
                    return false;
                };
                if rest.starts_with(|c: char| is_name_start(c) || "/!?".contains(c)) {
                    return true;
                }
                out.push('<');
                if depth < MAX_REPARSE_DEPTH {
                    return collect_text(rest, out, depth + 1);
                }
                out.push_str(rest);
                return false;
            }
        }
    }
}

/// Reads the inside of a bogus tag (`< b and c</p`) again as text.
fn reparse(swallowed: &str, out: &mut String, depth: usize) {
    let ended_in_tag = if depth < MAX_REPARSE_DEPTH {
        collect_text(swallowed, out, depth + 1)
    } else {
        out.push_str(swallowed);
        false
    };
    // The `>` the reader consumed closed either a real tag inside the
    // swallowed text (`</p>`) or nothing (`a < b > c`): then it is text.
    if !ended_in_tag {
        out.push('>');
    }
}

fn push_reference(reference: &BytesRef<'_>, out: &mut String) {
    let name: &str = reference;
    if reference.is_char_ref() {
        match reference.resolve_char_ref() {
            Ok(Some(c)) => out.push(c),
            _ => out.push_str(&format!("&{name};")),
        }
        return;
    }
    let resolved = quick_xml::escape::resolve_xml_entity(name).or(match name {
        // HTML entities that publishers put in titles; anything rarer is
        // left as written rather than guessed.
        "nbsp" | "ensp" | "emsp" | "thinsp" => Some(" "),
        "ndash" => Some("–"),
        "mdash" => Some("—"),
        "hellip" => Some("…"),
        _ => None,
    });
    match resolved {
        Some(text) => out.push_str(text),
        None => out.push_str(&format!("&{name};")),
    }
}

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == ':'
}

/// Elements inside a word or sentence (`H<sub>2</sub>O`, MathML) join their
/// text to the neighbours; any other element separates it by a space.
fn is_inline(qname: &str, local: &str) -> bool {
    const INLINE: &[&str] = &[
        "italic",
        "bold",
        "sub",
        "sup",
        "sc",
        "monospace",
        "underline",
        "overline",
        "strike",
        "roman",
        "sans-serif",
        "styled-content",
        "named-content",
        "inline-formula",
        "xref",
        "ext-link",
        "uri",
        "abbrev",
        "i",
        "b",
        "em",
        "strong",
        "u",
        "s",
        "small",
        "span",
        "a",
        "tt",
        "code",
        "font",
    ];
    qname.starts_with("mml:") || INLINE.contains(&local.to_ascii_lowercase().as_str())
}

/// "Abstract", "ABSTRACT", "Abstract:" and the like.
fn is_abstract_heading(text: &str) -> bool {
    let text = text.trim().trim_end_matches([':', '.']).trim();
    text.eq_ignore_ascii_case("abstract")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_stripping() {
        let cases = [
            ("<i>Fictional</i> H<sub>2</sub>O", "Fictional H2O"),
            (
                "<jats:title>ABSTRACT:</jats:title><jats:p>Kept.</jats:p>",
                "Kept.",
            ),
            (
                "<jats:sec><jats:title>Background</jats:title><jats:p>Kept too.</jats:p></jats:sec>",
                "Background Kept too.",
            ),
            ("<p>x < y and z</p>", "x < y and z"),
            ("<p>truncated <i", "truncated"),
            ("ends with <", "ends with <"),
            (
                "<p>a &nbsp;&#x3B1;&#946; &unknown; & b</p>",
                "a αβ &unknown; & b",
            ),
            ("<p>unclosed <i>italic</p> tail</b>", "unclosed italic tail"),
            ("<![CDATA[<raw>]]><!-- gone -->", "<raw>"),
            (
                "<mml:math><mml:mi>n</mml:mi><mml:mo>+</mml:mo><mml:mn>1</mml:mn></mml:math>",
                "n+1",
            ),
            ("", ""),
        ];
        for (markup, text) in cases {
            assert_eq!(strip_markup(markup), text, "{markup}");
        }
    }

    #[test]
    fn garbage_markup_does_not_panic() {
        for markup in [
            "<",
            ">",
            "&",
            "<<<<<<<<<<<<<<<<<<<<",
            "< < < < < < < < < < < < x",
            "</",
            "<?",
            "<!--",
            "<![CDATA[",
            "&#xFFFFFFFF;",
            "&#0;",
            "é<é>é</é>",
        ] {
            let _ = strip_markup(markup);
        }
    }
}
