//! A vector as the index keeps it: a signed byte per dimension, scaled so
//! that its largest component is ±127. A byte loses little of a cosine
//! (the rank of neighbours barely moves) and takes a quarter of a float's
//! room: 256 bytes a record.

use super::{DIMS, Vector};

/// A stored vector's bytes.
pub type Packed = [u8; DIMS];

/// Dimensions a scan's first pass reads (see `index::vector_file`). The
/// table's dimensions are principal components, most variance first, so a
/// vector's head ranks documents much as the whole does.
pub const HEAD: usize = 64;

/// The head of a unit vector in bytes, for first-pass dot products with
/// stored heads: integer products, which the compiler vectorizes.
#[derive(Debug, Clone)]
pub struct Head {
    bytes: [i8; HEAD],
    scale: f32,
}

impl Head {
    pub fn of(v: &Vector) -> Head {
        let largest = v[..HEAD].iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let mut bytes = [0i8; HEAD];
        if largest > 0.0 {
            for (b, x) in bytes.iter_mut().zip(v) {
                *b = (x / largest * 127.0).round() as i8;
            }
        }
        Head {
            bytes,
            scale: largest / 127.0,
        }
    }

    /// About the dot product of the whole vector with a stored vector
    /// whose head is `stored` and whose bytes have the norm `norm`: its
    /// head's share of their cosine.
    pub fn cosine(&self, stored: &[i8; HEAD], norm: f32) -> f32 {
        head_dot(&self.bytes, stored) as f32 * self.scale / norm
    }
}

/// The dot product of two heads. A scan computes one a document, so where
/// the processor has AVX2 (checked once; the build targets plain x86-64)
/// it runs in 16-lane multiply-adds: a hybrid query at a million records
/// took 22 ms at the median instead of 31 (`bench/scale`'s `harness warm`).
fn head_dot(a: &[i8; HEAD], b: &[i8; HEAD]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above.
        return unsafe { head_dot_avx2(a, b) };
    }
    head_dot_portable(a, b)
}

#[inline(always)]
fn head_dot_portable(a: &[i8; HEAD], b: &[i8; HEAD]) -> i32 {
    (a.iter().zip(b))
        .map(|(&a, &b)| i32::from(a) * i32::from(b))
        .sum()
}

/// The same sum, compiled for AVX2: LLVM makes it sign extensions and
/// `vpmaddwd`, which SSE2 (the baseline) has no efficient form of.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn head_dot_avx2(a: &[i8; HEAD], b: &[i8; HEAD]) -> i32 {
    head_dot_portable(a, b)
}

/// A vector's sign code: a bit for each of its first [`CODE_BITS`]
/// dimensions, set where the unit vector lies above the mean of the vectors
/// it is compared with (their segment's). Codes near in Hamming distance
/// are vectors of high cosine, so a first pass over codes (XORs and
/// popcounts) finds the documents worth scoring whole.
pub type Code = [u64; CODE_BITS / 64];

/// Dimensions a sign code keeps: all of them. At a million records, the
/// first 128 (the principal components of most variance) with the nearest
/// 8,000 of each segment rescored kept as much of the exact top 50 (0.95
/// against 0.94) but less of its top 10 (0.97 against 0.98), and took
/// longer (`bench/scale`'s `recall` and `harness warm`).
pub const CODE_BITS: usize = 256;

/// The code of the unit vector `v` against `mean`.
/// Without a branch: each comparison is a coin toss, which a branch
/// mispredicts half the time (the hottest loop of a vector file's writing).
pub fn code(v: &Vector, mean: &Vector) -> Code {
    let mut code = [0u64; CODE_BITS / 64];
    for (word, (v, mean)) in code
        .iter_mut()
        .zip(v.chunks_exact(64).zip(mean.chunks_exact(64)))
    {
        for (bit, (x, m)) in v.iter().zip(mean).enumerate() {
            *word |= u64::from(x > m) << bit;
        }
    }
    code
}

/// The number of dimensions on which two codes differ.
#[inline(always)]
pub fn hamming(a: &Code, b: &Code) -> u32 {
    (a.iter().zip(b)).map(|(a, b)| (a ^ b).count_ones()).sum()
}

/// `v` in a byte per dimension; all zeros stays all zeros.
pub fn pack(v: &Vector) -> Packed {
    let largest = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let mut packed = [0u8; DIMS];
    if largest > 0.0 {
        for (p, x) in packed.iter_mut().zip(v) {
            *p = (x / largest * 127.0).round() as i8 as u8;
        }
    }
    packed
}

/// The cosine of a unit vector `query` and a stored vector (0 for a stored
/// vector of zeros, or bytes of another length).
pub fn cosine(query: &Vector, packed: &[u8]) -> f32 {
    if packed.len() != DIMS {
        return 0.0;
    }
    let norm = (packed.iter())
        .map(|&p| f32::from(p as i8) * f32::from(p as i8))
        .sum::<f32>()
        .sqrt();
    cosine_of_parts(query, packed, &[], norm)
}

/// The same of a stored vector given as its first bytes and the rest (a
/// vector file keeps them apart) and its norm, which the file keeps too.
/// Equal to [`cosine`] to the bit: a norm is the root of a sum of squared
/// bytes, integers that an `f32` holds exactly in any order.
pub fn cosine_of_parts(query: &Vector, head: &[u8], tail: &[u8], norm: f32) -> f32 {
    if head.len() + tail.len() != DIMS || norm <= 0.0 {
        return 0.0;
    }
    lane_dot(query, head, tail) / norm
}

/// Sums kept side by side: one running sum waits on each addition, and a
/// scan rescores thousands of vectors.
const LANES: usize = 8;

/// The dot product of `query` and the bytes `head` then `tail` (each a
/// whole number of lanes long), in [`LANES`] sums added up in a fixed
/// order. Where the processor has AVX2 (checked once; the build targets
/// plain x86-64) the lanes are one register: the same operations in the
/// same order, so the same result.
fn lane_dot(query: &Vector, head: &[u8], tail: &[u8]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above.
        return unsafe { lane_dot_avx2(query, head, tail) };
    }
    lane_dot_portable(query, head, tail)
}

#[inline(always)]
fn lane_dot_portable(query: &Vector, head: &[u8], tail: &[u8]) -> f32 {
    let mut dots = [0.0f32; LANES];
    let bytes = head.chunks_exact(LANES).chain(tail.chunks_exact(LANES));
    for (q, p) in query.chunks_exact(LANES).zip(bytes) {
        for lane in 0..LANES {
            dots[lane] += q[lane] * f32::from(p[lane] as i8);
        }
    }
    dots.iter().sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn lane_dot_avx2(query: &Vector, head: &[u8], tail: &[u8]) -> f32 {
    lane_dot_portable(query, head, tail)
}

/// A stored vector back as a unit vector (zeros for bytes of another length).
pub fn unpack(packed: &[u8]) -> Vector {
    let mut v = [0.0f32; DIMS];
    if packed.len() == DIMS {
        for (x, &p) in v.iter_mut().zip(packed) {
            *x = f32::from(p as i8);
        }
        super::normalize(&mut v);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{dot, embedder};

    #[test]
    fn a_packed_vector_keeps_its_cosines() {
        let e = embedder();
        let a = e.embed("expert parallelism for mixture-of-experts training");
        let b = e.embed("routing tokens to experts on many devices");
        let exact = dot(&a, &b);
        assert!((cosine(&a, &pack(&b)) - exact).abs() < 0.01);
        assert!((dot(&a, &unpack(&pack(&b))) - exact).abs() < 0.01);
    }

    #[test]
    fn a_head_ranks_as_its_whole_vector_mostly_does() {
        let e = embedder();
        let query = e.embed("splitting a model's layers across devices as a pipeline");
        let near = pack(&e.embed("pipeline parallelism over many accelerators"));
        let far = pack(&e.embed("a recipe for sourdough bread"));
        let head = Head::of(&query);
        let rough = |p: &Packed| {
            let stored: Vec<i8> = p[..HEAD].iter().map(|&b| b as i8).collect();
            let norm = p
                .iter()
                .map(|&b| f32::from(b as i8).powi(2))
                .sum::<f32>()
                .sqrt();
            head.cosine(stored.as_slice().try_into().unwrap(), norm)
        };
        assert!(cosine(&query, &near) > cosine(&query, &far));
        assert!(rough(&near) > rough(&far));
        assert!(rough(&near) <= cosine(&query, &near) + 0.1);
    }

    #[test]
    fn every_way_of_taking_a_heads_dot_product_agrees() {
        // Extremes included: -128 * -128 summed 64 times fits an i32.
        let mut random = fastrand::Rng::with_seed(0x2545_f491);
        let mut byte = || random.i8(..);
        for round in 0..200 {
            let (mut a, mut b) = ([0i8; HEAD], [0i8; HEAD]);
            for (x, y) in a.iter_mut().zip(&mut b) {
                (*x, *y) = match round {
                    0 => (i8::MIN, i8::MIN),
                    1 => (i8::MAX, i8::MIN),
                    _ => (byte(), byte()),
                };
            }
            let expected: i32 = (a.iter().zip(&b))
                .map(|(&x, &y)| i32::from(x) * i32::from(y))
                .sum();
            assert_eq!(head_dot(&a, &b), expected);
            assert_eq!(head_dot_portable(&a, &b), expected);
        }
    }

    #[test]
    fn a_cosine_from_a_files_parts_is_the_cosine_to_the_bit() {
        let e = embedder();
        let query = e.embed("overlapping communication with computation");
        for text in ["tensor parallelism", "a recipe for sourdough bread", "zero"] {
            let packed = pack(&e.embed(text));
            let norm = (packed.iter())
                .map(|&p| f32::from(p as i8).powi(2))
                .sum::<f32>()
                .sqrt();
            let (head, tail) = packed.split_at(HEAD);
            let whole = cosine(&query, &packed);
            assert_eq!(
                cosine_of_parts(&query, head, tail, norm).to_bits(),
                whole.to_bits()
            );
            assert_eq!(
                lane_dot_portable(&query, head, tail),
                lane_dot(&query, head, tail)
            );
        }
        assert_eq!(
            cosine_of_parts(&query, &[0; HEAD], &[0; DIMS - HEAD], 0.0),
            0.0
        );
    }

    #[test]
    fn zeros_and_foreign_bytes_have_no_cosine() {
        let a = embedder().embed("gradient compression");
        assert_eq!(cosine(&a, &pack(&[0.0; DIMS])), 0.0);
        assert_eq!(cosine(&a, &[1, 2, 3]), 0.0);
    }
}
