//! Loading a catalog folder: TOML text in, sections, entries and tags out, with
//! every syntax and schema problem located. Cross-entry rules are in `validate`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::reader::TableReader;
use super::source::{Location, Problem, SourceFile};
use super::vocabulary::{Tag, Vocabulary};
use super::{Catalog, Entry, Kind, Listing, Origin, Section, TAGS_FILE};
use crate::error::Error;
use crate::fsutil::read_regular_file;

const SECTION_FIELDS: &[&str] = &["name", "group", "order"];
/// An entry's fields, in the order the shipped layout writes them.
pub(super) const ENTRY_FIELDS: &[&str] = &[
    "id",
    "kind",
    "title",
    "url",
    "authors",
    "et_al",
    "venue",
    "year",
    "arxiv",
    "doi",
    "links",
    "description",
    "tags",
    "uses",
    "project",
    "note",
    "draft",
];
const TAG_FIELDS: &[&str] = &[
    "id",
    "label",
    "category",
    "description",
    "aliases",
    "deliberate",
    "broader",
];

/// Reads every `*.toml` file of `dir` (sections, and the vocabulary in `tags.toml`).
pub fn load_dir(dir: &Path) -> Result<(Catalog, Vec<Problem>), Error> {
    let read_dir = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut paths = Vec::new();
    for item in read_dir {
        let path = item.map_err(|e| Error::io(dir, e))?.path();
        if is_loaded(&path) {
            paths.push(path);
        }
    }
    load_paths(paths, &HashMap::new())
}

/// Whether the loader reads `path`: a `.toml` file that is no settings file.
fn is_loaded(path: &Path) -> bool {
    let settings = path.file_name().is_some_and(|n| {
        [
            super::RANKING_FILE,
            super::LIST_FILE,
            super::REMOVED_FILE,
            super::INBOX_FILE,
        ]
        .contains(&n.to_str().unwrap_or_default())
    });
    path.extension().is_some_and(|x| x == "toml") && !settings
}

/// The catalog `dir` would be with `writes` (path, whole text) made: what a
/// writer vets before it writes. A folder not made yet is empty.
pub(super) fn load_dir_with(
    dir: &Path,
    writes: &[(PathBuf, String)],
) -> Result<(Catalog, Vec<Problem>), Error> {
    // By path: an import may write thousands of section files.
    let written: HashMap<PathBuf, &str> = (writes.iter())
        .filter(|(p, _)| is_loaded(p))
        .map(|(p, t)| (p.clone(), t.as_str()))
        .collect();
    let mut paths = Vec::new();
    match std::fs::read_dir(dir) {
        Ok(read_dir) => {
            for item in read_dir {
                let path = item.map_err(|e| Error::io(dir, e))?.path();
                if is_loaded(&path) && !written.contains_key(&path) {
                    paths.push(path);
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(dir, e)),
    }
    load_paths(paths, &written)
}

/// Loads the files at `paths` and the texts `written`, in path order.
fn load_paths(
    mut paths: Vec<PathBuf>,
    written: &HashMap<PathBuf, &str>,
) -> Result<(Catalog, Vec<Problem>), Error> {
    paths.extend(written.keys().cloned());
    paths.sort();
    let mut files = Vec::with_capacity(paths.len());
    let mut unreadable = Vec::new();
    for path in paths {
        if let Some(text) = written.get(&path) {
            files.push(SourceFile::new(path, text.to_string()));
            continue;
        }
        let Some(bytes) = read_regular_file(&path)? else {
            continue;
        };
        match String::from_utf8(bytes) {
            Ok(text) => files.push(SourceFile::new(path, text)),
            // Reported with the other problems, at the first bad byte.
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let prefix = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
                let file = SourceFile::new(path, prefix);
                unreadable.push(Problem::new(
                    file.location(&(valid..valid)),
                    "file is not valid UTF-8",
                ));
            }
        }
    }
    let (catalog, mut problems) = load_files(&files);
    problems.extend(unreadable);
    Ok((catalog, problems))
}

/// Builds a catalog from files already in memory (a folder, or the copy built
/// into the binary). The file named `tags.toml` holds the vocabulary.
pub fn load_files(files: &[SourceFile]) -> (Catalog, Vec<Problem>) {
    let mut catalog = Catalog::default();
    let mut problems = Vec::new();
    let mut tags = Vec::new();
    for file in files {
        let Some(table) = parse(file, &mut problems) else {
            continue;
        };
        if file.path.file_name().is_some_and(|n| {
            [super::LIST_FILE, super::REMOVED_FILE, super::INBOX_FILE]
                .contains(&n.to_str().unwrap_or_default())
        }) {
            continue;
        }
        if file.path.file_name().is_some_and(|n| n == TAGS_FILE) {
            read_tags(file, &table, &mut tags, &mut problems);
        } else {
            read_section_file(file, &table, &mut catalog, &mut problems);
        }
    }
    catalog.vocabulary = Vocabulary::new(tags);
    (catalog, problems)
}

fn parse<'i>(file: &'i SourceFile, problems: &mut Vec<Problem>) -> Option<Spanned<DeTable<'i>>> {
    let (table, errors) = DeTable::parse_recoverable(&file.text);
    if errors.is_empty() {
        return Some(table);
    }
    for error in errors {
        let span = error.span().unwrap_or(0..0);
        let message = error.message().trim().replace('\n', " ");
        problems.push(Problem::new(
            file.location(&span),
            format!("TOML syntax: {message}"),
        ));
    }
    None
}

fn tables<'a, 'i>(
    file: &SourceFile,
    value: &'a Spanned<DeValue<'i>>,
    key: &str,
    problems: &mut Vec<Problem>,
) -> Vec<Spanned<DeTable<'i>>> {
    let items: Vec<&Spanned<DeValue<'i>>> = match value.get_ref() {
        DeValue::Array(array) => array.iter().collect(),
        _ => vec![value],
    };
    let mut out = Vec::new();
    for item in items {
        match item.get_ref() {
            DeValue::Table(table) => out.push(Spanned::new(item.span(), table.clone())),
            other => problems.push(Problem::new(
                file.location(&item.span()),
                format!(
                    "`{key}` must be a table (write [[{key}]]), found {}",
                    other.type_str()
                ),
            )),
        }
    }
    out
}

fn read_section_file(
    file: &SourceFile,
    table: &Spanned<DeTable<'_>>,
    catalog: &mut Catalog,
    problems: &mut Vec<Problem>,
) {
    let mut top = TableReader::new(file, table, "a section file", problems);
    top.deny_unknown(&["section", "entry"]);
    let stem = file
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let section = match table.get_ref().get("section") {
        Some(value) => match value.get_ref() {
            DeValue::Table(t) => {
                let t = Spanned::new(value.span(), t.clone());
                let mut reader = TableReader::new(file, &t, "[section]", problems);
                reader.deny_unknown(SECTION_FIELDS);
                let name = reader
                    .required_string("name")
                    .unwrap_or_else(|| stem.clone());
                let group = reader.string("group");
                let order = reader.integer("order").unwrap_or(i64::MAX);
                Section {
                    name,
                    group,
                    order,
                    file: file.path.clone(),
                }
            }
            other => {
                problems.push(Problem::new(
                    file.location(&value.span()),
                    format!("`section` must be a table, found {}", other.type_str()),
                ));
                Section {
                    name: stem,
                    group: None,
                    order: i64::MAX,
                    file: file.path.clone(),
                }
            }
        },
        None => {
            problems.push(Problem::new(
                Location::file_only(file.path.clone()),
                "missing [section] table with the section's `name`",
            ));
            Section {
                name: stem,
                group: None,
                order: i64::MAX,
                file: file.path.clone(),
            }
        }
    };
    if let Some(value) = table.get_ref().get("entry") {
        for entry in tables(file, value, "entry", problems) {
            let (entry, listing) = read_entry(file, &entry, &section.name, problems);
            if listing != Listing::default() {
                catalog.listings.insert(entry.id.clone(), listing);
            }
            catalog.entries.push(entry);
        }
    }
    catalog.sections.push(section);
}

fn read_entry(
    file: &SourceFile,
    table: &Spanned<DeTable<'_>>,
    section: &str,
    problems: &mut Vec<Problem>,
) -> (Entry, Listing) {
    let mut r = TableReader::new(file, table, "[[entry]]", problems);
    r.deny_unknown(ENTRY_FIELDS);
    let id = r.required_string("id");
    let kind_text = r.required_string("kind");
    let title = r.required_string("title");
    let url = r.required_string("url");
    let authors = r.strings("authors").unwrap_or_default();
    let et_al = r.boolean("et_al").unwrap_or(false);
    let venue = r.string("venue");
    let year = r.integer("year");
    let arxiv = r.string("arxiv");
    let doi = r.string("doi");
    let tags = r.required_strings("tags").unwrap_or_default();
    let uses = r.strings("uses").unwrap_or_default();
    let project = r.string("project");
    let note = r.required_string("note");
    let listing = Listing {
        draft: r.boolean("draft").unwrap_or(false),
        links: r.string_table("links").unwrap_or_default(),
        description: r.string("description"),
    };
    let origin = Origin {
        entry: r.location(),
        id: r.location_of("id"),
        title: r.location_of("title"),
        url: r.location_of("url"),
        year: r.location_of("year"),
        arxiv: r.location_of("arxiv"),
        doi: r.location_of("doi"),
        tags: tags.iter().map(|(_, l)| l.clone()).collect(),
        tags_field: r.location_of("tags"),
        uses: uses.iter().map(|(_, l)| l.clone()).collect(),
        project: r.location_of("project"),
        note: r.location_of("note"),
    };
    // A broken entry is still checked for its other problems, as a paper.
    let kind = match kind_text.as_deref().map(Kind::parse) {
        Some(Some(kind)) => kind,
        Some(None) => {
            let text = kind_text.unwrap_or_default();
            if let Some(location) = r.location_of("kind") {
                problems.push(Problem::new(
                    location,
                    format!("unknown kind \"{text}\" (expected \"paper\" or \"project\")"),
                ));
            }
            Kind::Paper
        }
        None => Kind::Paper,
    };
    let entry = Entry {
        id: id.unwrap_or_default(),
        kind,
        title: title.unwrap_or_default(),
        url: url.unwrap_or_default(),
        authors: authors.into_iter().map(|(a, _)| a).collect(),
        et_al,
        venue,
        year,
        arxiv,
        doi,
        tags: tags.into_iter().map(|(t, _)| t).collect(),
        uses: uses.into_iter().map(|(t, _)| t).collect(),
        project,
        note: note.unwrap_or_default(),
        section: section.to_string(),
        origin,
    };
    (entry, listing)
}

fn read_tags(
    file: &SourceFile,
    table: &Spanned<DeTable<'_>>,
    tags: &mut Vec<Tag>,
    problems: &mut Vec<Problem>,
) {
    let mut top = TableReader::new(file, table, TAGS_FILE, problems);
    top.deny_unknown(&["tag"]);
    let Some(value) = table.get_ref().get("tag") else {
        problems.push(Problem::new(
            Location::file_only(file.path.clone()),
            "the vocabulary has no [[tag]] tables",
        ));
        return;
    };
    for t in tables(file, value, "tag", problems) {
        let mut r = TableReader::new(file, &t, "[[tag]]", problems);
        r.deny_unknown(TAG_FIELDS);
        let id = r.required_string("id");
        let label = r.required_string("label");
        let category = r.string("category").unwrap_or_default();
        let description = r.required_string("description");
        let aliases = r.strings("aliases").unwrap_or_default();
        let deliberate = r.strings("deliberate").unwrap_or_default();
        let broader = r.strings("broader").unwrap_or_default();
        let location = r.location_of("id").unwrap_or_else(|| r.location());
        if let (Some(id), Some(label), Some(description)) = (id, label, description) {
            tags.push(Tag {
                id,
                label,
                category,
                description,
                aliases: aliases.into_iter().map(|(a, _)| a).collect(),
                deliberate: deliberate.into_iter().map(|(a, _)| a).collect(),
                broader: broader.into_iter().map(|(b, _)| b).collect(),
                location,
            });
        }
    }
}
