//! More like this: works that mean what one work means (the cosine of
//! their vectors), fused with those that share the distinctive words of its
//! title, tags, note and abstract, each field's weighed as a search weighs
//! it, and with the works on the other side of it (serving or training)
//! scaled as a query asking about its side scales them.
//!
//! Like tantivy's `MoreLikeThisQuery`, but its words are chosen and scored
//! by [`Statistics`]: over every document of a large index, the words of
//! the fields only catalog entries have (tags, notes, tag labels) look as
//! rare as one in a million, so they crowded out the title's and abstract's
//! words and then scored next to nothing.

use std::collections::HashMap;

use tantivy::TantivyDocument;
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{
    AllQuery, Bm25StatisticsProvider, BooleanQuery, BoostQuery, Occur, Query, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, Index, SegmentReader, Term};

use crate::catalog::Vocabulary;
use crate::embed::stored::cosine;
use crate::error::Error;
use crate::index::vectors::{
    BestByVector, Cosine, Keep, SegmentRows, VectorFiles, WholeSegments, not_by_segment, vector_at,
};
use crate::index::{Fields, OpenIndex, id_query};
use crate::model::Record;
use crate::search::Hit;
use crate::search::retrieve::meaning::{self, Mode};
use crate::search::signals::Boosts;
use crate::search::statistics::{Statistics, idf};
use crate::search::understand::intent::serving_tags_of;

/// The entry's most distinctive terms that the query keeps.
const MOST_TERMS: usize = 40;
/// Shorter words say little of what a work is about.
const SHORTEST_WORD: usize = 3;

/// The works most like `id`: by the distinctive words it shares with them
/// (`Keyword`), by the cosine of their vectors (`Semantic`), or both fused
/// by rank (`Hybrid`). Without a mode: by its words when it has curated
/// tags (which they read), else by meaning (`bench/similar.py`: on records
/// without curated tags, a result shares a blind tag 36% of the time by
/// meaning, 23% by words or fused; on curated works, 75% by words, 69%
/// fused, 54% by meaning). A work without a vector falls back to its words.
pub fn similar(
    open: &OpenIndex,
    id: &str,
    limit: usize,
    mode: Option<Mode>,
    (boosts, vocabulary): (&Boosts, &Vocabulary),
) -> Result<Vec<Hit>, Error> {
    let searcher = open.reader.searcher();
    let fields = Fields::from_schema(&open.index.schema())?;
    let found = searcher.search(&*id_query(&fields, id), &DocSetCollector)?;
    let (Some(address), Some(doc)) = (found.into_iter().min(), open.document(id)?) else {
        return Err(Error::Usage(format!(
            "no entry with id `{id}` (try `distml-search search {id}`)"
        )));
    };
    // Mapped once: the work's own row, then the scan.
    let files = VectorFiles::of(&open.path, &searcher);
    let vector = vector_at(&searcher, &files, address)?;
    let curated = doc.get_first(fields.tags).is_some();
    let mode = mode.unwrap_or(if curated {
        Mode::Keyword
    } else {
        Mode::Semantic
    });
    let pool = meaning::POOL.max(limit);
    let keyword = match (mode, &vector) {
        (Mode::Semantic, Some(_)) => Vec::new(),
        _ => {
            let like = like_query(open, &searcher, &fields, &doc, id, boosts)?;
            let statistics = Statistics::new(&searcher, &fields)?;
            let mut top = statistics.search(&*like, &TopDocs::with_limit(pool).order_by_score())?;
            same_side_first(&searcher, &fields, &doc, (boosts, vocabulary), &mut top)?;
            top
        }
    };
    let (top, cosines): (Vec<(f32, DocAddress)>, HashMap<DocAddress, f32>) = match (mode, &vector) {
        (Mode::Keyword, _) | (_, None) => (keyword, HashMap::new()),
        (_, Some(vector)) => {
            let score = Cosine::new(vector);
            let keep = Keep::default();
            let scan = BestByVector {
                score: &score,
                keep: &keep,
                limit: pool + 1,
                files: &files,
            };
            let mut semantic = scan.search(&searcher, &AllQuery)?.0;
            semantic.retain(|&(_, a)| a != address);
            let cosines = semantic.iter().map(|&(c, a)| (a, c)).collect();
            if mode == Mode::Semantic {
                (semantic, cosines)
            } else {
                (fuse(&keyword, &semantic), cosines)
            }
        }
    };
    let mut hits = Vec::new();
    for (i, &(score, address)) in top.iter().take(limit).enumerate() {
        let doc: TantivyDocument = searcher.doc(address)?;
        hits.push(Hit {
            rank: i + 1,
            score,
            record: Record::from_document(&doc, &fields),
            snippet: None,
            explanation: None,
            semantic: cosines.get(&address).copied(),
        });
    }
    Ok(hits)
}

/// Two rankings fused by reciprocal rank, equally weighted.
fn fuse(a: &[(f32, DocAddress)], b: &[(f32, DocAddress)]) -> Vec<(f32, DocAddress)> {
    let mut fused: HashMap<DocAddress, f32> = HashMap::new();
    for list in [a, b] {
        for (rank, &(_, address)) in list.iter().enumerate() {
            *fused.entry(address).or_default() += 1.0 / (meaning::RRF_K + rank as f32 + 1.0);
        }
    }
    let mut ranked: Vec<(f32, DocAddress)> = fused.into_iter().map(|(a, s)| (s, a)).collect();
    ranked.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    ranked
}

/// Whether a document's curated tags, or else its predicted ones, say it
/// serves (see `intent`).
fn serves(doc: &TantivyDocument, fields: &Fields, serving: &[String]) -> bool {
    let holds = |field| {
        (doc.get_all(field).filter_map(|v| v.as_str())).any(|t| serving.iter().any(|s| s == t))
    };
    if doc.get_first(fields.tags).is_some() {
        holds(fields.tags)
    } else {
        holds(fields.predicted)
    }
}

/// The works on the other side of `doc`, serving when it trains or the
/// reverse, scaled as a query asking about its side scales them (see
/// `intent`): a training work's words ("removes redundancy", "GPU
/// memory") are shared by serving systems that a reader of it does not
/// want next. Sorted again, stably.
fn same_side_first(
    searcher: &tantivy::Searcher,
    fields: &Fields,
    doc: &TantivyDocument,
    (boosts, vocabulary): (&Boosts, &Vocabulary),
    top: &mut [(f32, DocAddress)],
) -> Result<(), Error> {
    let serving = serving_tags_of(vocabulary);
    let factor = if serves(doc, fields, &serving) {
        1.0 + boosts.serving_asked
    } else {
        1.0 + boosts.training_asked
    };
    for (score, address) in top.iter_mut() {
        let other: TantivyDocument = searcher.doc(*address)?;
        if serves(&other, fields, &serving) {
            *score *= factor;
        }
    }
    top.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(())
}

/// More like `doc`: its distinctive words, without itself, each field's
/// weighed as a search weighs it: a curated tag, what the work is about,
/// above a word its note happens to share.
fn like_query(
    open: &OpenIndex,
    searcher: &tantivy::Searcher,
    fields: &Fields,
    doc: &TantivyDocument,
    id: &str,
    boosts: &Boosts,
) -> Result<Box<dyn Query>, Error> {
    let statistics = Statistics::new(searcher, fields)?;
    let texts = [
        (fields.title, boosts.title),
        (fields.tags, boosts.tag),
        (fields.note, boosts.note),
        (fields.abstract_text, boosts.abstract_text),
        (fields.tag_text, boosts.tag_text),
    ]
    .map(|(field, weight)| {
        let values = doc.get_all(field).filter_map(|v| v.as_str());
        (
            field,
            weight,
            values.map(str::to_string).collect::<Vec<_>>(),
        )
    });
    let like = like(&open.index, &statistics, &texts)?;
    Ok(Box::new(BooleanQuery::new(vec![
        (Occur::Should, Box::new(like)),
        (Occur::MustNot, id_query(fields, id)),
    ])))
}

/// Any of the [`MOST_TERMS`] terms of `texts` with the highest count times
/// idf times their field's weight, each weighted by that product relative
/// to the highest.
fn like(
    index: &Index,
    statistics: &Statistics,
    texts: &[(Field, f32, Vec<String>)],
) -> Result<BooleanQuery, Error> {
    let mut counts: HashMap<Term, u32> = HashMap::new();
    let weights: HashMap<Field, f32> = texts.iter().map(|(f, w, _)| (*f, *w)).collect();
    for (field, _, values) in texts {
        let mut analyzer = index.tokenizer_for_field(*field)?;
        for value in values {
            let mut stream = analyzer.token_stream(value);
            while let Some(token) = stream.next() {
                if token.text.chars().count() >= SHORTEST_WORD {
                    *counts
                        .entry(Term::from_field_text(*field, &token.text))
                        .or_default() += 1;
                }
            }
        }
    }
    let docs = statistics.total_num_docs()?;
    let mut scored = Vec::with_capacity(counts.len());
    for (term, count) in counts {
        let found = statistics.doc_freq(&term)?;
        if found > 0 {
            let weight = weights.get(&term.field()).copied().unwrap_or(1.0);
            scored.push((count as f32 * idf(found, docs) * weight, term));
        }
    }
    // Highest first; ties by term, so that the query is the same every run.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.truncate(MOST_TERMS);
    let best = scored.first().map_or(1.0, |s| s.0);
    let clauses = scored
        .into_iter()
        .map(|(score, term)| {
            let term: Box<dyn Query> = Box::new(TermQuery::new(term, IndexRecordOption::Basic));
            let clause: Box<dyn Query> = Box::new(BoostQuery::new(term, score / best));
            (Occur::Should, clause)
        })
        .collect();
    Ok(BooleanQuery::new(clauses))
}

/// The records that entered the index after stamp `after` (see
/// `index::stamps`) and mean most nearly what one of the works `seeds`
/// means: each scored by its best cosine with a seed's vector, as
/// `similar` scores by meaning, and kept at `floor` or above, best first
/// (ties by address). The seeds themselves, and seeds the index lacks or
/// holds no vector for, are left out; the seeds found come back too.
///
/// Only the new records' vectors are read: a range over the stamps'
/// column, then each match's row of its segment's vector file.
pub fn near_seeds(
    (searcher, files): (&tantivy::Searcher, &VectorFiles),
    fields: &Fields,
    seeds: &[String],
    after: i64,
    floor: f32,
) -> Result<(Near, Vec<String>), Error> {
    let mut vectors = Vec::new();
    let mut found = Vec::new();
    let mut seed_addresses = Vec::new();
    for id in seeds {
        let addresses = searcher.search(&*id_query(fields, id), &DocSetCollector)?;
        let Some(address) = addresses.into_iter().min() else {
            continue;
        };
        seed_addresses.push(address);
        if let Some(vector) = vector_at(searcher, files, address)? {
            vectors.push(vector);
            found.push(id.clone());
        }
    }
    if vectors.is_empty() {
        return Ok((Vec::new(), found));
    }
    let within = tantivy::query::RangeQuery::new(
        std::ops::Bound::Excluded(Term::from_field_i64(fields.added, after)),
        std::ops::Bound::Unbounded,
    );
    let near = NearSeeds {
        seeds: &vectors,
        floor,
        files,
    };
    let mut best = searcher.search(&within, &near)?;
    best.retain(|(_, address)| !seed_addresses.contains(address));
    best.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok((best, found))
}

/// Records near followed works: each one's best cosine and its address.
pub type Near = Vec<(f32, DocAddress)>;

/// Every match scored by its best cosine with one of `seeds`, those at
/// `floor` or above kept.
struct NearSeeds<'a> {
    seeds: &'a [crate::embed::Vector],
    floor: f32,
    files: &'a VectorFiles,
}

impl NearSeeds<'_> {
    fn score(&self, bytes: &[u8]) -> f32 {
        (self.seeds.iter())
            .map(|seed| cosine(seed, bytes))
            .fold(f32::NEG_INFINITY, f32::max)
    }
}

impl tantivy::collector::Collector for NearSeeds<'_> {
    type Fruit = Vec<(f32, DocAddress)>;
    type Child = WholeSegments<Self::Fruit>;

    /// Never called: `collect_segment` reads a segment's matches whole.
    fn for_segment(&self, _: u32, _: &SegmentReader) -> tantivy::Result<Self::Child> {
        not_by_segment()
    }

    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<Self::Fruit> {
        let rows = SegmentRows::of(self.files, segment_ord, reader)?;
        let alive = reader.alive_bitset();
        let mut docs = Vec::new();
        weight.for_each_no_score(reader, &mut |matched| {
            docs.extend(
                matched
                    .iter()
                    .filter(|&&d| alive.is_none_or(|a| a.is_alive(d))),
            );
        })?;
        let mut near = Vec::new();
        for doc in docs {
            if let Some(bytes) = rows.bytes(doc)? {
                let score = self.score(&bytes);
                if score >= self.floor {
                    near.push((score, DocAddress::new(segment_ord, doc)));
                }
            }
        }
        Ok(near)
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        Ok(fruits.into_iter().flatten().collect())
    }
}
