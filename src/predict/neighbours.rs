//! Nearest neighbours by meaning: the training texts' vectors (curated
//! entries and the vocabulary's descriptions of the tags), and a tag's
//! score for a record: the sum of the cosines of its `k` nearest texts
//! that have the tag, over `k`. A text that means what a work means gets
//! the work's tags though it shares no word with it; one that means nothing
//! close has small cosines, and so small scores.

use super::learn::add_rows;
use crate::embed::{DIMS, Vector};

#[derive(Debug, Clone, Default)]
pub(super) struct Neighbours {
    k: usize,
    /// The texts' vectors, by dimension: row `d` holds each text's
    /// component `d`, so that the cosines with every text are a sum of
    /// [`DIMS`] rows (the same vectorized loop as the regressions').
    columns: Vec<f32>,
    /// Each text's tags, by slot.
    tags: Vec<Box<[usize]>>,
}

impl Neighbours {
    /// The texts of `vectors`, each with the tags (slots) of `tags`.
    pub(super) fn new(vectors: &[Vector], tags: Vec<Box<[usize]>>, k: usize) -> Neighbours {
        let n = vectors.len();
        let mut columns = vec![0.0; DIMS * n];
        for (text, vector) in vectors.iter().enumerate() {
            for (dim, &value) in vector.iter().enumerate() {
                columns[dim * n + text] = value;
            }
        }
        Neighbours { k, columns, tags }
    }

    /// How many texts vote (0: no vote).
    pub(super) fn texts(&self) -> usize {
        if self.k == 0 { 0 } else { self.tags.len() }
    }

    /// The texts' vectors by dimension (see `columns`).
    pub(super) fn columns(&self) -> &[f32] {
        &self.columns
    }

    /// The cosine of a text of meaning `vector` with each text, into
    /// `cosines`.
    pub(super) fn cosines_into(&self, vector: &Vector, cosines: &mut Vec<f32>) {
        cosines.clear();
        cosines.resize(self.texts(), 0.0);
        if !cosines.is_empty() {
            add_rows(vector.iter().copied().enumerate(), &self.columns, cosines);
        }
    }

    /// Each tag's score (by slot) for a text of `cosines` with the texts,
    /// added to `scores` times `weight`. `order` is scratch.
    pub(super) fn add_scores(
        &self,
        cosines: &[f32],
        weight: f32,
        order: &mut Vec<u32>,
        scores: &mut [f32],
    ) {
        let n = self.texts();
        if n == 0 {
            return;
        }
        debug_assert_eq!(cosines.len(), n, "a cosine for each text");
        order.clear();
        order.extend(0..n as u32);
        let k = self.k.min(n);
        let by_cosine = |a: &u32, b: &u32| cosines[*b as usize].total_cmp(&cosines[*a as usize]);
        if k < n {
            order.select_nth_unstable_by(k - 1, by_cosine);
        }
        // A text of opposite meaning is no evidence against a tag.
        let each = weight / self.k as f32;
        for &text in &order[..k] {
            let cosine = cosines[text as usize].max(0.0);
            for &slot in &self.tags[text as usize] {
                scores[slot] += cosine * each;
            }
        }
    }
}
