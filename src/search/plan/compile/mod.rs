//! From a parsed query to a tantivy query, as a value: `compile(tree, mode)`
//! gives the query and what compiling it found (whether it scores, filters
//! or holds phrases; the techniques it expanded). Words are matched across
//! fields with their weights and technique names expanded (`words`), filters
//! resolved against the catalog (`filters`); spelling is repaired before, on
//! the tree (`spelling`).

mod enumeration;
mod filters;
mod implied;
mod names;
mod negation;
mod scattered;
mod spelling;
mod tags;
mod title_words;
mod words;

use tantivy::Searcher;
use tantivy::query::{AllQuery, BooleanQuery, EmptyQuery, Occur, Query};
use tantivy::tokenizer::TextAnalyzer;

pub use spelling::{a_short_name, repair_spelling};

use crate::analysis;
use crate::error::Error;
use crate::index::Fields;
use crate::search::plan::scaled::{Factor, Scaled};
use crate::search::plan::seek_union::SeekUnion;
use crate::search::signals::Boosts;
use crate::search::understand::intent;
use crate::search::understand::query::Node;
use crate::search::understand::synonyms::Synonyms;

type Q = Box<dyn Query>;

/// What a compilation reads: the index, the vocabulary and the weights.
pub struct Context<'a> {
    pub searcher: &'a Searcher,
    /// The generation's folder, where its vector files are (see
    /// `index::vector_file`).
    pub generation: &'a std::path::Path,
    /// What scores (see `statistics`): every scored search goes through it.
    pub statistics: &'a crate::search::statistics::Statistics,
    pub fields: &'a Fields,
    pub synonyms: &'a Synonyms<'a>,
    pub sections: &'a [String],
    /// Sections whose name query words may be (see `Catalog::named_sections`).
    pub named_sections: &'a [(String, String)],
    /// The catalog's venues of one word, which a query word may name.
    pub venues: &'a [String],
    /// The catalog's authors' full names, which query words may name.
    pub authors: &'a [String],
    /// Catalog entries by name (see `Catalog::work_names`).
    pub work_names: &'a [(String, String)],
    /// Catalog entries by their name's first word (see `Catalog::work_name_heads`).
    pub name_heads: &'a [(String, String)],
    /// Catalog entries by their titles' initials (see `Catalog::title_initials`).
    pub initials: &'a [(String, String)],
    /// (project, work) pairs (see `Catalog::project_members`).
    pub members: &'a [(String, String)],
    /// (tag, work) pairs (see `Catalog::reference_works`).
    pub references: &'a [(String, String)],
    /// The catalog's newest year (see `facets`).
    pub newest_year: Option<i64>,
    /// Per tag, per name, its content stems: analyzed at the first need,
    /// once for every mode the search compiles (see `scattered`).
    pub name_stems: std::sync::OnceLock<Vec<Vec<Vec<String>>>>,
    pub boosts: Boosts,
}

/// Below this many documents every match is scored exactly: it is fast, and
/// rankings are then exact by construction.
pub const TWO_PHASE_MIN_DOCS: u64 = 20_000;

impl Context<'_> {
    /// Whether the index is large enough (imported records beside the
    /// catalog) for a search to rank in two phases and for a clause that
    /// serves the catalog's few entries to cost more than it gives.
    pub fn large_index(&self) -> bool {
        self.searcher.num_docs() >= TWO_PHASE_MIN_DOCS
    }

    /// What query words can name as facets.
    pub fn known(&self) -> crate::search::understand::facets::Known<'_> {
        // A section's works are the catalog's few; on a large index the
        // facet would make every match of its words be scored (a
        // million-record index: 45 -> 110 ms), so there it is only words.
        crate::search::understand::facets::Known {
            sections: if self.large_index() {
                &[]
            } else {
                self.named_sections
            },
            venues: self.venues,
            authors: self.authors,
            newest: self.newest_year,
        }
    }

    /// The works whose titles' initials `word` is, case aside ("DTR"),
    /// unless it is an English word or a technique's name, which it means
    /// instead.
    pub fn works_by_initials(&self, word: &str) -> Vec<&str> {
        let typed = crate::catalog::squash(word);
        let works: Vec<&str> = (self.initials.iter())
            .filter(|(initials, _)| *initials == typed)
            .map(|(_, id)| id.as_str())
            .collect();
        let meant_otherwise = || {
            wordnik_list::word_exists(&word.to_lowercase()) || self.synonyms.lookup(word).is_some()
        };
        if works.is_empty() || meant_otherwise() {
            return Vec::new();
        }
        works
    }
}

/// What the compiled query is for (see `two_phase`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Matches and scores exactly, walking every match.
    Exhaustive,
    /// The term queries of `Exhaustive` only, which tantivy can prune
    /// (block-max WAND): to find candidates.
    Terms,
    /// The phrase queries of `Exhaustive` only: the other candidates. A
    /// document's exact score is its score here plus under `Terms`.
    Phrases,
    /// Scores exactly, as `Exhaustive`, but cheap to seek: for ranking a few
    /// candidates.
    Rank,
    /// Matches what `Exhaustive` does, unscored, with fewer phrases: for
    /// counting every match (see `implied`).
    Matching,
}

/// A technique found in the query: the words, its tag, and the other names
/// that were sought.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion {
    pub span: String,
    pub tag: String,
    pub others: Vec<String>,
}

pub struct Compiled {
    pub query: Q,
    /// Whether any clause can score (false for filters alone).
    pub scoring: bool,
    /// Whether any filter was applied.
    pub filtered: bool,
    /// Whether the query holds phrase queries (else it is its own terms part).
    pub phrases: bool,
    pub expansions: Vec<Expansion>,
    /// Words that produced no searchable term (stop words, symbols).
    pub ignored: Vec<String>,
    /// What each `-x` took out, said for `--explain` (see `negation`).
    pub exclusions: Vec<String>,
}

pub fn compile(cx: &Context<'_>, tree: &Node, mode: Mode) -> Result<Compiled, Error> {
    let code_asked = intent::of(tree).contains(&intent::Intent::Code);
    let mut compilation = Compilation::new(cx, mode, negation::asked(cx, tree), code_asked);
    let query = compilation.node(tree)?;
    Ok(Compiled {
        query,
        scoring: compilation.scoring,
        filtered: compilation.filtered,
        phrases: compilation.phrases,
        expansions: compilation.expansions,
        ignored: compilation.ignored,
        exclusions: compilation.exclusions,
    })
}

/// One compilation under way: what it has found so far.
struct Compilation<'c> {
    cx: &'c Context<'c>,
    mode: Mode,
    english: TextAnalyzer,
    names: TextAnalyzer,
    /// Words without the stop words (for `scattered`).
    content: TextAnalyzer,
    scoring: bool,
    filtered: bool,
    phrases: bool,
    expansions: Vec<Expansion>,
    ignored: Vec<String>,
    /// The tags the query's wanted words name (see `negation`).
    asked: std::collections::HashSet<String>,
    exclusions: Vec<String>,
    /// Compiling what a negation leaves out: the works' own words only.
    excluding: bool,
    /// The query asks for code: a project supports what it uses.
    code_asked: bool,
}

impl<'c> Compilation<'c> {
    fn new(
        cx: &'c Context<'c>,
        mode: Mode,
        asked: std::collections::HashSet<String>,
        code_asked: bool,
    ) -> Self {
        Compilation {
            cx,
            mode,
            english: analysis::english(),
            names: analysis::names(),
            content: analysis::names_without_stop_words(),
            scoring: false,
            filtered: false,
            phrases: false,
            expansions: Vec::new(),
            ignored: Vec::new(),
            asked,
            exclusions: Vec::new(),
            excluding: false,
            code_asked,
        }
    }
}

impl Compilation<'_> {
    fn node(&mut self, node: &Node) -> Result<Q, Error> {
        let query = match node {
            Node::Group(children) => self.group(children)?,
            Node::And(children) => {
                let mut clauses = Vec::new();
                for child in children {
                    match child {
                        Node::Not(inner) => clauses.push((Occur::MustNot, self.excluded(inner)?)),
                        _ => clauses.push((Occur::Must, self.node(child)?)),
                    }
                }
                with_positive(clauses)
            }
            Node::Or(children) => {
                let clauses = children
                    .iter()
                    .map(|c| self.node(c))
                    .collect::<Result<Vec<_>, Error>>()?;
                self.any_of(clauses)
            }
            Node::Not(inner) => with_positive(vec![(Occur::MustNot, self.excluded(inner)?)]),
            Node::Required(inner) => self.node(inner)?,
            Node::Filter { filter, origin } => self.filter(filter, *origin)?,
            Node::Title { text, column } => self.title(text, *column)?,
            Node::Boost { filter, column } => self
                .boost(filter, *column)?
                .unwrap_or_else(|| Box::new(EmptyQuery)),
            Node::Word { .. } | Node::Phrase { .. } => self.group(std::slice::from_ref(node))?,
            Node::All => Box::new(AllQuery),
        };
        Ok(query)
    }

    /// Side-by-side terms: runs of plain words are scanned for technique
    /// names and joined spellings; each term may match.
    fn group(&mut self, children: &[Node]) -> Result<Q, Error> {
        let mut clauses: Vec<(Occur, Q)> = Vec::new();
        let mut filters: Vec<(Occur, Q)> = Vec::new();
        let mut factors: Vec<Factor> = Vec::new();
        let mut boosts: Vec<Q> = Vec::new();
        let mut run: Vec<&str> = Vec::new();
        // Every plain word of the group, runs together (for `title_words`).
        let mut words: Vec<&str> = Vec::new();
        let expanded_before = self.expansions.len();
        for child in children {
            if let Node::Word { text, .. } = child {
                run.push(text);
                words.push(text);
                continue;
            }
            self.words(&run, &mut clauses);
            run.clear();
            match child {
                Node::Phrase { text, .. } => {
                    let parts = self.phrase(text);
                    clauses.extend(parts.into_iter().map(|q| (Occur::Should, q)));
                }
                Node::Not(inner) => clauses.push((Occur::MustNot, self.excluded(inner)?)),
                Node::Required(inner) => clauses.push((Occur::Must, self.node(inner)?)),
                Node::Boost { filter, column } => {
                    boosts.extend(self.boost(filter, *column)?);
                    factors.extend(self.factors(filter, *column)?);
                }
                Node::Filter { .. } | Node::Title { .. } => {
                    filters.push((Occur::Must, self.node(child)?));
                }
                other => clauses.push((Occur::Should, self.node(other)?)),
            }
        }
        self.words(&run, &mut clauses);
        clauses.extend(self.all_techniques(expanded_before));
        clauses.extend(self.most_of_a_title(&words));
        // A facet typed beside words multiplies their scores, not its own
        // (counting matches needs no scores).
        if !factors.is_empty() && self.mode != Mode::Matching {
            for (occur, clause) in &mut clauses {
                if *occur != Occur::MustNot {
                    let q = std::mem::replace(clause, Box::new(EmptyQuery));
                    *clause = Scaled::boxed(q, factors.clone());
                }
            }
        }
        clauses.extend(boosts.into_iter().map(|q| (Occur::Should, q)));
        let (should, mut clauses): (Vec<_>, Vec<_>) =
            clauses.into_iter().partition(|(o, _)| *o == Occur::Should);
        let mut should: Vec<Q> = should.into_iter().map(|(_, q)| q).collect();
        if self.mode == Mode::Matching {
            implied::drop_implied_phrases(&mut should);
        }
        if filters.is_empty() && self.mode != Mode::Rank {
            // Side by side, where tantivy can prune them.
            clauses.extend(should.into_iter().map(|q| (Occur::Should, q)));
        } else if !should.is_empty() {
            // Filters narrow the words' matches; they must not make every
            // word optional, so the words become one required alternative.
            let occur = if filters.is_empty() {
                Occur::Should
            } else {
                Occur::Must
            };
            clauses.push((occur, self.any_of(should)));
        }
        clauses.extend(filters);
        Ok(with_positive(clauses))
    }

    /// Any of `queries`, scores summed. Kept flat (term queries side by side)
    /// so that tantivy can prune; a seeking union for ranking candidates.
    fn any_of(&self, mut queries: Vec<Q>) -> Q {
        if queries.len() == 1 {
            return queries.remove(0);
        }
        match self.mode {
            Mode::Rank => Box::new(SeekUnion::new(queries)),
            _ => Box::new(BooleanQuery::new(
                queries.into_iter().map(|q| (Occur::Should, q)).collect(),
            )),
        }
    }
}

/// Only exclusions select nothing in tantivy; they apply to everything.
fn with_positive(mut clauses: Vec<(Occur, Q)>) -> Q {
    if clauses.is_empty() {
        return Box::new(EmptyQuery);
    }
    if clauses.iter().all(|(o, _)| *o == Occur::MustNot) {
        clauses.push((Occur::Must, Box::new(AllQuery)));
    }
    Box::new(BooleanQuery::new(clauses))
}

#[cfg(test)]
mod tests;
