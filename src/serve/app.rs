//! What the server holds (the catalog, its metadata cache, the index opened
//! once, the inbox's model) and its answers: the API's as JSON values and
//! the feeds' as Atom, made by the library's own views, so that hits are
//! what `search --json` prints, an entry what `show --json` does and a
//! candidate what `inbox --json` does.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::body::Bytes;
use serde_json::{Value, json};

use super::flight::Flights;
use super::inbox::{Inbox, InboxKey};
use super::params::{InboxParams, SearchParams};
use super::site::Site;
use crate::catalog::Catalog;
use crate::error::Error;
use crate::index::{Fields, OpenIndex};
use crate::model::Record;
use crate::model::metadata::Cache;
use crate::named::{find, known_id};
use crate::render::atom::{Feed, feed_id};
use crate::render::json::{candidate_value, hit_value, shown_value};
use crate::render::{bibtex, notes::corrections_line};
use crate::search::present::counts::{Counts, search_counted};
use crate::search::{Boosts, Mode, SearchRequest, newest, similar};
use crate::watch::Watches;

pub struct App {
    catalog: Catalog,
    cache: Cache,
    open: OpenIndex,
    boosts: Boosts,
    /// The curator's inbox (`inbox.rs`).
    inbox: Inbox,
    /// The most hits or candidates in one answer (`Limits::max_limit`).
    max_limit: usize,
    /// Where `watches.json` is, read at each request of a watch's feed.
    watches_dir: Option<PathBuf>,
}

impl App {
    pub fn new(
        catalog: Catalog,
        cache: Cache,
        open: OpenIndex,
        boosts: Boosts,
        inbox: Inbox,
        max_limit: usize,
    ) -> App {
        App {
            catalog,
            cache,
            open,
            boosts,
            inbox,
            max_limit,
            watches_dir: None,
        }
    }

    /// The watches of `dir` have feeds.
    pub fn with_watches(mut self, dir: Option<PathBuf>) -> App {
        self.watches_dir = dir;
        self
    }

    /// `limit`, at most `max_limit`: an answer's size is bounded whatever
    /// is asked.
    pub fn clamp(&self, limit: usize) -> usize {
        limit.min(self.max_limit)
    }

    /// The inbox's computations in progress (see `flight.rs`).
    pub fn inbox_flights(&self) -> Arc<Flights<InboxKey>> {
        self.inbox.flights()
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
        let hits: Vec<Value> = outcome.hits.iter().map(hit_value).collect();
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
        let shown = find(&self.catalog, &self.cache, id, indexed)?;
        let mut value = shown_value(&shown);
        if let Value::Object(map) = &mut value {
            map.insert("bibtex".into(), json!(bibtex::entry(shown.record())));
        }
        Ok(value)
    }

    /// `{"hits": [...]}`, as `similar --json` prints them.
    pub fn similar(&self, id: &str, limit: usize) -> Result<Value, Error> {
        let id = known_id(&self.catalog, &self.cache, &self.open, id)?;
        let weighing = (&self.boosts, &self.catalog.vocabulary);
        let hits = similar(&self.open, &id, limit, None, weighing)?;
        let hits: Vec<Value> = hits.iter().map(hit_value).collect();
        Ok(json!({ "hits": hits }))
    }

    /// `{"candidates": [...], "total": N}`: the best `limit` candidates,
    /// each the object `inbox --json` prints, and how many there are.
    pub fn inbox(&self, params: &InboxParams, stop: &AtomicBool) -> Result<Value, Error> {
        let (found, total) =
            (self.inbox).candidates(&self.catalog, &self.cache, &self.open, params, stop)?;
        let candidates: Vec<Value> = (found.iter().enumerate())
            .map(|(rank, candidate)| candidate_value(rank + 1, candidate))
            .collect();
        Ok(json!({ "candidates": candidates, "total": total }))
    }
}

impl App {
    /// `/feed/search.atom`: the search's matches, newest first. `raw` is
    /// the query as the request wrote it, and in one order (see
    /// `feed::canonical`), which names the feed.
    pub fn feed_search(
        &self,
        params: &SearchParams,
        (raw, canonical): (&str, &str),
        limit: usize,
        site: &Site,
    ) -> Result<Bytes, Error> {
        let request = SearchRequest {
            query: &params.q,
            filters: params.filters.clone(),
            limit: 1,
            explain: None,
            exhaustive: false,
            mode: Mode::Keyword,
        };
        let records = newest(&self.open, &self.catalog, &request, self.boosts, limit)?;
        let mut said: Vec<String> = Vec::new();
        if !params.q.is_empty() {
            said.push(format!("{:?}", params.q));
        }
        said.extend(params.filters.iter().map(|(filter, _)| filter.to_string()));
        let title = match said.is_empty() {
            true => "distml-search: everything".to_string(),
            false => format!("distml-search: {}", said.join(" ")),
        };
        let query = |q: &str| match q {
            "" => String::new(),
            q => format!("?{q}"),
        };
        Ok(atom(&Feed {
            id: format!("urn:distml-search:feed:search:{canonical}"),
            title,
            subtitle: Some("Every match of the search, newest first".into()),
            self_url: site.url(&format!("/feed/search.atom{}", query(raw))),
            page_url: site.url(&format!("/{}", query(canonical))),
            empty_updated: EPOCH.into(),
            entries: site.entries(records),
        }))
    }

    /// `/feed/watch/NAME.atom`: the watch's matches since it was added,
    /// newest first; the watches are read at each request, so a watch
    /// added or removed shows at once.
    pub fn feed_watch(&self, name: &str, limit: usize, site: &Site) -> Result<Bytes, Error> {
        let watches = match &self.watches_dir {
            Some(dir) => Watches::load(&Watches::path(dir))?,
            None => Watches::default(),
        };
        let watch = watches.find(name)?;
        let records =
            crate::watch::feed_records(&self.open, &self.catalog, self.boosts, watch, limit)?;
        let page = match watch.like.as_slice() {
            [first, ..] => site.view(first),
            [] => {
                let mut query = url::form_urlencoded::Serializer::new(String::new());
                if !watch.query.is_empty() {
                    query.append_pair("q", &watch.query);
                }
                for (flag, value) in watch.filters.flags() {
                    query.append_pair(flag.trim_start_matches('-'), value);
                }
                site.url(&format!("/?{}", query.finish()))
            }
        };
        Ok(atom(&Feed {
            id: feed_id(&format!("watch:{name}")),
            title: format!("distml-search watch {name}"),
            subtitle: Some(format!(
                "{}: what entered the index since {}, newest first",
                watch.describe(),
                watch.created
            )),
            self_url: site.url(&format!("/feed/watch/{name}.atom")),
            page_url: page,
            empty_updated: watch.created.clone(),
            entries: site.entries(records),
        }))
    }

    /// `/feed/inbox.atom`: the inbox's best candidates, newest first, each
    /// with what is proposed for it.
    pub fn feed_inbox(
        &self,
        params: &InboxParams,
        stop: &AtomicBool,
        site: &Site,
    ) -> Result<Bytes, Error> {
        let (found, _) =
            (self.inbox).candidates(&self.catalog, &self.cache, &self.open, params, stop)?;
        Ok(atom(&Feed {
            id: feed_id("inbox"),
            title: "distml-search inbox".into(),
            subtitle: Some(
                "arXiv records not in the catalog that belong in it best, newest first".into(),
            ),
            self_url: site.url("/feed/inbox.atom"),
            page_url: site.url("/?view=inbox"),
            empty_updated: EPOCH.into(),
            entries: site.candidate_entries(found),
        }))
    }
}

/// `feed` as the answer.
fn atom(feed: &Feed) -> Bytes {
    Bytes::from(crate::render::atom::write(feed))
}

/// `updated` of a feed with no entry and no date of its own.
const EPOCH: &str = "1970-01-01T00:00:00Z";

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
