//! `--apply`: the proposals written into the entries' TOML files. Only the
//! fields a proposal names change; every other field, comment and blank
//! line stays as it was (toml_edit keeps a file's layout), and each file is
//! replaced atomically.

use std::collections::BTreeMap;
use std::path::Path;

use toml_edit::{DocumentMut, Item, Table, Value};

use crate::catalog::Entry;
use crate::catalog::guard::vet_writes;
use crate::error::Error;
use crate::fsutil::read_regular_file;

/// The order of an entry's fields in the shipped layout (see
/// `catalog::write`): where a field that was absent is put.
const FIELD_ORDER: [&str; 13] = [
    "id", "kind", "title", "url", "authors", "et_al", "venue", "year", "arxiv", "doi", "tags",
    "uses", "note",
];

/// A change to one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fix {
    /// A permanent redirect: the url becomes where it leads.
    Url(String),
    /// A preprint's published version. With a DOI the url becomes the
    /// DOI's and `doi` is set; `arxiv` goes, since an identifier field
    /// must be the one the url carries (metadata.json keeps the arXiv id).
    Published {
        venue: Option<String>,
        year: Option<i64>,
        doi: Option<String>,
    },
}

/// The DOI's resolver URL, as a published version's url.
pub(crate) fn doi_url(doi: &str) -> String {
    format!("https://doi.org/{doi}")
}

/// The files of the catalog folder `dir` with `fixes` (entry, fix) made,
/// one write per file, to be written together with what else changes
/// (`fsutil::write_all_atomic`); an error when `check` would refuse the
/// result.
pub(crate) fn planned(
    dir: &Path,
    fixes: &[(&Entry, Fix)],
) -> Result<Vec<(std::path::PathBuf, String)>, Error> {
    let mut by_file: BTreeMap<&Path, Vec<&(&Entry, Fix)>> = BTreeMap::new();
    for fix in fixes {
        by_file
            .entry(&fix.0.origin.entry.file)
            .or_default()
            .push(fix);
    }
    let mut writes = Vec::new();
    for (path, fixes) in by_file {
        let text = read_regular_file(path)?
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| Error::Usage(format!("{}: cannot read it back", path.display())))?;
        let mut doc: DocumentMut = text
            .parse()
            .map_err(|e| Error::Usage(format!("{}: {e}", path.display()).replace('\n', " ")))?;
        for (entry, fix) in fixes {
            let table = entry_table(&mut doc, &entry.id).ok_or_else(|| {
                Error::Usage(format!(
                    "{}: entry `{}` is no longer there; run `check --online` again",
                    path.display(),
                    entry.id
                ))
            })?;
            edit(table, fix);
        }
        writes.push((path.to_path_buf(), doc.to_string()));
    }
    vet_writes(dir, &writes)?;
    Ok(writes)
}

fn entry_table<'d>(doc: &'d mut DocumentMut, id: &str) -> Option<&'d mut Table> {
    doc.get_mut("entry")?
        .as_array_of_tables_mut()?
        .iter_mut()
        .find(|t| t.get("id").and_then(Item::as_str) == Some(id))
}

fn edit(table: &mut Table, fix: &Fix) {
    match fix {
        Fix::Url(url) => set(table, "url", url.as_str().into()),
        Fix::Published { venue, year, doi } => {
            if let Some(venue) = venue {
                set(table, "venue", venue.as_str().into());
            }
            if let Some(year) = year {
                set(table, "year", (*year).into());
            }
            if let Some(doi) = doi {
                set(table, "url", doi_url(doi).into());
                set(table, "doi", doi.as_str().into());
                table.remove("arxiv");
            }
        }
    }
}

/// Sets `key` to `value`: in place (keeping a trailing comment) when the
/// key is there, else at its place in [`FIELD_ORDER`].
fn set(table: &mut Table, key: &str, mut value: Value) {
    if let Some(old) = table.get_mut(key).and_then(Item::as_value_mut) {
        *value.decor_mut() = old.decor().clone();
        *old = value;
        return;
    }
    let rank = |k: &str| FIELD_ORDER.iter().position(|f| *f == k);
    let wanted = rank(key);
    let keys: Vec<String> = table.iter().map(|(k, _)| k.to_owned()).collect();
    // After the last field that comes before it in the shipped order.
    let after = keys
        .iter()
        .rposition(|k| matches!((rank(k), wanted), (Some(r), Some(w)) if r < w));
    let mut entries: Vec<(toml_edit::Key, Item)> =
        keys.iter().filter_map(|k| table.remove_entry(k)).collect();
    let at = after.map_or(0, |i| i + 1);
    entries.insert(at, (toml_edit::Key::new(key), Item::Value(value)));
    for (k, item) in entries {
        table.insert_formatted(&k, item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"[section]
name = "Widgets"
order = 1

# A comment that stays.
[[entry]]
id = "zorblax-2029"
kind = "paper"
title = "Zorblax"
url = "https://arxiv.org/abs/2912.01234" # the preprint
authors = ["Ada Quill"]
venue = "arxiv"
year = 2029
arxiv = "2912.01234"
tags = ["t"]
note = "n"

[[entry]]
id = "other"
kind = "project"
title = "Other"
url = "http://old.example/"
tags = ["t"]
note = "n"
"#;

    #[test]
    fn a_published_version_changes_only_its_fields() {
        let mut doc: DocumentMut = FILE.parse().unwrap();
        let table = entry_table(&mut doc, "zorblax-2029").unwrap();
        edit(
            table,
            &Fix::Published {
                venue: Some("Journal of Fictional Widgets".into()),
                year: Some(2030),
                doi: Some("10.99999/zorb.1".into()),
            },
        );
        let other = entry_table(&mut doc, "other").unwrap();
        edit(other, &Fix::Url("https://new.example/".into()));
        let expected = FILE
            .replace(
                r#"url = "https://arxiv.org/abs/2912.01234" # the preprint"#,
                r#"url = "https://doi.org/10.99999/zorb.1" # the preprint"#,
            )
            .replace(
                r#"venue = "arxiv""#,
                r#"venue = "Journal of Fictional Widgets""#,
            )
            .replace("year = 2029", "year = 2030")
            .replace(r#"arxiv = "2912.01234""#, r#"doi = "10.99999/zorb.1""#)
            .replace("http://old.example/", "https://new.example/");
        assert_eq!(doc.to_string(), expected);
    }

    #[test]
    fn an_absent_field_goes_to_its_place() {
        let mut doc: DocumentMut = FILE.parse().unwrap();
        let table = entry_table(&mut doc, "other").unwrap();
        edit(
            table,
            &Fix::Published {
                venue: Some("V".into()),
                year: Some(2031),
                doi: None,
            },
        );
        let expected = FILE.replace(
            "url = \"http://old.example/\"\n",
            "url = \"http://old.example/\"\nvenue = \"V\"\nyear = 2031\n",
        );
        assert_eq!(doc.to_string(), expected);
    }
}
