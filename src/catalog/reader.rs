//! Reading typed fields out of a spanned TOML table, collecting every problem.
//!
//! serde stops at the first error; a curator fixing a catalog wants them all, so
//! tables are read key by key and each missing, mistyped or unknown key becomes a
//! [`Problem`] at its own position.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::source::{Location, Problem, SourceFile};

pub(crate) struct TableReader<'a, 'i> {
    file: &'a SourceFile,
    table: &'a DeTable<'i>,
    span: Range<usize>,
    what: &'a str,
    problems: &'a mut Vec<Problem>,
}

impl<'a, 'i> TableReader<'a, 'i> {
    pub fn new(
        file: &'a SourceFile,
        table: &'a Spanned<DeTable<'i>>,
        what: &'a str,
        problems: &'a mut Vec<Problem>,
    ) -> Self {
        TableReader {
            file,
            table: table.get_ref(),
            span: table.span(),
            what,
            problems,
        }
    }

    pub fn location(&self) -> Location {
        self.file.location(&self.span)
    }

    /// Where `key`'s value starts, if the key is present.
    pub fn location_of(&self, key: &str) -> Option<Location> {
        self.table
            .get(key)
            .map(|value| self.file.location(&value.span()))
    }

    fn problem(&mut self, span: &Range<usize>, message: String) {
        self.problems
            .push(Problem::new(self.file.location(span), message));
    }

    fn missing(&mut self, key: &str) {
        let message = format!("{} is missing required field `{key}`", self.what);
        let span = self.span.clone();
        self.problem(&span, message);
    }

    fn wrong_type(&mut self, key: &str, value: &Spanned<DeValue<'_>>, expected: &str) {
        let message = format!(
            "field `{key}` must be {expected}, found {}",
            value.get_ref().type_str()
        );
        self.problem(&value.span(), message);
    }

    pub fn string(&mut self, key: &str) -> Option<String> {
        let value = self.table.get(key)?;
        match value.get_ref().as_str() {
            Some(s) => Some(s.to_string()),
            None => {
                self.wrong_type(key, value, "a string");
                None
            }
        }
    }

    pub fn required_string(&mut self, key: &str) -> Option<String> {
        if !self.table.contains_key(key) {
            self.missing(key);
        }
        self.string(key)
    }

    pub fn integer(&mut self, key: &str) -> Option<i64> {
        let value = self.table.get(key)?;
        let parsed = value
            .get_ref()
            .as_integer()
            .and_then(|i| i64::from_str_radix(i.as_str(), i.radix()).ok());
        if parsed.is_none() {
            self.wrong_type(key, value, "an integer");
        }
        parsed
    }

    pub fn boolean(&mut self, key: &str) -> Option<bool> {
        let value = self.table.get(key)?;
        let parsed = value.get_ref().as_bool();
        if parsed.is_none() {
            self.wrong_type(key, value, "true or false");
        }
        parsed
    }

    /// An array of strings, each with the location of its element.
    pub fn strings(&mut self, key: &str) -> Option<Vec<(String, Location)>> {
        let value = self.table.get(key)?;
        let Some(array) = value.get_ref().as_array() else {
            self.wrong_type(key, value, "an array of strings");
            return None;
        };
        let mut out = Vec::with_capacity(array.len());
        for element in array.iter() {
            match element.get_ref().as_str() {
                Some(s) => out.push((s.to_string(), self.file.location(&element.span()))),
                None => self.wrong_type(key, element, "an array of strings"),
            }
        }
        Some(out)
    }

    /// A table of strings (`links = { code = "..." }`), in file order.
    pub fn string_table(&mut self, key: &str) -> Option<Vec<(String, String)>> {
        let value = self.table.get(key)?;
        let DeValue::Table(table) = value.get_ref() else {
            self.wrong_type(key, value, "a table of strings");
            return None;
        };
        let mut out = Vec::with_capacity(table.len());
        for (name, element) in table.iter() {
            match element.get_ref().as_str() {
                Some(s) => out.push((name.get_ref().to_string(), s.to_string())),
                None => self.wrong_type(key, element, "a table of strings"),
            }
        }
        Some(out)
    }

    pub fn required_strings(&mut self, key: &str) -> Option<Vec<(String, Location)>> {
        if !self.table.contains_key(key) {
            self.missing(key);
        }
        self.strings(key)
    }

    /// Reports every key that is not in `known`.
    pub fn deny_unknown(&mut self, known: &[&str]) {
        let unknown: Vec<(String, Range<usize>)> = self
            .table
            .iter()
            .filter(|(key, _)| !known.contains(&key.get_ref().as_ref()))
            .map(|(key, _)| (key.get_ref().to_string(), key.span()))
            .collect();
        for (key, span) in unknown {
            let message = format!(
                "unknown field `{key}` in {} (expected one of: {})",
                self.what,
                known.join(", ")
            );
            self.problem(&span, message);
        }
    }
}
