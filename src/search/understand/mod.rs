//! Understanding the query: its syntax and filters, the techniques, facets
//! and intents its words name, and the words it misspells.

pub mod facets;
pub mod fields;
pub mod filter;
pub mod intent;
pub mod query;
pub mod spell;
pub mod synonyms;
