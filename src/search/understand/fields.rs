//! The fields a query can name (`field:value`), declared once: the query
//! parser, the filter flags of `search` and `list`, the web API's
//! parameters, the facets counted and `search --help` (tests/shell.rs)
//! all read this table.

/// A field of the query language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryField {
    pub name: &'static str,
    /// Other spellings the parser takes ("by" for `author`).
    pub aliases: &'static [&'static str],
    /// A filter flag (`--tag`) of `search` and `list`, and a parameter of
    /// `/api/search`.
    pub flag: bool,
    /// Counted by facet for the web page: its place among the facets
    /// (`search::present::counts` tallies them by that place).
    pub facet: Option<usize>,
}

const fn field(name: &'static str, flag: bool, facet: Option<usize>) -> QueryField {
    QueryField {
        name,
        aliases: &[],
        flag,
        facet,
    }
}

/// Every field, in the order error messages list them.
pub const QUERY_FIELDS: [QueryField; 12] = [
    QueryField {
        aliases: &["tags"],
        ..field("tag", true, Some(0))
    },
    field("about", true, Some(6)),
    field("section", true, Some(1)),
    QueryField {
        aliases: &["authors", "by"],
        ..field("author", true, None)
    },
    field("venue", true, Some(3)),
    field("kind", true, Some(4)),
    QueryField {
        aliases: &["years"],
        ..field("year", true, Some(2))
    },
    field("title", false, None),
    field("id", false, None),
    field("arxiv", false, None),
    field("doi", false, None),
    field("collection", true, Some(5)),
];

/// The field `name` spells, in any case or by another spelling.
pub fn named(name: &str) -> Option<&'static QueryField> {
    let name = name.to_ascii_lowercase();
    (QUERY_FIELDS.iter()).find(|f| f.name == name || f.aliases.contains(&name.as_str()))
}

/// Every field's name.
pub const FIELD_NAMES: [&str; QUERY_FIELDS.len()] = {
    let mut out = [""; QUERY_FIELDS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = QUERY_FIELDS[i].name;
        i += 1;
    }
    out
};

/// How many fields are flags, and how many are facets.
const FLAG_COUNT: usize = {
    let (mut i, mut n) = (0, 0);
    while i < QUERY_FIELDS.len() {
        n += QUERY_FIELDS[i].flag as usize;
        i += 1;
    }
    n
};
const FACET_COUNT: usize = {
    let (mut i, mut n) = (0, 0);
    while i < QUERY_FIELDS.len() {
        n += QUERY_FIELDS[i].facet.is_some() as usize;
        i += 1;
    }
    n
};

/// The fields that are filter flags (`--tag` ...) and web parameters, in
/// the table's order.
pub const FLAGS: [&str; FLAG_COUNT] = {
    let mut out = [""; FLAG_COUNT];
    let (mut i, mut j) = (0, 0);
    while i < QUERY_FIELDS.len() {
        if QUERY_FIELDS[i].flag {
            out[j] = QUERY_FIELDS[i].name;
            j += 1;
        }
        i += 1;
    }
    out
};

/// The fields counted by facet, each at its place.
pub const FACETS: [&str; FACET_COUNT] = {
    let mut out = [""; FACET_COUNT];
    let mut i = 0;
    while i < QUERY_FIELDS.len() {
        if let Some(place) = QUERY_FIELDS[i].facet {
            assert!(out[place].is_empty(), "two facets at one place");
            out[place] = QUERY_FIELDS[i].name;
        }
        i += 1;
    }
    out
};
