//! What the server holds (the catalog, its metadata cache, the index opened
//! once) and the answers of the API as JSON values,
//! made by the code the commands use: hits as `search --json` prints them,
//! an entry as `show --json` does.

use serde_json::{Value, json};

use super::params::SearchParams;
use crate::catalog::Catalog;
use crate::commands::search::{corrections_line, known_id};
use crate::commands::show;
use crate::error::Error;
use crate::index::{Fields, OpenIndex};
use crate::model::Record;
use crate::model::metadata::Cache;
use crate::render::{bibtex, json as render_json};
use crate::search::counts::{Counts, search_counted};
use crate::search::{Boosts, Mode, SearchRequest, similar};

pub struct App {
    catalog: Catalog,
    cache: Cache,
    open: OpenIndex,
    boosts: Boosts,
    /// The curator's inbox (`inbox.rs`).
    inbox: super::inbox::Inbox,
    /// The most hits or candidates in one answer (`Limits::max_limit`).
    max_limit: usize,
}

impl App {
    pub fn new(
        catalog: Catalog,
        cache: Cache,
        open: OpenIndex,
        boosts: Boosts,
        inbox: super::inbox::Inbox,
        max_limit: usize,
    ) -> App {
        App {
            catalog,
            cache,
            open,
            boosts,
            inbox,
            max_limit,
        }
    }

    /// `limit`, at most `max_limit`: an answer's size is bounded whatever
    /// is asked.
    pub fn clamp(&self, limit: usize) -> usize {
        limit.min(self.max_limit)
    }

    /// The inbox's computations in progress (see `flight.rs`).
    pub fn inbox_flights(
        &self,
    ) -> std::sync::Arc<super::flight::Flights<super::params::InboxParams>> {
        self.inbox.flights()
    }

    /// `/api/inbox`'s answer (see `inbox.rs`).
    pub fn inbox_list(
        &self,
        params: &super::params::InboxParams,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<Value, Error> {
        self.inbox
            .list(&self.catalog, &self.cache, &self.open, params, stop)
    }

    /// `{"hits", "total", "facets", "more", "notes", "techniques"}`. No words and no
    /// filters lists everything (the page before a query).
    pub fn search(&self, params: &SearchParams) -> Result<Value, Error> {
        let limit = self.clamp(params.limit);
        let request = SearchRequest {
            query: &params.q,
            filters: params.filters.clone(),
            limit,
            explain: None,
            exhaustive: false,
            mode: Mode::Keyword,
        };
        let (outcome, counts) = search_counted(&self.open, &self.catalog, &request, self.boosts)?;
        let hits: Vec<Value> = outcome.hits.iter().map(render_json::hit_value).collect();
        let mut notes = outcome.notes.clone();
        notes.extend(corrections_line(&outcome.rewrites));
        if limit < params.limit {
            notes.push(format!(
                "{limit} hits at most in one answer here, not {}",
                params.limit
            ));
        }
        // The tags the query names, which the page's tag filter shows first.
        let mut techniques: Vec<&str> = Vec::new();
        for expansion in &outcome.rewrites.expansions {
            if !techniques.contains(&expansion.tag.as_str()) {
                techniques.push(&expansion.tag);
            }
        }
        Ok(json!({
            "hits": hits,
            "total": counts.total,
            "more": outcome.more,
            "facets": facets_value(&counts),
            "notes": notes,
            "techniques": techniques,
        }))
    }

    /// `show --json`'s object, with the entry's BibTeX (`bibtex`).
    pub fn entry(&self, id: &str) -> Result<Value, Error> {
        let indexed = |id: &str| {
            let fields = Fields::from_schema(&self.open.index.schema())?;
            Ok(self
                .open
                .document(id)?
                .map(|doc| Record::from_document(&doc, &fields)))
        };
        let shown = show::find(&self.catalog, &self.cache, id, indexed)?;
        let mut value = show::json_value(&shown);
        if let Value::Object(map) = &mut value {
            map.insert("bibtex".into(), json!(bibtex::entry(shown.record())));
        }
        Ok(value)
    }

    /// `{"hits": [...]}`, as `similar --json` prints them.
    pub fn similar(&self, id: &str, limit: usize) -> Result<Value, Error> {
        let id = known_id(&self.catalog, &self.cache, &self.open, id)?;
        let hits = similar(&self.open, &id, limit, None)?;
        let hits: Vec<Value> = hits.iter().map(render_json::hit_value).collect();
        Ok(json!({ "hits": hits }))
    }
}

/// `{"tag": [{"value": "...", "count": N}, ...], "year": [{"value": 2021,
/// ...}], ...}`: years as numbers, oldest first; the rest most frequent first.
fn facets_value(counts: &Counts) -> Value {
    let facets = counts
        .facets
        .iter()
        .map(|(name, values)| {
            let values: Vec<Value> = values
                .iter()
                .map(|(value, count)| {
                    let value = match (*name, value.parse::<i64>()) {
                        ("year", Ok(year)) => json!(year),
                        _ => json!(value),
                    };
                    json!({"value": value, "count": count})
                })
                .collect();
            (name.to_string(), Value::Array(values))
        })
        .collect();
    Value::Object(facets)
}
