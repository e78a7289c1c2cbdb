//! More like this: entries that share the distinctive words of one entry's
//! title, tags, note and abstract.
//!
//! Like tantivy's `MoreLikeThisQuery`, but its words are chosen and scored
//! by [`Statistics`]: over every document of a large index, the words of
//! the fields only catalog entries have (tags, notes, tag labels) look as
//! rare as one in a million, so they crowded out the title's and abstract's
//! words and then scored next to nothing.

use std::collections::HashMap;

use tantivy::TantivyDocument;
use tantivy::collector::TopDocs;
use tantivy::query::{Bm25StatisticsProvider, BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{Index, Term};

use super::Hit;
use super::statistics::{Statistics, idf};
use crate::error::Error;
use crate::index::{Fields, OpenIndex, id_query};
use crate::model::Record;

/// The entry's most distinctive terms that the query keeps.
const MOST_TERMS: usize = 40;
/// Shorter words say little of what a work is about.
const SHORTEST_WORD: usize = 3;

pub fn similar(open: &OpenIndex, id: &str, limit: usize) -> Result<Vec<Hit>, Error> {
    let searcher = open.reader.searcher();
    let fields = Fields::from_schema(&open.index.schema())?;
    let Some(doc) = open.document(id)? else {
        return Err(Error::Usage(format!(
            "no entry with id `{id}` (try `distml-search search {id}`)"
        )));
    };
    let statistics = Statistics::new(&searcher, &fields)?;
    let texts = [
        fields.title,
        fields.tags,
        fields.note,
        fields.abstract_text,
        fields.tag_text,
    ]
    .map(|field| {
        let values = doc.get_all(field).filter_map(|v| v.as_str());
        (field, values.map(str::to_string).collect::<Vec<_>>())
    });
    let like = like(&open.index, &statistics, &texts)?;
    let query: Box<dyn Query> = Box::new(BooleanQuery::new(vec![
        (Occur::Should, Box::new(like)),
        (Occur::MustNot, id_query(&fields, id)),
    ]));
    let top = statistics.search(&*query, &TopDocs::with_limit(limit).order_by_score())?;
    let mut hits = Vec::new();
    for (i, (score, address)) in top.into_iter().enumerate() {
        let doc: TantivyDocument = searcher.doc(address)?;
        hits.push(Hit {
            rank: i + 1,
            score,
            record: Record::from_document(&doc, &fields),
            snippet: None,
            explanation: None,
        });
    }
    Ok(hits)
}

/// Any of the [`MOST_TERMS`] terms of `texts` with the highest count times
/// idf, each weighted by that product relative to the highest.
fn like(
    index: &Index,
    statistics: &Statistics,
    texts: &[(Field, Vec<String>)],
) -> Result<BooleanQuery, Error> {
    let mut counts: HashMap<Term, u32> = HashMap::new();
    for (field, values) in texts {
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
            scored.push((count as f32 * idf(found, docs), term));
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
