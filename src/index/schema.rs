//! What is a document? Every indexed field and its options, decided once.

use tantivy::schema::{
    FAST, Field, IndexRecordOption, NumericOptions, STORED, Schema, TextFieldIndexing, TextOptions,
};

use crate::analysis::{ENGLISH, NAMES};

/// Bumped whenever fields or analyzers change, so old indexes are rebuilt.
pub const SCHEMA_VERSION: u32 = 17;

/// Handles of every field of the schema.
#[derive(Debug, Clone)]
pub struct Fields {
    pub id: Field,
    pub kind: Field,
    pub title: Field,
    /// Each occurrence of a vocabulary name of several words in the title,
    /// by its marker (see `catalog::name_phrases`): what a query seeks
    /// instead of the name's phrase in titles.
    pub title_names: Field,
    pub authors: Field,
    pub venue: Field,
    /// The owner of a project's code repository (see `document`).
    pub owner: Field,
    pub year: Field,
    pub section: Field,
    /// Tag ids, matched exactly (filters and synonym expansion).
    pub tags: Field,
    /// Tags a work uses without being about them (see `catalog::Entry`).
    pub uses: Field,
    /// Tags predicted for a record without curated tags (see `predict`),
    /// matched exactly like `tags`, below them.
    pub predicted: Field,
    /// The confidence of each `predicted` tag, in the same order (stored only).
    pub predicted_confidence: Field,
    /// Tag labels as words.
    pub tag_text: Field,
    /// The vocabulary's descriptions of a work's tags: what a need in plain
    /// words may say of the technique.
    pub tag_description: Field,
    pub note: Field,
    pub abstract_text: Field,
    /// Adjacent word pairs written together ("all reduce" → "allreduce").
    pub joined: Field,
    /// Unstemmed words of the prose fields: the dictionary for typo fixes.
    pub words: Field,
    pub url: Field,
    /// The arXiv id (stored only; found by `arxiv_key`).
    pub arxiv: Field,
    /// The DOI, lower-cased (stored only; found by `doi_key`).
    pub doi: Field,
    /// A hash of the arXiv id, in a fast field (see [`identifier_key`]).
    pub arxiv_key: Field,
    pub doi_key: Field,
    /// Where the abstract came from (stored only).
    pub abstract_source: Field,
    /// 1 when `authors` lists only the first authors (stored only).
    pub et_al: Field,
    /// `catalog` or `arxiv` (a snapshot import).
    pub collection: Field,
    /// An imported record's first version, as the number YYYYMMDD
    /// (`inbox --since`).
    pub submitted: Field,
    /// When the record entered the index, in milliseconds since the Unix
    /// epoch (see `stamps`): a column that `watch` ranges over, carried
    /// across rebuilds, imports and new versions of a record.
    pub added: Field,
}

/// The fast-field tokenizer of the facet fields: a value whole, as written
/// (tantivy's `raw`, which drops no long value).
const FACET: &str = "raw";

/// A facet field: matched exactly, stored, and a column of term ordinals
/// that `search::present::counts` counts a search's matches by.
fn facet(options: TextOptions) -> TextOptions {
    options.set_fast(FACET)
}

fn text(analyzer: &str, stored: bool) -> TextOptions {
    recorded(analyzer, stored, IndexRecordOption::WithFreqsAndPositions)
}

/// Fields that are never searched by phrase skip positions, which are most of
/// the cost of indexing a term.
fn recorded(analyzer: &str, stored: bool, record: IndexRecordOption) -> TextOptions {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(analyzer)
        .set_index_option(record);
    let options = TextOptions::default().set_indexing_options(indexing);
    if stored {
        options.set_stored()
    } else {
        options
    }
}

/// A value matched whole and stored, as tantivy's `STRING | STORED`, without
/// the norms (a byte a document) that BM25 would read: each document holds
/// one term at most, so a norm tells nothing, and a score without norms is
/// the same.
fn whole_value() -> TextOptions {
    recorded_without_norms("raw", IndexRecordOption::Basic).set_stored()
}

fn recorded_without_norms(analyzer: &str, record: IndexRecordOption) -> TextOptions {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(analyzer)
        .set_index_option(record)
        .set_fieldnorms(false);
    TextOptions::default().set_indexing_options(indexing)
}

pub fn build_schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let fields = Fields {
        id: b.add_text_field("id", whole_value()),
        kind: b.add_text_field("kind", facet(whole_value())),
        title: b.add_text_field("title", text(ENGLISH, true)),
        // Scored with the title's lengths, as the phrase it stands for: no
        // norms of its own.
        title_names: b.add_text_field(
            "title_names",
            recorded_without_norms("raw", IndexRecordOption::WithFreqs),
        ),
        authors: b.add_text_field("authors", text(NAMES, true)),
        // Searched by its words; counted by its whole value.
        venue: b.add_text_field("venue", facet(text(NAMES, true))),
        // Who hosts a project's code ("alibaba" of github.com/alibaba/…):
        // searched, never shown.
        owner: b.add_text_field("owner", text(NAMES, false)),
        // Found by range, never scored by BM25: no norms.
        year: b.add_i64_field(
            "year",
            NumericOptions::default()
                .set_indexed()
                .set_fast()
                .set_stored(),
        ),
        section: b.add_text_field("section", facet(whole_value())),
        // With frequencies, though each is 0 or 1: a term query without them
        // keeps tantivy from pruning the whole query (block-max WAND).
        tags: b.add_text_field(
            "tags",
            facet(recorded("raw", true, IndexRecordOption::WithFreqs)),
        ),
        uses: b.add_text_field(
            "uses",
            facet(recorded("raw", true, IndexRecordOption::WithFreqs)),
        ),
        predicted: b.add_text_field(
            "predicted",
            recorded("raw", true, IndexRecordOption::WithFreqs),
        ),
        predicted_confidence: b.add_f64_field("predicted_confidence", STORED),
        tag_text: b.add_text_field("tag_text", text(ENGLISH, false)),
        tag_description: b.add_text_field("tag_description", text(ENGLISH, false)),
        note: b.add_text_field("note", text(ENGLISH, true)),
        abstract_text: b.add_text_field("abstract", text(ENGLISH, true)),
        joined: b.add_text_field(
            "joined",
            recorded(NAMES, false, IndexRecordOption::WithFreqs),
        ),
        // Read for its terms only (typo repair): no norms.
        words: b.add_text_field(
            "words",
            recorded_without_norms(NAMES, IndexRecordOption::Basic),
        ),
        url: b.add_text_field("url", whole_value()),
        arxiv: b.add_text_field("arxiv", STORED),
        doi: b.add_text_field("doi", STORED),
        arxiv_key: b.add_u64_field("arxiv_key", FAST),
        doi_key: b.add_u64_field("doi_key", FAST),
        abstract_source: b.add_text_field("abstract_source", STORED),
        et_al: b.add_u64_field("et_al", STORED),
        collection: b.add_text_field("collection", facet(whole_value())),
        // Not indexed (a term in each of a million imported records): a
        // column that `inbox --since` reads beside the vector files.
        submitted: b.add_i64_field("submitted", STORED | FAST),
        // A column, not postings: a range over it skips each segment whose
        // values all lie outside (a column keeps its least and greatest),
        // and a term per record would cost an import more. Stored, so
        // that a schema change carries it with the record.
        added: b.add_i64_field("added", STORED | FAST),
    };
    (b.build(), fields)
}

impl Fields {
    pub fn from_schema(schema: &Schema) -> tantivy::Result<Fields> {
        let f = |name: &str| schema.get_field(name);
        Ok(Fields {
            id: f("id")?,
            kind: f("kind")?,
            title: f("title")?,
            title_names: f("title_names")?,
            authors: f("authors")?,
            venue: f("venue")?,
            owner: f("owner")?,
            year: f("year")?,
            section: f("section")?,
            tags: f("tags")?,
            uses: f("uses")?,
            predicted: f("predicted")?,
            predicted_confidence: f("predicted_confidence")?,
            tag_text: f("tag_text")?,
            tag_description: f("tag_description")?,
            note: f("note")?,
            abstract_text: f("abstract")?,
            joined: f("joined")?,
            words: f("words")?,
            url: f("url")?,
            arxiv: f("arxiv")?,
            doi: f("doi")?,
            arxiv_key: f("arxiv_key")?,
            doi_key: f("doi_key")?,
            abstract_source: f("abstract_source")?,
            et_al: f("et_al")?,
            collection: f("collection")?,
            submitted: f("submitted")?,
            added: f("added")?,
        })
    }
}

/// Identifiers are found by a 64-bit hash in a fast field, not as terms: a
/// term found in one document only, a million times over, was the costliest
/// part of a snapshot import (13% of its time, 170 MB of its memory). That
/// any two of a million ids share a key has odds of about 1 in 37 million.
/// XXH3 is specified, so keys stay valid across builds and versions.
pub fn identifier_key(id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(id.as_bytes())
}

/// The documents whose `key_field` holds the key of `id`.
pub fn identifier_query(key_field: Field, id: &str) -> Box<dyn tantivy::query::Query> {
    key_query(key_field, identifier_key(id))
}

/// The documents whose `key_field` holds `key`.
pub fn key_query(key_field: Field, key: u64) -> Box<dyn tantivy::query::Query> {
    let key = tantivy::Term::from_field_u64(key_field, key);
    Box::new(tantivy::query::RangeQuery::new(
        std::ops::Bound::Included(key.clone()),
        std::ops::Bound::Included(key),
    ))
}
