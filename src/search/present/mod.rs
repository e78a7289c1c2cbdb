//! Presenting a ranking: hits with snippets and explanations, facet counts
//! for the web page, and the newest matches for feeds and watches.

pub mod counts;
pub mod explain;
pub mod hits;
pub mod newest;
pub mod snippets;
