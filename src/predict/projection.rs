//! The models' reading of a record's vector, summed over its word pieces.
//!
//! What the models read of a vector is linear: the regressions' dense part
//! (a weight per dimension and tag) and the cosines with the training texts
//! (a vector per text). A record's vector is the sum of its word pieces'
//! rows, normalized, then centred (`Centre`), so its reading follows from
//! the sum of its pieces' readings, the sum's length and the centre's own
//! reading. Each piece's reading is made at its first use and kept: a
//! record then costs a row per piece (some 50) instead of a row per
//! dimension (256) for the tags and again for the texts. The sums are the
//! same model's in another order, equal to the direct reading within
//! float rounding.

use std::sync::OnceLock;

use super::learn::add_rows;
use crate::embed::{self, DIMS, Reading, Vector};

/// The readings of a model's vector features, its vote's texts and the
/// centre, for every word piece.
#[derive(Debug, Clone)]
pub(super) struct Projection {
    /// Tags read (0 when the regressions read no vector), then texts.
    tags: usize,
    texts: usize,
    /// Per dimension, its weight in each of the `width` readings: the
    /// tags', the texts', then the centre's (a dot with it).
    weights: Vec<f32>,
    /// The centre's reading of the tags and texts, and its squared length.
    centre: Vec<f32>,
    centre_square: f32,
    /// Each word piece's reading, made at its first use.
    pieces: Box<[OnceLock<Box<[f32]>>]>,
}

impl Projection {
    /// The readings of `tag_weights` (per dimension, a weight for each of
    /// `tags` tags; empty for none), `text_columns` (per dimension, each of
    /// `texts` texts' component) and the vector `centre`.
    pub(super) fn new(
        tags: usize,
        tag_weights: &[f32],
        texts: usize,
        text_columns: &[f32],
        centre: &Vector,
    ) -> Projection {
        let tags = if tag_weights.is_empty() { 0 } else { tags };
        let width = tags + texts + 1;
        let mut weights = Vec::with_capacity(DIMS * width);
        for (dim, &along) in centre.iter().enumerate() {
            weights.extend_from_slice(&tag_weights[dim * tags..(dim + 1) * tags]);
            weights.extend_from_slice(&text_columns[dim * texts..(dim + 1) * texts]);
            weights.push(along);
        }
        let mut projection = Projection {
            tags,
            texts,
            weights,
            centre: Vec::new(),
            centre_square: embed::dot(centre, centre),
            pieces: (0..embed::embedder().pieces_known())
                .map(|_| OnceLock::new())
                .collect(),
        };
        let mut read = projection.read_vector(centre);
        read.pop();
        projection.centre = read;
        projection
    }

    fn width(&self) -> usize {
        self.tags + self.texts + 1
    }

    fn read_vector(&self, vector: &Vector) -> Vec<f32> {
        let mut read = vec![0.0; self.width()];
        add_rows(
            vector
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, x)| x != 0.0),
            &self.weights,
            &mut read,
        );
        read
    }

    fn piece(&self, id: u32) -> &[f32] {
        match self.pieces.get(id as usize) {
            Some(cell) => cell.get_or_init(|| {
                self.read_vector(&embed::embedder().piece_row(id))
                    .into_boxed_slice()
            }),
            // The embedder never gives an id past its table.
            None => &[],
        }
    }

    /// The tags' log-odds parts, then the cosines with the texts, of the
    /// centred vector of `reading`, into `read`. All zeros for a text with
    /// no known piece, whose centred vector stays all zeros.
    pub(super) fn read(&self, reading: &Reading, read: &mut Vec<f32>) {
        read.clear();
        read.resize(self.width(), 0.0);
        if reading.length > 0.0 {
            sum_pieces(self, &reading.pieces, read);
        }
        let along = read.pop().unwrap_or(0.0);
        if reading.length == 0.0 {
            return;
        }
        // |v - c| for the unit vector v = sum / length.
        let square = 1.0 - 2.0 * along / reading.length + self.centre_square;
        if square <= 0.0 {
            read.iter_mut().for_each(|x| *x = 0.0);
            return;
        }
        let scale = square.sqrt();
        for (x, centre) in read.iter_mut().zip(&self.centre) {
            *x = (*x / reading.length - centre) / scale;
        }
    }

    /// The number of tag readings at the start of [`Projection::read`]'s.
    pub(super) fn tags(&self) -> usize {
        self.tags
    }
}

/// Each piece's reading of `pieces` added to `read`: eight floats a step
/// where the processor has AVX (found at run time).
fn sum_pieces(projection: &Projection, pieces: &[u32], read: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx") {
        // SAFETY: the processor has AVX.
        return unsafe { sum_pieces_avx(projection, pieces, read) };
    }
    sum_pieces_portable(projection, pieces, read);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn sum_pieces_avx(projection: &Projection, pieces: &[u32], read: &mut [f32]) {
    sum_pieces_portable(projection, pieces, read);
}

#[inline(always)]
fn sum_pieces_portable(projection: &Projection, pieces: &[u32], read: &mut [f32]) {
    for &id in pieces {
        for (x, part) in read.iter_mut().zip(projection.piece(id)) {
            *x += part;
        }
    }
}
