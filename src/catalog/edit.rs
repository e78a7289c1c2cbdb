//! Editing a section file in place (toml_edit): fields of entries set or
//! dropped, entries removed, and everything else (comments, spacing, the
//! order of fields) kept as the curator wrote it. A field the entry did not
//! have goes where the shipped layout puts it.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, Value};

use super::load::ENTRY_FIELDS;
use crate::error::Error;

/// The new value of one field: `None` drops the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    Text(Option<String>),
    Integer(Option<i64>),
    Texts(Vec<String>),
    /// `true`, or the field dropped (`et_al`, `draft`).
    Flag(bool),
}

/// What to set in one entry, by field name, in no particular order.
pub type EntryEdits = Vec<(&'static str, FieldValue)>;

/// The file's text with `edits` applied to the entries they name and the
/// entries in `remove` taken out; the removed entries' own text is returned
/// too (as `[[entry]]` tables, each after a comment naming the file), in
/// file order.
pub fn edit_section(
    path: &Path,
    text: &str,
    edits: &HashMap<String, EntryEdits>,
    remove: &HashSet<String>,
) -> Result<(String, String), Error> {
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        Error::Usage(format!(
            "{}: {}",
            path.display(),
            e.message().trim().replace('\n', " ")
        ))
    })?;
    let mut removed = ArrayOfTables::new();
    if let Some(entries) = doc.get_mut("entry").and_then(Item::as_array_of_tables_mut) {
        let mut i = 0;
        while i < entries.len() {
            let id = entries
                .get(i)
                .and_then(|t| t.get("id"))
                .and_then(Item::as_str)
                .unwrap_or_default()
                .to_string();
            if remove.contains(&id) {
                let mut table = entries.remove(i);
                // Where it was, for whoever restores it.
                let prefix = table
                    .decor()
                    .prefix()
                    .and_then(|p| p.as_str())
                    .unwrap_or("");
                let from = path.file_name().unwrap_or_default().to_string_lossy();
                let prefix = format!("\n# from {from}\n{}", prefix.trim_start_matches('\n'));
                table.decor_mut().set_prefix(prefix);
                removed.push(table);
                continue;
            }
            if let (Some(fields), Some(table)) = (edits.get(&id), entries.get_mut(i)) {
                apply(table, fields);
            }
            i += 1;
        }
    }
    let removed_text = if removed.is_empty() {
        String::new()
    } else {
        let mut archive = DocumentMut::new();
        archive.insert("entry", Item::ArrayOfTables(removed));
        archive.to_string()
    };
    Ok((doc.to_string(), removed_text))
}

fn apply(table: &mut Table, fields: &EntryEdits) {
    let mut inserted = false;
    for (key, value) in fields {
        let value = match value {
            FieldValue::Text(Some(text)) => Value::from(text.as_str()),
            FieldValue::Integer(Some(n)) => Value::from(*n),
            FieldValue::Texts(items) => Value::Array(items.iter().map(String::as_str).collect()),
            FieldValue::Flag(true) => Value::from(true),
            FieldValue::Text(None) | FieldValue::Integer(None) | FieldValue::Flag(false) => {
                table.remove(key);
                continue;
            }
        };
        inserted |= set(table, key, value);
    }
    if inserted {
        let place = |key: &str| ENTRY_FIELDS.iter().position(|f| *f == key);
        table.sort_values_by(|a, _, b, _| place(a.get()).cmp(&place(b.get())));
    }
}

/// Sets `key`, keeping the old value's surroundings (a trailing comment);
/// whether the key is new.
fn set(table: &mut Table, key: &str, mut value: Value) -> bool {
    match table.get_mut(key) {
        Some(Item::Value(old)) => {
            *value.decor_mut() = old.decor().clone();
            if let (Value::Array(new), Value::Array(old)) = (&mut value, &*old) {
                keep_array_style(new, old);
            }
            *old = value;
            false
        }
        Some(item) => {
            *item = Item::Value(value);
            false
        }
        None => {
            table.insert(key, Item::Value(value));
            true
        }
    }
}

/// `["A", "B"]` in the spacing the old array used for its items.
fn keep_array_style(new: &mut Array, old: &Array) {
    new.fmt();
    new.set_trailing_comma(old.trailing_comma());
    new.set_trailing(old.trailing().as_str().unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"[section]
name = "Invented"
order = 1

# The first one.
[[entry]]
id = "a"
kind = "paper"
title = "Old Title" # from the list
url = "https://example.org/a"
authors = ["Ada Example"]
tags = ["x"]
note = "Curated."

[[entry]]
id = "b"
kind = "paper"
title = "B"
url = "https://example.org/b"
tags = []
note = ""
draft = true
"#;

    fn run(edits: &[(&str, EntryEdits)], remove: &[&str]) -> (String, String) {
        let edits = edits
            .iter()
            .map(|(id, e)| (id.to_string(), e.clone()))
            .collect();
        let remove = remove.iter().map(|s| s.to_string()).collect();
        edit_section(Path::new("s.toml"), FILE, &edits, &remove).unwrap()
    }

    #[test]
    fn a_changed_field_keeps_its_place_and_comment_and_a_new_one_goes_in_order() {
        let (text, removed) = run(
            &[(
                "a",
                vec![
                    ("title", FieldValue::Text(Some("New Title".into()))),
                    ("year", FieldValue::Integer(Some(2031))),
                    ("venue", FieldValue::Text(Some("OSDI".into()))),
                    (
                        "authors",
                        FieldValue::Texts(vec!["Ada Example".into(), "Bo".into()]),
                    ),
                ],
            )],
            &[],
        );
        assert_eq!(removed, "");
        let expected = FILE
            .replace("\"Old Title\" # from", "\"New Title\" # from")
            .replace(
                "authors = [\"Ada Example\"]\n",
                "authors = [\"Ada Example\", \"Bo\"]\nvenue = \"OSDI\"\nyear = 2031\n",
            );
        assert_eq!(text, expected);
    }

    #[test]
    fn a_removed_entry_leaves_the_others_as_they_were() {
        let (text, removed) = run(&[], &["b"]);
        let cut = FILE.find("\n[[entry]]\nid = \"b\"").unwrap();
        assert_eq!(text, &FILE[..cut]);
        assert_eq!(removed, format!("\n# from s.toml{}", &FILE[cut..]));
        let (text, removed) = run(&[], &["a"]);
        assert!(
            text.starts_with("[section]\nname = \"Invented\"\norder = 1\n\n[[entry]]\nid = \"b\"")
        );
        assert!(
            removed.starts_with("\n# from s.toml\n# The first one.\n[[entry]]\nid = \"a\""),
            "{removed}"
        );
    }

    #[test]
    fn dropped_fields_go() {
        let (text, _) = run(&[("b", vec![("draft", FieldValue::Flag(false))])], &[]);
        assert!(!text.contains("draft"));
    }
}
