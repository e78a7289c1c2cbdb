//! Merging an imported list into a catalog folder: new entries are appended
//! to their section's file as drafts, entries already present (same work by
//! URL, identifier or a distinctive title) keep every curated field, and
//! every item with a link gets an outcome. Nothing is written on a dry run.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::guard::{is_own_stem, url_refusal, vet_writes, year_refusal};
use super::markdown::{ImportedEntry, ImportedList};
use super::write::{render_draft, render_section_header};
use super::{
    Catalog, Entry, Kind, Listing, Origin, TAGS_FILE, normalize_title, slugify, title_key, url_key,
};
use crate::error::Error;
use crate::fsutil::write_all_atomic;
use crate::ident;

/// What became of one item of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Add,
    DuplicateInFile,
    AlreadyListed,
    Skipped,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Add => "add",
            Outcome::DuplicateInFile => "duplicate-in-file",
            Outcome::AlreadyListed => "already-listed",
            Outcome::Skipped => "skipped",
        }
    }
}

/// One item of the list with a link, and what the import does with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemReport {
    pub line: usize,
    pub outcome: Outcome,
    pub reason: Option<String>,
    pub title: String,
    pub url: String,
    /// The entry it is added as, or the entry that already lists it.
    pub id: Option<String>,
}

/// What an import would do, or did.
#[derive(Debug, Default)]
pub struct MergeReport {
    /// New entries, with the file they go into.
    pub added: Vec<(PathBuf, Entry)>,
    /// Files created for sections the catalog did not have.
    pub new_files: Vec<PathBuf>,
    /// Entries already in the catalog, left as curated.
    pub unchanged: usize,
    /// Every item with a link, in the order of the list.
    pub items: Vec<ItemReport>,
    /// The vocabulary file created for a catalog that had none.
    pub vocabulary: Option<PathBuf>,
    /// What was left out of an added entry, by its line: (line, why).
    pub notes: Vec<(usize, String)>,
}

impl MergeReport {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.items.iter().filter(|i| i.outcome == outcome).count()
    }
}

/// A planned merge; `apply` writes it.
pub struct Merge {
    pub report: MergeReport,
    pub(super) writes: Vec<(PathBuf, String)>,
    dir: PathBuf,
}

impl Merge {
    /// Writes the merge, unless the catalog it would leave is one `check`
    /// refuses (see [`vet_writes`]). Take the catalog's lock first.
    pub fn apply(&self) -> Result<(), Error> {
        vet_writes(&self.dir, &self.writes)?;
        write_all_atomic(&self.writes)
    }

    /// Adds a file to write with the merge (the list's own text).
    pub fn also_write(&mut self, path: PathBuf, text: String) {
        self.writes.push((path, text));
    }
}

/// A work already known, by what identifies it.
#[derive(Clone)]
struct Known {
    id: String,
    title: String,
    /// Line of the list it came from; `None` for the catalog's own entries.
    line: Option<usize>,
    identifier: bool,
}

/// The works known so far, by URL key and by distinctive title.
#[derive(Default)]
struct Works {
    by_url: HashMap<String, Known>,
    by_title: HashMap<String, (Known, String)>,
}

impl Works {
    fn insert(&mut self, url: &str, title: &str, known: Known) {
        let key = url_key(url);
        if let Some(title) = title_key(title) {
            self.by_title
                .entry(title)
                .or_insert((known.clone(), key.clone()));
        }
        self.by_url.entry(key).or_insert(known);
    }

    /// The known work `url` and `title` are, or one that shares the link
    /// but is a different work (`Err`).
    fn find(&self, url: &str, title: &str) -> Option<Result<(&Known, &'static str), &Known>> {
        let key = url_key(url);
        if let Some(known) = self.by_url.get(&key) {
            // An arXiv id or DOI names one work; a plain page may list many.
            let same = known.identifier
                || normalize_title(&known.title) == normalize_title(title)
                || title_key(title).is_none()
                || title_key(&known.title).is_none();
            return Some(if same {
                Ok((known, "same link"))
            } else {
                Err(known)
            });
        }
        let (known, known_url) = self.by_title.get(&title_key(title)?)?;
        // Two identifiers of one kind are two works, whatever their titles;
        // an arXiv id and a DOI of one title are a preprint and its paper.
        let scheme = |key: &str| key.split_once(':').map(|(scheme, _)| scheme.to_string());
        let identifiers_differ =
            scheme(known_url).is_some() && scheme(known_url) == scheme(&key) && *known_url != key;
        (!identifiers_differ).then_some(Ok((known, "same title")))
    }
}

/// Plans the merge of `list` into the catalog in `dir`.
pub fn merge_import(dir: &Path, catalog: &Catalog, list: &ImportedList) -> Result<Merge, Error> {
    merge_onto(dir, catalog, list, &HashMap::new())
}

/// Plans the merge of `list` onto section files whose texts in `edited`
/// replace what is on disk (a sync edits them before adding to them).
pub(super) fn merge_onto(
    dir: &Path,
    catalog: &Catalog,
    list: &ImportedList,
    edited: &HashMap<PathBuf, String>,
) -> Result<Merge, Error> {
    let mut works = Works::default();
    for entry in &catalog.entries {
        let known = Known {
            id: entry.id.clone(),
            title: entry.title.clone(),
            line: None,
            identifier: url_key(&entry.url).contains(':'),
        };
        works.insert(&entry.url, &entry.title, known);
    }
    let mut ids: HashSet<String> = catalog.entries.iter().map(|e| e.id.clone()).collect();
    let mut next_order = catalog
        .sections
        .iter()
        .map(|s| s.order)
        .filter(|&o| o != i64::MAX)
        .max()
        .unwrap_or(0)
        + 1;
    let mut report = MergeReport::default();
    let mut writes: Vec<(PathBuf, String)> = Vec::new();
    let mut paths: HashSet<PathBuf> = catalog
        .sections
        .iter()
        .map(|s| s.file.to_path_buf())
        .collect();
    for skipped in &list.skipped {
        report.items.push(ItemReport {
            line: skipped.line,
            outcome: Outcome::Skipped,
            reason: Some(skipped.reason.clone()),
            title: skipped.title.clone(),
            url: skipped.url.clone(),
            id: None,
        });
    }

    // By name and by file: a list may have thousands of sections.
    let mut by_name: HashMap<String, &super::Section> = HashMap::new();
    for s in &catalog.sections {
        by_name.entry(normalize_title(&s.name)).or_insert(s);
    }
    let mut written: HashMap<PathBuf, usize> = HashMap::new();
    for section in &list.sections {
        let existing = by_name.get(&normalize_title(&section.name)).copied();
        let mut blocks = String::new();
        let mut added_here = Vec::new();
        for imported in &section.entries {
            let mut item = ItemReport {
                line: imported.line,
                outcome: Outcome::Add,
                reason: None,
                title: imported.work.title.clone(),
                url: imported.work.url.clone(),
                id: None,
            };
            match works.find(&imported.work.url, &imported.work.title) {
                Some(Ok((known, why))) => {
                    item.outcome = match known.line {
                        None => {
                            report.unchanged += 1;
                            item.id = Some(known.id.clone());
                            item.reason =
                                Some(format!("the catalog has it as `{}` ({why})", known.id));
                            Outcome::AlreadyListed
                        }
                        Some(line) => {
                            item.reason = Some(format!("the same work as line {line} ({why})"));
                            Outcome::DuplicateInFile
                        }
                    };
                }
                Some(Err(known)) => {
                    let place = match known.line {
                        Some(line) => format!("the item at line {line}"),
                        None => format!("`{}`", known.id),
                    };
                    item.outcome = Outcome::Skipped;
                    item.reason = Some(format!(
                        "its link is also the link of {place} (\"{}\"), a different work: give it a link of its own",
                        known.title
                    ));
                }
                None if url_refusal(&imported.work.url).is_some() => {
                    let why = url_refusal(&imported.work.url).unwrap_or_default();
                    item.outcome = Outcome::Skipped;
                    item.reason = Some(format!("its link is no web page ({why})"));
                }
                None => {
                    let name = existing.map_or(section.name.as_str(), |s| s.name.as_str());
                    // A year `check` would refuse is left out (and out of the id).
                    let refused = imported.work.year.and_then(year_refusal);
                    if let Some(why) = &refused {
                        report
                            .notes
                            .push((imported.line, format!("{why}: left out")));
                    }
                    let year = imported.work.year.filter(|_| refused.is_none());
                    let (entry, listing) = new_entry(imported, year, name, &mut ids);
                    works.insert(
                        &entry.url,
                        &entry.title,
                        Known {
                            id: entry.id.clone(),
                            title: entry.title.clone(),
                            line: Some(imported.line),
                            identifier: url_key(&entry.url).contains(':'),
                        },
                    );
                    item.id = Some(entry.id.clone());
                    blocks.push_str(&render_draft(&entry, &listing));
                    added_here.push(entry);
                }
            }
            report.items.push(item);
        }
        if added_here.is_empty() {
            continue;
        }
        let (path, text) = match existing {
            Some(s) => {
                let path = s.file.to_path_buf();
                let mut text = match written.get(&path) {
                    Some(&i) => std::mem::take(&mut writes[i].1),
                    None => match edited.get(&path) {
                        Some(text) => text.clone(),
                        None => std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?,
                    },
                };
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&blocks);
                report
                    .added
                    .extend(added_here.into_iter().map(|e| (path.clone(), e)));
                match written.get(&path) {
                    Some(&i) => writes[i].1 = text,
                    None => {
                        written.insert(path.clone(), writes.len());
                        writes.push((path, text));
                    }
                }
                continue;
            }
            None => {
                let path = section_path(dir, &section.name, &mut paths);
                let mut text =
                    render_section_header(&section.name, section.group.as_deref(), next_order);
                next_order += 1;
                text.push_str(&blocks);
                report.new_files.push(path.clone());
                (path, text)
            }
        };
        report
            .added
            .extend(added_here.into_iter().map(|e| (path.clone(), e)));
        written.insert(path.clone(), writes.len());
        writes.push((path, text));
    }
    report.items.sort_by_key(|i| i.line);
    // A catalog needs a vocabulary to pass `check`: a new one starts from
    // the shipped tags.
    let tags = dir.join(TAGS_FILE);
    if !report.added.is_empty()
        && catalog.vocabulary.is_empty()
        && !tags.exists()
        && let Some(text) = crate::catalog::builtin::builtin_file(TAGS_FILE)
    {
        report.vocabulary = Some(tags.clone());
        writes.push((tags, text.to_string()));
    }
    Ok(Merge {
        report,
        writes,
        dir: dir.to_path_buf(),
    })
}

/// A file name for a new section that no other section uses, nor any of
/// the catalog's own files ("Tags" is `tags-section.toml`).
fn section_path(dir: &Path, name: &str, taken: &mut HashSet<PathBuf>) -> PathBuf {
    let slug = slugify(name);
    let base = if slug.is_empty() {
        format!("section-{}", taken.len() + 1)
    } else if is_own_stem(&slug) {
        format!("{slug}-section")
    } else {
        slug
    };
    let mut path = dir.join(format!("{base}.toml"));
    let mut n = 2;
    while taken.contains(&path) || path.exists() {
        path = dir.join(format!("{base}-{n}.toml"));
        n += 1;
    }
    taken.insert(path.clone());
    path
}

fn new_entry(
    imported: &ImportedEntry,
    year: Option<i64>,
    section: &str,
    ids: &mut HashSet<String>,
) -> (Entry, Listing) {
    let id = unique_id(
        &propose_id(&imported.work.title, imported.work.kind, year),
        ids,
    );
    let entry = Entry {
        id,
        kind: imported.work.kind,
        title: imported.work.title.clone(),
        url: imported.work.url.clone(),
        authors: imported.work.authors.clone(),
        et_al: imported.work.et_al,
        venue: imported.work.venue.clone(),
        year,
        arxiv: ident::arxiv_from_url(&imported.work.url),
        doi: ident::doi_from_url(&imported.work.url),
        tags: Vec::new(),
        uses: Vec::new(),
        project: None,
        note: String::new(),
        section: section.to_string(),
        origin: Origin::default(),
    };
    let listing = Listing {
        draft: true,
        links: imported.work.links.clone(),
        description: imported.work.description.clone(),
    };
    (entry, listing)
}

const ID_STOP_WORDS: &[&str] = &[
    "a", "an", "the", "of", "for", "with", "in", "on", "via", "and", "to", "from", "by", "at",
    "using", "over", "into", "toward", "towards",
];

/// A readable id: the system's name when the title starts with a short
/// "Name:", else its first three significant words; papers add their year.
pub fn propose_id(title: &str, kind: Kind, year: Option<i64>) -> String {
    let name = match title.split_once(':') {
        Some((head, _)) if head.split_whitespace().count() <= 3 => slugify(head),
        _ => {
            let words: Vec<&str> = title
                .split(|c: char| !(c.is_alphanumeric() || c == '-'))
                .filter(|w| !w.is_empty() && !ID_STOP_WORDS.contains(&w.to_lowercase().as_str()))
                .take(3)
                .collect();
            slugify(&words.join(" "))
        }
    };
    let name = if name.is_empty() {
        "entry".to_string()
    } else {
        name
    };
    match (kind, year) {
        (Kind::Paper, Some(year)) => format!("{name}-{year}"),
        _ => name,
    }
}

pub(crate) fn unique_id(base: &str, ids: &mut HashSet<String>) -> String {
    let mut id = base.to_string();
    let mut n = 2;
    while ids.contains(&id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    ids.insert(id.clone());
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_use_the_system_name_and_year() {
        assert_eq!(
            propose_id("GPipe: Efficient Training", Kind::Paper, Some(2019)),
            "gpipe-2019"
        );
        assert_eq!(
            propose_id("Megatron-LM: Ongoing Research", Kind::Project, None),
            "megatron-lm"
        );
        assert_eq!(
            propose_id(
                "Training deep nets with sublinear memory cost",
                Kind::Paper,
                Some(2016)
            ),
            "training-deep-nets-2016"
        );
        let mut taken = HashSet::from(["gpipe-2019".to_string()]);
        assert_eq!(unique_id("gpipe-2019", &mut taken), "gpipe-2019-2");
    }
}
