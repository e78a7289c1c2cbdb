//! `inbox`: the arxiv collection's records that are not in the catalog,
//! best candidates first; `inbox accept` and `inbox reject`.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use tantivy::TantivyDocument;
use tantivy::collector::DocSetCollector;

use crate::catalog::Catalog;
use crate::cli::{AcceptArgs, InboxAction, InboxArgs, RejectArgs};
use crate::clock::{now_rfc3339, today};
use crate::diagnostic;
use crate::embed::record_vector;
use crate::error::Error;
use crate::ident;
use crate::inbox::accept::{self, Decision};
use crate::inbox::{Belongs, Candidate, DEFAULT_LIMIT, Learned, Listed, Rejected, ranked};
use crate::index::{Fields, day_number, id_query};
use crate::inert::{inert, inert_json};
use crate::locations::Locations;
use crate::model::metadata::Cache;
use crate::model::{Collection, Record, arxiv_record_id};
use crate::ready::read_healing;
use crate::render::Style;
use crate::render::json::candidate_value;
use crate::render::text::{count, wrap, wrap_words};

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
    let rejected = Rejected::of_catalog(locations.catalog_dir().ok())?;
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
