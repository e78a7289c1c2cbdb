//! Typo repair: a query word that matches nothing is replaced by the closest
//! word of the index's dictionaries (unstemmed fields such as `words` and
//! `authors`, and `joined` for long words), allowing more edits for longer
//! words.

use std::collections::BTreeMap;

use tantivy::query::FuzzyTermQuery;
use tantivy::schema::Field;
use tantivy::{Searcher, Term};

/// Edits allowed for a word of `len` characters: none for short words, where
/// any edit makes a different word.
pub fn max_edits(len: usize) -> usize {
    match len {
        0..=3 => 0,
        4..=6 => 1,
        _ => 2,
    }
}

/// The dictionary word closest to `word` (lower case), preferring fewer edits
/// and then more use: the documents that hold it in the dictionaries, plus
/// `usage` of it elsewhere (an import writes each of its words to the
/// dictionary only once, so there it says little). `None` when nothing is
/// close enough. Only the words a Levenshtein automaton accepts are read
/// from the dictionary, not all of them: a million imported titles make a
/// large one.
pub fn correct(
    searcher: &Searcher,
    fields: &[Field],
    word: &str,
    mut usage: impl FnMut(&str) -> u64,
) -> Option<String> {
    let limit = max_edits(word.chars().count());
    if limit == 0 {
        return None;
    }
    // Transpositions cost one edit, as in `bounded_distance`.
    let fuzzy = FuzzyTermQuery::new(
        Term::from_field_text(*fields.first()?, word),
        limit as u8,
        true,
    );
    let automaton = fuzzy.automaton().ok()?;
    // Each candidate's distance and documents; ordered, so ties are decided
    // alike on every run.
    let mut candidates: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    let places = searcher
        .segment_readers()
        .iter()
        .flat_map(|segment| fields.iter().map(move |&field| (segment, field)));
    for (segment, field) in places {
        let Ok(inverted) = segment.inverted_index(field) else {
            continue;
        };
        let Ok(mut stream) = inverted.terms().search(&automaton).into_stream() else {
            continue;
        };
        while stream.advance() {
            let Ok(candidate) = std::str::from_utf8(stream.key()) else {
                continue;
            };
            let doc_freq = u64::from(stream.value().doc_freq);
            if let Some(known) = candidates.get_mut(candidate) {
                known.1 += doc_freq;
                continue;
            }
            match bounded_distance(word, candidate, limit) {
                Some(distance) if distance > 0 => {
                    candidates.insert(candidate.to_string(), (distance, doc_freq));
                }
                _ => {}
            }
        }
    }
    let nearest = candidates.values().map(|c| c.0).min()?;
    let mut best: Option<(u64, String)> = None;
    for (candidate, (distance, doc_freq)) in candidates {
        if distance > nearest {
            continue;
        }
        let used = doc_freq + usage(&candidate);
        if best.as_ref().is_none_or(|(b, _)| used > *b) {
            best = Some((used, candidate));
        }
    }
    best.map(|(_, w)| w)
}

/// Edit distance with adjacent transpositions (optimal string alignment),
/// or `None` beyond `limit`. Ranks what the automaton accepted.
fn bounded_distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    Some(strsim::osa_distance(a, b)).filter(|d| *d <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(a: &str, b: &str) -> Option<usize> {
        bounded_distance(a, b, 2)
    }

    #[test]
    fn transpositions_count_once() {
        assert_eq!(d("megatorn", "megatron"), Some(1));
        assert_eq!(d("pipline", "pipeline"), Some(1));
        assert_eq!(d("pipeline", "pipeline"), Some(0));
        assert_eq!(d("offload", "overlap"), None);
    }

    #[test]
    fn short_words_are_not_corrected() {
        assert_eq!(max_edits(3), 0);
        assert_eq!(max_edits(5), 1);
        assert_eq!(max_edits(8), 2);
    }
}
