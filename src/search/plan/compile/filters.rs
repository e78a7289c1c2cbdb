//! Filters resolved against the catalog and the index: a tag by any of its
//! names, a section by a prefix of its name, and errors that say what exists
//! when nothing matches. A filter selects without changing the ranking (a
//! tag also selects the records predicted to have it, which listings show
//! after the catalog's). `tag:` holds a work's primary tags and its `uses`;
//! `about:` its primary tags only (and predicted ones).

use std::ops::Bound;

use tantivy::Term;
use tantivy::query::{BooleanQuery, ConstScoreQuery, InvertedIndexRangeQuery, Occur, RangeQuery};

use super::tags::holding_tag;
use super::words::field_query;
use super::{Compilation, Context, Mode, Q};
use crate::catalog::{slugify, squash};
use crate::error::Error;
use crate::ident;
use crate::index::{exact_query, id_query, identifier_query, kind_query};
use crate::search::plan::scaled::Factor;
use crate::search::understand::filter::{Filter, Origin, YearRange};

impl Compilation<'_> {
    pub(super) fn filter(&mut self, filter: &Filter, origin: Origin) -> Result<Q, Error> {
        let query = self.selection(filter, origin)?;
        self.filtered = true;
        Ok(Box::new(ConstScoreQuery::new(query, 0.0)))
    }

    /// A facet typed as words: its matches score the facet's weight, as a
    /// term would (none in the phrases part).
    pub(super) fn boost(&mut self, filter: &Filter, column: usize) -> Result<Option<Q>, Error> {
        if self.mode == Mode::Phrases {
            return Ok(None);
        }
        let query = self.selection(filter, Origin::Column(column))?;
        self.scoring = true;
        let weight = match filter {
            Filter::Venue(_) => self.cx.boosts.venue_word,
            Filter::Author(_) => self.cx.boosts.author_word,
            Filter::Section(_) => self.cx.boosts.section_word,
            _ => self.cx.boosts.year,
        };
        Ok(Some(Box::new(ConstScoreQuery::new(query, weight))))
    }

    /// A facet typed as words, as a factor of the scores beside it: the
    /// same in every mode, so that the parts still sum to the exact score.
    /// A single year also raises, less, the works of the years beside it:
    /// "pipeline parallelism 2024" wants recent work, and a reader looking
    /// for "SC 2021" may remember the year wrong by one.
    pub(super) fn factors(&mut self, filter: &Filter, column: usize) -> Result<Vec<Factor>, Error> {
        let mut factors = vec![Factor {
            label: filter.to_string(),
            selection: self.selection(filter, Origin::Column(column))?,
            weight: match filter {
                Filter::Venue(_) => self.cx.boosts.venue_scale,
                Filter::Author(_) => self.cx.boosts.author_scale,
                Filter::Section(_) => self.cx.boosts.section_scale,
                _ => self.cx.boosts.year_scale,
            },
        }];
        let near = self.cx.boosts.year_near_scale;
        if let Filter::Year(YearRange {
            from: Some(from),
            to: Some(to),
        }) = filter
            && from == to
            && near > 0.0
        {
            let beside = Filter::Year(YearRange {
                from: Some(from - 1),
                to: Some(to + 1),
            });
            factors.push(Factor {
                label: beside.to_string(),
                selection: self.selection(&beside, Origin::Column(column))?,
                weight: near,
            });
        }
        Ok(factors)
    }

    /// The documents `filter` selects.
    fn selection(&mut self, filter: &Filter, origin: Origin) -> Result<Q, Error> {
        let (cx, f) = (self.cx, self.cx.fields);
        let bad = |what: &str| Error::Query(origin.problem(filter, what));
        if filter.value().is_empty() {
            return Err(bad("empty value"));
        }
        let query: Q = match filter {
            Filter::Tag(value) => {
                let tag = resolve_tag(cx, value).ok_or_else(|| bad(&tag_suggestions(cx, value)))?;
                holding_tag(f, &tag)
            }
            Filter::About(value) => {
                let tag = resolve_tag(cx, value).ok_or_else(|| bad(&tag_suggestions(cx, value)))?;
                Box::new(BooleanQuery::new(vec![
                    (Occur::Should, exact_query(f.tags, &tag)),
                    (Occur::Should, exact_query(f.predicted, &tag)),
                ]))
            }
            Filter::Section(value) => {
                let sections = matching_sections(cx, value);
                if sections.is_empty() {
                    return Err(bad(&format!(
                        "no such section (sections: {})",
                        cx.sections.join("; ")
                    )));
                }
                Box::new(BooleanQuery::new(
                    sections
                        .iter()
                        .map(|s| (Occur::Should, exact_query(f.section, s)))
                        .collect(),
                ))
            }
            Filter::Kind(kind) => kind_query(f, *kind),
            Filter::Year(years) => year_query(cx, *years),
            Filter::Author(value) => field_query(&mut self.names, f.authors, value)
                .ok_or_else(|| bad("no searchable words"))?,
            Filter::Venue(value) => field_query(&mut self.names, f.venue, value)
                .ok_or_else(|| bad("no searchable words"))?,
            Filter::Id(value) => id_query(f, value),
            Filter::Arxiv(value) => identifier_query(f.arxiv_key, ident::strip_version(value)),
            Filter::Doi(value) => identifier_query(f.doi_key, &value.to_lowercase()),
            Filter::Collection(collection) => exact_query(f.collection, collection.as_str()),
            // The column: each segment keeps its least and greatest stamp,
            // so the segments of records older than the bound (most of a
            // large index) are skipped whole, and the rest scanned.
            Filter::Added(after) => Box::new(RangeQuery::new(
                Bound::Excluded(Term::from_field_i64(f.added, *after)),
                Bound::Unbounded,
            )),
        };
        Ok(query)
    }

    /// `title:words`: the words as a phrase in titles, scored.
    pub(super) fn title(&mut self, text: &str, column: usize) -> Result<Q, Error> {
        self.scoring = true;
        field_query(&mut self.english, self.cx.fields.title, text).ok_or_else(|| {
            Error::Query(format!(
                "title:{text} at column {column}: no searchable words"
            ))
        })
    }
}

/// The year's postings, not its column: a range over a fast field scans
/// every document's year, where postings hold only the matches (1.5x faster
/// filtered searches at 1M).
fn year_query(cx: &Context<'_>, years: YearRange) -> Q {
    let bound = |y: Option<i64>| {
        y.map_or(Bound::Unbounded, |y| {
            Bound::Included(Term::from_field_i64(cx.fields.year, y))
        })
    };
    Box::new(InvertedIndexRangeQuery::new(
        bound(years.from),
        bound(years.to),
    ))
}

fn resolve_tag(cx: &Context<'_>, value: &str) -> Option<String> {
    if cx.synonyms.vocabulary().contains(value) {
        return Some(value.to_string());
    }
    cx.synonyms.lookup(value).map(|t| t.id.clone())
}

fn tag_suggestions(cx: &Context<'_>, value: &str) -> String {
    let key = squash(value);
    let mut close: Vec<(usize, &str)> = cx
        .synonyms
        .vocabulary()
        .tags
        .iter()
        .map(|t| (strsim::levenshtein(&key, &squash(&t.id)), t.id.as_str()))
        .collect();
    close.sort();
    let names: Vec<&str> = close.iter().take(3).map(|(_, id)| *id).collect();
    format!(
        "unknown tag (closest: {}; `distml-search stats` lists them all)",
        names.join(", ")
    )
}

/// The catalog's sections that the value names, else the imported records'
/// category it names.
fn matching_sections(cx: &Context<'_>, value: &str) -> Vec<String> {
    let sections = resolve_sections(cx.sections, value);
    if !sections.is_empty() {
        return sections;
    }
    imported_category(cx, value).into_iter().collect()
}

/// An imported record's section is its primary arXiv category: the value as
/// the index holds it ("cs.dc" is cs.DC), if any record has it.
fn imported_category(cx: &Context<'_>, value: &str) -> Option<String> {
    let canonical = match value.split_once('.') {
        Some((archive, subject)) => {
            format!("{}.{}", archive.to_lowercase(), subject.to_uppercase())
        }
        None => value.to_lowercase(),
    };
    [value.to_string(), canonical].into_iter().find(|c| {
        cx.searcher
            .doc_freq(&Term::from_field_text(cx.fields.section, c))
            .is_ok_and(|n| n > 0)
    })
}

/// Sections whose name is the value, else starts with it, else contains it.
fn resolve_sections(sections: &[String], value: &str) -> Vec<String> {
    let key = slugify(value);
    let slugs: Vec<(String, &String)> = sections.iter().map(|s| (slugify(s), s)).collect();
    let pick = |test: &dyn Fn(&str) -> bool| -> Vec<String> {
        slugs
            .iter()
            .filter(|(s, _)| test(s))
            .map(|(_, n)| (*n).clone())
            .collect()
    };
    let exact = pick(&|s| s == key);
    if !exact.is_empty() {
        return exact;
    }
    let prefix = pick(&|s| s.starts_with(&key));
    if !prefix.is_empty() {
        return prefix;
    }
    pick(&|s| s.contains(&key))
}

#[cfg(test)]
mod tests {
    use super::resolve_sections;

    #[test]
    fn a_section_is_named_exactly_else_by_its_start_else_by_a_part() {
        let sections: Vec<String> = ["Pipeline Parallelism", "Parallelism Survey", "Memory"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            resolve_sections(&sections, "memory"),
            ["Memory".to_string()]
        );
        assert_eq!(
            resolve_sections(&sections, "pipe"),
            ["Pipeline Parallelism".to_string()]
        );
        assert_eq!(
            resolve_sections(&sections, "parallelism"),
            ["Parallelism Survey".to_string()]
        );
        assert!(resolve_sections(&sections, "serving").is_empty());
    }
}
