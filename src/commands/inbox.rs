//! `inbox`: the arxiv collection's records that are not in the catalog,
//! best candidates first; `inbox accept` and `inbox reject`.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use tantivy::TantivyDocument;
use tantivy::collector::DocSetCollector;

use super::read_healing;
use crate::catalog::Catalog;
use crate::cli::{AcceptArgs, InboxAction, InboxArgs, RejectArgs};
use crate::clock::{now_rfc3339, today};
use crate::diagnostic;
use crate::embed::stored::{HEAD, Head, unpack};
use crate::embed::{DIMS, Vector, record_vector};
use crate::error::Error;
use crate::ident;
use crate::inbox::accept::{self, Decision};
use crate::inbox::{Belongs, Candidate, Listed, Rejected, candidate};

use crate::index::vectors::{BestByVector, Keep, VectorFiles, VectorScore, document_vector};
use crate::index::{Fields, OpenIndex, day_number, exact_query, id_query, identifier_key};
use crate::locations::Locations;
use crate::model::metadata::Cache;
use crate::model::{Collection, Record, arxiv_record_id};
use crate::render::Style;
use crate::render::text::{count, inert, inert_json, wrap, wrap_words};

/// Candidates shown when `--limit` is not given.
pub const DEFAULT_LIMIT: usize = 20;

/// Returns whether there was a candidate to show (or an action was done).
pub fn run(
    locations: &Locations,
    args: &InboxArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    match &args.action {
        Some(InboxAction::Accept(accept)) => run_accept(locations, accept, out, err),
        Some(InboxAction::Reject(reject)) => run_reject(locations, reject, out, err),
        None => run_list(locations, args, style, out, err),
    }
}

fn run_list(
    locations: &Locations,
    args: &InboxArgs,
    style: Style,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let since = args.since.as_deref().and_then(day_number);
    let (found, total, collected) = candidates(locations, args, err)?;
    let io = Error::output;
    for (rank, candidate) in found.iter().enumerate() {
        if args.json {
            let line = inert_json(candidate_value(rank + 1, candidate).to_string());
            writeln!(out, "{line}").map_err(io)?;
        } else {
            out.write_all(candidate_block(rank + 1, candidate, &style).as_bytes())
                .map_err(io)?;
        }
    }
    if !args.json {
        let line = match (found.len(), total) {
            (0, _) if collected == 0 => "no candidates: the arxiv collection is empty (harvest, or import a snapshot with `import --arxiv-snapshot`)".to_string(),
            (0, _) if since.is_some() => "no candidates since that day: the records since then are listed or rejected".to_string(),
            (0, _) => "no candidates: every record of the arxiv collection is listed or rejected (harvest or import more)".to_string(),
            (shown, total) if shown < total => format!(
                "{shown} of {} shown; more with --limit {}",
                count(total, "candidate", "candidates"),
                (shown * 2).min(crate::cli::MAX_LIMIT as usize)
            ),
            (shown, _) => count(shown, "candidate", "candidates"),
        };
        diagnostic::line(err, line);
    }
    Ok(!found.is_empty())
}

/// The best candidates `args` ask for, best first, how many candidates
/// there are, and how many records the arxiv collection holds.
pub fn candidates(
    locations: &Locations,
    args: &InboxArgs,
    err: &mut dyn Write,
) -> Result<(Vec<Candidate>, usize, u64), Error> {
    let since = args.since.as_deref().and_then(day_number);
    let limit = args.limit.map_or(DEFAULT_LIMIT, |n| n as usize);
    let cache = locations.load_cache()?;
    let rejected = rejections(locations.catalog_dir().ok())?;
    let (_, open, (found, total)) = read_healing(locations, err, |catalog, open| {
        let learned = Learned::learn(catalog, &cache);
        ranked(
            catalog,
            &learned,
            &rejected,
            open,
            since,
            limit,
            &AtomicBool::new(false),
        )
    })?;
    Ok((found, total, open.collection_size(Collection::Arxiv)))
}

/// What the inbox learns of the catalog: which works are listed, and how
/// well a record belongs. The server keeps one.
pub struct Learned {
    listed: Listed,
    belongs: Belongs,
}

impl Learned {
    pub fn learn(catalog: &Catalog, cache: &Cache) -> Learned {
        Learned {
            listed: Listed::new(catalog, cache),
            belongs: Belongs::train(catalog, cache),
        }
    }
}

/// The best `limit` candidates of the arxiv collection, best first, and
/// how many candidates there are: those first submitted on `since` (a day
/// number) or later when given. `since` chooses what is shown, not how it
/// is scored, so a candidate's score is the same whatever the day.
///
/// Every record is scored by its stored vector alone (a scan of the
/// column); only the best are read from the store, and those that turn
/// out to be listed (by DOI or title) make way for the next.
///
/// Once `stop` is set (the server's clients all left), the rest of the
/// work is skipped and the answer is an error.
pub fn ranked(
    catalog: &Catalog,
    learned: &Learned,
    rejected: &Rejected,
    open: &OpenIndex,
    since: Option<i64>,
    limit: usize,
    stop: &AtomicBool,
) -> Result<(Vec<Candidate>, usize), Error> {
    let stopped = || match stop.load(Ordering::Relaxed) {
        true => Err(Error::Usage(
            "the inbox was not computed: its clients left".into(),
        )),
        false => Ok(()),
    };
    let fields = Fields::from_schema(&open.index.schema())?;
    let searcher = open.reader.searcher();
    let rejected_vectors = stored_vectors(open, &fields, rejected.ids())?;
    let excluded = (learned.listed.arxiv_ids())
        .chain(rejected.ids())
        .map(identifier_key)
        .collect();
    let keep = Keep { since, excluded };
    let score = Belonging {
        belongs: &learned.belongs,
        rejected: &rejected_vectors,
        rejected_heads: rejected_vectors.iter().map(Head::of).collect(),
        stop,
    };
    let files = VectorFiles::of(&open.path, &searcher);
    let query = exact_query(fields.collection, Collection::Arxiv.as_str());
    // Room for a few listed by DOI or title among the best.
    let mut fetched = limit + 8;
    loop {
        let scan = BestByVector {
            score: &score,
            keep: &keep,
            limit: fetched,
            files: &files,
        };
        let (best, scored) = searcher.search(&query, &scan)?;
        let mut found = Vec::with_capacity(limit);
        let mut listed = 0;
        for &(_, address) in &best {
            stopped()?;
            let doc: TantivyDocument = searcher.doc(address)?;
            let record = Record::from_document(&doc, &fields);
            if learned.listed.find(&record).is_some() {
                listed += 1;
                continue;
            }
            let vector = document_vector(&searcher, address)?.unwrap_or([0.0; DIMS]);
            found.push(candidate(
                catalog,
                &learned.belongs,
                record,
                &vector,
                &rejected_vectors,
            ));
        }
        if found.len() >= limit || best.len() < fetched {
            found.sort_by(|a, b| {
                (b.score.total_cmp(&a.score)).then_with(|| a.record.arxiv.cmp(&b.record.arxiv))
            });
            found.truncate(limit);
            return Ok((found, scored - listed));
        }
        fetched *= 4;
    }
}

/// How well a stored vector belongs in the list; nothing once `stop` is
/// set.
struct Belonging<'a> {
    belongs: &'a Belongs,
    rejected: &'a [Vector],
    rejected_heads: Vec<Head>,
    stop: &'a AtomicBool,
}

impl VectorScore for Belonging<'_> {
    fn exact(&self, packed: &[u8]) -> f32 {
        match self.stop.load(Ordering::Relaxed) {
            true => f32::NEG_INFINITY,
            false => self.belongs.score(&unpack(packed), self.rejected),
        }
    }

    fn rough(&self, head: &[i8; HEAD], norm: f32) -> f32 {
        match self.stop.load(Ordering::Relaxed) {
            true => f32::NEG_INFINITY,
            false => self.belongs.rough_score(head, norm, &self.rejected_heads),
        }
    }
}

/// The stored vectors of the imported records of `arxiv` ids (those the
/// index holds).
fn stored_vectors<'a>(
    open: &OpenIndex,
    fields: &Fields,
    arxiv: impl Iterator<Item = &'a str>,
) -> Result<Vec<Vector>, Error> {
    let searcher = open.reader.searcher();
    let mut vectors = Vec::new();
    for id in arxiv {
        let found = searcher.search(&id_query(fields, &arxiv_record_id(id)), &DocSetCollector)?;
        if let Some(address) = found.into_iter().min()
            && let Some(vector) = document_vector(&searcher, address)?
        {
            vectors.push(vector);
        }
    }
    Ok(vectors)
}

/// The rejections of the catalog folder (none for the built-in catalog).
pub fn rejections(catalog_dir: Option<&Path>) -> Result<Rejected, Error> {
    match catalog_dir {
        Some(dir) => Rejected::load(dir),
        None => Ok(Rejected::default()),
    }
}

/// `inbox --json`'s object.
pub fn candidate_value(rank: usize, c: &Candidate) -> serde_json::Value {
    let r = &c.record;
    json!({
        "rank": rank,
        "arxiv": r.arxiv,
        "title": r.title,
        "authors": r.authors,
        "year": r.year,
        "score": (f64::from(c.score) * 1000.0).round() / 1000.0,
        "section": c.section,
        "tags": c.tags,
        "why": c.why,
        "closest": c.closest.iter().map(|w| json!({
            "id": w.id,
            "title": w.title,
            "similarity": (f64::from(w.similarity) * 1000.0).round() / 1000.0,
        })).collect::<Vec<_>>(),
        "url": r.url,
        "submitted": r.submitted,
        "category": r.section,
    })
}

/// ```text
///  1. Title of the record
///     1412.70003 · 2026 · score 0.912 → Mixture of Experts System
///     mixture-of-experts, expert-parallelism
///     why: all-to-all, expert, MoE
/// ```
fn candidate_block(rank: usize, c: &Candidate, style: &Style) -> String {
    let r = &c.record;
    let number = format!("{rank:>2}.");
    let indent = " ".repeat(number.len() + 1);
    let mut words = vec![(number, true)];
    words.extend(inert(&r.title).split(' ').map(|w| (w.to_string(), false)));
    let paint = |w: &str, dim: bool| if dim { style.dim(w) } else { style.bold(w) };
    let mut out = String::new();
    for line in wrap_words(&words, style.prose_width(), 0, &indent, &paint) {
        out.push_str(&line);
        out.push('\n');
    }
    let mut byline = vec![r.arxiv.clone().unwrap_or_default()];
    byline.extend(r.year.map(|y| y.to_string()));
    byline.push(format!("score {:.3}", c.score));
    let mut byline = inert(&byline.join(" · "));
    if let Some(section) = &c.section {
        byline.push_str(&format!(" → {}", inert(section)));
    }
    let room = style.prose_width().saturating_sub(indent.len());
    out.push_str(&format!(
        "{indent}{}\n",
        style.dim(&style.fit(&byline, room))
    ));
    let mut lines = Vec::new();
    if !c.tags.is_empty() {
        lines.extend(wrap(
            &inert(&c.tags.join(", ")),
            style.prose_width(),
            &indent,
        ));
    }
    if !c.why.is_empty() {
        let why = format!("why: {}", c.why.join(", "));
        lines.push(format!(
            "{indent}{}",
            style.dim(&style.fit(&inert(&why), room))
        ));
    }
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
    out
}

/// The arXiv id `typed` names (`ID`, `arxiv:ID` or its URL, any version).
fn arxiv_id(typed: &str) -> Result<String, Error> {
    let bare = typed.trim().strip_prefix("arxiv:").unwrap_or(typed.trim());
    let arxiv =
        ident::arxiv_from_url(bare).unwrap_or_else(|| ident::strip_version(bare).to_string());
    if !ident::is_arxiv_id(&arxiv) {
        return Err(Error::Usage(format!(
            "\"{typed}\" is not an arXiv id such as 2401.10241"
        )));
    }
    Ok(arxiv)
}

/// The record of the arxiv collection `typed` names, with the catalog and
/// its cache, refused (in one line) when it is unknown or already listed.
fn unlisted_record(
    locations: &Locations,
    typed: &str,
    err: &mut dyn Write,
) -> Result<(Catalog, Cache, Record), Error> {
    let arxiv = arxiv_id(typed)?;
    let id = arxiv_record_id(&arxiv);
    let (catalog, _, record) = read_healing(locations, err, |_, open| {
        let fields = Fields::from_schema(&open.index.schema())?;
        let searcher = open.reader.searcher();
        let found = searcher.search(&id_query(&fields, &id), &DocSetCollector)?;
        match found.into_iter().min() {
            Some(address) => {
                let doc: TantivyDocument = searcher.doc(address)?;
                Ok(Some(Record::from_document(&doc, &fields)))
            }
            None => Ok(None),
        }
    })?;
    let cache = locations.load_cache()?;
    let listed = Listed::new(&catalog, &cache);
    // A catalog entry's own record is no record of the collection: its id
    // is checked first.
    let record = record.unwrap_or_else(|| Record {
        arxiv: Some(arxiv.clone()),
        ..Record::default()
    });
    if let Some((entry, why)) = listed.find(&record) {
        return Err(Error::Usage(format!(
            "{arxiv} is already listed as `{entry}` ({why})"
        )));
    }
    if !record.is_imported() {
        return Err(Error::Usage(format!(
            "no record {arxiv} in the arxiv collection: `distml-search inbox` lists the candidates (harvest or import to add records)"
        )));
    }
    Ok((catalog, cache, record))
}

fn run_accept(
    locations: &Locations,
    args: &AcceptArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let dir = locations.catalog_dir()?.to_path_buf();
    if args.note.trim().is_empty() {
        // Before any work: the note is the one thing only the curator gives.
        return Err(Error::Usage(
            "the note is empty: say in one sentence of your own what the work contributes (--note \"...\")"
                .into(),
        ));
    }
    // Held from reading the catalog and its cache to writing them both.
    let lock = super::lock_for_writing(&dir, err)?;
    let (catalog, mut cache, record) = unlisted_record(locations, &args.arxiv, err)?;
    let belongs = Belongs::train(&catalog, &cache);
    let vector = record_vector(&record);
    let candidate = crate::inbox::candidate(&catalog, &belongs, record, &vector, &[]);
    let decision = Decision {
        note: &args.note,
        section: args.section.as_deref(),
        tags: args.tags.as_deref(),
    };
    let accepted = accept::plan(&catalog, &candidate, decision, &today(), &now_rfc3339())?;
    accepted.write(&mut cache, &dir)?;
    drop(lock);
    writeln!(
        out,
        "accepted {} as `{}` in {} ({}); `distml-search check` checks it",
        candidate.record.arxiv.as_deref().unwrap_or_default(),
        accepted.entry.id,
        accepted.entry.section,
        accepted.file.display()
    )
    .map_err(Error::output)?;
    Ok(true)
}

fn run_reject(
    locations: &Locations,
    args: &RejectArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let dir = locations.catalog_dir()?.to_path_buf();
    let _lock = super::lock_for_writing(&dir, err)?;
    let (_, _, record) = unlisted_record(locations, &args.arxiv, err)?;
    let arxiv = record.arxiv.unwrap_or_default();
    let mut rejected = Rejected::load(&dir)?;
    let message = if rejected.insert(&arxiv, &today()) {
        rejected.save(&dir)?;
        format!(
            "rejected {arxiv}: the inbox will not propose it again ({})",
            Rejected::path(&dir).display()
        )
    } else {
        format!("{arxiv} was already rejected")
    };
    writeln!(out, "{message}").map_err(Error::output)?;
    Ok(true)
}
