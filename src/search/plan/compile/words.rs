//! Words and technique names: each word sought in every text field with its
//! weight, adjacent words also as one ("all reduce" as "allreduce"), and a
//! technique's name expanded to its tag and its other names.

use std::collections::HashSet;

use tantivy::Term;
use tantivy::query::{BooleanQuery, BoostQuery, ConstScoreQuery, Occur, PhraseQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::TextAnalyzer;

use super::{Compilation, Expansion, Mode, Q, enumeration};
use crate::analysis::{self, terms_with_positions};
use crate::catalog::name_phrases;
use crate::catalog::{Tag, squash};
use crate::ident;
use crate::index::{Fields, identifier_query};
use crate::search::plan::labelled::Labelled;
use crate::search::plan::named_in_title::NamedInTitle;
use crate::search::signals;

/// About what BM25 gives a word found in one document of a thousand.
pub(super) const IDENTIFIER_SCORE: f32 = 7.0;

/// Which analyzer a field's text goes through.
#[derive(Clone, Copy)]
enum Analyzer {
    English,
    Names,
}

/// Whether the text was quoted by the user.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Quoting {
    Quoted,
    Plain,
}

impl Compilation<'_> {
    /// A run of plain words (already spelt right): the longest technique
    /// names first, then each remaining word, plus each adjacent pair
    /// written together.
    pub(super) fn words(&mut self, run: &[&str], clauses: &mut Vec<(Occur, Q)>) {
        self.work_name(run, clauses);
        self.initials(run, clauses);
        let mut i = 0;
        let mut plain: Vec<&str> = Vec::new();
        // Every word outside a technique's name, for names told in other words.
        let mut loose: Vec<&str> = Vec::new();
        let completed = enumeration::completed(self.cx.synonyms, run);
        while i < run.len() {
            // A technique's name, or an item of an enumeration completed to
            // one ("tensor" of "data, tensor and pipeline parallelism").
            let named = match completed.iter().find(|c| c.at == i) {
                Some(item) => Some((item.name.clone(), item.tag, 1)),
                None => self
                    .cx
                    .synonyms
                    .longest_at(run, i)
                    .map(|(len, tag)| (run[i..i + len].join(" "), tag, len)),
            };
            if let Some((span, tag, len)) = named {
                // The technique alone asks for its works, first of all
                // its reference works (see `reference_works`).
                let alone = len == run.len();
                let parts = self.concept(&span, tag, Quoting::Plain, alone);
                clauses.extend(parts.into_iter().map(|q| (Occur::Should, q)));
                // The words still count on their own: "pipeline bubble" is
                // about bubbles, not any pipeline work.
                let typed = &run[i..i + len];
                if len > 1 || squash(typed[0]) != squash(&span) {
                    for word in typed {
                        let parts = self.text_parts(word.trim_end_matches(','), Quoting::Plain);
                        clauses.extend(parts.into_iter().map(|q| (Occur::Should, q)));
                    }
                }
                self.pairs(&plain, clauses);
                plain.clear();
                i += len;
                continue;
            }
            let word = run[i];
            i += 1;
            if word.is_empty() {
                continue;
            }
            if terms_with_positions(&mut self.english, word).is_empty()
                && terms_with_positions(&mut self.names, word).is_empty()
            {
                self.ignored.push(word.to_string());
                continue;
            }
            let scale = if run.len() > 1 && self.is_stop_word(word) {
                self.cx.boosts.stop_word
            } else {
                1.0
            };
            let parts = self.scaled_text_parts(word, Quoting::Plain, scale);
            clauses.extend(parts.into_iter().map(|q| (Occur::Should, q)));
            self.word_pieces(word, scale, clauses);
            plain.push(word);
            loose.push(word);
        }
        self.pairs(&plain, clauses);
        self.scattered(run, &loose, clauses);
    }

    /// A quoted phrase: a technique's name, or words sought side by side
    /// (in abstracts too).
    pub(super) fn phrase(&mut self, text: &str) -> Vec<Q> {
        match self.cx.synonyms.lookup(text) {
            Some(tag) => self.concept(text, tag, Quoting::Quoted, false),
            None => self.text_parts(text, Quoting::Quoted),
        }
    }

    /// The pieces of a hyphenated word, each also sought alone, for less:
    /// "million-token" is sought side by side, and a note that says
    /// "millions of tokens" holds its words but not that phrase.
    fn word_pieces(&mut self, word: &str, scale: f32, clauses: &mut Vec<(Occur, Q)>) {
        let weight = self.cx.boosts.word_piece;
        let pieces = terms_with_positions(&mut self.names, word);
        if weight == 0.0 || pieces.len() < 2 {
            return;
        }
        for (_, piece) in pieces {
            if self.is_stop_word(&piece) {
                continue;
            }
            let parts = self.scaled_text_parts(&piece, Quoting::Plain, scale * weight);
            clauses.extend(parts.into_iter().map(|q| (Occur::Should, q)));
        }
    }

    fn pairs(&mut self, words: &[&str], clauses: &mut Vec<(Occur, Q)>) {
        if self.mode == Mode::Phrases {
            return;
        }
        for pair in words.windows(2) {
            let joined = format!("{}{}", squash(pair[0]), squash(pair[1]));
            if !joined.is_empty() {
                let b = self.cx.boosts;
                let weight = if pair.iter().any(|w| self.is_stop_word(w)) {
                    b.joined * b.stop_word
                } else {
                    b.joined
                };
                let query = term_query(self.cx.fields.joined, &joined);
                let boosted = Box::new(BoostQuery::new(query, weight));
                let label = weight_label(&signals::JOINED.label(&joined), weight);
                clauses.push((Occur::Should, Labelled::boxed(label, boosted)));
                self.scoring = true;
            }
        }
    }

    /// A technique: the words as typed, the entries tagged with it, and its
    /// other names in the text. Returned as side-by-side alternatives: a sum
    /// of scores whether nested or not, and only flat term queries can be
    /// pruned.
    fn concept(&mut self, span: &str, tag: &Tag, quoting: Quoting, alone: bool) -> Vec<Q> {
        let mut alternatives: Vec<Q> = self.text_parts(span, quoting);
        if self.mode != Mode::Phrases {
            let (f, b) = (self.cx.fields, self.cx.boosts);
            // When no work is about the technique, the works that use it
            // are the best there are ("shared key-value heads": the one
            // work using multi-query attention, not any work on decoding).
            let about = Term::from_field_text(f.tags, &tag.id);
            let uses = match self.cx.searcher.doc_freq(&about) {
                Ok(0) => b.tag,
                _ => b.uses,
            };
            for (field, weight, shown) in [
                (f.tags, b.tag, signals::TAG.shown),
                (f.uses, uses, signals::USES.shown),
                (f.predicted, b.predicted, signals::PREDICTED.shown),
            ] {
                alternatives.push(self.tagged(field, &tag.id, weight, shown, ""));
            }
            // Asked for code, a project that uses a technique supports it:
            // it counts as tagged.
            if self.code_asked && b.tag > uses {
                let supports = self.tagged(f.uses, &tag.id, b.tag - uses, "supports {}", "");
                let project = term_query(f.kind, "project");
                alternatives.push(Box::new(BooleanQuery::new(vec![
                    (Occur::Must, supports),
                    (Occur::Must, Box::new(ConstScoreQuery::new(project, 0.0))),
                ])));
            }
            alternatives.extend(self.narrower_kinds(tag, 1.0, ""));
            if alone {
                alternatives.extend(self.reference_works(&tag.id));
            }
        }
        let typed = squash(span);
        // Names that analyze alike ("recomputation", "recompute") are one
        // name to the index: sought once, not counted twice.
        let mut sought = HashSet::from([analysis::terms(&mut self.english, span)]);
        let mut others = Vec::new();
        for name in tag.names().filter(|n| squash(n) != typed && *n != tag.id) {
            if others.len() == 8 {
                break;
            }
            if !sought.insert(analysis::terms(&mut self.english, name)) {
                continue;
            }
            alternatives.extend(self.synonym_text(name));
            others.push(name.to_string());
        }
        self.expansions.push(Expansion {
            span: span.to_string(),
            tag: tag.id.clone(),
            others,
        });
        self.scoring = true;
        alternatives
    }

    /// Another name of a technique: sought in the short curated fields only.
    /// A technique has up to a dozen names, and phrase queries for each over
    /// every abstract of a large corpus would dominate the query's cost.
    fn synonym_text(&mut self, name: &str) -> Vec<Q> {
        let (b, f) = (self.cx.boosts, self.cx.fields);
        let s = b.synonym_text;
        let curated = [
            (f.title, b.title * s),
            (f.tag_text, b.tag_text * s),
            (f.note, b.note * s),
        ];
        self.in_fields(Analyzer::English, &curated, name, Quoting::Plain)
    }

    /// `text` sought in each of `fields` with its weight.
    fn in_fields(
        &mut self,
        analyzer: Analyzer,
        fields: &[(Field, f32)],
        text: &str,
        quoting: Quoting,
    ) -> Vec<Q> {
        fields
            .iter()
            .flat_map(|&(field, weight)| self.weighted(analyzer, field, text, weight, quoting))
            .collect()
    }

    /// Whether `word` is one English stop word ("by", "only"; not
    /// "all-to-all", which is made of them).
    pub(super) fn is_stop_word(&mut self, word: &str) -> bool {
        terms_with_positions(&mut self.names, word).len() == 1
            && analysis::terms(&mut self.content, word).is_empty()
    }

    /// The per-field queries of `text`. Kept flat (boosted term queries side
    /// by side, not nested under a max) so that tantivy can skip blocks of
    /// documents that cannot reach the top k (block-max WAND).
    pub(super) fn text_parts(&mut self, text: &str, quoting: Quoting) -> Vec<Q> {
        self.scaled_text_parts(text, quoting, 1.0)
    }

    /// [`Self::text_parts`] with every text weight times `scale`.
    fn scaled_text_parts(&mut self, text: &str, quoting: Quoting, scale: f32) -> Vec<Q> {
        let (b, f) = (self.cx.boosts.scaled(scale), self.cx.fields);
        let prose = [
            (f.title, b.title),
            (f.tag_text, b.tag_text),
            (f.note, b.note),
            (f.abstract_text, b.abstract_text),
        ];
        let names = [
            (f.authors, b.authors),
            (f.venue, b.venue),
            (f.owner, b.owner),
        ];
        let mut per_field = self.in_fields(Analyzer::English, &prose, text, quoting);
        if !self.excluding {
            let described = [(f.tag_description, b.tag_description)];
            per_field.extend(self.in_fields(Analyzer::English, &described, text, quoting));
        }
        per_field.extend(self.in_fields(Analyzer::Names, &names, text, quoting));
        // "all-reduce" also finds "allreduce" written as one word.
        let joined = squash(text);
        if terms_with_positions(&mut self.names, text).len() > 1 {
            let written = [
                (f.title, b.title),
                (f.note, b.note),
                (f.abstract_text, b.abstract_text),
            ];
            per_field.extend(self.in_fields(Analyzer::English, &written, &joined, quoting));
        }
        if !joined.is_empty() && self.mode != Mode::Phrases {
            let q = Box::new(BoostQuery::new(term_query(f.joined, &joined), b.joined));
            let label = weight_label(&signals::JOINED.label(&joined), b.joined);
            per_field.push(Labelled::boxed(label, q));
        }
        if self.mode != Mode::Phrases
            && let Some(q) = identifier_queries(f, text.trim(), b.identifier)
        {
            per_field.push(Labelled::boxed(signals::IDENTIFIER.label(text.trim()), q));
        }
        if !per_field.is_empty() {
            self.scoring = true;
        }
        per_field
    }

    /// The terms of `text` in `field`, weighted: a term query, or a phrase
    /// for several terms, or nothing where this mode leaves it out.
    fn weighted(
        &mut self,
        analyzer: Analyzer,
        field: Field,
        text: &str,
        weight: f32,
        quoting: Quoting,
    ) -> Vec<Q> {
        let analyzer = match analyzer {
            Analyzer::English => &mut self.english,
            Analyzer::Names => &mut self.names,
        };
        let terms = terms_with_positions(analyzer, text);
        let phrase = terms.len() > 1;
        // Words typed side by side are sought side by side in titles, tags
        // and notes. In abstracts only a quoted phrase is: there their words
        // count alone, and phrases over a large corpus's abstracts would
        // cost more than the rest of the query.
        if phrase && field == self.cx.fields.abstract_text && quoting == Quoting::Plain {
            return Vec::new();
        }
        match self.mode {
            Mode::Terms if phrase => return Vec::new(),
            Mode::Phrases if !phrase => return Vec::new(),
            _ => self.phrases |= phrase,
        }
        // A vocabulary name in titles is sought by its marker (see
        // `named_in_title`), which matches and scores as its phrase does.
        let f = self.cx.fields;
        let marker = (phrase && field == f.title)
            .then(|| name_phrases::marker(&terms))
            .filter(|m| self.cx.synonyms.vocabulary().name_phrases().marks(m))
            .map(|m| Term::from_field_text(f.title_names, &m));
        let query_of_terms = |field, terms| match marker {
            Some(marker) => Some(named_in_title(field, terms, marker)),
            None => query_of_terms(field, terms),
        };
        if self.mode == Mode::Matching {
            // Bare, unscored: for `implied` to read its terms.
            return query_of_terms(field, terms).into_iter().collect();
        }
        let label = {
            let words: Vec<&str> = terms.iter().map(|(_, t)| t.as_str()).collect();
            let name = self.cx.searcher.schema().get_field_name(field);
            let shown = if phrase {
                format!("{name}: \"{}\"", words.join(" "))
            } else {
                format!("{name}: {}", words.join(" "))
            };
            weight_label(&shown, weight)
        };
        query_of_terms(field, terms)
            .map(|q| Labelled::boxed(label, Box::new(BoostQuery::new(q, weight))))
            .into_iter()
            .collect()
    }
}

/// What a clause matched, and its weight when it is not 1.
pub(super) fn weight_label(what: &str, weight: f32) -> String {
    if weight == 1.0 {
        what.to_string()
    } else {
        // Two decimals say it; a raised tag's weight has more.
        format!("{what} ×{}", (weight * 100.0).round() / 100.0)
    }
}

/// An arXiv id or a DOI, found by its key. It names one work, so it scores
/// as the best match of a rare word would.
fn identifier_queries(f: &Fields, text: &str, weight: f32) -> Option<Q> {
    let (field, value) = if ident::is_arxiv_id(ident::strip_version(text)) {
        (f.arxiv_key, ident::strip_version(text).to_string())
    } else if ident::is_doi(&text.to_lowercase()) {
        (f.doi_key, text.to_lowercase())
    } else {
        return None;
    };
    Some(Box::new(ConstScoreQuery::new(
        identifier_query(field, &value),
        weight * IDENTIFIER_SCORE,
    )))
}

pub(super) fn term_query(field: Field, text: &str) -> Q {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::WithFreqs,
    ))
}

/// The terms of `text` in one field: a term query, or a phrase for several.
pub(super) fn field_query(analyzer: &mut TextAnalyzer, field: Field, text: &str) -> Option<Q> {
    query_of_terms(field, terms_with_positions(analyzer, text))
}

fn query_of_terms(field: Field, terms: Vec<(usize, String)>) -> Option<Q> {
    match terms.len() {
        0 => None,
        1 => Some(term_query(field, &terms[0].1)),
        _ => Some(Box::new(PhraseQuery::new_with_offset(offset_terms(
            field, terms,
        )))),
    }
}

/// A phrase's terms in `field`, each with its distance from the first.
fn offset_terms(field: Field, terms: Vec<(usize, String)>) -> Vec<(usize, Term)> {
    let first = terms.first().map_or(0, |(p, _)| *p);
    (terms.into_iter())
        .map(|(p, t)| (p - first, Term::from_field_text(field, &t)))
        .collect()
}

fn named_in_title(field: Field, terms: Vec<(usize, String)>, marker: Term) -> Q {
    Box::new(NamedInTitle::new(offset_terms(field, terms), marker))
}
