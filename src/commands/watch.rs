//! `watch`: saved searches, and what is new for each since it was last
//! read, by when records entered the index (see `index::stamps`), so that
//! each new match shows once: `watch add`, `list`, `show`, `remove`, and
//! `watch` alone for every watch. `--mark-read` says when "new" starts
//! again; nothing else does.

use std::io::Write;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::catalog::Catalog;
use crate::cli::{
    WatchAction, WatchAddArgs, WatchArgs, WatchListArgs, WatchRemoveArgs, WatchShown,
};
use crate::clock::now_rfc3339;
use crate::diagnostic;
use crate::error::Error;
use crate::index::IndexDir;
use crate::index::stamps::{latest, stamp_time};
use crate::locations::Locations;
use crate::named::known_id;
use crate::ready::read_healing;
use crate::render::text::count;
use crate::render::{Style, json as render_json, table};
use crate::search::{Boosts, Hit};
use crate::watch::{self, DEFAULT_MIN_SIMILARITY, Filters, Matches, Watch, Watches, matches_after};

/// New matches shown of each watch when `--limit` is not given.
pub const DEFAULT_LIMIT: usize = 20;

/// Returns whether anything was shown (or done).
pub fn run(
    locations: &Locations,
    args: &WatchArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    match &args.action {
        Some(WatchAction::Add(add)) => run_add(locations, add, out, err),
        Some(WatchAction::List(list)) => run_list(locations, list, style, out, err),
        Some(WatchAction::Remove(remove)) => run_remove(locations, remove, out),
        Some(WatchAction::Show(show)) => {
            run_show(locations, Some(&show.name), &show.shown, style, out, err)
        }
        None => run_show(locations, None, &args.shown, style, out, err),
    }
}

/// The folder of `watches.json` (see `watch`).
pub fn watches_dir(locations: &Locations) -> Result<PathBuf, Error> {
    locations.metadata_dir().ok_or_else(|| {
        Error::Usage(
            "no folder to keep watches in: pass --catalog DIR (or set XDG_DATA_HOME)".into(),
        )
    })
}

/// The watches of `locations` (none when there is no file).
pub fn load_watches(locations: &Locations) -> Result<Watches, Error> {
    Watches::load(&Watches::path(&watches_dir(locations)?))
}

fn run_add(
    locations: &Locations,
    args: &WatchAddArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let query = args.query.join(" ").trim().to_string();
    let filters = stored_filters(&args.filters);
    // clap lets a query (which conflicts with --like) through without it.
    if args.min_similarity.is_some() && args.like.is_empty() {
        return Err(Error::Usage(
            "--min-similarity goes with --like: it is how near a work a match must be".into(),
        ));
    }
    if !args.like.is_empty() && !filters.is_empty() {
        return Err(Error::Usage(
            "--like takes no filter flags: a watch follows works, or searches".into(),
        ));
    }
    if query.is_empty() && filters.is_empty() && args.like.is_empty() {
        return Err(Error::Usage(
            "say what to watch: words, a filter flag (--tag, --author, ...) or --like ID".into(),
        ));
    }
    let dir = watches_dir(locations)?;
    // Refused before the index is read.
    if let Some(existing) = Watches::load(&Watches::path(&dir))?.get(&args.name) {
        return Err(exists(existing));
    }
    let cache = if args.like.iter().any(|id| id.contains(':')) {
        locations.load_cache()?
    } else {
        Default::default()
    };
    let boosts = Boosts::load(locations.catalog_dir().ok())?;
    let (_, _, (watch, matching)) = read_healing(locations, err, |catalog, open| {
        let like = (args.like.iter())
            .map(|id| known_id(catalog, &cache, open, id))
            .collect::<Result<Vec<_>, Error>>()?;
        let since = latest(&open.reader.searcher()).unwrap_or(0);
        let watch = Watch {
            name: args.name.clone(),
            query: query.clone(),
            filters: filters.clone(),
            like,
            min_similarity: args.min_similarity.filter(|_| !args.like.is_empty()),
            created: now_rfc3339(),
            since,
            read_through: since,
            read_at: None,
        };
        if watch.like.is_empty() {
            // The search is run once, so that a mistake is told now, not
            // at the first harvest.
            let matching = matches_after(open, catalog, boosts, &watch, i64::MIN, 1)?;
            let now = count(matching.total, "match", "matches");
            return Ok((watch, format!("{now} now")));
        }
        // The works' vectors, read; no record is after the last time.
        let seeds = matches_after(open, catalog, boosts, &watch, i64::MAX, 1)?.seeds;
        if seeds.is_empty() {
            return Err(Error::Usage(format!(
                "no meaning is known for {}: follow works that have a title or an abstract",
                watch.like.join(", ")
            )));
        }
        Ok((
            watch,
            format!("follows {}", count(seeds.len(), "work", "works")),
        ))
    })?;
    let _lock = watch::lock(&dir)?;
    let path = Watches::path(&dir);
    let mut watches = Watches::load(&path)?;
    if let Some(existing) = watches.get(&watch.name) {
        return Err(exists(existing));
    }
    let line = format!(
        "added watch {}: {} ({matching}; what enters the index from now on is new)",
        watch.name,
        watch.describe(),
    );
    watches.insert(watch);
    watches.save(&path)?;
    writeln!(out, "{line}").map_err(Error::output)?;
    Ok(true)
}

fn exists(watch: &Watch) -> Error {
    Error::Usage(format!(
        "a watch named `{}` exists ({}): remove it first (distml-search watch remove {})",
        watch.name,
        watch.describe(),
        watch.name
    ))
}

fn run_remove(
    locations: &Locations,
    args: &WatchRemoveArgs,
    out: &mut dyn Write,
) -> Result<bool, Error> {
    let dir = watches_dir(locations)?;
    let _lock = watch::lock(&dir)?;
    let path = Watches::path(&dir);
    let mut watches = Watches::load(&path)?;
    if !watches.remove(&args.name) {
        return Err(watch::unknown(&watches, &args.name));
    }
    watches.save(&path)?;
    writeln!(out, "removed watch {}", args.name).map_err(Error::output)?;
    Ok(true)
}

fn run_list(
    locations: &Locations,
    args: &WatchListArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let watches = load_watches(locations)?;
    if watches.watches.is_empty() {
        diagnostic::line(err, NO_WATCHES);
        return Ok(false);
    }
    let boosts = Boosts::load(locations.catalog_dir().ok())?;
    let (_, _, counts) = read_healing(locations, err, |catalog, open| {
        Ok((watches.watches.iter())
            .map(|w| matches_after(open, catalog, boosts, w, w.read_through, 1).map(|m| m.total))
            .collect::<Vec<_>>())
    })?;
    let io = Error::output;
    let width = (watches.watches.iter())
        .map(|w| w.name.len())
        .max()
        .unwrap_or(0);
    for (w, new) in watches.watches.iter().zip(counts) {
        if args.json {
            let mut value = watch_value(w);
            if let Value::Object(map) = &mut value {
                match &new {
                    Ok(new) => map.insert("new".into(), json!(new)),
                    Err(e) => map.insert("error".into(), json!(e.to_string())),
                };
            }
            writeln!(out, "{value}").map_err(io)?;
            continue;
        }
        let new = match new {
            Ok(new) => format!("{new:>4} new"),
            Err(e) => format!("cannot be searched: {e}"),
        };
        let name = format!("{:<width$}", w.name);
        writeln!(
            out,
            "{}  {new}  {}",
            style.bold(&name),
            style.dim(&w.describe())
        )
        .map_err(io)?;
    }
    Ok(true)
}

const NO_WATCHES: &str =
    "no watches yet: add one with `distml-search watch add NAME QUERY` (or --like ID)";

/// `watch list --json`'s object (without `new`).
fn watch_value(w: &Watch) -> Value {
    json!({
        "name": w.name,
        "query": w.query,
        "filters": w.filters,
        "like": w.like,
        "min_similarity": (!w.like.is_empty())
            .then(|| w.min_similarity.unwrap_or(DEFAULT_MIN_SIMILARITY)),
        "created": w.created,
        "read_at": w.read_at,
    })
}

fn run_show(
    locations: &Locations,
    name: Option<&str>,
    shown: &WatchShown,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let limit = shown.limit.map_or(DEFAULT_LIMIT, |n| n as usize);
    let watches = load_watches(locations)?;
    let chosen: Vec<Watch> = match name {
        Some(name) => vec![watches.find(name)?.clone()],
        None => watches.watches.clone(),
    };
    if chosen.is_empty() {
        diagnostic::line(err, NO_WATCHES);
        return Ok(false);
    }
    let boosts = Boosts::load(locations.catalog_dir().ok())?;
    let (_, _, (through, found)) = read_healing(locations, err, |catalog, open| {
        // Read from the index the matches are: what it does not hold yet
        // is stamped later.
        let through = latest(&open.reader.searcher());
        let each = |w: &Watch| matches_after(open, catalog, boosts, w, w.read_through, limit);
        let found: Vec<Result<Matches, Error>> = match name {
            // One watch alone: its error is the command's.
            Some(_) => vec![Ok(each(&chosen[0])?)],
            None => chosen.iter().map(each).collect(),
        };
        Ok((through, found))
    })?;
    let io = Error::output;
    let mut any = false;
    let mut read = Vec::new();
    for (i, (w, matches)) in chosen.iter().zip(found).enumerate() {
        let matches = match matches {
            Ok(matches) => matches,
            Err(e) => {
                diagnostic::warning(err, format_args!("watch {}: {e}", w.name));
                continue;
            }
        };
        read.push(w);
        any |= !matches.hits.is_empty();
        if shown.json {
            for hit in &matches.hits {
                writeln!(out, "{}", hit_value(&w.name, hit)).map_err(io)?;
            }
            continue;
        }
        if i > 0 {
            writeln!(out).map_err(io)?;
        }
        let new = match matches.total {
            0 => "nothing new".to_string(),
            n => format!("{n} new"),
        };
        writeln!(
            out,
            "{} · {new} · {}",
            style.bold(&w.name),
            style.dim(&w.describe())
        )
        .map_err(io)?;
        for (j, hit) in matches.hits.iter().enumerate() {
            if j > 0 {
                writeln!(out).map_err(io)?;
            }
            out.write_all(table::hit_block(hit, &style).as_bytes())
                .map_err(io)?;
        }
        if matches.total > matches.hits.len() {
            diagnostic::line(
                err,
                style.dim(&format!(
                    "{}: {} of {} new shown; more with --limit {}",
                    w.name,
                    matches.hits.len(),
                    matches.total,
                    matches.total.min(crate::cli::MAX_LIMIT as usize)
                )),
            );
        }
    }
    if shown.mark_read
        && let Some(through) = through
    {
        let marked = mark_read(locations, &read, through)?;
        diagnostic::line(
            err,
            format_args!(
                "marked {} read",
                match marked.as_slice() {
                    [one] => format!("watch {one}"),
                    many => format!("{} watches", many.len()),
                }
            ),
        );
    }
    Ok(any)
}

/// `search --json`'s object for a new match, with `watch` and `added`.
pub fn hit_value(watch: &str, hit: &Hit) -> Value {
    let mut value = render_json::hit_value(hit);
    if let Value::Object(map) = &mut value {
        map.insert("watch".into(), json!(watch));
        map.insert("added".into(), json!(hit.record.added.map(stamp_time)));
    }
    value
}

/// Marks `shown` read through stamp `through`: under the lock, each as the
/// file holds it now, unless it was removed or changed since it was shown.
fn mark_read(locations: &Locations, shown: &[&Watch], through: i64) -> Result<Vec<String>, Error> {
    let dir = watches_dir(locations)?;
    let _lock = watch::lock(&dir)?;
    let path = Watches::path(&dir);
    let mut watches = Watches::load(&path)?;
    let now = now_rfc3339();
    let mut marked = Vec::new();
    for w in shown {
        if let Some(stored) = watches.get_mut(&w.name)
            && same_search(stored, w)
        {
            stored.read_through = through;
            stored.read_at = Some(now.clone());
            marked.push(w.name.clone());
        }
    }
    watches.save(&path)?;
    Ok(marked)
}

/// Whether two watches search alike (a watch removed and added again
/// under its name is another).
fn same_search(a: &Watch, b: &Watch) -> bool {
    a.query == b.query
        && a.filters == b.filters
        && a.like == b.like
        && a.min_similarity == b.min_similarity
        && a.created == b.created
}

/// The filter flags as a watch keeps them.
fn stored_filters(args: &crate::cli::FilterArgs) -> Filters {
    let text = |v: &Option<String>| v.as_deref().map(str::trim).map(str::to_string);
    Filters {
        tag: args.tag.iter().map(|t| t.trim().to_string()).collect(),
        section: text(&args.section),
        kind: args.kind.map(|k| k.as_str().to_string()),
        year: args.year.map(|y| y.to_string()),
        venue: text(&args.venue),
        author: text(&args.author),
        collection: args.collection.only().map(|c| c.as_str().to_string()),
    }
}

/// `watches: moe 3 new, zorblat 0 new`, for a harvest's summary: how many
/// new matches each watch has now; `None` without watches.
pub fn harvest_note(locations: &Locations, catalog: &Catalog) -> Result<Option<String>, Error> {
    let watches = load_watches(locations)?;
    if watches.watches.is_empty() {
        return Ok(None);
    }
    let open = IndexDir::new(&locations.index)
        .open()?
        .ok_or_else(|| Error::Index("the index cannot be opened".into()))?;
    let boosts = Boosts::load(locations.catalog_dir().ok())?;
    let parts: Vec<String> = (watches.watches.iter())
        .map(
            |w| match matches_after(&open, catalog, boosts, w, w.read_through, 1) {
                Ok(m) => format!("{} {} new", w.name, m.total),
                Err(e) => format!("{} cannot be searched ({e})", w.name),
            },
        )
        .collect();
    Ok(Some(format!("watches: {}", parts.join(", "))))
}
