//! The catalog: curated entries in TOML files, one file per section, plus the
//! tag vocabulary. Loading and validation live here; nothing here touches the
//! network or the index.

pub mod builtin;
pub mod compiled;
mod edit;
pub mod guard;
pub(crate) mod identity;
mod load;
mod lock;
pub mod markdown;
mod merge;
pub mod name_phrases;
mod reader;
pub mod source;
mod sync;
mod validate;
mod vocabulary;
mod write;

use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

pub use load::{load_dir, load_files};
pub use lock::{CatalogLock, lock_catalog};
pub(crate) use merge::unique_id;
pub use merge::{ItemReport, Merge, MergeReport, Outcome, merge_import, propose_id};
pub use source::{Location, Problem, SourceFile};
pub use sync::{Change, ChangeKind, Kept, Shown, Sync, plan_sync};
pub use validate::{advice, validate};
pub use vocabulary::{Tag, Vocabulary};
pub use write::render_draft;

/// The name of the vocabulary file inside a catalog folder.
pub use crate::model::Kind;

pub const TAGS_FILE: &str = "tags.toml";
/// The optional file of ranking weights (read by search, not an entry file).
pub const RANKING_FILE: &str = "ranking.toml";
/// The list a catalog was imported from, kept for export (not an entry file).
pub const LIST_FILE: &str = "list.toml";
/// Entries `import --sync --apply` removed because the list dropped them,
/// kept whole so that their curation can be restored (not an entry file).
pub const REMOVED_FILE: &str = "removed.toml";
/// The records rejected from the inbox (not an entry file, nor an input of
/// the index: a rejection changes no document).
pub const INBOX_FILE: &str = "inbox.toml";

/// A heading of the list, stored as the `[section]` table of its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    pub name: String,
    /// The heading it sits under in the list ("Papers"), if any.
    pub group: Option<String>,
    /// Its place in the list; sections are exported in this order.
    pub order: i64,
    pub file: Arc<Path>,
}

/// One project or paper of the list, with its curated fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    pub kind: Kind,
    pub title: String,
    pub url: String,
    pub authors: Vec<String>,
    /// The list named only the first authors ("et al.").
    pub et_al: bool,
    pub venue: Option<String>,
    pub year: Option<i64>,
    pub arxiv: Option<String>,
    pub doi: Option<String>,
    /// What the work is about: its primary techniques.
    pub tags: Vec<String>,
    /// Techniques it uses or builds on without being about them.
    pub uses: Vec<String>,
    /// The catalog's project this work is part of ("deepspeed" for ZeRO):
    /// a search for the project finds its papers too.
    pub project: Option<String>,
    pub note: String,
    pub section: String,
    pub origin: Origin,
}

/// Where an entry and its checked fields are written, for precise problems.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
/// A field's location is `None` when the field is absent (the loader has
/// already reported a missing required one).
pub struct Origin {
    pub entry: Location,
    pub id: Option<Location>,
    pub title: Option<Location>,
    pub url: Option<Location>,
    pub year: Option<Location>,
    pub arxiv: Option<Location>,
    pub doi: Option<Location>,
    pub tags: Vec<Location>,
    pub tags_field: Option<Location>,
    pub uses: Vec<Location>,
    pub project: Option<Location>,
    pub note: Option<Location>,
}

/// What an imported list said of an entry beyond its fields, and whether it
/// is still a draft. Kept beside the entries, by id, as only import, export
/// and check use it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    /// Imported and not yet curated: missing tags, note, venue or year are
    /// warnings, not errors.
    pub draft: bool,
    /// Extra links by what they are: ("code", url), ("slides", url).
    pub links: Vec<(String, String)>,
    /// The list's own words about the work (not a curated note).
    pub description: Option<String>,
}

/// Every section, entry and tag of a catalog folder.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub sections: Vec<Section>,
    pub entries: Vec<Entry>,
    pub vocabulary: Vocabulary,
    /// Drafts, extra links and descriptions, by entry id.
    pub listings: std::collections::HashMap<String, Listing>,
    /// See [`Catalog::lookups`].
    lookups: LookupsOnce,
}

/// What every search reads of the catalog beside its vocabulary.
#[derive(Debug, Default, PartialEq)]
pub struct Lookups {
    /// See [`Catalog::section_names`].
    pub sections: Vec<String>,
    /// See [`Catalog::named_sections`].
    pub named_sections: Vec<(String, String)>,
    /// See [`Catalog::venue_names`].
    pub venues: Vec<String>,
    /// See [`Catalog::author_names`].
    pub authors: Vec<String>,
    /// See [`Catalog::work_names`].
    pub works: Vec<(String, String)>,
    /// See [`Catalog::work_name_heads`].
    pub name_heads: Vec<(String, String)>,
    /// See [`Catalog::title_initials`].
    pub initials: Vec<(String, String)>,
    /// See [`Catalog::project_members`].
    pub members: Vec<(String, String)>,
    /// See [`Catalog::reference_works`].
    pub references: Vec<(String, String)>,
    /// The year of the catalog's newest entry, which "recent" counts from.
    pub newest_year: Option<i64>,
}

/// [`Lookups`], derived at the first search. A clone starts without them:
/// a catalog is cloned to be edited.
#[derive(Debug, Default)]
struct LookupsOnce(OnceLock<Lookups>);

impl Clone for LookupsOnce {
    fn clone(&self) -> Self {
        LookupsOnce::default()
    }
}

impl Catalog {
    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// The entries in the list's order: sections by their `order`, entries
    /// as in their section's file.
    pub fn in_list_order(&self) -> Vec<&Entry> {
        let section_order = |e: &Entry| {
            (self.sections.iter())
                .find(|s| s.name == e.section)
                .map_or(i64::MAX, |s| s.order)
        };
        let mut entries: Vec<&Entry> = self.entries.iter().collect();
        // A stable sort keeps each section's entries in file order.
        entries.sort_by_key(|e| section_order(e));
        entries
    }

    pub fn is_draft(&self, id: &str) -> bool {
        self.listings.get(id).is_some_and(|l| l.draft)
    }

    /// The section, venue, work and project-member names and the
    /// techniques' reference works, derived once per catalog rather than on
    /// every search (a scan of the entries and a dictionary lookup
    /// per venue). Derived at the first call: entries edited after it are
    /// not seen, so search a catalog as it was loaded (or a fresh clone).
    pub fn lookups(&self) -> &Lookups {
        self.lookups.0.get_or_init(|| Lookups {
            sections: self.section_names(),
            named_sections: self.named_sections(),
            venues: self.venue_names(),
            authors: self.author_names(),
            works: self.work_names(),
            name_heads: self.work_name_heads(),
            initials: self.title_initials(),
            members: self.project_members(),
            references: self.reference_works(),
            newest_year: self.entries.iter().filter_map(|e| e.year).max(),
        })
    }

    /// The section names, which `section:` filters are matched against.
    pub fn section_names(&self) -> Vec<String> {
        self.sections.iter().map(|s| s.name.clone()).collect()
    }

    /// The sections whose name, typed as words, asks for the section
    /// ("memory efficient training"), squashed, with the name: names of two
    /// or more words that are not a technique's name ("Pipeline
    /// Parallelism" is one, and asks for the technique).
    pub fn named_sections(&self) -> Vec<(String, String)> {
        (self.sections.iter())
            .filter(|s| s.name.split_whitespace().count() > 1)
            .map(|s| (squash(&s.name), s.name.clone()))
            .filter(|(squashed, _)| self.vocabulary.named(squashed).is_none())
            .collect()
    }

    /// Each entry's name (see [`work_name`]), squashed (see [`squash`]),
    /// with the entry's id. A query that is a work's name is looking for
    /// that work.
    pub fn work_names(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .filter_map(|e| {
                let name = squash(work_name(&e.title)?);
                (!name.is_empty()).then(|| (name, e.id.clone()))
            })
            .collect()
    }

    /// The first word of each name of two or more words, squashed, with
    /// the entry's id: "megatron" of "Megatron-LM", "deepspeed" of
    /// "DeepSpeed-MoE", "zero" of "ZeRO-Offload". `-megatron` means those
    /// works.
    pub fn work_name_heads(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .filter_map(|e| {
                let mut parts = work_name(&e.title)?
                    .split(|c: char| c.is_whitespace() || c == '-')
                    .filter(|p| !p.is_empty());
                let head = squash(parts.next()?);
                (parts.next().is_some() && head.len() >= 3).then(|| (head, e.id.clone()))
            })
            .collect()
    }

    /// Each entry whose title (or the name before its colon) is three or
    /// more words, by their initials, lower-cased, with the entry's id:
    /// "dtr" for "Dynamic Tensor Rematerialization", "epl" for "Easy
    /// Parallel Library: ...". Small words ("of", "with") have none, as in
    /// the acronyms people make of titles; a hyphenated word has one.
    pub fn title_initials(&self) -> Vec<(String, String)> {
        const SMALL: [&str; 16] = [
            "a", "an", "and", "at", "by", "for", "from", "in", "into", "of", "on", "the", "to",
            "toward", "towards", "with",
        ];
        self.entries
            .iter()
            .filter_map(|e| {
                let named = match e.title.split_once(':') {
                    Some((name, _)) => name,
                    None => &e.title,
                };
                let initials: String = named
                    .split_whitespace()
                    .filter(|w| !SMALL.contains(&w.to_lowercase().as_str()))
                    .filter_map(|w| w.chars().next().filter(|c| c.is_alphanumeric()))
                    .flat_map(char::to_lowercase)
                    .collect();
                (initials.chars().count() >= 3).then(|| (initials, e.id.clone()))
            })
            .collect()
    }

    /// (project, work) for each work that names the project it is part of.
    pub fn project_members(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .filter_map(|e| Some((e.project.clone()?, e.id.clone())))
            .collect()
    }

    /// (tag, work) for each work about a tag that the project it is part
    /// of is about too: the technique's reference work (Megatron-LM's
    /// paper for tensor parallelism), sorted.
    pub fn reference_works(&self) -> Vec<(String, String)> {
        let mut references: Vec<(String, String)> = (self.entries.iter())
            .filter_map(|work| Some((work, self.entry(work.project.as_deref()?)?)))
            .flat_map(|(work, project)| {
                (work.tags.iter())
                    .filter(|tag| project.tags.contains(tag))
                    .map(|tag| (tag.clone(), work.id.clone()))
            })
            .collect();
        references.sort_unstable();
        references
    }

    /// The authors' names of two or more words, which a query's words
    /// name as a facet (see `search::understand::facets`).
    pub fn author_names(&self) -> Vec<String> {
        let mut authors: Vec<String> = (self.entries.iter())
            .flat_map(|e| e.authors.iter())
            .filter(|a| a.split_whitespace().count() >= 2)
            .cloned()
            .collect();
        authors.sort_unstable();
        authors.dedup();
        authors
    }

    /// The venues of one word ("OSDI", "MLSys") that are not English
    /// words, which a query's word names as a facet (see `search::understand::facets`).
    pub fn venue_names(&self) -> Vec<String> {
        let mut venues: Vec<String> = self
            .entries
            .iter()
            .filter_map(|e| e.venue.clone())
            .filter(|v| !v.contains(' ') && !wordnik_list::word_exists(&v.to_lowercase()))
            .collect();
        venues.sort_unstable();
        venues.dedup();
        venues
    }

    /// Sections in list order, each with its entries in file order.
    pub fn sections_with_entries(&self) -> Vec<(&Section, Vec<&Entry>)> {
        let mut sections: Vec<&Section> = self.sections.iter().collect();
        sections.sort_by(|a, b| a.order.cmp(&b.order).then(a.name.cmp(&b.name)));
        sections
            .into_iter()
            .map(|s| {
                let entries = self
                    .entries
                    .iter()
                    .filter(|e| e.section == s.name)
                    .collect();
                (s, entries)
            })
            .collect()
    }
}

/// A work's name: its title before a colon ("Alpa" of "Alpa: Automating..."),
/// or a title of up to three words whole ("Megatron-LM").
fn work_name(title: &str) -> Option<&str> {
    match title.split_once(':') {
        Some((name, _)) => Some(name),
        None if title.split_whitespace().count() <= 3 => Some(title),
        None => None,
    }
}

/// Lower-case letters and digits only: how technique names are compared, so
/// that "all-reduce", "all reduce" and "AllReduce" agree.
pub fn squash(text: &str) -> String {
    if text.is_ascii() {
        return text
            .bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| char::from(b.to_ascii_lowercase()))
            .collect();
    }
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Lower-case words of letters and digits, for comparing titles and names.
pub fn normalize_title(title: &str) -> String {
    title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The key under which two titles are the same work's: words compared
/// without case or punctuation, but with the `+` and `#` that tell
/// "Name2" from "Name2++"; `None` for a short title (a system's name such
/// as "Quill" is shared by unrelated works).
pub fn title_key(title: &str) -> Option<String> {
    let key: String = title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '+' || c == '#' {
                c
            } else {
                ' '
            }
        })
        .collect::<String>()
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let distinctive = key.split(' ').count() >= 3 || key.len() >= 20;
    distinctive.then_some(key)
}

/// A URL reduced to what identifies the page: no scheme, `www.`, fragment or
/// trailing slash, and a lower-case host.
pub fn normalize_url(url: &str) -> String {
    let url = url.trim();
    let rest = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split('#')
        .next()
        .unwrap_or_default();
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.to_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        host.to_string()
    } else {
        format!("{host}/{path}")
    }
}

/// What makes two URLs the same work: the arXiv id or DOI they carry (so
/// versions and abs/pdf forms agree), else the normalized URL.
pub fn url_key(url: &str) -> String {
    if let Some(id) = crate::ident::arxiv_from_url(url) {
        format!("arxiv:{id}")
    } else if let Some(doi) = crate::ident::doi_from_url(url) {
        format!("doi:{doi}")
    } else {
        normalize_url(url)
    }
}

/// A file-name-safe, lower-case slug.
pub fn slugify(text: &str) -> String {
    let mut slug = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fictional_catalog() -> Catalog {
        let text = "[section]\nname = \"Fiction\"\norder = 1\n\n[[entry]]\nid = \"glimmer\"\nkind = \"paper\"\ntitle = \"Glimmer: Sharding Frobnicators\"\nurl = \"https://example.org/glimmer\"\nvenue = \"ZQSys\"\nyear = 2021\nproject = \"glimmer-lib\"\nnote = \"n\"\n";
        let (catalog, _) = load_files(&[SourceFile::new("fiction.toml", text.to_string())]);
        catalog
    }

    #[test]
    fn lookups_are_the_names_and_a_clone_derives_its_own() {
        let catalog = fictional_catalog();
        let expected = Lookups {
            sections: vec!["Fiction".to_string()],
            named_sections: Vec::new(),
            venues: vec!["ZQSys".to_string()],
            authors: Vec::new(),
            works: vec![("glimmer".to_string(), "glimmer".to_string())],
            name_heads: Vec::new(),
            initials: Vec::new(),
            members: vec![("glimmer-lib".to_string(), "glimmer".to_string())],
            references: Vec::new(),
            newest_year: Some(2021),
        };
        assert_eq!(catalog.lookups(), &expected);
        // An edited clone sees its edit, not the original's lookups.
        let mut edited = catalog.clone();
        edited.entries[0].venue = Some("BlorpConf".to_string());
        assert_eq!(edited.lookups().venues, ["BlorpConf"]);
        assert_eq!(catalog.lookups(), &expected);
    }

    #[test]
    fn a_works_reference_tags_are_those_its_project_is_about_too() {
        let entry = |id: &str, kind: &str, project: &str, tags: &str| {
            format!(
                "[[entry]]\nid = \"{id}\"\nkind = \"{kind}\"\ntitle = \"{id}\"\nurl = \"https://example.org/{id}\"\nyear = 2021\n{project}tags = [{tags}]\nnote = \"n\"\n\n"
            )
        };
        let text = [
            "[section]\nname = \"Fiction\"\norder = 1\n\n".to_string(),
            entry("wobble-lib", "project", "", "\"zeno\", \"quox\""),
            entry(
                "wobble",
                "paper",
                "project = \"wobble-lib\"\n",
                "\"quox\", \"blit\", \"zeno\"",
            ),
            // Its project is no entry of the catalog: nothing to agree with.
            entry(
                "glimmer",
                "paper",
                "project = \"glimmer-lib\"\n",
                "\"quox\"",
            ),
            entry("zarf", "paper", "", "\"quox\""),
        ]
        .concat();
        let (catalog, _) = load_files(&[SourceFile::new("fiction.toml", text)]);
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            (list.iter())
                .map(|(tag, work)| (tag.to_string(), work.to_string()))
                .collect()
        };
        let expected = pairs(&[("quox", "wobble"), ("zeno", "wobble")]);
        assert_eq!(catalog.reference_works(), expected);
    }

    #[test]
    fn initials_are_of_a_titles_words_but_its_small_ones() {
        let entry = |id: &str, title: &str| {
            format!(
                "[[entry]]\nid = \"{id}\"\nkind = \"paper\"\ntitle = \"{title}\"\nurl = \"https://example.org/{id}\"\nyear = 2021\nnote = \"n\"\n\n"
            )
        };
        let text = [
            "[section]\nname = \"Fiction\"\norder = 1\n\n".to_string(),
            entry("quib", "Quibbling Over Sparse-Frobnicator Gradients"),
            entry("wobble", "Wobble Bucket Library: Sharding with Spoons"),
            entry("zarf", "Zarf: a Frobnicator for the Cloud"),
            entry("mesh", "Glimmer Mesh"),
        ]
        .concat();
        let (catalog, _) = load_files(&[SourceFile::new("fiction.toml", text)]);
        let initials = catalog.title_initials();
        let expected = [("qosg", "quib"), ("wbl", "wobble")];
        let expected: Vec<(String, String)> = (expected.iter())
            .map(|(i, id)| (i.to_string(), id.to_string()))
            .collect();
        assert_eq!(initials, expected);
    }

    #[test]
    fn urls_compare_without_scheme_www_and_trailing_slash() {
        assert_eq!(
            normalize_url("https://www.OneFlow.org/"),
            normalize_url("http://oneflow.org")
        );
        assert_eq!(
            normalize_url("https://github.com/NVIDIA/Megatron-LM#readme"),
            "github.com/NVIDIA/Megatron-LM"
        );
    }

    #[test]
    fn titles_compare_by_words() {
        assert_eq!(
            normalize_title("ZeRO-Offload: Democratizing  Billion-Scale"),
            "zero offload democratizing billion scale"
        );
    }

    #[test]
    fn slugs_are_lower_case_and_dashed() {
        assert_eq!(
            slugify("Hybrid Parallelism & Framework"),
            "hybrid-parallelism-framework"
        );
        assert_eq!(
            slugify("Fault-tolerant Training"),
            "fault-tolerant-training"
        );
    }
}
