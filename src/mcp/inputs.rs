//! The tools' arguments: JSON objects named as the commands' flags, read
//! into the commands' own argument types, so that a tool takes what its
//! command takes and answers as it does.

use std::borrow::Cow;

use clap::ValueEnum;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer};
use serde_json::{Map, Value};

use crate::cli::{
    CollectionArg, ExplainArg, FilterArgs, Format, HitsOutput, InboxArgs, ListArgs, MAX_LIMIT,
    ModeArg, SearchArgs, SimilarArgs, parse_day,
};
use crate::environment;
use crate::error::Error;
use crate::model::Kind;
use crate::search::YearRange;

/// `search`'s arguments.
#[derive(Deserialize, JsonSchema)]
pub struct SearchInput {
    /// Words, "quoted phrases", AND/OR/NOT, -word, field:value (tag, about,
    /// section, author, venue, kind, year, title, id, arxiv, doi,
    /// collection); may be left out when a filter lists what to show
    #[serde(default)]
    query: String,
    /// How many hits, 1 to 10000 [default: 10]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    limit: Option<u64>,
    /// Rank by the query's words (keyword, the default), by its meaning
    /// (semantic), or both fused (hybrid)
    mode: Option<Choice<ModeArg>>,
    /// Each hit's score explained in its `explanation` (readable: the
    /// clauses that scored; raw: the whole score tree)
    explain: Option<Choice<ExplainArg>>,
    /// On a large index, score every match exactly instead of ranking the
    /// candidates of a faster first pass (slower; rarely different)
    #[serde(default)]
    exhaustive: bool,
    /// Only entries with these tags, every one of them (ids, labels or aliases)
    #[serde(default)]
    tag: Vec<String>,
    /// Only entries of this section (its name, or the start of it)
    section: Option<String>,
    /// Only papers or only projects
    kind: Option<Choice<Kind>>,
    /// Only these years: 2021, "2020..2023", "..2019" or "2022.."
    year: Option<Years>,
    /// Only this venue (words of its name)
    venue: Option<String>,
    /// Only works by this author (words of the name)
    author: Option<String>,
    /// The curated catalog, imported arXiv records, or all [default: all]
    collection: Option<Choice<CollectionArg>>,
}

/// `list`'s arguments.
#[derive(Deserialize, JsonSchema)]
pub struct ListInput {
    /// How many entries, 1 to 10000 [default: every entry]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    limit: Option<u64>,
    /// Only entries with these tags, every one of them (ids, labels or aliases)
    #[serde(default)]
    tag: Vec<String>,
    /// Only entries of this section (its name, or the start of it)
    section: Option<String>,
    /// Only papers or only projects
    kind: Option<Choice<Kind>>,
    /// Only these years: 2021, "2020..2023", "..2019" or "2022.."
    year: Option<Years>,
    /// Only this venue (words of its name)
    venue: Option<String>,
    /// Only works by this author (words of the name)
    author: Option<String>,
    /// The curated catalog, imported arXiv records, or all [default: all]
    collection: Option<Choice<CollectionArg>>,
}

/// The filters `search` and `list` share, as read. (Their fields are
/// written out in both: serde's `flatten` would lose an error's path.)
struct FilterInput {
    tag: Vec<String>,
    section: Option<String>,
    kind: Option<Choice<Kind>>,
    year: Option<Years>,
    venue: Option<String>,
    author: Option<String>,
    collection: Option<Choice<CollectionArg>>,
}

/// `show`'s argument.
#[derive(Deserialize, JsonSchema)]
pub struct ShowInput {
    /// The entry's id (as search and list give it), arxiv:ID, doi:DOI, a
    /// pasted arXiv or DOI URL, or a work's name
    pub id: String,
}

/// `similar`'s arguments.
#[derive(Deserialize, JsonSchema)]
pub struct SimilarInput {
    /// The entry's id, arxiv:ID or doi:DOI
    id: String,
    /// How many works, 1 to 10000 [default: 10]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    limit: Option<u64>,
    /// By shared distinctive words (keyword), by meaning (semantic), or
    /// both [default: keyword for a curated work, semantic for a record
    /// without tags]
    mode: Option<Choice<ModeArg>>,
}

/// `inbox`'s arguments (it lists; accepting and rejecting stay commands).
#[derive(Deserialize, JsonSchema)]
pub struct InboxInput {
    /// Only records first submitted (else last changed) on this day or
    /// later (YYYY-MM-DD)
    since: Option<String>,
    /// How many candidates, 1 to 10000 [default: 20]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    limit: Option<u64>,
}

/// The filter fields of a `SearchInput` or `ListInput`, moved out.
macro_rules! filters {
    ($input:expr) => {
        FilterInput {
            tag: $input.tag,
            section: $input.section,
            kind: $input.kind,
            year: $input.year,
            venue: $input.venue,
            author: $input.author,
            collection: $input.collection,
        }
    };
}

impl SearchInput {
    pub fn into_args(self) -> Result<SearchArgs, Error> {
        Ok(SearchArgs {
            query: vec![self.query],
            output: json_output(self.limit)?,
            explain: self.explain.map(|c| c.0),
            exhaustive: self.exhaustive,
            mode: match self.mode {
                Some(mode) => mode.0,
                None => default_mode()?,
            },
            filters: filters!(self).into_args(),
        })
    }
}

impl ListInput {
    pub fn into_args(self) -> Result<ListArgs, Error> {
        Ok(ListArgs {
            filters: filters!(self).into_args(),
            output: json_output(self.limit)?,
        })
    }
}

impl FilterInput {
    fn into_args(self) -> FilterArgs {
        FilterArgs {
            tag: self.tag,
            about: Vec::new(),
            section: self.section,
            kind: self.kind.map(|c| c.0),
            year: self.year.map(|y| y.0),
            venue: self.venue,
            author: self.author,
            collection: self.collection.map_or(CollectionArg::All, |c| c.0),
        }
    }
}

impl SimilarInput {
    pub fn into_args(self) -> Result<SimilarArgs, Error> {
        Ok(SimilarArgs {
            id: self.id,
            mode: self.mode.map(|c| c.0),
            output: json_output(self.limit)?,
        })
    }
}

impl InboxInput {
    pub fn into_args(self) -> Result<InboxArgs, Error> {
        if let Some(day) = &self.since {
            parse_day(day).map_err(|e| Error::Usage(format!("`since`: {e}")))?;
        }
        Ok(InboxArgs {
            action: None,
            since: self.since,
            limit: checked_limit(self.limit)?,
            json: true,
        })
    }
}

/// `--mode`'s default: `DISTML_MODE`, else keyword.
fn default_mode() -> Result<ModeArg, Error> {
    match std::env::var(environment::MODE) {
        Ok(mode) if !mode.is_empty() => ModeArg::from_str(&mode, false).map_err(|_| {
            Error::Usage(format!(
                "DISTML_MODE: expected one of {}, not {mode:?}",
                choices::<ModeArg>().join(", ")
            ))
        }),
        _ => Ok(ModeArg::Keyword),
    }
}

/// `--json` with `--limit`, checked as the flag is.
fn json_output(limit: Option<u64>) -> Result<HitsOutput, Error> {
    Ok(HitsOutput {
        limit: checked_limit(limit)?,
        json: true,
        format: Format::Json,
    })
}

fn checked_limit(limit: Option<u64>) -> Result<Option<u64>, Error> {
    match limit {
        Some(n) if !(1..=MAX_LIMIT).contains(&n) => Err(Error::Usage(format!(
            "`limit` must be 1 to {MAX_LIMIT}, not {n}"
        ))),
        _ => Ok(limit),
    }
}

/// The tool's arguments read as `T`: an argument the schema does not name,
/// or a value of the wrong type, is an error that names the argument.
pub fn read<T: DeserializeOwned + JsonSchema>(
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<T, Error> {
    let schema = schema::<T>();
    let known = schema.get("properties").and_then(Value::as_object);
    if let Some(known) = known
        && let Some(unknown) = arguments.keys().find(|k| !known.contains_key(*k))
    {
        let names: Vec<&str> = known.keys().map(String::as_str).collect();
        return Err(Error::Usage(format!(
            "`{unknown}` is no argument of {tool}: its arguments are {}",
            names.join(", ")
        )));
    }
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|e| {
        let path = e.path().to_string();
        let e = e.into_inner();
        Error::Usage(match path.as_str() {
            "." => format!("the arguments of {tool}: {e}"),
            _ => format!("`{path}`: {e}"),
        })
    })
}

/// `T`'s schema as a tool's input schema, which admits no other argument.
pub fn schema<T: JsonSchema>() -> Map<String, Value> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut map = schema.as_object().cloned().unwrap_or_default();
    map.insert("additionalProperties".into(), Value::Bool(false));
    // Doc comments' line breaks are no part of what they say.
    let properties = map.get_mut("properties").and_then(Value::as_object_mut);
    for property in properties.into_iter().flat_map(|p| p.values_mut()) {
        if let Some(Value::String(text)) = property.get_mut("description") {
            *text = text.replace('\n', " ");
        }
    }
    map
}

/// A flag's value among its choices, spelt as on the command line.
struct Choice<T>(T);

impl<'de, T: ValueEnum> Deserialize<'de> for Choice<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        T::from_str(&text, false).map(Choice).map_err(|_| {
            de::Error::custom(format!(
                "expected one of {}, not {text:?}",
                choices::<T>().join(", ")
            ))
        })
    }
}

impl<T: ValueEnum> JsonSchema for Choice<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Choice".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": choices::<T>() })
    }
}

fn choices<T: ValueEnum>() -> Vec<String> {
    (T::value_variants().iter())
        .filter_map(ValueEnum::to_possible_value)
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect()
}

/// `--year`'s value, written as a string or a bare year.
struct Years(YearRange);

impl<'de> Deserialize<'de> for Years {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = match Value::deserialize(deserializer)? {
            Value::String(text) => text,
            Value::Number(n) => n.to_string(),
            other => other.to_string(),
        };
        text.parse().map(Years).map_err(de::Error::custom)
    }
}

impl JsonSchema for Years {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Years".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": ["string", "integer"] })
    }
}
