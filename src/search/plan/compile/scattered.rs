//! Technique names told in other words: "recover quickly from node failures"
//! holds every word of "failure recovery" but not side by side, as a need
//! described in a sentence does. Such a name found scattered among the words
//! of a run counts as weaker evidence of its technique than the name typed
//! as it is: the entries tagged with it score, at a fraction of a tag's
//! weight (`Boosts::scattered`); its other names are not sought.

use std::collections::HashSet;

use tantivy::query::Occur;
use tantivy::tokenizer::TextAnalyzer;

use super::{Compilation, Mode, Q};
use crate::analysis;
use crate::catalog::Tag;
use crate::search::signals;

/// A name needs this many content words to be found scattered: one word
/// alone is found as typed.
const MIN_WORDS: usize = 2;
/// Stems this long or longer also match a stem they begin by at most
/// [`MAX_SUFFIX`] more letters: the stemmer cuts "recover" to "recov" but
/// "recovery" to "recoveri"; "over" is not "overflow".
const MIN_PREFIX: usize = 4;
const MAX_SUFFIX: usize = 3;

impl Compilation<'_> {
    /// Tags whose name has all its content words among `words` (by stem,
    /// in any order), one of them at least among `loose` (the words outside
    /// the technique names typed: "choose data, tensor or pipeline
    /// parallelism" holds "choosing the parallelism"), other than the tags
    /// already named in the query.
    pub(super) fn scattered(
        &mut self,
        words: &[&str],
        loose: &[&str],
        clauses: &mut Vec<(Occur, Q)>,
    ) {
        if self.mode == Mode::Phrases || loose.is_empty() || words.len() < MIN_WORDS {
            return;
        }
        let (content, english) = (&mut self.content, &mut self.english);
        let mut stems_of = |words: &[&str]| -> Vec<String> {
            (words.iter().enumerate())
                .filter(|&(i, _)| !(i > 0 && is_size(words[i - 1]) && is_parameters(words[i])))
                .flat_map(|(_, w)| content_stems(content, english, &without_size(w)))
                .collect()
        };
        let typed = stems_of(words);
        let typed_loose = stems_of(loose);
        let named: HashSet<String> = self.expansions.iter().map(|e| e.tag.clone()).collect();
        let cx = self.cx;
        let vocabulary = cx.synonyms.vocabulary();
        // Every name's stems, analyzed once per search, not once per run and mode.
        let stems = cx.name_stems.get_or_init(|| {
            vocabulary
                .tags
                .iter()
                .map(|tag| {
                    tag.names()
                        .map(|n| content_stems(content, english, n))
                        .collect()
                })
                .collect()
        });
        for (tag, names) in vocabulary.tags.iter().zip(stems) {
            if named.contains(&tag.id) {
                continue;
            }
            let Some((name, _)) = tag.names().zip(names).find(|(_, needed)| {
                needed.len() >= MIN_WORDS
                    && needed.iter().all(|n| typed.iter().any(|t| same_word(t, n)))
                    && needed
                        .iter()
                        .any(|n| typed_loose.iter().any(|t| same_word(t, n)))
            }) else {
                continue;
            };
            let found = self.scattered_clauses(tag, name);
            clauses.extend(found.into_iter().map(|q| (Occur::Should, q)));
        }
    }

    fn scattered_clauses(&mut self, tag: &Tag, name: &str) -> Vec<Q> {
        self.scoring = true;
        let (f, b) = (self.cx.fields, self.cx.boosts);
        let aside = format!(" (\"{name}\" in other words)");
        let mut clauses: Vec<Q> = [
            (f.tags, b.tag, signals::TAG.shown),
            (f.uses, b.uses, signals::USES.shown),
            (f.predicted, b.predicted, signals::PREDICTED.shown),
        ]
        .into_iter()
        .map(|(field, weight, shown)| {
            self.tagged(field, &tag.id, weight * b.scattered, shown, &aside)
        })
        .collect();
        // Its narrower kinds too, as for the name typed.
        let told = format!(", \"{name}\" in other words");
        clauses.extend(self.narrower_kinds(tag, b.scattered, &told));
        clauses
    }
}

/// Stems that technique names use for one another, as practitioners
/// describe them: "splitting weights and grads" is parameter and gradient
/// sharding.
const INTERCHANGEABLE: [&[&str]; 5] = [
    &["shard", "split", "partit"],
    &["paramet", "weight"],
    &["gradient", "grad"],
    &["node", "machin", "server"],
    &["offload", "spill"],
];

/// Whether two stems are of one word: equal, interchangeable, or one
/// begins the other, is at least [`MIN_PREFIX`] long and at most
/// [`MAX_SUFFIX`] shorter.
fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long
        || (short.len() >= MIN_PREFIX
            && long.len() - short.len() <= MAX_SUFFIX
            && long.starts_with(short))
        || INTERCHANGEABLE
            .iter()
            .any(|group| group.contains(&a) && group.contains(&b))
}

/// "500B", "13B", "trillion": a model's size. "A 500B-parameter decoder"
/// says how big the model is, not that its parameters are sharded.
fn is_size(word: &str) -> bool {
    const SIZES: [&str; 4] = ["million", "billion", "trillion", "multi-billion"];
    word.starts_with(|c: char| c.is_ascii_digit()) || SIZES.contains(&word.to_lowercase().as_str())
}

fn is_parameters(word: &str) -> bool {
    matches!(
        word.to_lowercase().trim_end_matches(','),
        "parameter" | "parameters"
    )
}

/// The word without a "-parameter" that follows a size ("500B-parameter").
fn without_size(word: &str) -> std::borrow::Cow<'_, str> {
    match word.rsplit_once('-') {
        Some((size, tail)) if is_size(size) && is_parameters(tail) => size.into(),
        _ => word.into(),
    }
}

/// The stems of `text`'s words that are not stop words.
fn content_stems(
    content: &mut TextAnalyzer,
    english: &mut TextAnalyzer,
    text: &str,
) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == '-' || c == '/')
        .filter(|word| !analysis::terms(content, word).is_empty())
        .flat_map(|word| analysis::terms(english, word))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{is_size, same_word, without_size};

    #[test]
    fn stems_of_one_word_are_one_word() {
        assert!(same_word("recov", "recoveri"));
        assert!(same_word("failur", "failur"));
        assert!(!same_word("gpu", "gpus"));
        assert!(!same_word("model", "modem"));
        assert!(!same_word("over", "overflow"));
        assert!(same_word("split", "shard"));
        assert!(same_word("weight", "paramet"));
        assert!(!same_word("weight", "shard"));
    }

    #[test]
    fn a_models_size_is_not_its_parameters() {
        assert_eq!(without_size("500B-parameter"), "500B");
        assert_eq!(without_size("trillion-parameters"), "trillion");
        assert_eq!(without_size("per-parameter"), "per-parameter");
        assert!(is_size("13B") && is_size("Billion") && !is_size("big"));
    }
}
