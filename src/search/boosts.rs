//! Ranking weights, in one place. Tuned on the relevance set in
//! `tests/relevance.rs`; change them there, not in the query code.

/// How much a match in each field counts, relative to the abstract.
#[derive(Debug, Clone, Copy)]
pub struct Boosts {
    pub title: f32,
    pub tag_text: f32,
    pub note: f32,
    pub abstract_text: f32,
    pub authors: f32,
    pub venue: f32,
    /// Spellings joined across a hyphen or space ("all reduce" = "allreduce").
    pub joined: f32,
    /// An entry tagged with the technique a query phrase names.
    pub tag: f32,
    /// Other names of that technique, searched in the text.
    pub synonym_text: f32,
    /// An exact arXiv id or DOI.
    pub identifier: f32,
    /// Weight of the non-best fields in a multi-field match.
    pub tie_breaker: f32,
}

impl Default for Boosts {
    fn default() -> Self {
        Boosts {
            title: 3.0,
            tag_text: 2.0,
            note: 1.5,
            abstract_text: 1.0,
            authors: 1.0,
            venue: 0.8,
            joined: 1.5,
            tag: 2.5,
            synonym_text: 0.5,
            identifier: 10.0,
            tie_breaker: 0.2,
        }
    }
}
