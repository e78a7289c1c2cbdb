//! Whether a record belongs in the list, by meaning: the mean cosine of
//! its vector with those of the [`NEAREST`] catalog works closest to it
//! (see `embed`). A record told in its own words ("ring-scheduled
//! attention over a million tokens") is near the works it resembles though
//! it shares none of their words; a TF-IDF model of a hundred works is not.
//!
//! A curator's decisions teach it: an accepted record is a catalog work,
//! and a record closer to a rejected one than to its nearest work loses the
//! difference, so that a rejection lowers its neighbours too.

use crate::catalog::Catalog;
use crate::embed::stored::{HEAD, Head};
use crate::embed::{DIMS, Vector, dot, record_vector};
use crate::model::Record;
use crate::model::metadata::Cache;

/// Works whose closeness is averaged. On the tuning half of the fictional
/// stream (`bench/inbox.py`), one and two rank alike; two is less at the
/// mercy of one odd work.
pub const NEAREST: usize = 2;

/// A catalog work as the model knows it.
struct Work {
    id: String,
    title: String,
    vector: Vector,
}

/// The catalog's works, by meaning.
pub struct Meaning {
    works: Vec<Work>,
    /// The works' vectors one after another, for the scan's dot products.
    matrix: Vec<f32>,
    /// The works' heads, for a scan's first pass.
    heads: Vec<Head>,
}

/// A work close to a record, and how close (a cosine).
#[derive(Debug, Clone, PartialEq)]
pub struct Closest {
    pub id: String,
    pub title: String,
    pub similarity: f32,
}

impl Meaning {
    /// The curated works of `catalog` (those with tags): what the list is
    /// about.
    pub fn train(catalog: &Catalog, cache: &Cache) -> Meaning {
        let works: Vec<Work> = (catalog.entries.iter())
            .filter(|e| !e.tags.is_empty())
            .map(|entry| Work {
                id: entry.id.clone(),
                title: entry.title.clone(),
                vector: record_vector(&Record::from_entry(entry, cache.get(&entry.id))),
            })
            .filter(|w| w.vector.iter().any(|&x| x != 0.0))
            .collect();
        Meaning::of(works)
    }

    fn of(works: Vec<Work>) -> Meaning {
        Meaning {
            matrix: works.iter().flat_map(|w| w.vector).collect(),
            heads: works.iter().map(|w| Head::of(&w.vector)).collect(),
            works,
        }
    }

    /// How well `vector` belongs, in -1..=1 (higher is better), given the
    /// vectors of the records a curator rejected.
    pub fn score(&self, vector: &Vector, rejected: &[Vector]) -> f32 {
        let works = self.matrix.chunks_exact(DIMS).map(|row| dot(vector, row));
        let rejected = rejected.iter().map(|r| dot(vector, r));
        belonging(works, rejected)
    }

    /// About [`score`](Self::score), from a stored vector's head and norm
    /// (see `embed::stored::Head`), with the rejected records' heads: what
    /// a scan's first pass ranks by.
    pub fn rough_score(&self, head: &[i8; HEAD], norm: f32, rejected: &[Head]) -> f32 {
        let works = self.heads.iter().map(|w| w.cosine(head, norm));
        let rejected = rejected.iter().map(|r| r.cosine(head, norm));
        belonging(works, rejected)
    }

    /// The `n` works closest to `vector`, closest first.
    pub fn closest(&self, vector: &Vector, n: usize) -> Vec<Closest> {
        let mut all: Vec<(f32, &Work)> = (self.works.iter())
            .map(|w| (dot(vector, &w.vector), w))
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
        (all.into_iter().take(n))
            .map(|(similarity, w)| Closest {
                id: w.id.clone(),
                title: w.title.clone(),
                similarity,
            })
            .collect()
    }
}

/// The mean of the [`NEAREST`] highest of a record's cosines with the
/// works, less how much closer it is to a rejected record than to its
/// nearest work.
fn belonging(works: impl Iterator<Item = f32>, rejected: impl Iterator<Item = f32>) -> f32 {
    let mut best = [f32::MIN; NEAREST];
    for similarity in works {
        if similarity > best[NEAREST - 1] {
            best[NEAREST - 1] = similarity;
            best.sort_by(|a, b| b.total_cmp(a));
        }
    }
    let found = best.iter().filter(|&&s| s > f32::MIN);
    let count = found.clone().count();
    if count == 0 {
        return 0.0;
    }
    let near = found.sum::<f32>() / count as f32;
    let nearest = best[0];
    let rejected = rejected.fold(f32::MIN, f32::max);
    near - (rejected - nearest).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::embedder;

    fn belongs(works: &[&str]) -> Meaning {
        let works: Vec<Work> = (works.iter().enumerate())
            .map(|(i, title)| Work {
                id: format!("w{i}"),
                title: title.to_string(),
                vector: embedder().embed(title),
            })
            .collect();
        Meaning::of(works)
    }

    #[test]
    fn a_record_near_a_rejected_one_ranks_lower_than_before() {
        let model = belongs(&[
            "Pipeline parallelism with micro-batches for training large models",
            "Sharding optimizer state across data-parallel workers",
        ]);
        let record = embedder().embed("Micro-batch pipeline schedules for training huge networks");
        let rejected =
            embedder().embed("Micro-batch pipeline schedules for training huge networks on phones");
        let before = model.score(&record, &[]);
        let after = model.score(&record, &[rejected]);
        assert!(after < before - 0.05, "before {before}, after {after}");
        let unrelated = embedder().embed("A survey of protein folding");
        assert_eq!(model.score(&record, &[unrelated]), before);
    }

    #[test]
    fn the_closest_works_come_first() {
        let model = belongs(&[
            "Sharding optimizer state across data-parallel workers",
            "Pipeline parallelism with micro-batches for training large models",
        ]);
        let closest = model.closest(&embedder().embed("micro-batches in a pipeline"), 1);
        assert_eq!(closest[0].id, "w1");
    }
}
