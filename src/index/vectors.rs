//! Every matching document scored by its vector alone, the best kept: a
//! scan of stored bytes, not of texts. Through a segment's vector file, a
//! first pass ranks documents by sign codes (or by their vectors' heads)
//! and the best few thousand are scored whole. A segment without its file
//! (a read-only folder, a damaged file) is scored from its stored texts,
//! each match's vector made again: the same scores, far more slowly.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashSet;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::fastfield::AliveBitSet;
use tantivy::query::{AllQuery, EnableScoring, Query, Weight};
use tantivy::store::StoreReader;
use tantivy::{DocAddress, DocId, Score, Searcher, SegmentReader};

use super::Fields;
use super::code_distances;
use super::vector_file::SegmentVectors;
pub use super::vector_file::VectorFiles;
use super::vector_file::stored_bytes;
use crate::embed::Vector;
use crate::embed::stored::{Code, HEAD, Head, Packed, code, cosine, cosine_of_parts, unpack};

/// The vector of the document at `address`, made from its stored texts;
/// `None` when they mean nothing (no word the model knows).
fn document_vector(searcher: &Searcher, address: DocAddress) -> tantivy::Result<Option<Vector>> {
    let fields = Fields::from_schema(searcher.schema())?;
    let bytes = stored_bytes(&searcher.doc(address)?, &fields);
    Ok(bytes.iter().any(|&b| b != 0).then(|| unpack(&bytes)))
}

/// The vector of the document at `address`, read from its segment's
/// vector file when it has one (an array), else made from its stored
/// texts.
pub fn vector_at(
    searcher: &Searcher,
    files: &VectorFiles,
    address: DocAddress,
) -> tantivy::Result<Option<Vector>> {
    match files.segment(address.segment_ord) {
        Some(file) if file.norm(address.doc_id) > 0.0 => {
            Ok(Some(unpack(&file.row(address.doc_id))))
        }
        Some(_) => Ok(None),
        None => document_vector(searcher, address),
    }
}

/// Which documents a scan keeps, besides its query's: by the columns, so
/// that nothing is read from the store.
#[derive(Debug, Default, Clone)]
pub struct Keep {
    /// Only records first submitted on this day number or later.
    pub since: Option<i64>,
    /// Not these arXiv id keys (see `schema::identifier_key`).
    pub excluded: FxHashSet<u64>,
}

/// How a scan scores a stored vector (higher is better; NaN leaves the
/// document out).
pub trait VectorScore: Sync {
    /// The score of a document's stored bytes.
    fn exact(&self, packed: &[u8]) -> f32;
    /// A cheaper score from the first [`HEAD`] stored bytes and the whole
    /// vector's norm, which ranks documents much as `exact` does: a first
    /// pass keeps the best few hundred by it, and `exact` orders those.
    fn rough(&self, head: &[i8; HEAD], norm: f32) -> f32;

    /// `exact` of `doc`'s bytes in `file`, where a score may read them in
    /// place.
    fn exact_in(&self, file: &SegmentVectors, doc: DocId) -> f32 {
        self.exact(&file.row(doc))
    }

    /// The unit vector whose cosine this is, when it is one: then the
    /// first pass compares sign codes (see `embed::stored::Code`) instead
    /// of calling `rough`.
    fn cosine_with(&self) -> Option<&Vector> {
        None
    }
}

/// The cosine with a unit vector.
pub struct Cosine<'a> {
    query: &'a Vector,
    head: Head,
}

impl Cosine<'_> {
    pub fn new(query: &Vector) -> Cosine<'_> {
        Cosine {
            query,
            head: Head::of(query),
        }
    }
}

impl VectorScore for Cosine<'_> {
    fn exact(&self, packed: &[u8]) -> f32 {
        cosine(self.query, packed)
    }

    fn rough(&self, head: &[i8; HEAD], norm: f32) -> f32 {
        self.head.cosine(head, norm)
    }

    /// Without copying the row or summing its squares again: a scan's
    /// rescoring of thousands of codes' nearest was a third of its time.
    fn exact_in(&self, file: &SegmentVectors, doc: DocId) -> f32 {
        let (head, tail) = file.parts(doc);
        cosine_of_parts(self.query, head, tail, file.norm(doc))
    }

    fn cosine_with(&self) -> Option<&Vector> {
        Some(self.query)
    }
}

/// The best `limit` documents by their vector's score (ties by address),
/// and how many were scored. Documents without a vector are left out. A
/// segment with its vector file (see `vector_file`) is scanned through
/// it; one without, from its stored texts.
pub struct BestByVector<'a> {
    pub score: &'a dyn VectorScore,
    pub keep: &'a Keep,
    pub limit: usize,
    pub files: &'a VectorFiles,
}

/// Documents a segment's first pass keeps for `exact`: enough that the
/// rough pass's misorderings do not reach the top `limit`.
fn first_pass_pool(limit: usize) -> usize {
    (limit * 8).max(1000)
}

/// The same by sign codes, which order more coarsely: at a million
/// records, 2,000 a segment keep 0.94 of the exact top 50 and 0.98 of its
/// top 10 (`bench/scale`'s `recall`).
fn code_pass_pool(limit: usize) -> usize {
    (limit * 40).max(2000)
}

/// How many of the nearest ahead of the one being scored a rescoring asks
/// the memory for (a scan with cold caches at a million records, `carbon`:
/// 3.7 -> 3.4 ms a query; 48 gained no more).
const ROWS_AHEAD: usize = 16;

impl Collector for BestByVector<'_> {
    type Fruit = (Vec<(Score, DocAddress)>, usize);
    type Child = WholeSegments<Self::Fruit>;

    /// Never called: `collect_segment` scans a segment whole, with the
    /// query's scorer, so that each pass reads one array at a time.
    fn for_segment(&self, _: u32, _: &SegmentReader) -> tantivy::Result<Self::Child> {
        not_by_segment()
    }

    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<Self::Fruit> {
        let Some(file) = self.files.segment(segment_ord) else {
            let rows = SegmentRows::Store(Box::new(StoredTexts::of(reader)?));
            return self.scored_row_by_row(&rows, weight, segment_ord, reader);
        };
        let filter = Filter::new(reader, self.keep)?;
        if let Some(query) = self.score.cosine_with() {
            let mut pass = CodePass::new(query, file);
            let mut kept = Vec::new();
            weight.for_each_no_score(reader, &mut |docs| {
                kept.clear();
                kept.extend(docs.iter().copied().filter(|&doc| filter.keeps(doc)));
                pass.offer(&kept);
            })?;
            return Ok(self.rescored(&pass, segment_ord));
        }
        let mut rough = Best::new(first_pass_pool(self.limit));
        weight.for_each_no_score(reader, &mut |docs| {
            for &doc in docs {
                if !filter.keeps(doc) {
                    continue;
                }
                let norm = file.norm(doc);
                if norm > 0.0 {
                    rough.offer(self.score.rough(file.head(doc), norm), doc);
                }
            }
        })?;
        let mut best = Best::new(self.limit);
        let scored = rough.scored;
        for (_, doc) in rough
            .heap
            .into_iter()
            .map(|Reverse((s, Reverse(d)))| (s, d))
        {
            let score = self.score.exact_in(file, doc);
            if !score.is_nan() {
                best.offer(score, doc);
            }
        }
        // Every document the first pass scored, not only those rescored.
        best.scored = scored;
        Ok(best.harvest(segment_ord))
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let scored = fruits.iter().map(|(_, n)| n).sum();
        let mut all: Vec<(Score, DocAddress)> = fruits.into_iter().flat_map(|(f, _)| f).collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(self.limit);
        Ok((all, scored))
    }
}

impl BestByVector<'_> {
    /// The best documents `query` matches, as `searcher.search` finds
    /// them. For [`AllQuery`] (a scan with no filter but `keep`), each
    /// segment's codes are read in order, not through the query's scorer.
    pub fn search(
        &self,
        searcher: &Searcher,
        query: &dyn Query,
    ) -> tantivy::Result<<Self as Collector>::Fruit> {
        let Some(vector) = (self.score.cosine_with()).filter(|_| query.is::<AllQuery>()) else {
            return searcher.search(query, self);
        };
        let weight = query.weight(EnableScoring::disabled_from_searcher(searcher))?;
        let segments = searcher.segment_readers().iter().enumerate();
        let fruits = searcher.index().search_executor().map(
            |(ordinal, reader)| {
                let ordinal = ordinal as u32;
                match self.files.segment(ordinal) {
                    Some(file) => self.every_in_segment(vector, file, ordinal, reader),
                    None => self.collect_segment(&*weight, ordinal, reader),
                }
            },
            segments,
        )?;
        self.merge_fruits(fruits)
    }

    /// Every document of a segment that `keep` keeps, by its code.
    fn every_in_segment(
        &self,
        query: &Vector,
        file: &SegmentVectors,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<<Self as Collector>::Fruit> {
        let mut pass = CodePass::new(query, file);
        pass.offer_every();
        let filter = Filter::new(reader, self.keep)?;
        if filter.is_active() {
            for doc in 0..reader.max_doc() {
                if !filter.keeps(doc) {
                    pass.withdraw(doc);
                }
            }
        }
        Ok(self.rescored(&pass, segment_ord))
    }

    /// The nearest of a first pass by codes, scored whole.
    fn rescored(&self, pass: &CodePass, segment_ord: u32) -> <Self as Collector>::Fruit {
        let (nearest, offered) = pass.nearest(code_pass_pool(self.limit));
        let mut best = Best::new(self.limit);
        // Documents without a vector have a code too (zeros): left out here.
        for (i, &doc) in nearest.iter().enumerate() {
            // The rows lie far apart, out of the caches: asked for ahead,
            // several are read at once instead of one after another.
            if let Some(&later) = nearest.get(i + ROWS_AHEAD) {
                pass.file.prefetch_row(later);
            }
            if pass.file.norm(doc) == 0.0 {
                continue;
            }
            let score = self.score.exact_in(pass.file, doc);
            if !score.is_nan() {
                best.offer(score, doc);
            }
        }
        best.scored = offered;
        best.harvest(segment_ord)
    }

    /// Each match scored by its row read whole from `rows` (a segment
    /// without its vector file: made from its stored texts).
    fn scored_row_by_row(
        &self,
        rows: &SegmentRows,
        weight: &dyn Weight,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<(Vec<(Score, DocAddress)>, usize)> {
        let filter = Filter::new(reader, self.keep)?;
        let mut best = Best::new(self.limit);
        let mut failed = None;
        weight.for_each_no_score(reader, &mut |docs| {
            for &doc in docs {
                if !filter.keeps(doc) {
                    continue;
                }
                match rows.bytes(doc) {
                    Ok(Some(bytes)) => {
                        let score = self.score.exact(&bytes);
                        if !score.is_nan() {
                            best.offer(score, doc);
                        }
                    }
                    Ok(None) => {}
                    Err(e) => {
                        failed.get_or_insert(e);
                    }
                }
            }
        })?;
        match failed {
            Some(e) => Err(e),
            None => Ok(best.harvest(segment_ord)),
        }
    }
}

/// Where a segment's vectors are read one document at a time: its vector
/// file, or, without one, its stored texts.
pub enum SegmentRows<'a> {
    File(&'a SegmentVectors),
    Store(Box<StoredTexts>),
}

/// A segment's stored texts, from which its vectors are made again.
pub struct StoredTexts {
    store: StoreReader,
    fields: Fields,
}

impl StoredTexts {
    fn of(reader: &SegmentReader) -> tantivy::Result<StoredTexts> {
        Ok(StoredTexts {
            store: reader.get_store_reader(1)?,
            fields: Fields::from_schema(reader.schema())?,
        })
    }
}

impl SegmentRows<'_> {
    /// The rows of segment `segment_ord` of `files`' searcher.
    pub fn of<'a>(
        files: &'a VectorFiles,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentRows<'a>> {
        Ok(match files.segment(segment_ord) {
            Some(file) => SegmentRows::File(file),
            None => SegmentRows::Store(Box::new(StoredTexts::of(reader)?)),
        })
    }

    /// `doc`'s stored bytes; `None` when it has no vector.
    pub fn bytes(&self, doc: DocId) -> tantivy::Result<Option<Packed>> {
        Ok(match self {
            SegmentRows::File(file) => (file.norm(doc) > 0.0).then(|| file.row(doc)),
            SegmentRows::Store(texts) => {
                let bytes = stored_bytes(&texts.store.get(doc)?, &texts.fields);
                bytes.iter().any(|&b| b != 0).then_some(bytes)
            }
        })
    }
}

/// A first pass by sign codes over one segment: each document's Hamming
/// distance to the query's code, kept by document (a byte each), so that
/// the nearest are found by counting distances, without sorting.
struct CodePass<'a> {
    query: Code,
    file: &'a SegmentVectors,
    distance: Vec<u8>,
    offered: usize,
}

/// A document not offered; a distance offered is at most
/// [`code_distances::CAP`], one less.
const FAR: u8 = u8::MAX;
const _: () = assert!(code_distances::CAP == FAR - 1);

impl<'a> CodePass<'a> {
    fn new(query: &Vector, file: &'a SegmentVectors) -> CodePass<'a> {
        CodePass {
            query: code(query, &file.mean()),
            file,
            distance: vec![FAR; file.max_doc()],
            offered: 0,
        }
    }

    /// Takes the distance of each of `docs`. Popcounts are most of the
    /// work, and the build's baseline (plain x86-64) has no instruction for
    /// them: where the processor has one (checked once a batch), the loop
    /// is compiled for it.
    fn offer(&mut self, docs: &[DocId]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the processor has POPCNT, checked just above.
            return unsafe { self.offer_popcnt(docs) };
        }
        self.offer_portable(docs)
    }

    #[inline(always)]
    fn offer_portable(&mut self, docs: &[DocId]) {
        for &doc in docs {
            self.distance[doc as usize] = code_distances::capped(&self.query, &self.file.code(doc));
        }
        self.offered += docs.len();
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn offer_popcnt(&mut self, docs: &[DocId]) {
        self.offer_portable(docs)
    }

    /// Takes the distance of every document, reading the codes in order.
    fn offer_every(&mut self) {
        code_distances::each(self.file.code_bytes(), &self.query, &mut self.distance);
        self.offered = self.distance.len();
    }

    /// Takes `doc` back: it is not to be scored.
    fn withdraw(&mut self, doc: DocId) {
        let distance = &mut self.distance[doc as usize];
        self.offered -= usize::from(*distance != FAR);
        *distance = FAR;
    }

    /// The `pool` nearest documents offered (ties by document order), and
    /// how many were offered.
    fn nearest(&self, pool: usize) -> (Vec<DocId>, usize) {
        (nearest(&self.distance, pool), self.offered)
    }
}

/// The `pool` documents of least `distance`, ties by document order; none
/// at [`FAR`]. A sample of the distances bounds where the cut can fall,
/// so that only the documents within the bound are counted exactly (a
/// pool is a few thousand of a segment's hundreds of thousands).
fn nearest(distance: &[u8], pool: usize) -> Vec<DocId> {
    let mut near = Vec::new();
    let bound = sampled_bound(distance, pool);
    at_most(distance, bound, &mut near);
    if near.len() < pool && bound < code_distances::CAP {
        // The sample misjudged: every document offered.
        near.clear();
        at_most(distance, code_distances::CAP, &mut near);
    }
    // Every document within the bound is in `near`, and at least `pool`
    // of them are: the cut is among them.
    let mut count = [0usize; FAR as usize];
    for &doc in &near {
        count[usize::from(distance[doc as usize])] += 1;
    }
    let (mut cut, mut within) = (0, 0);
    while cut < count.len() && within + count[cut] < pool {
        within += count[cut];
        cut += 1;
    }
    let mut room = pool.saturating_sub(within);
    near.retain(|&doc| {
        let d = usize::from(distance[doc as usize]);
        let kept = d < cut || (d == cut && room > 0);
        room -= usize::from(kept && d == cut);
        kept
    });
    near
}

/// A distance within which, by a sample of every 16th document, about
/// twice `pool` documents lie (`code_distances::CAP` when the sample has too few).
fn sampled_bound(distance: &[u8], pool: usize) -> u8 {
    const STRIDE: usize = 16;
    let mut tally = [0usize; FAR as usize + 1];
    for &d in distance.iter().step_by(STRIDE) {
        tally[usize::from(d)] += 1;
    }
    let wanted = (2 * pool).div_ceil(STRIDE) + 8;
    let mut within = 0;
    for d in 0..FAR {
        within += tally[usize::from(d)];
        if within >= wanted {
            return d;
        }
    }
    code_distances::CAP
}

/// Appends to `near` every document whose distance is at most `bound`, in
/// order. Sixteen distances are compared at once (SSE2, which every
/// x86-64 processor has), and most blocks hold none.
fn at_most(distance: &[u8], bound: u8, near: &mut Vec<DocId>) {
    const LANES: usize = 16;
    let blocks = distance.chunks_exact(LANES);
    let rest = blocks.remainder();
    for (block, lanes) in blocks.enumerate() {
        let mut mask = within_mask(lanes.try_into().unwrap(), bound);
        while mask != 0 {
            near.push((block * LANES) as DocId + mask.trailing_zeros());
            mask &= mask - 1;
        }
    }
    let start = distance.len() - rest.len();
    for (at, &d) in rest.iter().enumerate() {
        if d <= bound {
            near.push((start + at) as DocId);
        }
    }
}

/// A bit for each of the sixteen distances that is at most `bound`.
#[inline(always)]
fn within_mask(lanes: &[u8; 16], bound: u8) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
            _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of
        // `lanes`, unaligned.
        unsafe {
            let x = _mm_loadu_si128(lanes.as_ptr().cast::<__m128i>());
            let low = _mm_min_epu8(x, _mm_set1_epi8(bound as i8));
            _mm_movemask_epi8(_mm_cmpeq_epi8(low, x)) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        (lanes.iter().enumerate()).fold(0, |mask, (i, &d)| mask | (u32::from(d <= bound) << i))
    }
}

/// What a scan keeps of a segment besides its query's matches: documents
/// not deleted, and those `Keep` keeps.
struct Filter {
    alive: Option<AliveBitSet>,
    since: Option<(Column<i64>, i64)>,
    keys: Option<(Column<u64>, FxHashSet<u64>)>,
}

impl Filter {
    fn new(reader: &SegmentReader, keep: &Keep) -> tantivy::Result<Filter> {
        let fast = reader.fast_fields();
        let since = match keep.since {
            Some(day) => Some((fast.i64("submitted")?, day)),
            None => None,
        };
        let keys = match keep.excluded.is_empty() {
            true => None,
            false => Some((fast.u64("arxiv_key")?, keep.excluded.clone())),
        };
        let alive = reader.alive_bitset().cloned();
        Ok(Filter { alive, since, keys })
    }

    /// Whether it leaves any document out.
    fn is_active(&self) -> bool {
        self.alive.is_some() || self.since.is_some() || self.keys.is_some()
    }

    fn keeps(&self, doc: DocId) -> bool {
        if self.alive.as_ref().is_some_and(|a| !a.is_alive(doc)) {
            return false;
        }
        if let Some((column, since)) = &self.since
            && column.first(doc).is_none_or(|day| day < *since)
        {
            return false;
        }
        if let Some((column, excluded)) = &self.keys
            && column.first(doc).is_some_and(|key| excluded.contains(&key))
        {
            return false;
        }
        true
    }
}

/// A segment's best documents so far, the worst on top, and how many were
/// offered.
struct Best {
    limit: usize,
    heap: BinaryHeap<Reverse<(Ranked, Reverse<DocId>)>>,
    scored: usize,
}

impl Best {
    fn new(limit: usize) -> Best {
        Best {
            limit,
            heap: BinaryHeap::with_capacity(limit + 1),
            scored: 0,
        }
    }

    /// Keeps `doc` if it is among the best so far: the lowest score goes
    /// first, and of equal scores the later document.
    fn offer(&mut self, score: f32, doc: DocId) {
        self.scored += 1;
        let entry = (Ranked(score), Reverse(doc));
        if self.heap.len() < self.limit {
            self.heap.push(Reverse(entry));
        } else if self
            .heap
            .peek()
            .is_some_and(|Reverse(worst)| entry > *worst)
        {
            self.heap.pop();
            self.heap.push(Reverse(entry));
        }
    }

    fn harvest(self, segment_ord: u32) -> (Vec<(Score, DocAddress)>, usize) {
        let found = (self.heap.into_iter())
            .map(|Reverse((score, Reverse(doc)))| (score.0, DocAddress::new(segment_ord, doc)))
            .collect();
        (found, self.scored)
    }
}

/// The segment collector of a collector that scans whole segments in its
/// own `collect_segment` and so never makes one (its `for_segment` fails).
pub struct WholeSegments<F>(std::marker::PhantomData<fn() -> F>);

/// A score, ordered totally.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ranked(f32);

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl<F: Default + Send + 'static> SegmentCollector for WholeSegments<F> {
    type Fruit = F;

    fn collect(&mut self, _: DocId, _: Score) {}

    fn harvest(self) -> F {
        F::default()
    }
}

/// The error of a whole-segment collector's `for_segment`, which its
/// `collect_segment` never calls.
pub fn not_by_segment<T>() -> tantivy::Result<T> {
    Err(tantivy::TantivyError::InternalError(
        "a scan by vector collects whole segments".to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_codes_are_cut_at_the_pool_ties_by_document() {
        let distance = [3, 1, 1, 2, FAR, 1];
        assert_eq!(nearest(&distance, 2), vec![1, 2]);
        assert_eq!(nearest(&distance, 4), vec![1, 2, 3, 5]);
        // More room than documents: every one taken, none that was not.
        assert_eq!(nearest(&distance, 100), vec![0, 1, 2, 3, 5]);
    }

    /// The pool by sorting every document offered.
    fn nearest_by_sorting(distance: &[u8], pool: usize) -> Vec<DocId> {
        let mut all: Vec<(u8, DocId)> = (distance.iter().enumerate())
            .filter(|(_, d)| **d != FAR)
            .map(|(doc, &d)| (d, doc as DocId))
            .collect();
        all.sort();
        let mut kept: Vec<DocId> = all.into_iter().take(pool).map(|(_, doc)| doc).collect();
        kept.sort();
        kept
    }

    #[test]
    fn the_nearest_are_those_a_sort_would_keep_whatever_the_sample_sees() {
        // Spread distances (the sample judges well), bunched ones with the
        // near few between its samples (it misjudges), and a filtered scan
        // (most documents not offered).
        let spread: Vec<u8> = (0..20_000u32).map(|i| (i * 7919 % 250) as u8).collect();
        let mut bunched = vec![200u8; 20_000];
        for doc in [3, 17, 5_001, 19_999] {
            bunched[doc] = 9;
        }
        // The sampled documents near, the rest far: it bounds too low.
        let sampled: Vec<u8> = (0..20_000)
            .map(|i| if i % 16 == 0 { 1 } else { 250 })
            .collect();
        let mut filtered = vec![FAR; 20_000];
        for doc in (0..20_000).step_by(97) {
            filtered[doc] = (doc % 200) as u8;
        }
        for distance in [&spread, &bunched, &sampled, &filtered] {
            for pool in [1, 4, 50, 2_000, 30_000] {
                assert_eq!(nearest(distance, pool), nearest_by_sorting(distance, pool));
            }
        }
    }
}
