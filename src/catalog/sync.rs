//! `import --sync`: what changed upstream between the list a catalog was
//! imported from (its text, kept in `list.toml`) and a newer version of it,
//! and the edits that follow. Items are paired across the two versions of
//! the list, not with the catalog, so that the list's changes are told from
//! the curator's: an entry `list.toml` does not map never came from the
//! list and is never removed, and a field the curator edited is kept.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::edit::{EntryEdits, FieldValue, edit_section};
use super::guard::{url_owner, url_refusal, vet_writes, year_refusal};
use super::markdown::{ImportedEntry, ImportedList, ListLayout, parse_list};
use super::merge::merge_onto;
use super::{
    Catalog, Entry, Kind, LIST_FILE, Outcome, REMOVED_FILE, normalize_title, title_key, url_key,
};
use crate::error::Error;
use crate::fsutil::write_all_atomic;
use crate::ident;

/// What changed upstream about one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    New,
    Retitled,
    UrlChanged,
    AuthorsChanged,
    VenueChanged,
    YearChanged,
    Removed,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::New => "new",
            ChangeKind::Retitled => "retitled",
            ChangeKind::UrlChanged => "url-changed",
            ChangeKind::AuthorsChanged => "authors-changed",
            ChangeKind::VenueChanged => "venue-changed",
            ChangeKind::YearChanged => "year-changed",
            ChangeKind::Removed => "removed",
        }
    }
}

/// The fields a sync compares, in the order changes are reported.
const FIELDS: [ChangeKind; 5] = [
    ChangeKind::Retitled,
    ChangeKind::UrlChanged,
    ChangeKind::AuthorsChanged,
    ChangeKind::VenueChanged,
    ChangeKind::YearChanged,
];

/// A field's value as a report shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    Text(String),
    Year(i64),
}

/// One change: `line` is the item's in the new list (for `removed`, in the
/// list before); `old` is the catalog's value, `new` the list's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub line: usize,
    pub kind: ChangeKind,
    pub id: String,
    pub old: Option<Shown>,
    pub new: Option<Shown>,
}

/// A change upstream to a field the curator edited since: not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub line: usize,
    pub kind: ChangeKind,
    pub id: String,
    pub upstream_old: Option<Shown>,
    pub upstream_new: Option<Shown>,
    pub catalog: Option<Shown>,
}

/// A change upstream that `check` would refuse, or that empties a field
/// without the curator's word: not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub line: usize,
    pub kind: ChangeKind,
    pub id: String,
    pub old: Option<Shown>,
    pub new: Option<Shown>,
    pub why: String,
}

/// A planned sync; `apply` writes it.
#[derive(Debug)]
pub struct Sync {
    pub changes: Vec<Change>,
    pub kept: Vec<Kept>,
    pub refused: Vec<Refused>,
    /// New items not added, and what was left out of added ones: (line, why).
    pub notes: Vec<(usize, String)>,
    /// Whether `list.toml` would change (its text, or where its items are);
    /// never when a change is refused.
    pub list_changed: bool,
    writes: Vec<(PathBuf, String)>,
    dir: PathBuf,
}

impl Sync {
    /// Writes each file atomically: removed entries are archived before
    /// they leave their section file, and `list.toml` goes last, so that a
    /// sync cut short and run again finishes the job. Nothing is written
    /// when `check` would refuse the result (see [`vet_writes`]).
    pub fn apply(&self) -> Result<(), Error> {
        vet_writes(&self.dir, &self.writes)?;
        write_all_atomic(&self.writes)
    }

    pub fn count(&self, kind: ChangeKind) -> usize {
        self.changes.iter().filter(|c| c.kind == kind).count()
    }
}

/// An item of either version of the list, with its section and keys.
struct Item<'a> {
    entry: &'a ImportedEntry,
    section: &'a str,
    url: String,
    title: String,
}

fn items(list: &ImportedList) -> Vec<Item<'_>> {
    list.sections
        .iter()
        .flat_map(|s| s.entries.iter().map(move |e| (s.name.as_str(), e)))
        .map(|(section, entry)| Item {
            entry,
            section,
            url: url_key(&entry.work.url),
            title: normalize_title(&entry.work.title),
        })
        .collect()
}

/// Whether an item of the list before and one of the new list are one work.
type Same = dyn Fn(&Item, &Item) -> bool;

/// Pairs items of the list before (`old`) with items of the new one: the
/// same link and title, then the same link (retitled), the same
/// distinctive title (a new link), then the same short title in the same
/// section when neither version has another. `result[new] = Some(old)`.
fn pair(old: &[Item], new: &[Item]) -> Vec<Option<usize>> {
    let mut taken = vec![false; old.len()];
    let mut pairs = vec![None; new.len()];
    let passes: [&Same; 3] = [
        &|o, n| o.url == n.url && o.title == n.title,
        &|o, n| o.url == n.url,
        &|o, n| title_key(&o.entry.work.title).is_some() && o.title == n.title,
    ];
    for same in passes {
        for (n, item) in new.iter().enumerate() {
            if pairs[n].is_some() {
                continue;
            }
            if let Some(o) = (0..old.len()).find(|&o| !taken[o] && same(&old[o], item)) {
                taken[o] = true;
                pairs[n] = Some(o);
            }
        }
    }
    let short = |a: &Item, b: &Item| a.section == b.section && a.title == b.title;
    for n in 0..new.len() {
        if pairs[n].is_some() {
            continue;
        }
        let candidates: Vec<usize> = (0..old.len())
            .filter(|&o| !taken[o] && short(&old[o], &new[n]))
            .collect();
        let rivals = (0..new.len())
            .filter(|&m| pairs[m].is_none() && short(&new[m], &new[n]))
            .count();
        if let ([o], 1) = (candidates.as_slice(), rivals) {
            taken[*o] = true;
            pairs[n] = Some(*o);
        }
    }
    pairs
}

fn authors_text(authors: &[String], et_al: bool) -> Option<Shown> {
    let mut text = authors.join(", ");
    if et_al {
        text.push_str(if text.is_empty() { "et al." } else { " et al." });
    }
    (!text.is_empty()).then_some(Shown::Text(text))
}

/// What a list says of a work: an item's fields, or an entry's.
struct Stated<'a> {
    title: &'a str,
    url: &'a str,
    authors: &'a [String],
    et_al: bool,
    venue: Option<&'a str>,
    year: Option<i64>,
}

impl Stated<'_> {
    fn of_item(item: &ImportedEntry) -> Stated<'_> {
        Stated {
            title: &item.work.title,
            url: &item.work.url,
            authors: &item.work.authors,
            et_al: item.work.et_al,
            venue: item.work.venue.as_deref(),
            year: item.work.year,
        }
    }

    fn of_entry(entry: &Entry) -> Stated<'_> {
        Stated {
            title: &entry.title,
            url: &entry.url,
            authors: &entry.authors,
            et_al: entry.et_al,
            venue: entry.venue.as_deref(),
            year: entry.year,
        }
    }

    /// The value of the field `kind` compares.
    fn value(&self, kind: ChangeKind) -> Option<Shown> {
        let text = |s: &str| Shown::Text(s.to_string());
        match kind {
            ChangeKind::Retitled => Some(text(self.title)),
            ChangeKind::UrlChanged => Some(text(self.url)),
            ChangeKind::AuthorsChanged => authors_text(self.authors, self.et_al),
            ChangeKind::VenueChanged => self.venue.map(text),
            ChangeKind::YearChanged => self.year.map(Shown::Year),
            ChangeKind::New | ChangeKind::Removed => None,
        }
    }
}

/// Gives `entry` the list's new value of the field `kind` compares, and
/// records the TOML edits that say so.
fn take(kind: ChangeKind, item: &ImportedEntry, entry: &mut Entry, edits: &mut EntryEdits) {
    let text = |s: &Option<String>| FieldValue::Text(s.clone());
    match kind {
        ChangeKind::Retitled => {
            entry.title = item.work.title.clone();
            edits.push(("title", FieldValue::Text(Some(item.work.title.clone()))));
        }
        ChangeKind::UrlChanged => {
            // Identifiers are the ones the URL carries (check insists).
            entry.url = item.work.url.clone();
            entry.arxiv = ident::arxiv_from_url(&item.work.url);
            entry.doi = ident::doi_from_url(&item.work.url);
            edits.push(("url", FieldValue::Text(Some(item.work.url.clone()))));
            edits.push(("arxiv", text(&entry.arxiv)));
            edits.push(("doi", text(&entry.doi)));
        }
        ChangeKind::AuthorsChanged => {
            entry.authors = item.work.authors.clone();
            entry.et_al = item.work.et_al;
            edits.push(("authors", FieldValue::Texts(item.work.authors.clone())));
            edits.push(("et_al", FieldValue::Flag(item.work.et_al)));
        }
        ChangeKind::VenueChanged => {
            entry.venue = item.work.venue.clone();
            edits.push(("venue", text(&item.work.venue)));
        }
        ChangeKind::YearChanged => {
            entry.year = item.work.year;
            edits.push(("year", FieldValue::Integer(item.work.year)));
        }
        ChangeKind::New | ChangeKind::Removed => {}
    }
}

/// Why the list's new value of the field `kind` may not become `entry`'s
/// (of `catalog`, as synced so far), if it may not: a link that is no web
/// page or is another entry's, a year out of range, a title another entry
/// has, or a field emptied without `allow_emptied` (and even with it, a
/// curated paper keeps the fields `check` requires of it).
fn refusal(
    kind: ChangeKind,
    item: &ImportedEntry,
    catalog: &Catalog,
    entry: &Entry,
    draft: bool,
    allow_emptied: bool,
) -> Option<String> {
    let emptied = match kind {
        ChangeKind::AuthorsChanged => item.work.authors.is_empty() && !entry.authors.is_empty(),
        ChangeKind::VenueChanged => item.work.venue.is_none(),
        ChangeKind::YearChanged => item.work.year.is_none(),
        _ => false,
    };
    if emptied {
        let field = match kind {
            ChangeKind::AuthorsChanged => "authors",
            ChangeKind::VenueChanged => "venue",
            _ => "year",
        };
        return if !allow_emptied {
            Some(format!(
                "it empties the {field}: `--allow-emptied` applies such changes"
            ))
        } else if !draft && entry.kind == Kind::Paper {
            Some(format!("a curated paper needs its {field}"))
        } else {
            None
        };
    }
    let owner = |same: &dyn Fn(&Entry) -> bool| {
        (catalog.entries.iter())
            .find(|e| e.id != entry.id && same(e))
            .map(|e| e.id.clone())
    };
    match kind {
        ChangeKind::UrlChanged => url_refusal(&item.work.url).or_else(|| {
            let owner = url_owner(catalog, &item.work.url, &entry.id)?;
            Some(format!("it is already the url of `{owner}`"))
        }),
        ChangeKind::YearChanged => item.work.year.and_then(year_refusal),
        ChangeKind::Retitled => {
            let key = title_key(&item.work.title)?;
            let owner = owner(&|e| title_key(&e.title).as_ref() == Some(&key))?;
            Some(format!("it is already the title of `{owner}`"))
        }
        _ => None,
    }
}

/// Plans the sync of the catalog in `dir` (imported from the list `layout`
/// keeps) with `markdown`, the list's new version; `allow_emptied` applies
/// changes that empty a field.
pub fn plan_sync(
    dir: &Path,
    catalog: &Catalog,
    layout: &ListLayout,
    markdown: &str,
    allow_emptied: bool,
) -> Result<Sync, Error> {
    let before = parse_list(&layout.text);
    let after = parse_list(markdown);
    // Only the items that became entries came from the list.
    let old: Vec<(Item, &str)> = items(&before)
        .into_iter()
        .filter_map(|item| {
            let id = layout.items.get(&item.entry.line.to_string())?;
            Some((item, id.as_str()))
        })
        .collect();
    let (old, old_ids): (Vec<Item>, Vec<&str>) = old.into_iter().unzip();
    let new = items(&after);
    let pairs = pair(&old, &new);

    let mut result = catalog.clone();
    let at: HashMap<String, usize> = (result.entries.iter().enumerate())
        .map(|(i, e)| (e.id.clone(), i))
        .collect();
    let mut changes = Vec::new();
    let mut kept = Vec::new();
    let mut refused = Vec::new();
    let mut edits: HashMap<String, EntryEdits> = HashMap::new();
    // The new list's items that are entries, by line, and those entries.
    let mut mapped: HashMap<usize, String> = HashMap::new();
    let mut listed: HashSet<String> = HashSet::new();
    for (n, o) in pairs.iter().enumerate() {
        let Some(o) = *o else { continue };
        let id = old_ids[o];
        // An entry the curator deleted stays deleted.
        let Some(&index) = at.get(id) else {
            continue;
        };
        mapped.insert(new[n].entry.line, id.to_string());
        if !listed.insert(id.to_string()) {
            continue;
        }
        let (was, now) = (old[o].entry, new[n].entry);
        let draft = catalog.is_draft(id);
        for kind in FIELDS {
            let entry = &result.entries[index];
            let upstream_old = Stated::of_item(was).value(kind);
            let upstream_new = Stated::of_item(now).value(kind);
            let current = Stated::of_entry(entry).value(kind);
            if upstream_old == upstream_new || current == upstream_new {
                continue;
            }
            let line = now.line;
            if current != upstream_old {
                kept.push(Kept {
                    line,
                    kind,
                    id: id.to_string(),
                    upstream_old,
                    upstream_new,
                    catalog: current,
                });
                continue;
            }
            if let Some(why) = refusal(kind, now, &result, entry, draft, allow_emptied) {
                refused.push(Refused {
                    line,
                    kind,
                    id: id.to_string(),
                    old: current,
                    new: upstream_new,
                    why,
                });
                continue;
            }
            let entry = &mut result.entries[index];
            take(kind, now, entry, edits.entry(id.to_string()).or_default());
            changes.push(Change {
                line,
                kind,
                id: id.to_string(),
                old: current,
                new: upstream_new,
            });
        }
    }

    // Entries of the list before that the new one no longer has.
    let taken: HashSet<usize> = pairs.iter().flatten().copied().collect();
    let mut removed: HashSet<String> = HashSet::new();
    for (o, item) in old.iter().enumerate() {
        let id = old_ids[o];
        if taken.contains(&o) || listed.contains(id) || removed.contains(id) {
            continue;
        }
        if let Some(entry) = catalog.entry(id) {
            removed.insert(id.to_string());
            changes.push(Change {
                line: item.entry.line,
                kind: ChangeKind::Removed,
                id: id.to_string(),
                old: Some(Shown::Text(entry.title.clone())),
                new: None,
            });
        }
    }
    result.entries.retain(|e| !removed.contains(&e.id));

    let (edited, archive) = edit_files(catalog, &edits, &removed)?;

    // The items of the new list that are not the list's before are added
    // as a plain import adds them.
    let fresh_lines: HashSet<usize> = pairs
        .iter()
        .zip(&new)
        .filter(|(o, _)| o.is_none())
        .map(|(_, item)| item.entry.line)
        .collect();
    let mut fresh = after.clone();
    fresh.skipped.clear();
    for section in &mut fresh.sections {
        section.entries.retain(|e| fresh_lines.contains(&e.line));
    }
    let merge = merge_onto(dir, &result, &fresh, &edited)?;
    let mut notes = merge.report.notes.clone();
    for item in &merge.report.items {
        if item.outcome == Outcome::Skipped {
            let why = item.reason.as_deref().unwrap_or_default();
            notes.push((item.line, format!("skipped: {why}")));
        }
        let Some(id) = &item.id else { continue };
        match item.outcome {
            Outcome::Add => {
                changes.push(Change {
                    line: item.line,
                    kind: ChangeKind::New,
                    id: id.clone(),
                    old: None,
                    new: Some(Shown::Text(item.title.clone())),
                });
            }
            // An entry the curator added that the list now has too is
            // the list's from now on (unless another item already is it).
            Outcome::AlreadyListed if !listed.contains(id) => {}
            _ => continue,
        }
        listed.insert(id.clone());
        mapped.insert(item.line, id.clone());
    }
    changes.sort_by_key(|c| (c.kind == ChangeKind::Removed, c.line, c.kind));
    kept.sort_by_key(|k| (k.line, k.kind));
    refused.sort_by_key(|r| (r.line, r.kind));
    notes.sort();

    let mut writes = Vec::new();
    if !archive.is_empty() {
        writes.push(archived(dir, &archive)?);
    }
    let merged: HashSet<PathBuf> = merge.writes.iter().map(|(p, _)| p.clone()).collect();
    writes.extend(edited.into_iter().filter(|(p, _)| !merged.contains(p)));
    writes.extend(merge.writes);
    let list = ListLayout {
        text: markdown.to_string(),
        items: mapped
            .into_iter()
            .map(|(line, id)| (line.to_string(), id))
            .collect(),
    };
    // A refused change keeps the list before in list.toml: the next sync
    // (the link fixed upstream, or with --allow-emptied) proposes it again.
    let list_changed = list != *layout && refused.is_empty();
    if list_changed {
        writes.push((dir.join(LIST_FILE), list.to_toml()));
    }
    Ok(Sync {
        changes,
        kept,
        refused,
        notes,
        list_changed,
        writes,
        dir: dir.to_path_buf(),
    })
}

/// Each section file with its entries' edits made and removed entries
/// taken out, by path; and the removed entries' text.
fn edit_files(
    catalog: &Catalog,
    edits: &HashMap<String, EntryEdits>,
    removed: &HashSet<String>,
) -> Result<(HashMap<PathBuf, String>, String), Error> {
    let mut files: Vec<PathBuf> = Vec::new();
    for entry in &catalog.entries {
        if !edits.contains_key(&entry.id) && !removed.contains(&entry.id) {
            continue;
        }
        if let Some(section) = catalog.sections.iter().find(|s| s.name == entry.section) {
            let path = section.file.to_path_buf();
            if !files.contains(&path) {
                files.push(path);
            }
        }
    }
    let mut edited = HashMap::new();
    let mut archive = String::new();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let (text, gone) = edit_section(&path, &text, edits, removed)?;
        archive.push_str(&gone);
        edited.insert(path, text);
    }
    Ok((edited, archive))
}

/// `removed.toml` with `archive` added at its end.
fn archived(dir: &Path, archive: &str) -> Result<(PathBuf, String), Error> {
    let path = dir.join(REMOVED_FILE);
    let mut text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::from(
            "# Entries `import --sync --apply` removed because the list no longer has them,\n# kept with their notes and tags. Not part of the catalog: move one back\n# into a section file to restore it.\n",
        ),
        Err(e) => return Err(Error::io(&path, e)),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(archive);
    Ok((path, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paired(before: &str, after: &str) -> Vec<Option<usize>> {
        let (before, after) = (parse_list(before), parse_list(after));
        pair(&items(&before), &items(&after))
    }

    #[test]
    fn items_pair_by_link_then_title() {
        let before = "## A\n\n- [Alpha Beta Gamma](https://example.org/1)\n- [Quill](https://example.org/q)\n- [Delta Epsilon Zeta](https://example.org/2)\n";
        // Retitled, moved to a new link, and a short name with a new link.
        let after = "## A\n\n- [Delta Epsilon Zeta](https://example.org/2-new)\n- [Quill](https://example.org/q2)\n- [Alpha Beta Gamma, Revised](https://example.org/1)\n";
        assert_eq!(paired(before, after), vec![Some(2), Some(1), Some(0)]);
    }

    #[test]
    fn a_short_title_with_a_new_link_pairs_only_when_alone() {
        let before = "## A\n\n- [Quill](https://example.org/q)\n";
        let after =
            "## A\n\n- [Quill](https://example.org/q2)\n- [Quill](https://example.org/q3)\n";
        assert_eq!(paired(before, after), vec![None, None]);
        let elsewhere = "## B\n\n- [Quill](https://example.org/q2)\n";
        assert_eq!(paired(before, elsewhere), vec![None]);
    }

    #[test]
    fn the_same_link_and_title_wins_over_the_same_link() {
        let before = "## A\n\n- [Org Tool One](https://github.com/example-org)\n- [Org Tool Two](https://github.com/example-org)\n";
        let after = "## A\n\n- [Org Tool Two](https://github.com/example-org)\n- [Org Tool One](https://github.com/example-org)\n";
        assert_eq!(paired(before, after), vec![Some(1), Some(0)]);
    }
}
