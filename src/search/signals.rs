//! The ranking signals, each declared once: its key in `ranking.toml` (and
//! field of `Boosts`), its default weight, what it reads, how `--explain`
//! shows its part, and how it is computed (its doc comment). `Boosts`,
//! `--explain`'s labels, `docs/searching.md`'s table (tests/docs.rs) and
//! the tuner (`bench/tune.py`) all read this table. The defaults are tuned
//! on the tuning half of the graded relevance set; a catalog may override
//! any of them in `ranking.toml`, which is how tuning experiments are run.
//!
//! Adding a signal: an entry here, and the function that computes it in
//! the stage that owns it (`plan/compile/` for a clause of the query,
//! `rank/` for a change to a ranked pool, `retrieve/meaning.rs` for the
//! fusion), which reads its weight from `Boosts` and its label from here.

use std::path::Path;

use serde::Deserialize;

use crate::catalog::RANKING_FILE;
use crate::error::Error;

/// One ranking signal, as the table below declares it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signal {
    /// Its key in `ranking.toml`, and its field of `Boosts`.
    pub key: &'static str,
    pub default: f32,
    /// What it reads: an index field, a column, the query, the catalog.
    pub reads: &'static str,
    /// How `--explain` shows its part, `{}` standing for what matched;
    /// empty for a weight that only scales other signals' parts.
    pub shown: &'static str,
    /// How it is computed.
    pub how: &'static str,
}

impl Signal {
    /// Its `--explain` label for `what` matched.
    pub fn label(&self, what: &str) -> String {
        label(self.shown, what)
    }
}

/// A label template (`shown`) with `what` in its place: for a clause that
/// a signal's weight scores under another label ("supports {}").
pub fn label(shown: &str, what: &str) -> String {
    shown.replacen("{}", what, 1)
}

macro_rules! signals {
    ($(
        $(#[doc = $how:literal])+
        $key:ident / $name:ident = $weight:literal, reads $reads:literal, shown $shown:literal;
    )+) => {
        /// The weight of every signal (see `SIGNALS`).
        #[derive(Debug, Clone, Copy, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Boosts {
            $( $(#[doc = $how])+ pub $key: f32, )+
        }

        impl Default for Boosts {
            fn default() -> Self {
                Boosts { $( $key: $weight, )+ }
            }
        }

        $(
            $(#[doc = $how])+
            pub const $name: Signal = Signal {
                key: stringify!($key),
                default: $weight,
                reads: $reads,
                shown: $shown,
                how: concat!($($how, "\n"),+),
            };
        )+

        /// Every signal, in the order `ranking.toml`'s documentation lists them.
        pub const SIGNALS: &[Signal] = &[$($name),+];
    };
}

signals! {
    /// A word of the query in a work's title (BM25), relative to the abstract.
    title / TITLE = 1.5, reads "title", shown "title: {}";
    /// A word in the labels of a work's curated tags (BM25).
    tag_text / TAG_TEXT = 2.0, reads "tag_text", shown "tag_text: {}";
    /// The descriptions of an entry's tags, which a need told in plain
    /// words may echo (never what a negated word leaves out: they are the
    /// vocabulary's words, not the work's).
    tag_description / TAG_DESCRIPTION = 1.25, reads "tag_description", shown "tag_description: {}";
    /// A word in a work's curated one-line note (BM25).
    note / NOTE = 2.0, reads "note", shown "note: {}";
    /// A word in a work's abstract (BM25): the unit of the text weights.
    abstract_text / ABSTRACT_TEXT = 1.0, reads "abstract", shown "abstract: {}";
    /// An author's name (BM25 over the names analyzer).
    authors / AUTHORS = 1.0, reads "authors", shown "authors: {}";
    /// A venue's name (BM25 over the names analyzer).
    venue / VENUE = 1.2, reads "venue", shown "venue: {}";
    /// The owner of a project's code repository ("alibaba"). Most works
    /// have none, and BM25 scores a term of such a field low; a query that
    /// names the organization ("Alibaba ... tools", "TensorFlow library")
    /// means its repositories, above works that share the query's other words.
    owner / OWNER = 60.0, reads "owner", shown "owner: {}";
    /// Spellings joined across a hyphen or space ("all reduce" = "allreduce").
    joined / JOINED = 1.5, reads "joined spellings of title, note and abstract", shown "joined: {}";
    /// Each piece of a hyphenated word, sought alone too: its text weights
    /// times this.
    word_piece / WORD_PIECE = 0.5, reads "the text fields", shown "";
    /// An entry tagged with the technique a query phrase names.
    tag / TAG = 4.0, reads "tags", shown "tagged {}";
    /// An entry that uses that technique without being about it.
    uses / USES = 2.5, reads "uses", shown "uses {}";
    /// A record without curated tags that a model predicts is about it.
    predicted / PREDICTED = 1.0, reads "predicted", shown "predicted tag {}";
    /// A tag's match scores at least about its weight times this, however
    /// broad the tag (0: as BM25 scores it; see `compile::words::tagged`).
    tag_flat / TAG_FLAT = 5.0, reads "tags, uses, predicted (document frequency)", shown "";
    /// A technique's name whose words the query holds, not side by side
    /// ("node failures ... recover"): its tag's weights times this.
    scattered / SCATTERED = 1.0, reads "tags, uses, predicted", shown "";
    /// An entry tagged with a narrower kind of that technique (its tag's
    /// `broader`): the tag weight times this.
    narrower / NARROWER = 0.25, reads "tags and the vocabulary's broader", shown "";
    /// A paper about that technique whose project (its `project`) is about
    /// it too, so that the technique's reference work, the paper behind the
    /// code practitioners use for it (Megatron-LM's for tensor
    /// parallelism), comes before works that only share its tag: the tag
    /// weight times this, on top.
    reference / REFERENCE = 2.25, reads "tags, id and the catalog's projects", shown "the paper of a project about {}";
    /// Other names of that technique, searched in the text.
    synonym_text / SYNONYM_TEXT = 0.25, reads "the text fields", shown "";
    /// A query that is a catalog work's name ("DeepSpeed").
    work_name / WORK_NAME = 5.0, reads "id and the catalog's names", shown "the name of {}";
    /// The share of `work_name` that a one-word name which is an English
    /// word ("Chimera", "Unity") gets among other words.
    english_name / ENGLISH_NAME = 0.2, reads "the catalog's names", shown "";
    /// A work that is part of the project so named (its `project`): the
    /// name's weight times this.
    project_member / PROJECT_MEMBER = 0.3, reads "id and the catalog's projects", shown "part of {}";
    /// An exact arXiv id or DOI.
    identifier / IDENTIFIER = 10.0, reads "arxiv, doi", shown "identifier {}";
    /// A year typed as a word ("OSDI 2023"): its works score this on
    /// their own...
    year / YEAR = 1.0, reads "year", shown "";
    /// ...and the words beside it score one more than this times as much
    /// in its works.
    year_scale / YEAR_SCALE = 0.5, reads "year", shown "×… {}";
    /// ...and in the works of the years beside it (one either way), one
    /// more than this times as much (on top of the year's own factor).
    year_near_scale / YEAR_NEAR_SCALE = 0.5, reads "year", shown "×… {}";
    /// A query that asks about training ("fine-tune", not "serve"): a
    /// serving work's score times 1 + this (see `rank/intents.rs`).
    training_asked / TRAINING_ASKED = -0.6, reads "tags, predicted", shown "a serving work, and the query asks about training";
    /// A query that asks about serving: a serving work's score times 1 +
    /// this.
    serving_asked / SERVING_ASKED = 0.5, reads "tags, predicted", shown "a serving work, and the query asks about serving";
    /// A query that asks for code ("library", "open-source framework"): a
    /// project's score times 1 + this (see `rank/intents.rs`).
    code_asked / CODE_ASKED = 0.3, reads "kind", shown "a project, and the query asks for code";
    /// A query that asks for an overview ("survey", "overview of"): a
    /// survey's score times 1 + this (see `rank/intents.rs`).
    survey_asked / SURVEY_ASKED = 0.6, reads "tags", shown "a survey, and the query asks for an overview";
    /// A venue typed as a word: its works score this on their own...
    venue_word / VENUE_WORD = 2.0, reads "venue", shown "";
    /// ...and the words beside it one more than this times as much.
    venue_scale / VENUE_SCALE = 2.0, reads "venue", shown "×… {}";
    /// An author's full name typed as words: the same.
    author_word / AUTHOR_WORD = 2.0, reads "authors", shown "";
    /// The factor of the words beside an author's name.
    author_scale / AUTHOR_SCALE = 2.0, reads "authors", shown "×… {}";
    /// A section's name typed as words ("memory efficient training"): the
    /// same.
    section_word / SECTION_WORD = 2.0, reads "section", shown "";
    /// The factor of the words beside a section's name.
    section_scale / SECTION_SCALE = 2.0, reads "section", shown "×… {}";
    /// A stop word among other words ("by", "only"): its text matches
    /// count this much of a word's. In a catalog of a hundred entries BM25
    /// hardly discounts them, and a sentence is full of them.
    stop_word / STOP_WORD = 0.25, reads "the text fields", shown "";
    /// A work that holds every technique the words name, when they name
    /// two or more ("ILP auto-sharding"), as a curated, used or predicted
    /// tag: this score on top (see `compile::words::all_techniques`).
    all_techniques / ALL_TECHNIQUES = 15.0, reads "tags, uses, predicted, note", shown "holds {}";
    /// A work whose title holds three quarters of the query's words, when
    /// it has five or more: this score on top (see `compile::title_words`).
    title_words / TITLE_WORDS = 25.0, reads "title", shown "title holds {}";
    /// Results behind the first gain its score times this times the share
    /// of its tags they hold (see `rank/feedback.rs`).
    feedback / FEEDBACK = 0.5, reads "tags, uses, predicted, id, owner", shown "feedback: shares {} with result 1";
    /// The semantic ranking's weight in `--mode hybrid`'s fusion, the
    /// keyword ranking's being 1 (see `retrieve/meaning.rs`).
    semantic / SEMANTIC = 0.5, reads "the stored vectors", shown "meaning: {}";
    /// A result whose cosine with an excluded phrase reaches this is about
    /// it, and is left out by meaning (see `retrieve/meaning.rs`).
    excluded_meaning / EXCLUDED_MEANING = 0.6, reads "the stored vectors", shown "";
}

impl Boosts {
    /// These weights with every text field's times `factor`.
    pub fn scaled(self, factor: f32) -> Boosts {
        Boosts {
            title: self.title * factor,
            tag_text: self.tag_text * factor,
            tag_description: self.tag_description * factor,
            note: self.note * factor,
            abstract_text: self.abstract_text * factor,
            authors: self.authors * factor,
            venue: self.venue * factor,
            owner: self.owner * factor,
            joined: self.joined * factor,
            ..self
        }
    }

    /// The defaults, overridden by `ranking.toml` in `catalog_dir` if present.
    pub fn load(catalog_dir: Option<&Path>) -> Result<Boosts, Error> {
        let Some(path) = catalog_dir.map(|d| d.join(RANKING_FILE)) else {
            return Ok(Boosts::default());
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text).map_err(|e| {
                let line = e
                    .span()
                    .map_or(1, |s| text[..s.start].matches('\n').count() + 1);
                Error::Usage(format!("{}:{line}: {}", path.display(), e.message()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Boosts::default()),
            Err(e) => Err(Error::io(&path, e)),
        }
    }
}
