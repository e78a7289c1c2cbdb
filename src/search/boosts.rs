//! Ranking weights, in one place. The defaults are tuned on the relevance set
//! (`tests/fixtures/relevance.tsv`); a catalog may override any of them in
//! `ranking.toml`, which is how tuning experiments are run.

use std::path::Path;

use serde::Deserialize;

use crate::error::Error;

use crate::catalog::RANKING_FILE;

/// How much a match in each field counts, relative to the abstract.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Boosts {
    pub title: f32,
    pub tag_text: f32,
    /// The descriptions of an entry's tags, which a need told in plain
    /// words may echo (never what a negated word leaves out: they are the
    /// vocabulary's words, not the work's).
    pub tag_description: f32,
    pub note: f32,
    pub abstract_text: f32,
    pub authors: f32,
    pub venue: f32,
    /// The owner of a project's code repository ("alibaba"). Most works
    /// have none, and BM25 scores a term of such a field low; a query that
    /// names the organization ("Alibaba ... tools", "TensorFlow library")
    /// means its repositories, above works that share the query's other words.
    pub owner: f32,
    /// Spellings joined across a hyphen or space ("all reduce" = "allreduce").
    pub joined: f32,
    /// Each piece of a hyphenated word, sought alone too: its text weights
    /// times this.
    pub word_piece: f32,
    /// An entry tagged with the technique a query phrase names.
    pub tag: f32,
    /// An entry that uses that technique without being about it.
    pub uses: f32,
    /// A record without curated tags that a model predicts is about it.
    pub predicted: f32,
    /// A tag's match scores at least about its weight times this, however
    /// broad the tag (0: as BM25 scores it; see `compile::words::tagged`).
    pub tag_flat: f32,
    /// A technique's name whose words the query holds, not side by side
    /// ("node failures ... recover"): its tag's weights times this.
    pub scattered: f32,
    /// An entry tagged with a narrower kind of that technique (its tag's
    /// `broader`): the tag weight times this.
    pub narrower: f32,
    /// A paper about that technique whose project (its `project`) is about
    /// it too, so that the technique's reference work, the paper behind the
    /// code practitioners use for it (Megatron-LM's for tensor
    /// parallelism), comes before works that only share its tag: the tag
    /// weight times this, on top.
    pub reference: f32,
    /// Other names of that technique, searched in the text.
    pub synonym_text: f32,
    /// A query that is a catalog work's name ("DeepSpeed").
    pub work_name: f32,
    /// The share of `work_name` that a one-word name which is an English
    /// word ("Chimera", "Unity") gets among other words.
    pub english_name: f32,
    /// A work that is part of the project so named (its `project`): the
    /// name's weight times this.
    pub project_member: f32,
    /// An exact arXiv id or DOI.
    pub identifier: f32,
    /// A year typed as a word ("OSDI 2023"): its works score this on
    /// their own...
    pub year: f32,
    /// ...and the words beside it score one more than this times as much
    /// in its works.
    pub year_scale: f32,
    /// ...and in the works of the years beside it (one either way), one
    /// more than this times as much (on top of the year's own factor).
    pub year_near_scale: f32,
    /// A query that asks about training ("fine-tune", not "serve"): a
    /// serving work's score times 1 + this (see `intent.rs`).
    pub training_asked: f32,
    /// A query that asks about serving: a serving work's score times 1 +
    /// this.
    pub serving_asked: f32,
    /// A query that asks for code ("library", "open-source framework"): a
    /// project's score times 1 + this (see `intent.rs`).
    pub code_asked: f32,
    /// A query that asks for an overview ("survey", "overview of"): a
    /// survey's score times 1 + this (see `intent.rs`).
    pub survey_asked: f32,
    /// The same for a venue typed as a word.
    pub venue_word: f32,
    pub venue_scale: f32,
    /// The same for an author's full name typed as words.
    pub author_word: f32,
    pub author_scale: f32,
    /// The same for a section's name typed as words ("memory efficient
    /// training").
    pub section_word: f32,
    pub section_scale: f32,
    /// A stop word among other words ("by", "only"): its text matches
    /// count this much of a word's. In a catalog of a hundred entries BM25
    /// hardly discounts them, and a sentence is full of them.
    pub stop_word: f32,
    /// A work that holds every technique the words name, when they name
    /// two or more ("ILP auto-sharding"), as a curated, used or predicted
    /// tag: this score on top (see `compile::words::all_techniques`).
    pub all_techniques: f32,
    /// A work whose title holds three quarters of the query's words, when
    /// it has five or more: this score on top (see `compile::title_words`).
    pub title_words: f32,
    /// Results behind the first gain its score times this times the share
    /// of its tags they hold (see `feedback`).
    pub feedback: f32,
    /// The semantic ranking's weight in `--mode hybrid`'s fusion, the
    /// keyword ranking's being 1 (see `meaning`).
    pub semantic: f32,
    /// A result whose cosine with an excluded phrase reaches this is about
    /// it, and is left out by meaning (see `meaning`).
    pub excluded_meaning: f32,
}

impl Default for Boosts {
    fn default() -> Self {
        Boosts {
            title: 1.5,
            tag_text: 2.0,
            tag_description: 1.25,
            note: 2.0,
            abstract_text: 1.0,
            authors: 1.0,
            venue: 1.2,
            owner: 60.0,
            joined: 1.5,
            word_piece: 0.5,
            tag: 4.0,
            uses: 2.5,
            predicted: 1.0,
            tag_flat: 5.0,
            scattered: 1.0,
            narrower: 0.25,
            reference: 2.25,
            synonym_text: 0.25,
            work_name: 5.0,
            english_name: 0.2,
            project_member: 0.3,
            identifier: 10.0,
            year: 1.0,
            year_scale: 0.5,
            year_near_scale: 0.5,
            training_asked: -0.6,
            serving_asked: 0.5,
            code_asked: 0.3,
            survey_asked: 0.6,
            venue_word: 2.0,
            venue_scale: 2.0,
            author_word: 2.0,
            author_scale: 2.0,
            section_word: 2.0,
            section_scale: 2.0,
            stop_word: 0.25,
            all_techniques: 15.0,
            title_words: 25.0,
            feedback: 0.5,
            semantic: 0.5,
            excluded_meaning: 0.6,
        }
    }
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
