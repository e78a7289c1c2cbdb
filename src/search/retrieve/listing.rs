//! Listings: the matches of filters alone, as results are shown when scores
//! tie: catalog entries first, then the newest, read a window of years at a
//! time on a large index.

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Order, Searcher, Term};

use crate::error::Error;
use crate::index::Fields;
use crate::model::Collection;
use crate::search::plan::compile::TWO_PHASE_MIN_DOCS;

/// Matches of a query without scoring words (filters only), as results are
/// shown when scores tie: catalog entries first, then the newest. Taking the
/// first matches found instead would show an arbitrary few of a large index.
pub fn listing(
    searcher: &Searcher,
    fields: &Fields,
    query: &dyn Query,
    wanted: usize,
) -> Result<Vec<(f32, DocAddress)>, Error> {
    let collection = |name: Collection| -> Box<dyn Query> {
        Box::new(TermQuery::new(
            Term::from_field_text(fields.collection, name.as_str()),
            IndexRecordOption::Basic,
        ))
    };
    let catalog = BooleanQuery::new(vec![
        (Occur::Must, query.box_clone()),
        (Occur::Must, collection(Collection::Catalog)),
    ]);
    let mut top = newest_dated(searcher, &catalog, wanted)?;
    if top.len() < wanted {
        // Every other document is imported; excluding the few catalog ones
        // is cheaper than intersecting with all the imported ones.
        let imported = BooleanQuery::new(vec![
            (Occur::Must, query.box_clone()),
            (Occur::MustNot, collection(Collection::Catalog)),
        ]);
        let dated = match year_span(searcher)? {
            Some(years) if searcher.num_docs() >= TWO_PHASE_MIN_DOCS => {
                newest_by_windows(searcher, fields, &imported, wanted - top.len(), years)?
            }
            _ => Vec::new(),
        };
        top.extend(if dated.len() == wanted - top.len() {
            dated
        } else {
            newest_dated(searcher, &imported, wanted - top.len())?
        });
    }
    Ok(top.into_iter().map(|address| (0.0, address)).collect())
}

/// The newest matches, reading every match; undated ones come last.
fn newest_dated(
    searcher: &Searcher,
    query: &dyn Query,
    wanted: usize,
) -> Result<Vec<DocAddress>, Error> {
    let newest = TopDocs::with_limit(wanted).order_by_fast_field::<i64>("year", Order::Desc);
    Ok(searcher
        .search(query, &newest)?
        .into_iter()
        .map(|(_, address)| address)
        .collect())
}

/// The newest dated matches, a window of years at a time from the newest
/// (one year, then two, four...), so that a common filter reads only its
/// newest matches. Fewer than `wanted` means there are no more dated ones.
fn newest_by_windows(
    searcher: &Searcher,
    fields: &Fields,
    query: &dyn Query,
    wanted: usize,
    (oldest, newest): (i64, i64),
) -> Result<Vec<DocAddress>, Error> {
    let mut found = Vec::new();
    let (mut to, mut width) = (newest, 1);
    while to >= oldest && found.len() < wanted {
        let from = (to - width + 1).max(oldest);
        let years = (from..=to)
            .map(|year| -> (Occur, Box<dyn Query>) {
                let term = Term::from_field_i64(fields.year, year);
                (
                    Occur::Should,
                    Box::new(TermQuery::new(term, IndexRecordOption::Basic)),
                )
            })
            .collect();
        let window = BooleanQuery::new(vec![
            (Occur::Must, query.box_clone()),
            (Occur::Must, Box::new(BooleanQuery::new(years))),
        ]);
        found.extend(newest_dated(searcher, &window, wanted - found.len())?);
        to = from - 1;
        width *= 2;
    }
    Ok(found)
}

/// The oldest and newest years in the index.
fn year_span(searcher: &Searcher) -> Result<Option<(i64, i64)>, Error> {
    let mut span: Option<(i64, i64)> = None;
    for segment in searcher.segment_readers() {
        let years = segment.fast_fields().i64("year")?;
        if years.values.num_vals() == 0 {
            continue;
        }
        let (low, high) = (years.min_value(), years.max_value());
        span = Some(span.map_or((low, high), |(l, h)| (l.min(low), h.max(high))));
    }
    Ok(span)
}
