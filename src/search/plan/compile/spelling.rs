//! Spelling repair, before compiling: each word that no field knows is
//! replaced by the closest indexed word (see `spell`), except inside a
//! technique's name, so that a misspelt name ("gradient checkpointng") is
//! still recognized once its other words are repaired.

use std::collections::HashMap;

use tantivy::Term;
use tantivy::schema::Field;
use tantivy::tokenizer::TextAnalyzer;

use super::Context;
use crate::analysis::{self, terms_with_positions};
use crate::catalog::squash;
use crate::ident;
use crate::search::understand::query::Node;
use crate::search::understand::spell;

/// A misspelt name split in two is sought whole from this many letters:
/// fewer would find short words in pairs of shorter ones.
const SPLIT_NAME_MIN_CHARS: usize = 7;

/// Names shorter than this, cased as names are, are never repaired.
const SHORT_NAME_CHARS: usize = 6;

/// Whether a word is a short name by its case ("vLLM", "cuDNN": a capital
/// after a small letter). One edit away from such a name is another word
/// ("vLLM" is not "LLM"): unknown, it names a work the catalog lacks.
pub fn a_short_name(word: &str) -> bool {
    word.chars().count() < SHORT_NAME_CHARS
        && (word.chars().zip(word.chars().skip(1)))
            .any(|(a, b)| a.is_lowercase() && b.is_uppercase())
}

/// A typed word and the word searched instead.
pub type Correction = (String, String);

/// Words this long are also repaired to a spelling joined across a hyphen
/// or space (the `joined` field); shorter ones would find pairs of small
/// words there ("ofthe").
const GLUED_MIN_CHARS: usize = 10;

/// The tree with its words repaired, and the repairs made (each word once).
pub fn repair_spelling(cx: &Context<'_>, tree: &Node) -> (Node, Vec<Correction>) {
    let mut speller = Speller {
        cx,
        english: analysis::english(),
        names: analysis::names(),
        repairs: HashMap::new(),
        indexed: HashMap::new(),
        corrections: Vec::new(),
    };
    let tree = speller.node(tree);
    (tree, speller.corrections)
}

struct Speller<'c> {
    cx: &'c Context<'c>,
    english: TextAnalyzer,
    names: TextAnalyzer,
    /// Words already looked up, so that a repeated word is looked up once.
    repairs: HashMap<String, String>,
    /// Words already looked up in the index (see `in_index`).
    indexed: HashMap<String, bool>,
    corrections: Vec<Correction>,
}

impl Speller<'_> {
    fn node(&mut self, node: &Node) -> Node {
        match node {
            Node::Word { .. } => self.children(std::slice::from_ref(node)).remove(0),
            Node::Group(children) => Node::Group(self.children(children)),
            Node::And(children) => Node::And(children.iter().map(|c| self.node(c)).collect()),
            Node::Or(children) => Node::Or(children.iter().map(|c| self.node(c)).collect()),
            Node::Not(inner) => Node::Not(Box::new(self.node(inner))),
            Node::Required(inner) => Node::Required(Box::new(self.node(inner))),
            Node::Phrase { .. }
            | Node::Filter { .. }
            | Node::Title { .. }
            | Node::Boost { .. }
            | Node::All => node.clone(),
        }
    }

    /// Terms side by side: each run of plain words is repaired as a run.
    fn children(&mut self, children: &[Node]) -> Vec<Node> {
        let mut out = Vec::with_capacity(children.len());
        let mut i = 0;
        while i < children.len() {
            let run = children[i..]
                .iter()
                .take_while(|c| matches!(c, Node::Word { .. }))
                .count();
            if run == 0 {
                out.push(self.node(&children[i]));
                i += 1;
                continue;
            }
            out.extend(self.run(&children[i..i + run]));
            i += run;
        }
        out
    }

    /// Words outside a technique's name, repaired.
    fn run(&mut self, words: &[Node]) -> Vec<Node> {
        let texts: Vec<&str> = words
            .iter()
            .map(|w| match w {
                Node::Word { text, .. } => text.as_str(),
                _ => "",
            })
            .collect();
        let mut out = Vec::with_capacity(words.len());
        let mut i = 0;
        while i < words.len() {
            if let Some((len, _)) = self.cx.synonyms.longest_at(&texts, i) {
                out.extend_from_slice(&words[i..i + len]);
                i += len;
                continue;
            }
            if let Some(joined) = self
                .split_word(&texts, i)
                .or_else(|| self.split_misspelt_name(&texts, i))
            {
                let Node::Word { column, .. } = &words[i] else {
                    unreachable!("split_word joins words only")
                };
                out.push(Node::Word {
                    text: joined,
                    column: *column,
                });
                i += 2;
                continue;
            }
            if let Node::Word { text, column } = &words[i] {
                out.push(Node::Word {
                    text: self.repair(text),
                    column: *column,
                });
            }
            i += 1;
        }
        out
    }

    /// The word itself when any field knows it, else the closest known word.
    fn repair(&mut self, word: &str) -> String {
        if let Some(repaired) = self.repairs.get(word) {
            return repaired.clone();
        }
        let repaired = if self.is_known(word) {
            word.to_string()
        } else if word.contains('-') {
            // "megatorn-lm": each part on its own, as none is known whole.
            (word.split('-'))
                .map(|part| self.repair(part))
                .collect::<Vec<_>>()
                .join("-")
        } else {
            self.closest(word)
        };
        self.repairs.insert(word.to_string(), repaired.clone());
        repaired
    }

    /// A word split in two ("mega tron"): the two at `i` written together,
    /// when the index knows them together but not both apart.
    fn split_word(&mut self, texts: &[&str], i: usize) -> Option<String> {
        let (first, second) = (texts[i], *texts.get(i + 1)?);
        let plain = |w: &str| !w.is_empty() && w.chars().all(char::is_alphanumeric);
        if !plain(first) || !plain(second) {
            return None;
        }
        if self.in_index(first) && self.in_index(second) {
            return None;
        }
        let joined = format!("{first}{second}");
        if !self.in_index(&joined) {
            return None;
        }
        (self.corrections).push((format!("{first} {second}"), joined.clone()));
        Some(joined)
    }

    /// A name split in two and misspelt ("fastr moe"): the two
    /// at `i`, one of them unknown, written together and repaired to a word
    /// of the typo dictionary, which then explains both.
    fn split_misspelt_name(&mut self, texts: &[&str], i: usize) -> Option<String> {
        let (first, second) = (texts[i], *texts.get(i + 1)?);
        let plain = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric());
        if !plain(first) || !plain(second) || (self.is_known(first) && self.is_known(second)) {
            return None;
        }
        let joined = format!("{first}{second}").to_lowercase();
        if joined.len() < SPLIT_NAME_MIN_CHARS {
            return None;
        }
        let (searcher, words) = (self.cx.searcher, self.cx.fields.words);
        let fixed = spell::correct(searcher, &[words], &joined, |_| 0)?;
        // A repair that one word alone comes close to ("compresion 2" to
        // compression, "tensor vs" to tensors) leaves the other out.
        let near = |word: &str| strsim::damerau_levenshtein(&fixed, &word.to_lowercase()) <= 2;
        if near(first) || near(second) {
            return None;
        }
        (self.corrections).push((format!("{first} {second}"), fixed.clone()));
        Some(fixed)
    }

    /// Whether some field holds every term of the word, or it is not a word
    /// to repair (an identifier, a symbol, a technique's name, English).
    fn is_known(&mut self, word: &str) -> bool {
        self.in_index(word)
            || ident::is_arxiv_id(word)
            || terms_with_positions(&mut self.names, word).is_empty()
            || self.cx.synonyms.lookup(word).is_some()
            || !self.cx.works_by_initials(word).is_empty()
            || a_short_name(word)
            // An English word is what the user meant, even if no work
            // uses it: "pipelining" must not become "pipeline".
            || wordnik_list::word_exists(&word.to_lowercase())
    }

    /// Whether some field of the index holds every term of the word; each
    /// word looked up once (`split_word` asks of a word before `repair`).
    fn in_index(&mut self, word: &str) -> bool {
        if let Some(&known) = self.indexed.get(word) {
            return known;
        }
        let known = self.look_up(word);
        self.indexed.insert(word.to_string(), known);
        known
    }

    fn look_up(&mut self, word: &str) -> bool {
        let (searcher, f) = (self.cx.searcher, self.cx.fields);
        let terms = |analyzer: &mut TextAnalyzer| -> Vec<String> {
            terms_with_positions(analyzer, word)
                .into_iter()
                .map(|(_, t)| t)
                .collect()
        };
        let (english, names) = (terms(&mut self.english), terms(&mut self.names));
        let in_field = |field: Field, terms: &[String]| {
            !terms.is_empty()
                && terms
                    .iter()
                    .all(|t| doc_freq(searcher, Term::from_field_text(field, t)) > 0)
        };
        [f.title, f.note, f.abstract_text, f.tag_text]
            .into_iter()
            .any(|field| in_field(field, &english))
            || [f.authors, f.venue, f.owner]
                .into_iter()
                .any(|field| in_field(field, &names))
            || doc_freq(searcher, Term::from_field_text(f.joined, &squash(word))) > 0
    }

    /// The closest word of the typo dictionaries, or the word itself when
    /// none is close enough.
    fn closest(&mut self, word: &str) -> String {
        let lower = word.to_lowercase();
        let (searcher, f) = (self.cx.searcher, self.cx.fields);
        let english = &mut self.english;
        // How many titles use the word, by its stem.
        let in_titles = |candidate: &str| {
            terms_with_positions(english, candidate)
                .first()
                .map_or(0, |(_, stem)| {
                    doc_freq(searcher, Term::from_field_text(f.title, stem))
                })
        };
        // A long word may be a name written together and misspelt
        // ("autoparalellization"): the spellings joined across a hyphen
        // or space are a dictionary too.
        let dictionaries: &[_] = if lower.chars().count() >= GLUED_MIN_CHARS {
            &[f.words, f.authors, f.joined]
        } else {
            &[f.words, f.authors]
        };
        let fix = spell::correct(searcher, dictionaries, &lower, in_titles);
        // An acronym typed in capitals is meant as one: "GEMM" must not
        // become "gems". It is repaired only to an acronym of the vocabulary,
        // spelt as the vocabulary spells it ("NCLL" to NCCL).
        let fix = match fix {
            Some(fixed) if is_acronym(word) => self.vocabulary_acronym(&fixed),
            other => other,
        };
        match fix {
            Some(fixed) if fixed.to_lowercase() != lower => {
                self.corrections.push((word.to_string(), fixed.clone()));
                fixed
            }
            _ => word.to_string(),
        }
    }
}

impl Speller<'_> {
    /// The acronym by which the vocabulary names a technique, if `word`
    /// is one (case aside).
    fn vocabulary_acronym(&self, word: &str) -> Option<String> {
        let tag = self.cx.synonyms.lookup(word)?;
        (tag.names())
            .find(|name| is_acronym(name) && name.eq_ignore_ascii_case(word))
            .map(str::to_string)
    }
}

/// A word written in capitals: two or more letters, none of them lower
/// case (digits and hyphens allowed: "FP8", "PTD-P").
fn is_acronym(word: &str) -> bool {
    let letters = word.chars().filter(|c| c.is_alphabetic());
    letters.clone().count() >= 2 && letters.clone().all(char::is_uppercase)
}

fn doc_freq(searcher: &tantivy::Searcher, term: Term) -> u64 {
    searcher.doc_freq(&term).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::is_acronym;

    #[test]
    fn words_in_capitals_are_acronyms() {
        for word in ["GEMM", "NCCL", "FP8", "PTD-P"] {
            assert!(is_acronym(word), "{word}");
        }
        for word in ["ZeRO", "gemm", "Gemm", "A", "8"] {
            assert!(!is_acronym(word), "{word}");
        }
    }

    #[test]
    fn english_words_are_known_and_misspellings_are_not() {
        for word in ["pipelining", "bubble", "zero"] {
            assert!(wordnik_list::word_exists(word), "{word}");
        }
        for word in ["pipline", "megatorn", "checkpointng"] {
            assert!(!wordnik_list::word_exists(word), "{word}");
        }
    }
}
