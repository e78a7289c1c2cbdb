//! Merging an imported list into a catalog folder: new entries are appended to
//! their section's file, entries already present (same URL or title) keep
//! every curated field, and nothing is written on a dry run.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::markdown::{ImportedEntry, ImportedList};
use super::write::{render_entry, render_section_header};
use super::{Catalog, Entry, Kind, Origin, normalize_title, slugify, url_key};
use crate::error::Error;
use crate::fsutil::write_atomic;
use crate::ident;

/// What an import would do, or did.
#[derive(Debug, Default)]
pub struct MergeReport {
    /// New entries, with the file they go into.
    pub added: Vec<(PathBuf, Entry)>,
    /// Files created for sections the catalog did not have.
    pub new_files: Vec<PathBuf>,
    /// Entries already in the catalog, left as curated.
    pub unchanged: usize,
}

/// A planned merge; `apply` writes it.
pub struct Merge {
    pub report: MergeReport,
    writes: Vec<(PathBuf, String)>,
}

impl Merge {
    pub fn apply(&self) -> Result<(), Error> {
        for (path, text) in &self.writes {
            write_atomic(path, text.as_bytes())?;
        }
        Ok(())
    }
}

/// Plans the merge of `list` into the catalog in `dir`.
pub fn merge_import(dir: &Path, catalog: &Catalog, list: &ImportedList) -> Result<Merge, Error> {
    let mut urls: HashSet<String> = catalog.entries.iter().map(|e| url_key(&e.url)).collect();
    let mut titles: HashSet<String> = catalog
        .entries
        .iter()
        .map(|e| normalize_title(&e.title))
        .collect();
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
    let mut writes = Vec::new();

    for section in &list.sections {
        let existing = catalog
            .sections
            .iter()
            .find(|s| normalize_title(&s.name) == normalize_title(&section.name));
        let mut blocks = String::new();
        let mut added_here = Vec::new();
        for imported in &section.entries {
            let url_key = url_key(&imported.url);
            let title_key = normalize_title(&imported.title);
            if urls.contains(&url_key) || titles.contains(&title_key) {
                report.unchanged += 1;
                continue;
            }
            urls.insert(url_key);
            titles.insert(title_key);
            let name = existing.map_or(section.name.as_str(), |s| s.name.as_str());
            let entry = new_entry(imported, name, &mut ids);
            blocks.push_str(&render_entry(&entry));
            added_here.push(entry);
        }
        if added_here.is_empty() {
            continue;
        }
        let (path, text) = match existing {
            Some(s) => {
                let path = s.file.to_path_buf();
                let mut text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&blocks);
                (path, text)
            }
            None => {
                let path = dir.join(format!("{}.toml", slugify(&section.name)));
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
        writes.push((path, text));
    }
    Ok(Merge { report, writes })
}

fn new_entry(imported: &ImportedEntry, section: &str, ids: &mut HashSet<String>) -> Entry {
    let id = unique_id(
        &propose_id(&imported.title, imported.kind, imported.year),
        ids,
    );
    Entry {
        id,
        kind: imported.kind,
        title: imported.title.clone(),
        url: imported.url.clone(),
        authors: imported.authors.clone(),
        et_al: imported.et_al,
        venue: imported.venue.clone(),
        year: imported.year,
        arxiv: ident::arxiv_from_url(&imported.url),
        doi: ident::doi_from_url(&imported.url),
        tags: Vec::new(),
        uses: Vec::new(),
        note: String::new(),
        section: section.to_string(),
        origin: Origin::default(),
    }
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

fn unique_id(base: &str, ids: &mut HashSet<String>) -> String {
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
