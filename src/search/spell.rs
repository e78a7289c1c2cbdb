//! Typo repair: a query word that matches nothing is replaced by the closest
//! word of the index's dictionaries (unstemmed fields such as `words` and
//! `authors`), allowing more edits for longer words.

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
    let word: Vec<char> = word.chars().collect();
    let limit = max_edits(word.len());
    if limit == 0 {
        return None;
    }
    let text: String = word.iter().collect();
    // Transpositions cost one edit, as in `bounded_distance`.
    let fuzzy = FuzzyTermQuery::new(
        Term::from_field_text(*fields.first()?, &text),
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
            let candidate_chars: Vec<char> = candidate.chars().collect();
            match bounded_distance(&word, &candidate_chars, limit) {
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
/// or `None` once it must exceed `limit`. Ranks what the automaton accepted.
fn bounded_distance(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    let mut prev2 = vec![0usize; m + 1];
    let mut prev: Vec<usize> = (0..=m).collect();
    let mut cur = vec![0usize; m + 1];
    for i in 1..=n {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut value = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                value = value.min(prev2[j - 2] + 1);
            }
            cur[j] = value;
            row_min = row_min.min(value);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[m] <= limit).then_some(prev[m])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(a: &str, b: &str) -> Option<usize> {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        bounded_distance(&a, &b, 2)
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
