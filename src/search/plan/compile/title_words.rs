//! A half-remembered title: a query that holds most of one work's title
//! words ("beyond data and model parallelism for deep networks") names that
//! work, and must find it above works that merely hold the techniques its
//! words name as tags ("data parallelism": a survey).

use tantivy::Term;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, TermQuery};
use tantivy::schema::IndexRecordOption;

use super::{Compilation, Mode, Q};
use crate::analysis::terms_with_positions;
use crate::search::plan::labelled::Labelled;
use crate::search::signals;

/// Fewer content words than this are a technique or a name, not a title.
const MIN_WORDS: usize = 5;

/// The share of the query's content words a title must hold.
const SHARE: f32 = 0.75;

impl Compilation<'_> {
    /// The works whose title holds most of `words`' content words (stop
    /// words aside, by stem), at a constant score so that tantivy can still
    /// prune.
    pub(super) fn most_of_a_title(&mut self, words: &[&str]) -> Option<(Occur, Q)> {
        let weight = self.cx.boosts.title_words;
        if matches!(self.mode, Mode::Phrases | Mode::Matching) || weight <= 0.0 {
            return None;
        }
        // On a large index the clause would walk every posting of common
        // title words ("model", "deep": a million-record index, 35 -> 105
        // ms), and keep tantivy from pruning the terms part of a two-phase
        // ranking: it is for the catalog's few titles.
        if self.cx.large_index() {
            return None;
        }
        let mut stems: Vec<String> = Vec::new();
        for word in words {
            if self.is_stop_word(word) {
                continue;
            }
            for (_, stem) in terms_with_positions(&mut self.english, word) {
                if !stems.contains(&stem) {
                    stems.push(stem);
                }
            }
        }
        if stems.len() < MIN_WORDS {
            return None;
        }
        let needed = (stems.len() as f32 * SHARE).ceil() as usize;
        let title = self.cx.fields.title;
        let clauses: Vec<(Occur, Q)> = (stems.iter())
            .map(|stem| {
                let term = Term::from_field_text(title, stem);
                let query: Q = Box::new(TermQuery::new(term, IndexRecordOption::Basic));
                (Occur::Should, query)
            })
            .collect();
        let most = BooleanQuery::with_minimum_required_clauses(clauses, needed);
        let label =
            signals::TITLE_WORDS.label(&format!("{needed} or more of {} words", stems.len()));
        let query = Box::new(ConstScoreQuery::new(Box::new(most), weight));
        Some((Occur::Should, Labelled::boxed(label, query)))
    }
}
