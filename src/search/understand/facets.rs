//! Facets typed as words: "OSDI 2023" means the OSDI papers of 2023, not
//! works that contain the number 2023. A year ("from 2018": of that year),
//! or "since", "after" or "before" and a year, becomes a boost of that
//! year's works (a filter would drop what a loose phrase like "serving
//! 2024" still wants to see), and so does a word that names one of the
//! catalog's venues (or is another name of one: "Supercomputing" is SC),
//! and words that are one of its authors' full names ("Jiangsu Du
//! inference"), and so do words that are a section's name of two or more
//! words that is not a technique's ("memory efficient training"; the words
//! still count as words). Compiled, a boost scores its works on its own and
//! multiplies the scores of the words beside it (see `plan/scaled.rs`).
//! "Recent" (or "latest", "newest") is a boost of the catalog's newest
//! [`RECENT_YEARS`] years.

use crate::catalog::squash;
use crate::search::understand::filter::{Filter, YearRange};
use crate::search::understand::query::Node;

/// Years a word can name: older numbers are counts ("1024 GPUs").
const YEARS: std::ops::RangeInclusive<i64> = 1990..=2100;
/// How many of the newest years "recent" means: the catalog's newest year
/// and the two before it.
pub const RECENT_YEARS: i64 = 3;
/// An author's full name is this many words at most.
const MAX_NAME_WORDS: usize = 4;
/// A section's name is this many words at most.
const MAX_SECTION_WORDS: usize = 5;
/// Other one-word names of venues, as practitioners type them: a word here
/// names the venue when the catalog has it.
const VENUE_NAMES: &[(&str, &str)] = &[("supercomputing", "SC"), ("nips", "NeurIPS")];

/// What words can name as facets: the catalog's venues of one word, its
/// authors' full names, and its newest year ("recent").
#[derive(Clone, Copy)]
pub struct Known<'a> {
    /// Sections by squashed name (see `Catalog::named_sections`).
    pub sections: &'a [(String, String)],
    pub venues: &'a [String],
    pub authors: &'a [String],
    pub newest: Option<i64>,
}

/// The tree with years, words that name a venue or an author, and
/// "recent" (when the catalog's newest year is known) in runs of words
/// turned into boosts.
pub fn recognize(tree: Node, known: Known<'_>) -> Node {
    let recognize = |node| recognize(node, known);
    match tree {
        Node::Group(children) => Node::Group(run(children, known)),
        Node::Word { .. } => {
            let mut nodes = run(vec![tree], known);
            if nodes.len() == 1 {
                nodes.remove(0)
            } else {
                Node::Group(nodes)
            }
        }
        Node::And(children) => Node::And(children.into_iter().map(recognize).collect()),
        Node::Or(children) => Node::Or(children.into_iter().map(recognize).collect()),
        Node::Required(inner) => Node::Required(Box::new(recognize(*inner))),
        // "-2021" excludes the word as typed; a user who wants to exclude
        // the year writes `-year:2021`.
        other => other,
    }
}

fn run(children: Vec<Node>, known: Known<'_>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::with_capacity(children.len());
    for child in children {
        let Node::Word { text, column } = &child else {
            out.push(recognize(child, known));
            continue;
        };
        if let Some(newest) = known.newest.filter(|_| means_recent(text)) {
            out.push(Node::Boost {
                filter: Filter::Year(YearRange {
                    from: Some(newest - (RECENT_YEARS - 1)),
                    to: None,
                }),
                column: *column,
            });
            continue;
        }
        if let Some(venue) = venue(text, known.venues) {
            out.push(Node::Boost {
                filter: Filter::Venue(venue.clone()),
                column: *column,
            });
            continue;
        }
        if let Some((venue, year)) = venue_and_year(text, known.venues) {
            for filter in [Filter::Venue(venue.clone()), Filter::Year(year.into())] {
                out.push(Node::Boost {
                    filter,
                    column: *column,
                });
            }
            continue;
        }
        let after_venue = matches!(
            out.last(),
            Some(Node::Boost {
                filter: Filter::Venue(_),
                ..
            })
        );
        let Some(year) = year(text).or_else(|| short_year(text).filter(|_| after_venue)) else {
            out.push(child);
            name_author(&mut out, known.authors);
            name_section(&mut out, known.sections);
            continue;
        };
        // The word before may say which side of the year is meant.
        let side = match out.last() {
            Some(Node::Word { text, .. }) => Side::of(text),
            _ => None,
        };
        let (column, range) = match side {
            Some(side) => {
                let Some(Node::Word { column, .. }) = out.pop() else {
                    unreachable!("the last node was a word")
                };
                (column, side.range(year))
            }
            None => (*column, YearRange::from(year)),
        };
        out.push(Node::Boost {
            filter: Filter::Year(range),
            column,
        });
    }
    out
}

/// The catalog's venue that `word` names, by its name or another one.
fn venue<'a>(word: &str, venues: &'a [String]) -> Option<&'a String> {
    let name = VENUE_NAMES
        .iter()
        .find(|(other, _)| other.eq_ignore_ascii_case(word))
        .map_or(word, |(_, name)| name);
    venues.iter().find(|v| v.eq_ignore_ascii_case(name))
}

/// The last words of `out`, if they are one of `authors`' full names
/// (case aside), made a boost of that author's works.
fn name_author(out: &mut Vec<Node>, authors: &[String]) {
    let words = last_words(out, MAX_NAME_WORDS);
    for len in 2..=words.len() {
        let typed: Vec<&str> = words[..len].iter().rev().copied().collect();
        let typed = typed.join(" ");
        let Some(author) = authors.iter().find(|a| a.eq_ignore_ascii_case(&typed)) else {
            continue;
        };
        let mut column = 0;
        for _ in 0..len {
            if let Some(Node::Word { column: c, .. }) = out.pop() {
                column = c;
            }
        }
        out.push(Node::Boost {
            filter: Filter::Author(author.clone()),
            column,
        });
        return;
    }
}

/// The last words of `out`, if they are one of `sections`' names (case,
/// hyphens and "&" aside: "memory-efficient training"), followed by a boost
/// of that section's works. The words stay: "ICML memory efficient
/// training" also wants PipeDream-2BW, whose title they are, from another
/// section.
fn name_section(out: &mut Vec<Node>, sections: &[(String, String)]) {
    let words = last_words(out, MAX_SECTION_WORDS);
    let mut typed = String::new();
    for (len, word) in words.iter().enumerate() {
        typed.insert_str(0, &squash(word));
        let Some((_, name)) = sections.iter().find(|(squashed, _)| *squashed == typed) else {
            continue;
        };
        let Node::Word { column, .. } = out[out.len() - 1 - len] else {
            unreachable!("the last words are words")
        };
        out.push(Node::Boost {
            filter: Filter::Section(name.clone()),
            column,
        });
        return;
    }
}

/// The texts of the words that end `out`, last first, at most `max`.
fn last_words(out: &[Node], max: usize) -> Vec<&str> {
    (out.iter().rev())
        .map_while(|n| match n {
            Node::Word { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .take(max)
        .collect()
}

fn means_recent(word: &str) -> bool {
    ["recent", "latest", "newest"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(word))
}

fn year(word: &str) -> Option<i64> {
    let year: i64 = word.parse().ok()?;
    (word.len() == 4 && YEARS.contains(&year)).then_some(year)
}

/// A year as conferences shorten it, "23" or "'23": 2023. Only beside a
/// venue ("OSDI 23", "SC21"), since a number alone is more often a count.
fn short_year(word: &str) -> Option<i64> {
    let digits = word.trim_start_matches(['\'', '\u{2019}']);
    let year: i64 = digits.parse().ok()?;
    (digits.len() == 2 && digits.bytes().all(|b| b.is_ascii_digit())).then_some(2000 + year)
}

/// A venue and its year written as one word: "SC21", "OSDI'23",
/// "MLSys2023".
fn venue_and_year<'a>(word: &str, venues: &'a [String]) -> Option<(&'a String, i64)> {
    let at = word.find(|c: char| c.is_ascii_digit() || c == '\'' || c == '\u{2019}')?;
    let (name, rest) = word.split_at(at);
    let year = year(rest).or_else(|| short_year(rest))?;
    Some((venue(name, venues)?, year))
}

enum Side {
    /// "Papers from 2018" are papers of 2018.
    Of,
    Since,
    After,
    Before,
}

impl Side {
    fn of(word: &str) -> Option<Side> {
        match word.to_lowercase().as_str() {
            "from" => Some(Side::Of),
            "since" => Some(Side::Since),
            "after" => Some(Side::After),
            "before" | "until" => Some(Side::Before),
            _ => None,
        }
    }

    fn range(&self, year: i64) -> YearRange {
        let (from, to) = match self {
            Side::Of => return YearRange::from(year),
            Side::Since => (Some(year), None),
            Side::After => (Some(year + 1), None),
            Side::Before => (None, Some(year - 1)),
        };
        YearRange { from, to }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::understand::query;

    fn understood(text: &str) -> String {
        let venues = ["OSDI".to_string(), "MLSys".to_string(), "SC".to_string()];
        let authors = ["Quin Blorpwell".to_string()];
        let sections = [(
            "zintefficientblorping".to_string(),
            "Zint-Efficient Blorping".to_string(),
        )];
        let known = Known {
            sections: &sections,
            venues: &venues,
            authors: &authors,
            newest: Some(2024),
        };
        recognize(query::parse(text).unwrap().root, known).to_string()
    }

    #[test]
    fn a_sections_name_typed_as_words_is_a_boost_beside_them() {
        assert_eq!(
            understood("zint efficient blorping -offload"),
            "(zint efficient blorping ~section:\"Zint-Efficient Blorping\" NOT offload)"
        );
        assert_eq!(
            understood("MLSys zint-efficient blorping"),
            "(~venue:\"MLSys\" zint-efficient blorping ~section:\"Zint-Efficient Blorping\")"
        );
        // Part of the name is only words.
        assert_eq!(understood("efficient blorping"), "(efficient blorping)");
    }

    #[test]
    fn a_venue_typed_as_a_word_is_a_boost() {
        assert_eq!(understood("osdi 2023"), "(~venue:\"OSDI\" ~year:\"2023\")");
        assert_eq!(understood("MLSys papers"), "(~venue:\"MLSys\" papers)");
        assert_eq!(
            understood("Supercomputing 2021"),
            "(~venue:\"SC\" ~year:\"2021\")"
        );
        // A year as conferences shorten it, beside or glued to a venue.
        assert_eq!(understood("osdi 23"), "(~venue:\"OSDI\" ~year:\"2023\")");
        assert_eq!(understood("SC21"), "(~venue:\"SC\" ~year:\"2021\")");
        assert_eq!(
            understood("OSDI'23 serving"),
            "(~venue:\"OSDI\" ~year:\"2023\" serving)"
        );
        assert_eq!(understood("MLSys2020"), "(~venue:\"MLSys\" ~year:\"2020\")");
        // Alone, two digits are a number, and a word with digits is a word.
        assert_eq!(understood("top 23"), "(top 23)");
        assert_eq!(understood("GPT3"), "GPT3");
        // Another name of a venue the catalog does not have is a word.
        assert_eq!(understood("NIPS"), "NIPS");
        // A phrase is the user's own words; a venue not in the catalog is a word.
        assert_eq!(understood("\"osdi\" SOSP"), "(\"osdi\" SOSP)");
    }

    #[test]
    fn a_year_typed_as_a_word_is_a_boost() {
        assert_eq!(understood("EuroSys 2023"), "(EuroSys ~year:\"2023\")");
        assert_eq!(understood("2021"), "~year:\"2021\"");
    }

    #[test]
    fn since_after_and_before_open_the_range() {
        assert_eq!(
            understood("serving since 2023"),
            "(serving ~year:\"2023..\")"
        );
        assert_eq!(understood("moe after 2021"), "(moe ~year:\"2022..\")");
        // "From" a year is of that year, as "papers from 2018" are.
        assert_eq!(understood("papers from 2018"), "(papers ~year:\"2018\")");
        assert_eq!(
            understood("before 2020 pipeline"),
            "(~year:\"..2019\" pipeline)"
        );
    }

    #[test]
    fn recent_is_the_newest_years() {
        assert_eq!(
            understood("recent work on MoE"),
            "(~year:\"2022..\" work on MoE)"
        );
        assert_eq!(understood("latest"), "~year:\"2022..\"");
        assert_eq!(understood("\"recent\" advances"), "(\"recent\" advances)");
    }

    #[test]
    fn an_authors_full_name_is_a_boost() {
        assert_eq!(
            understood("quin blorpwell inference"),
            "(~author:\"Quin Blorpwell\" inference)"
        );
        // A surname alone is a word, searched in the authors' names too.
        assert_eq!(understood("blorpwell inference"), "(blorpwell inference)");
        assert_eq!(understood("Quin Blorpwell"), "(~author:\"Quin Blorpwell\")");
    }

    #[test]
    fn counts_phrases_and_exclusions_stay_words() {
        assert_eq!(understood("1024 GPUs"), "(1024 GPUs)");
        assert_eq!(understood("\"MLSys 2023\""), "\"MLSys 2023\"");
        assert_eq!(understood("moe -2021"), "(moe NOT 2021)");
        assert_eq!(understood("20231"), "20231");
    }
}
