//! What a watch matches: its search (or the works it follows) kept to the
//! records that entered the index after a time (see `index::stamps`),
//! best first for `watch`, newest first for its feed.

use tantivy::TantivyDocument;

use super::{DEFAULT_MIN_SIMILARITY, Filters, Watch};
use crate::catalog::Catalog;
use crate::error::Error;
use crate::index::vectors::VectorFiles;
use crate::index::{Fields, OpenIndex};
use crate::model::{Collection, Kind, Record};
use crate::search::{
    Boosts, Filter, Hit, Mode, Origin, SearchRequest, YearRange, near_seeds, newest, newest_of,
    search_total,
};

/// A watch's matches that entered the index after a stamp: the best first
/// (by the search's ranking, or by meaning for a watch that follows
/// works), and how many there are.
pub struct Matches {
    pub hits: Vec<Hit>,
    pub total: usize,
    /// The followed works the index knows the meaning of.
    pub seeds: Vec<String>,
}

/// The matches of `watch` stamped after `after`, at most `limit` of them.
pub fn matches_after(
    open: &OpenIndex,
    catalog: &Catalog,
    boosts: Boosts,
    watch: &Watch,
    after: i64,
    limit: usize,
) -> Result<Matches, Error> {
    if watch.like.is_empty() {
        let request = watch_request(watch, after, limit)?;
        let (outcome, total) = search_total(open, catalog, &request.as_request(), boosts)?;
        return Ok(Matches {
            hits: outcome.hits,
            total,
            seeds: Vec::new(),
        });
    }
    let searcher = open.reader.searcher();
    let files = VectorFiles::of(&open.path, &searcher);
    let fields = Fields::from_schema(&open.index.schema())?;
    let floor = watch.min_similarity.unwrap_or(DEFAULT_MIN_SIMILARITY) as f32;
    let (near, seeds) = near_seeds((&searcher, &files), &fields, &watch.like, after, floor)?;
    let mut hits = Vec::new();
    for (i, &(cosine, address)) in near.iter().take(limit).enumerate() {
        let doc: TantivyDocument = searcher.doc(address)?;
        hits.push(Hit {
            rank: i + 1,
            score: cosine,
            record: Record::from_document(&doc, &fields),
            snippet: None,
            explanation: None,
            semantic: Some(cosine),
        });
    }
    Ok(Matches {
        hits,
        total: near.len(),
        seeds,
    })
}

/// The matches of `watch` since it was added (read or not: a feed reader
/// keeps its own), newest first, at most `limit`: its feed.
pub fn feed_records(
    open: &OpenIndex,
    catalog: &Catalog,
    boosts: Boosts,
    watch: &Watch,
    limit: usize,
) -> Result<Vec<Record>, Error> {
    if watch.like.is_empty() {
        let request = watch_request(watch, watch.since, 1)?;
        return newest(open, catalog, &request.as_request(), boosts, limit);
    }
    let searcher = open.reader.searcher();
    let files = VectorFiles::of(&open.path, &searcher);
    let fields = Fields::from_schema(&open.index.schema())?;
    let floor = watch.min_similarity.unwrap_or(DEFAULT_MIN_SIMILARITY) as f32;
    let (near, _) = near_seeds(
        (&searcher, &files),
        &fields,
        &watch.like,
        watch.since,
        floor,
    )?;
    let addresses: Vec<_> = near.into_iter().map(|(_, address)| address).collect();
    newest_of(&searcher, &fields, &addresses, limit)
}

/// A watch's search, owned.
struct WatchRequest {
    query: String,
    filters: Vec<(Filter, Origin)>,
    limit: usize,
}

impl WatchRequest {
    fn as_request(&self) -> SearchRequest<'_> {
        SearchRequest {
            query: &self.query,
            filters: self.filters.clone(),
            limit: self.limit,
            explain: None,
            exhaustive: false,
            mode: Mode::Keyword,
        }
    }
}

/// The search of a watch of words and filters, kept to what entered the
/// index after `after`.
fn watch_request(watch: &Watch, after: i64, limit: usize) -> Result<WatchRequest, Error> {
    let mut filters = typed_filters(&watch.filters)?;
    if after > i64::MIN {
        filters.push((Filter::Added(after), Origin::Flag("watch")));
    }
    Ok(WatchRequest {
        query: watch.query.clone(),
        filters,
        limit,
    })
}

/// A watch's filters typed, each with its flag, as `search` types its
/// flags' (a value that no longer reads, such as a tag the vocabulary
/// lost, is an error when the search is compiled).
pub fn typed_filters(filters: &Filters) -> Result<Vec<(Filter, Origin)>, Error> {
    let bad = |flag: &str, value: &str, e: String| {
        Error::Usage(format!("the watch's {flag} {value}: {e}"))
    };
    let mut typed: Vec<(Filter, Origin)> = (filters.tag.iter())
        .map(|t| (Filter::Tag(t.clone()), Origin::Flag("--tag")))
        .collect();
    if let Some(section) = &filters.section {
        typed.push((Filter::Section(section.clone()), Origin::Flag("--section")));
    }
    if let Some(year) = &filters.year {
        let years = year
            .parse::<YearRange>()
            .map_err(|e| bad("--year", year, e))?;
        typed.push((Filter::Year(years), Origin::Flag("--year")));
    }
    if let Some(venue) = &filters.venue {
        typed.push((Filter::Venue(venue.clone()), Origin::Flag("--venue")));
    }
    if let Some(author) = &filters.author {
        typed.push((Filter::Author(author.clone()), Origin::Flag("--author")));
    }
    if let Some(collection) = &filters.collection {
        let parsed =
            (collection.parse::<Collection>()).map_err(|e| bad("--collection", collection, e))?;
        typed.push((Filter::Collection(parsed), Origin::Flag("--collection")));
    }
    if let Some(kind) = &filters.kind {
        let parsed = kind.parse::<Kind>().map_err(|e| bad("--kind", kind, e))?;
        typed.push((Filter::Kind(parsed), Origin::Flag("--kind")));
    }
    Ok(typed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watchs_filters_are_typed_as_their_flags() {
        let filters = Filters {
            tag: vec!["moe".into()],
            year: Some("2024..".into()),
            collection: Some("arxiv".into()),
            kind: Some("paper".into()),
            ..Filters::default()
        };
        let typed: Vec<Filter> = (typed_filters(&filters).unwrap().into_iter())
            .map(|(filter, _)| filter)
            .collect();
        assert_eq!(
            typed,
            [
                Filter::Tag("moe".into()),
                Filter::Year("2024..".parse().unwrap()),
                Filter::Collection(Collection::Arxiv),
                Filter::Kind(Kind::Paper),
            ]
        );
        let soon = Filters {
            year: Some("soon".into()),
            ..Filters::default()
        };
        let error = typed_filters(&soon).unwrap_err().to_string();
        assert!(
            error.starts_with("the watch's --year soon: expected a year"),
            "{error}"
        );
    }
}
