//! A technique's tag as clauses: the works tagged with it, using it or
//! predicted to be about it (a broad tag raised to a rare one's score), its
//! narrower kinds, its reference work, and the works holding every
//! technique a query names.

use tantivy::Term;
use tantivy::query::{BooleanQuery, BoostQuery, ConstScoreQuery, Occur};
use tantivy::schema::Field;

use super::words::{term_query, weight_label};
use super::{Compilation, Mode, Q};
use crate::analysis;
use crate::catalog::Tag;
use crate::index::{Fields, exact_query, id_query};
use crate::search::plan::labelled::Labelled;
use crate::search::signals;

impl Compilation<'_> {
    /// The entries with `tag` in `field`, scoring at least about `weight`
    /// times `Boosts::tag_flat` however many entries have it. BM25 scores a
    /// tag on a third of the catalog a fifth of one on a few entries, and a
    /// technique's broadest tag is the one its own works carry: "inter-layer
    /// model parallelism" ranked works that merely say "model parallelism"
    /// above GPipe. So a broad tag's weight is raised by its idf's shortfall
    /// (a term query still, which tantivy prunes).
    pub(super) fn tagged(
        &self,
        field: Field,
        tag: &str,
        weight: f32,
        shown: &str,
        aside: &str,
    ) -> Q {
        let term = Term::from_field_text(field, tag);
        let scale = self.cx.boosts.tag_flat;
        let weight = match self.cx.searcher.doc_freq(&term) {
            Ok(n) if n > 0 && scale > 0.0 => {
                let total = self.cx.searcher.num_docs() as f32;
                let n = n as f32;
                let idf = (1.0 + (total - n + 0.5) / (n + 0.5)).ln();
                weight * (scale / idf.max(0.1)).max(1.0)
            }
            _ => weight,
        };
        let query = Box::new(BoostQuery::new(term_query(field, tag), weight));
        let label = signals::label(shown, &format!("{tag}{aside}"));
        Labelled::boxed(weight_label(&label, weight), query)
    }

    /// The works tagged with a kind of `tag`: about it too, a little less
    /// (`Boosts::narrower`, times `scale`); `told` ends their explanation.
    pub(super) fn narrower_kinds(&self, tag: &Tag, scale: f32, told: &str) -> Vec<Q> {
        let b = self.cx.boosts;
        let weight = b.tag * b.narrower * scale;
        (self.cx.synonyms.vocabulary().narrower(&tag.id))
            .map(|narrower| {
                let aside = format!(" (a kind of {}{told})", tag.id);
                self.tagged(
                    self.cx.fields.tags,
                    &narrower.id,
                    weight,
                    signals::TAG.shown,
                    &aside,
                )
            })
            .collect()
    }

    /// The papers about `tag` whose project is about it too: a paper and
    /// the code that implements it, both curated as being about the
    /// technique, make the paper its reference work (Megatron-LM's paper
    /// for tensor parallelism), which would otherwise tie with every work
    /// tagged with it (`Boosts::reference`). A constant, as a name is.
    pub(super) fn reference_works(&self, tag: &str) -> Option<Q> {
        let (f, b) = (self.cx.fields, self.cx.boosts);
        let weight = b.tag * b.reference;
        if weight <= 0.0 {
            return None;
        }
        let papers: Vec<(Occur, Q)> = (self.cx.references.iter())
            .filter(|(about, _)| about == tag)
            .map(|(_, paper)| (Occur::Should, id_query(f, paper)))
            .collect();
        if papers.is_empty() {
            return None;
        }
        // The catalog found them about the tag: the index holds its tags.
        let query = Box::new(BooleanQuery::new(papers));
        let query = Box::new(ConstScoreQuery::new(query, weight));
        let label = signals::REFERENCE.label(tag);
        Some(Labelled::boxed(label, query))
    }
}

impl Compilation<'_> {
    /// The works holding every technique expanded since `first`, when
    /// there are two or more: a work strong in one of them ("ILP":
    /// Checkmate) must not beat works about both ("ILP auto-sharding":
    /// Alpa, TePDist) by that one's weight alone. A constant, so that
    /// tantivy can still prune.
    pub(super) fn all_techniques(&mut self, first: usize) -> Option<(Occur, Q)> {
        let weight = self.cx.boosts.all_techniques;
        if matches!(self.mode, Mode::Phrases | Mode::Matching) || weight <= 0.0 {
            return None;
        }
        let mut held: Vec<(String, String)> = (self.expansions[first..].iter())
            .map(|e| (e.tag.clone(), e.span.clone()))
            .collect();
        held.sort_unstable();
        held.dedup_by(|a, b| a.0 == b.0);
        if held.len() < 2 {
            return None;
        }
        let all = (held.iter())
            .map(|(tag, span)| (Occur::Must, self.holding(tag, span)))
            .collect();
        let all = BooleanQuery::new(all);
        let tags: Vec<&str> = held.iter().map(|(tag, _)| tag.as_str()).collect();
        let label = signals::ALL_TECHNIQUES.label(&tags.join(" and "));
        let query = Box::new(ConstScoreQuery::new(Box::new(all), weight));
        Some((Occur::Should, Labelled::boxed(label, query)))
    }

    /// The works that hold `tag`, or whose note has every word of `span`,
    /// the words that named it, when they are two or more: a curated note
    /// saying "fills pipeline bubbles" holds what "pipeline bubbles" asks
    /// for, though the work is tagged for its other technique; one word
    /// ("ZeRO" in "zero bubble") says too little. Words, not a phrase, so
    /// that the clause stays a conjunction of terms.
    fn holding(&mut self, tag: &str, span: &str) -> Q {
        let f = self.cx.fields;
        let words: Vec<(Occur, Q)> = analysis::terms(&mut self.english, span)
            .iter()
            .map(|term| (Occur::Must, term_query(f.note, term)))
            .collect();
        if words.len() < 2 {
            return holding_tag(f, tag);
        }
        Box::new(BooleanQuery::new(vec![
            (Occur::Should, holding_tag(f, tag)),
            (Occur::Should, Box::new(BooleanQuery::new(words))),
        ]))
    }
}

/// The works holding `tag`: curated, used or predicted.
pub(super) fn holding_tag(f: &Fields, tag: &str) -> Q {
    Box::new(BooleanQuery::new(vec![
        (Occur::Should, exact_query(f.tags, tag)),
        (Occur::Should, exact_query(f.uses, tag)),
        (Occur::Should, exact_query(f.predicted, tag)),
    ]))
}
