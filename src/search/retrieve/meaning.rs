//! Meaning in ranking: documents by the cosine of their vectors with a
//! text's (a query's, a work's; see `embed`), and the fusion of that
//! ranking with the keyword one.
//!
//! The semantic side keeps what the query's filters and exclusions keep
//! (they are compiled without its words), and an excluded phrase removes
//! what means it, not only what spells it.

use std::collections::HashMap;

use tantivy::{DocAddress, DocId, Searcher};

use crate::embed::stored::{HEAD, unpack};
use crate::embed::{Vector, embedder};
use crate::error::Error;
use crate::index::vector_file::SegmentVectors;
use crate::index::vectors::{BestByVector, Cosine, Keep, VectorFiles, VectorScore, vector_at};
use crate::search::plan::compile::{Context, Mode as Compiling, compile};
use crate::search::signals;
use crate::search::understand::query::Node;

/// How results are ranked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// By the query's words (BM25, the vocabulary's techniques, the
    /// ranking's signals).
    #[default]
    Keyword,
    /// By meaning alone: the cosine of the query's vector and the work's.
    Semantic,
    /// Both rankings fused by their ranks.
    Hybrid,
}

/// Results of each ranking that the fusion reads.
pub const POOL: usize = 50;
/// Reciprocal rank fusion's constant: a result's share is
/// `weight / (RRF_K + rank)`. 60 is the value of the method's paper, which
/// most engines keep.
pub const RRF_K: f32 = 60.0;

/// What meaning gave one result: its cosine with the query, and its ranks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    pub cosine: f32,
    pub semantic_rank: Option<usize>,
    pub keyword_rank: Option<usize>,
}

/// Each result's part, by address.
pub type Parts = HashMap<DocAddress, Part>;

/// What the query means: the vector of its words (not of its filters or
/// exclusions), and of each excluded phrase.
pub struct Meant {
    pub query: Vector,
    pub excluded: Vec<Vector>,
    /// The cosine with an excluded phrase that says a result is about it.
    pub excluded_cosine: f32,
}

impl Meant {
    /// `None` for a query without words.
    pub fn of(root: &Node, excluded_cosine: f32) -> Option<Meant> {
        let mut words = Vec::new();
        let mut excluded = Vec::new();
        collect(root, &mut words, &mut excluded);
        if words.is_empty() {
            return None;
        }
        let e = embedder();
        Some(Meant {
            query: e.embed(&words.join(" ")),
            excluded: excluded.iter().map(|t| e.embed(t)).collect(),
            excluded_cosine,
        })
    }

    /// Whether a stored vector means an excluded phrase.
    fn excludes(&self, vector: &Vector) -> bool {
        (self.excluded.iter()).any(|x| crate::embed::dot(x, vector) >= self.excluded_cosine)
    }
}

/// The text of the words of `node` that ask for something, and of those
/// that exclude.
fn collect(node: &Node, words: &mut Vec<String>, excluded: &mut Vec<String>) {
    match node {
        Node::Word { text, .. } | Node::Phrase { text, .. } | Node::Title { text, .. } => {
            words.push(text.clone())
        }
        Node::Not(inner) => {
            let mut inner_words = Vec::new();
            collect(inner, &mut inner_words, &mut Vec::new());
            if !inner_words.is_empty() {
                excluded.push(inner_words.join(" "));
            }
        }
        Node::Required(inner) => collect(inner, words, excluded),
        Node::And(children) | Node::Or(children) | Node::Group(children) => {
            for child in children {
                collect(child, words, excluded);
            }
        }
        Node::Filter { .. } | Node::Boost { .. } | Node::All => {}
    }
}

/// `root` without the words that ask for something: its filters and
/// exclusions, which the semantic side keeps too (everything, for a query
/// of words alone).
fn constraints(root: &Node) -> Node {
    let kept: Vec<Node> = match root {
        Node::And(children) | Node::Group(children) => (children.iter())
            .filter(|c| matches!(c, Node::Filter { .. } | Node::Not(_)))
            .cloned()
            .collect(),
        Node::Filter { .. } => vec![root.clone()],
        _ => Vec::new(),
    };
    if kept.is_empty() {
        return Node::All;
    }
    if kept.iter().all(|c| matches!(c, Node::Not(_))) {
        let mut all = vec![Node::All];
        all.extend(kept);
        return Node::And(all);
    }
    Node::And(kept)
}

/// The best `limit` documents by meaning that the query's filters and
/// exclusions keep, best first (cosines).
pub fn nearest(
    cx: &Context<'_>,
    root: &Node,
    meant: &Meant,
    limit: usize,
    files: &VectorFiles,
) -> Result<Vec<(f32, DocAddress)>, Error> {
    let within = compile(cx, &constraints(root), Compiling::Matching)?.query;
    let score = Unexcluded {
        meant,
        cosine: Cosine::new(&meant.query),
    };
    let keep = Keep::default();
    let scan = BestByVector {
        score: &score,
        keep: &keep,
        limit,
        files,
    };
    Ok(scan.search(cx.searcher, &*within)?.0)
}

/// The cosine with the query, of what means no excluded phrase.
struct Unexcluded<'a> {
    meant: &'a Meant,
    cosine: Cosine<'a>,
}

impl VectorScore for Unexcluded<'_> {
    fn exact(&self, packed: &[u8]) -> f32 {
        let excluded = !self.meant.excluded.is_empty() && self.meant.excludes(&unpack(packed));
        match excluded {
            true => f32::NAN,
            false => self.cosine.exact(packed),
        }
    }

    fn rough(&self, head: &[i8; HEAD], norm: f32) -> f32 {
        self.cosine.rough(head, norm)
    }

    fn exact_in(&self, file: &SegmentVectors, doc: DocId) -> f32 {
        match self.meant.excluded.is_empty() {
            true => self.cosine.exact_in(file, doc),
            false => self.exact(&file.row(doc)),
        }
    }

    fn cosine_with(&self) -> Option<&Vector> {
        self.cosine.cosine_with()
    }
}

/// The keyword ranking `keyword` and the semantic one fused by reciprocal
/// rank, best first; results that mean an excluded phrase are dropped.
/// Each result's part is kept for `--explain` and `--json`.
pub fn fuse(
    searcher: &Searcher,
    files: &VectorFiles,
    weight: f32,
    meant: &Meant,
    keyword: &[(f32, DocAddress)],
    semantic: &[(f32, DocAddress)],
) -> Result<(Vec<(f32, DocAddress)>, Parts), Error> {
    let mut parts = Parts::new();
    let mut fused: HashMap<DocAddress, f32> = HashMap::new();
    for (rank, &(cosine, address)) in semantic.iter().enumerate() {
        *fused.entry(address).or_default() += weight / (RRF_K + rank as f32 + 1.0);
        parts.insert(
            address,
            Part {
                cosine,
                semantic_rank: Some(rank + 1),
                keyword_rank: None,
            },
        );
    }
    for (rank, &(_, address)) in keyword.iter().enumerate() {
        let vector = vector_at(searcher, files, address)?;
        if vector.as_ref().is_some_and(|v| meant.excludes(v)) {
            continue;
        }
        *fused.entry(address).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
        let cosine = vector.map_or(0.0, |v| crate::embed::dot(&meant.query, &v));
        (parts.entry(address))
            .or_insert(Part {
                cosine,
                semantic_rank: None,
                keyword_rank: None,
            })
            .keyword_rank = Some(rank + 1);
    }
    let mut ranked: Vec<(f32, DocAddress)> = fused.into_iter().map(|(a, s)| (s, a)).collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok((ranked, parts))
}

/// `--explain`'s line for a result's meaning.
pub fn explain(part: &Part, mode: Mode, weight: f32) -> String {
    let rank = |r: Option<usize>| r.map_or("-".to_string(), |r| r.to_string());
    let said = match mode {
        Mode::Semantic => format!("cosine {:.3} with the query", part.cosine),
        _ => format!(
            "cosine {:.3} with the query; rank {} by meaning, {} by words; fused 1/({RRF_K}+words) + {weight}/({RRF_K}+meaning)",
            part.cosine,
            rank(part.semantic_rank),
            rank(part.keyword_rank)
        ),
    };
    signals::SEMANTIC.label(&said)
}
