//! Rules a loaded catalog must keep: unique ids, URLs and titles, known tags,
//! well-formed identifiers that agree with the URL, plausible years, curated
//! tags and notes. Each broken rule is a [`Problem`] at the offending field.

use std::collections::HashMap;

use super::source::{Location, Problem};
use super::{Catalog, Entry, Kind, normalize_title, title_key, url_key};
use crate::ident;

pub const MIN_YEAR: i64 = 1990;
pub const MAX_TAGS: usize = 8;

/// Every rule broken by `catalog`, in file order. `current_year` bounds years
/// (up to the next one, for camera-ready papers).
pub fn validate(catalog: &Catalog, current_year: i64) -> Vec<Problem> {
    let mut problems = catalog.vocabulary.problems();
    if catalog.vocabulary.is_empty()
        && let Some(section) = catalog.sections.first()
    {
        let dir = section.file.parent().unwrap_or(std::path::Path::new("."));
        problems.push(Problem::new(
            Location::file_only(dir.join(super::TAGS_FILE).into()),
            "no tag vocabulary: create tags.toml with [[tag]] tables",
        ));
    }
    let mut ids = HashMap::new();
    let mut urls = HashMap::new();
    let mut titles = HashMap::new();
    for entry in &catalog.entries {
        check_entry(catalog, entry, current_year, &mut problems);
        check_uses(catalog, entry, &mut problems);
        check_project(catalog, entry, &mut problems);
        let o = &entry.origin;
        // Absent fields were reported by the loader; they are not duplicates.
        if let Some(here) = &o.id
            && let Some(first) = ids.insert(entry.id.as_str(), here)
        {
            problems.push(Problem::new(
                here.clone(),
                format!("duplicate id `{}` (first used at {first})", entry.id),
            ));
        }
        if let Some(here) = &o.url
            && let Some(first) = urls.insert(url_key(&entry.url), here)
        {
            problems.push(Problem::new(
                here.clone(),
                format!("duplicate url {} (also at {first})", entry.url),
            ));
        }
        // Short titles (a system's name) may be shared by distinct works.
        if let Some(here) = &o.title
            && let Some(key) = title_key(&entry.title)
            && let Some(first) = titles.insert(key, here)
        {
            problems.push(Problem::new(
                here.clone(),
                format!("duplicate title \"{}\" (also at {first})", entry.title),
            ));
        }
    }
    let mut names = HashMap::new();
    for section in &catalog.sections {
        if let Some(first) = names.insert(normalize_title(&section.name), &section.file) {
            problems.push(Problem::new(
                Location::file_only(section.file.clone()),
                format!(
                    "section \"{}\" is also defined in {}",
                    section.name,
                    first.display()
                ),
            ));
        }
    }
    problems.sort();
    problems
}

/// Every rule `entry` breaks, in the order of its fields.
fn check_entry(catalog: &Catalog, entry: &Entry, current_year: i64, out: &mut Vec<Problem>) {
    let o = &entry.origin;
    // A rule about a field is reported at the field, or at the entry when absent.
    let mut problem = |location: Option<&Location>, message: String| {
        out.push(Problem::new(location.unwrap_or(&o.entry).clone(), message));
    };
    // A draft's missing curation is advice (see `advice`), not a problem.
    let draft = catalog.is_draft(&entry.id);
    check_id_title_url(entry, &mut problem);
    check_identifiers(entry, &mut problem);
    check_year(entry, current_year, draft, &mut problem);
    if !draft {
        check_paper_fields(entry, &mut problem);
    }
    check_tags(catalog, entry, draft, &mut problem);
    if !draft && o.note.is_some() && entry.note.trim().is_empty() {
        problem(
            o.note.as_ref(),
            format!("entry `{}` has an empty note", entry.id),
        );
    }
}

/// A field a rule reports at (`None`: the entry), and the message.
type Report<'a> = dyn FnMut(Option<&Location>, String) + 'a;

fn check_id_title_url(entry: &Entry, problem: &mut Report) {
    let o = &entry.origin;
    if o.id.is_some() && !is_slug(&entry.id) {
        problem(
            o.id.as_ref(),
            format!(
                "id `{}` must be lower-case letters, digits and single dashes",
                entry.id
            ),
        );
    }
    if o.title.is_some() && entry.title.trim().is_empty() {
        problem(o.title.as_ref(), "title is empty".into());
    }
    if o.url.is_some() {
        match url::Url::parse(&entry.url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => {}
            _ => problem(
                o.url.as_ref(),
                format!("url \"{}\" is not an http(s) URL", entry.url),
            ),
        }
    }
}

fn check_identifiers(entry: &Entry, problem: &mut Report) {
    check_identifier(
        "arxiv",
        entry.arxiv.as_deref(),
        ident::arxiv_from_url(&entry.url),
        ident::is_arxiv_id,
        "an arXiv id such as 2006.09503 (no version suffix)",
        entry.origin.arxiv.as_ref(),
        problem,
    );
    check_identifier(
        "doi",
        entry.doi.as_deref(),
        ident::doi_from_url(&entry.url),
        ident::is_doi,
        "a DOI such as 10.1145/3341301.3359646",
        entry.origin.doi.as_ref(),
        problem,
    );
}

/// Years run from [`MIN_YEAR`] to next year; a paper needs one.
fn check_year(entry: &Entry, current_year: i64, draft: bool, problem: &mut Report) {
    match entry.year {
        Some(year) if !(MIN_YEAR..=current_year + 1).contains(&year) => problem(
            entry.origin.year.as_ref(),
            format!("year {year} is outside {MIN_YEAR}..{}", current_year + 1),
        ),
        None if !draft && entry.kind == Kind::Paper && entry.origin.year.is_none() => {
            problem(None, "paper has no `year`".into())
        }
        _ => {}
    }
}

fn check_paper_fields(entry: &Entry, problem: &mut Report) {
    if entry.kind == Kind::Paper {
        if entry.authors.is_empty() {
            problem(None, "paper has no `authors`".into());
        }
        if entry.venue.as_deref().is_none_or(|v| v.trim().is_empty()) {
            problem(None, "paper has no `venue`".into());
        }
    }
}

/// One to [`MAX_TAGS`] tags, each once and from the vocabulary (if there is
/// one: its absence is reported once, by [`validate`]).
fn check_tags(catalog: &Catalog, entry: &Entry, draft: bool, problem: &mut Report) {
    let o = &entry.origin;
    if let Some(field) = &o.tags_field {
        if entry.tags.is_empty() {
            if draft {
                return;
            }
            problem(Some(field), format!("entry `{}` has no tags", entry.id));
        } else if entry.tags.len() > MAX_TAGS {
            problem(
                Some(field),
                format!(
                    "entry `{}` has {} tags (at most {MAX_TAGS})",
                    entry.id,
                    entry.tags.len()
                ),
            );
        }
    }
    for (i, tag) in entry.tags.iter().enumerate() {
        let location = o.tags.get(i);
        if !catalog.vocabulary.is_empty() && !catalog.vocabulary.contains(tag) {
            problem(location, format!("unknown tag `{tag}` (not in tags.toml)"));
        }
        if entry.tags[..i].contains(tag) {
            problem(location, format!("tag `{tag}` is listed twice"));
        }
    }
}

/// An identifier field must be well-formed, and must be the one the URL
/// carries: identifiers come from the URL here, lookups go to metadata.json.
fn check_identifier(
    field: &str,
    given: Option<&str>,
    from_url: Option<String>,
    well_formed: fn(&str) -> bool,
    expected: &str,
    location: Option<&Location>,
    problem: &mut Report,
) {
    match (given, from_url) {
        (Some(given), _) if !well_formed(given) => {
            problem(
                location,
                format!("`{field}` \"{given}\" is malformed: expected {expected}"),
            );
        }
        (Some(given), Some(url_id)) if given != url_id => {
            problem(
                location,
                format!("`{field}` \"{given}\" disagrees with the url, which carries \"{url_id}\""),
            );
        }
        (Some(given), None) => problem(
            location,
            format!(
                "`{field}` \"{given}\" is not carried by the url; identifiers found by lookup belong in metadata.json"
            ),
        ),
        (None, Some(url_id)) => problem(
            location,
            format!("the url carries {field} \"{url_id}\": add `{field} = \"{url_id}\"`"),
        ),
        _ => {}
    }
}

fn is_slug(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}
/// Most tags a work may use without being about them.
pub const MAX_USES: usize = 6;

/// `uses`: known tags, each once, none also among the entry's own tags.
fn check_uses(catalog: &Catalog, entry: &Entry, problems: &mut Vec<Problem>) {
    let o = &entry.origin;
    for (i, tag) in entry.uses.iter().enumerate() {
        let location = o.uses.get(i).cloned().unwrap_or_else(|| o.entry.clone());
        let mut problem = |message: String| problems.push(Problem::new(location.clone(), message));
        if !catalog.vocabulary.is_empty() && !catalog.vocabulary.contains(tag) {
            problem(format!("unknown tag `{tag}` in `uses` (not in tags.toml)"));
        }
        if entry.tags.contains(tag) {
            problem(format!("tag `{tag}` is in both `tags` and `uses`"));
        } else if entry.uses[..i].contains(tag) {
            problem(format!("tag `{tag}` is listed twice in `uses`"));
        }
    }
    if entry.uses.len() > MAX_USES {
        let location = o.uses.first().cloned().unwrap_or_else(|| o.entry.clone());
        problems.push(Problem::new(
            location,
            format!(
                "entry `{}` uses {} tags (at most {MAX_USES})",
                entry.id,
                entry.uses.len()
            ),
        ));
    }
}

/// `project`: an entry of the catalog that is a project, not the entry itself.
fn check_project(catalog: &Catalog, entry: &Entry, problems: &mut Vec<Problem>) {
    let Some(project) = &entry.project else {
        return;
    };
    let location = entry
        .origin
        .project
        .clone()
        .unwrap_or_else(|| entry.origin.entry.clone());
    let problem = match catalog.entry(project) {
        None => format!("`project` names `{project}`, which is no entry of the catalog"),
        Some(named) if named.kind != Kind::Project => {
            format!("`project` names `{project}`, which is a paper, not a project")
        }
        Some(_) if *project == entry.id => format!("entry `{project}` names itself as its project"),
        Some(_) => return,
    };
    problems.push(Problem::new(location, problem));
}

/// Advice that does not fail `check`: a tag that more than a quarter of the
/// catalog is about says little about any of them.
pub fn advice(catalog: &Catalog) -> Vec<Problem> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for entry in &catalog.entries {
        for tag in &entry.tags {
            *counts.entry(tag).or_default() += 1;
        }
    }
    let quarter = catalog.entries.len() / 4;
    let mut advice: Vec<Problem> = catalog
        .vocabulary
        .tags
        .iter()
        .filter_map(|tag| {
            let n = *counts.get(tag.id.as_str())?;
            (quarter >= 4 && n > quarter).then(|| {
                Problem::new(
                    tag.location.clone(),
                    format!(
                        "tag `{}` is a primary tag of {n} of {} entries: move it to `uses` where a work is not about it",
                        tag.id,
                        catalog.entries.len()
                    ),
                )
            })
        })
        .collect();
    advice.extend(draft_advice(catalog));
    advice.extend(character_advice(catalog));
    advice.sort();
    advice
}

/// What each draft still needs before `draft = true` can go.
fn draft_advice(catalog: &Catalog) -> Vec<Problem> {
    let mut advice = Vec::new();
    for entry in catalog.entries.iter().filter(|e| catalog.is_draft(&e.id)) {
        let paper = entry.kind == Kind::Paper;
        let needs: Vec<&str> = [
            (entry.tags.is_empty(), "tags"),
            (entry.note.trim().is_empty(), "a note"),
            (paper && entry.authors.is_empty(), "authors"),
            (paper && entry.venue.is_none(), "a venue"),
            (paper && entry.year.is_none(), "a year"),
        ]
        .into_iter()
        .filter_map(|(missing, what)| missing.then_some(what))
        .collect();
        let message = if needs.is_empty() {
            format!(
                "entry `{}` is a draft but looks curated: remove `draft = true`",
                entry.id
            )
        } else {
            format!(
                "entry `{}` is a draft: it needs {}, then remove `draft = true`",
                entry.id,
                join_and(&needs)
            )
        };
        advice.push(Problem::new(entry.origin.entry.clone(), message));
    }
    advice
}

/// "a, b and c".
fn join_and(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Control characters (a note's newlines and tabs apart) and bidirectional
/// controls in an entry's text: legal TOML, but they hide or reorder what a
/// reader of the catalog, a terminal or an export sees.
fn character_advice(catalog: &Catalog) -> Vec<Problem> {
    let mut advice = Vec::new();
    for entry in &catalog.entries {
        let o = &entry.origin;
        let fields: [(&str, Vec<&str>, Option<&Location>); 6] = [
            ("title", vec![&entry.title], o.title.as_ref()),
            ("url", vec![&entry.url], o.url.as_ref()),
            (
                "authors",
                entry.authors.iter().map(String::as_str).collect(),
                None,
            ),
            (
                "venue",
                entry.venue.iter().map(String::as_str).collect(),
                None,
            ),
            (
                "project",
                entry.project.iter().map(String::as_str).collect(),
                o.project.as_ref(),
            ),
            ("note", vec![&entry.note], o.note.as_ref()),
        ];
        for (field, texts, location) in fields {
            let allowed = |c: char| field == "note" && matches!(c, '\n' | '\t');
            let Some(c) = (texts.iter().flat_map(|t| t.chars()))
                .find(|&c| (c.is_control() && !allowed(c)) || crate::inert::is_bidi_control(c))
            else {
                continue;
            };
            let what = if c.is_control() {
                "a control character"
            } else {
                "a bidirectional control"
            };
            advice.push(Problem::new(
                location.unwrap_or(&o.entry).clone(),
                format!(
                    "{field} of `{}` holds U+{:04X}, {what}: it can hide or reorder what readers see",
                    entry.id, c as u32
                ),
            ));
        }
    }
    advice
}
