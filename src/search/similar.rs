//! More like this: entries that share the distinctive words of one entry's
//! title, tags, note and abstract.

use tantivy::TantivyDocument;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, MoreLikeThisQuery, Occur, Query};

use super::Hit;
use crate::error::Error;
use crate::index::{Fields, OpenIndex, id_query};
use crate::model::Record;

pub fn similar(open: &OpenIndex, id: &str, limit: usize) -> Result<Vec<Hit>, Error> {
    let searcher = open.reader.searcher();
    let fields = Fields::from_schema(&open.index.schema())?;
    let Some(doc) = open.document(id)? else {
        return Err(Error::Usage(format!(
            "no entry with id `{id}` (try `distml-search search {id}`)"
        )));
    };
    let mut values = Vec::new();
    for field in [
        fields.title,
        fields.tags,
        fields.note,
        fields.abstract_text,
        fields.tag_text,
    ] {
        let texts: Vec<tantivy::schema::OwnedValue> = doc
            .get_all(field)
            .map(tantivy::schema::OwnedValue::from)
            .collect();
        if !texts.is_empty() {
            values.push((field, texts));
        }
    }
    let like = MoreLikeThisQuery::builder()
        .with_min_doc_frequency(1)
        .with_min_term_frequency(1)
        .with_max_query_terms(40)
        .with_min_word_length(3)
        .with_document_fields(values);
    let query: Box<dyn Query> = Box::new(BooleanQuery::new(vec![
        (Occur::Should, Box::new(like)),
        (Occur::MustNot, id_query(&fields, id)),
    ]));
    let top = searcher.search(&*query, &TopDocs::with_limit(limit).order_by_score())?;
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
