//! A run of words that names a catalog work ("DeepSpeed", "colossal ai",
//! a title's initials): the work scores as an exact identifier does, and a
//! project's papers a part of that.

use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur};

use super::words::{IDENTIFIER_SCORE, term_query};
use super::{Compilation, Mode, Q};
use crate::analysis;
use crate::catalog::squash;
use crate::index::id_query;
use crate::search::plan::labelled::Labelled;
use crate::search::signals;

/// A work's name is this many words at most ("Mesh TensorFlow").
const MAX_NAME_WORDS: usize = 4;

impl Compilation<'_> {
    /// The works whose name the run of words is or holds ("DeepSpeed",
    /// "colossal ai"): they score as an exact identifier does, above works
    /// that only have the name in their titles ("DeepSpeed-MoE: ...").
    pub(super) fn work_name(&mut self, run: &[&str], clauses: &mut Vec<(Occur, Q)>) {
        if self.mode == Mode::Phrases {
            return;
        }
        // The whole run, or the names within it ("ColossalAI framework"),
        // longest first. Among other words, a one-word name that is an
        // English word ("Zero", "Unity") is left to the words, which it
        // would otherwise take from other works, unless its capitals say
        // it is a name ("which paper introduced ZeRO").
        let mut i = 0;
        while i < run.len() {
            let longest = MAX_NAME_WORDS.min(run.len() - i);
            let named = (1..=longest).rev().find(|&len| {
                let typed = squash(&run[i..i + len].join(" "));
                let english_among_others = len == 1
                    && run.len() > 1
                    && !mixed_case(run[i])
                    && wordnik_list::word_exists(&typed);
                if !english_among_others {
                    return self.name_works(&typed, 1.0, clauses)
                        || (len == 1 && self.name_works_by_head(&typed, clauses));
                }
                // An English word names a work when the work holds the other
                // words ("chimera pipeline"), not when they ask something of
                // the word ("which paper introduced quiet").
                let others: Vec<&str> = (run.iter().enumerate())
                    .filter(|&(j, _)| j != i)
                    .map(|(_, w)| *w)
                    .collect();
                let share = self.cx.boosts.english_name;
                let cx = self.cx;
                share > 0.0
                    && (cx.work_names.iter())
                        .any(|(name, id)| *name == typed && self.holds_words(id, &others))
                    && self.name_works(&typed, share, clauses)
            });
            i += named.unwrap_or(1);
        }
    }

    /// Whether the work `id` has each content word of `words` in its title,
    /// note or tag labels: one count of the work with all of them.
    fn holds_words(&mut self, id: &str, words: &[&str]) -> bool {
        let f = self.cx.fields;
        let content: Vec<String> = (words.iter())
            .flat_map(|w| analysis::terms(&mut self.content, w))
            .collect();
        let mut all = vec![(Occur::Must, id_query(f, id))];
        for word in &content {
            let terms = analysis::terms(&mut self.english, word);
            let Some(term) = terms.first() else {
                continue;
            };
            let anywhere = [f.title, f.note, f.tag_text]
                .into_iter()
                .map(|field| (Occur::Should, term_query(field, term)))
                .collect();
            all.push((Occur::Must, Box::new(BooleanQuery::new(anywhere)) as Q));
        }
        if all.len() == 1 {
            return true;
        }
        let query = BooleanQuery::new(all);
        tantivy::query::Query::count(&query, self.cx.searcher).is_ok_and(|n| n > 0)
    }

    /// Scores the works named `typed` (squashed), at `share` of a name's
    /// weight, and a project's members; false when no work has that name.
    fn name_works(&mut self, typed: &str, share: f32, clauses: &mut Vec<(Occur, Q)>) -> bool {
        let weight = self.cx.boosts.work_name * IDENTIFIER_SCORE * share;
        let mut found = false;
        let named = self.cx.work_names.iter().filter(|(name, _)| name == typed);
        for (_, id) in named {
            found = true;
            let query = Box::new(ConstScoreQuery::new(id_query(self.cx.fields, id), weight));
            let label = signals::WORK_NAME.label(id);
            clauses.push((Occur::Should, Labelled::boxed(label, query)));
            // A project's papers ("DeepSpeed": ZeRO) are about it too.
            let members = self.cx.members.iter().filter(|(project, _)| project == id);
            let weight = weight * self.cx.boosts.project_member;
            for (_, member) in members {
                let query = ConstScoreQuery::new(id_query(self.cx.fields, member), weight);
                let label = signals::PROJECT_MEMBER.label(id);
                clauses.push((Occur::Should, Labelled::boxed(label, Box::new(query))));
            }
            self.scoring = true;
        }
        found
    }

    /// The works whose name is `typed` (squashed) and a short suffix
    /// ("megatron" of "Megatron-LM"), scored as named, when `typed` is no
    /// English word. Not the first of two words ("zorp" of "Zorp
    /// Wobbling"): that may be any word of the field.
    fn name_works_by_head(&mut self, typed: &str, clauses: &mut Vec<(Occur, Q)>) -> bool {
        const SUFFIX: usize = 3;
        if wordnik_list::word_exists(typed) {
            return false;
        }
        let cx = self.cx;
        let mut found = false;
        for (_, id) in cx.name_heads.iter().filter(|(head, _)| head == typed) {
            let name = (cx.work_names.iter()).find(|(_, work)| work == id);
            if let Some((name, _)) = name.filter(|(name, _)| name.len() <= typed.len() + SUFFIX) {
                found |= self.name_works(name, 1.0, clauses);
            }
        }
        found
    }

    /// The works whose titles' initials a word of the run is ("DTR" for
    /// "Dynamic Tensor Rematerialization"): they score as a work's name does.
    pub(super) fn initials(&mut self, run: &[&str], clauses: &mut Vec<(Occur, Q)>) {
        if self.mode == Mode::Phrases {
            return;
        }
        let weight = self.cx.boosts.work_name * IDENTIFIER_SCORE;
        for word in run {
            for id in self.cx.works_by_initials(word) {
                let query = Box::new(ConstScoreQuery::new(id_query(self.cx.fields, id), weight));
                let label = format!("the initials of {id}");
                clauses.push((Occur::Should, Labelled::boxed(label, query)));
                self.scoring = true;
            }
        }
    }
}

/// Whether `word` has a capital after a small letter ("ZeRO", "FlexFlow"),
/// as names are written and English words are not.
fn mixed_case(word: &str) -> bool {
    let mut chars = word.chars();
    chars.any(char::is_lowercase) && chars.any(char::is_uppercase)
}
