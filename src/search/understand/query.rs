//! Query syntax: words, "quoted phrases", AND / OR / NOT, `-word`, `+word`,
//! parentheses and `field:value` filters, parsed into a tree whose nodes keep
//! their column so that errors can point at them.
//!
//! Lenient where a guess is safe (an unclosed quote runs to the end, a
//! trailing operator is ignored), strict where it is not (unbalanced
//! parentheses, unknown fields).

use std::fmt;

use crate::error::Error;
use crate::search::understand::fields;
use crate::search::understand::filter::{Filter, Origin};

/// Longer queries are cut to this many terms, with a note.
pub const MAX_TERMS: usize = 64;
const MAX_DEPTH: usize = 16;
/// Characters beyond this are ignored before parsing, with a note.
pub const MAX_QUERY_CHARS: usize = 4096;

fn field_name(name: &str) -> Option<&'static str> {
    fields::named(name).map(|f| f.name)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Word {
        text: String,
        column: usize,
    },
    Phrase {
        text: String,
        column: usize,
    },
    /// `field:value` for every field but the title.
    Filter {
        filter: Filter,
        origin: Origin,
    },
    /// A filter the user wrote as words ("2023", "since 2022"): it ranks its
    /// matches higher and excludes nothing (see `facets`).
    Boost {
        filter: Filter,
        column: usize,
    },
    /// `title:words`: words sought in titles only, and scored.
    Title {
        text: String,
        column: usize,
    },
    /// `-x` or `NOT x`.
    Not(Box<Node>),
    /// `+x`.
    Required(Box<Node>),
    /// `a AND b`.
    And(Vec<Node>),
    /// `a OR b`.
    Or(Vec<Node>),
    /// Terms side by side: each may match; more matches rank higher.
    Group(Vec<Node>),
    /// Every document (a listing with no words).
    All,
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, nodes: &[Node], sep: &str| {
            let parts: Vec<String> = nodes.iter().map(ToString::to_string).collect();
            write!(f, "({})", parts.join(sep))
        };
        match self {
            Node::Word { text, .. } => write!(f, "{text}"),
            Node::Phrase { text, .. } => write!(f, "\"{text}\""),
            Node::Filter { filter, .. } => write!(f, "{filter}"),
            Node::Title { text, .. } => write!(f, "title:{text:?}"),
            Node::Boost { filter, .. } => write!(f, "~{filter}"),
            Node::Not(n) => write!(f, "NOT {n}"),
            Node::Required(n) => write!(f, "+{n}"),
            Node::And(nodes) => list(f, nodes, " AND "),
            Node::Or(nodes) => list(f, nodes, " OR "),
            Node::Group(nodes) => list(f, nodes, " "),
            Node::All => write!(f, "*"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Phrase(String),
    Field(&'static str, String),
    And,
    Or,
    Not,
    Minus,
    Plus,
    Open,
    Close,
}

/// A parsed query and what was changed to make it parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub root: Node,
    pub notes: Vec<String>,
}

pub fn parse(input: &str) -> Result<Parsed, Error> {
    let mut notes = Vec::new();
    let input: String = if input.chars().count() > MAX_QUERY_CHARS {
        notes.push(format!(
            "query cut to its first {MAX_QUERY_CHARS} characters"
        ));
        input.chars().take(MAX_QUERY_CHARS).collect()
    } else {
        input.to_string()
    };
    let mut tokens = lex(&input, &mut notes)?;
    let terms = tokens
        .iter()
        .filter(|(t, _)| matches!(t, Token::Word(_) | Token::Phrase(_) | Token::Field(..)))
        .count();
    if terms == 0 {
        return Err(Error::Query("the query has no words to search for".into()));
    }
    if terms > MAX_TERMS {
        let mut seen = 0;
        tokens.retain(|(t, _)| {
            if matches!(t, Token::Word(_) | Token::Phrase(_) | Token::Field(..)) {
                seen += 1;
            }
            seen <= MAX_TERMS || matches!(t, Token::Close)
        });
        notes.push(format!("query cut to its first {MAX_TERMS} terms"));
    }
    let mut parser = Parser {
        tokens,
        pos: 0,
        depth: 0,
    };
    let root = parser.or_expr()?;
    if let Some((_, column)) = parser.tokens.get(parser.pos) {
        return Err(Error::Query(format!(
            "unbalanced ')' at column {column}: remove it or add a '(' before it"
        )));
    }
    Ok(Parsed { root, notes })
}

fn lex(input: &str, notes: &mut Vec<String>) -> Result<Vec<(Token, usize)>, Error> {
    let chars: Vec<char> = input.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() || c.is_control() {
            i += 1;
        } else if c == '"' {
            let (text, next) = quoted(&chars, i, notes);
            tokens.push((Token::Phrase(text), column));
            i = next;
        } else if c == '(' {
            tokens.push((Token::Open, column));
            i += 1;
        } else if c == ')' {
            tokens.push((Token::Close, column));
            i += 1;
        } else if (c == '-' || c == '+')
            && i + 1 < chars.len()
            && !chars[i + 1].is_whitespace()
            && at_term_start(&chars, i)
        {
            tokens.push((if c == '-' { Token::Minus } else { Token::Plus }, column));
            i += 1;
        } else if separates_words(&chars, i) {
            // Where the word before was cut (see `lists_words`).
            i += 1;
        } else {
            let start = i;
            let end = (start..chars.len())
                .find(|&j| chars[j].is_whitespace() || matches!(chars[j], '"' | '(' | ')'))
                .unwrap_or(chars.len());
            let lists = lists_words(&chars[start..end]);
            // Only a name can be a field's: in "2:4" the colon is text.
            let names_field = |i: usize| chars[start..i].iter().all(char::is_ascii_alphabetic);
            while i < end
                && !(chars[i] == ':' && names_field(i))
                && !(lists && separates_words(&chars, i))
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let has_value = i + 1 < chars.len() && chars[i] == ':' && !chars[i + 1].is_whitespace();
            if i < chars.len() && chars[i] == ':' && has_value && !word.is_empty() {
                let Some(field) = field_name(&word) else {
                    return Err(Error::Query(format!(
                        "unknown field `{word}:` at column {column} (fields: {}); put the words in quotes to search for them",
                        fields::FIELD_NAMES.join(", ")
                    )));
                };
                i += 1;
                let value = if chars[i] == '"' {
                    let (text, next) = quoted(&chars, i, notes);
                    i = next;
                    text
                } else {
                    let vstart = i;
                    while i < chars.len()
                        && !chars[i].is_whitespace()
                        && !matches!(chars[i], '(' | ')')
                    {
                        i += 1;
                    }
                    chars[vstart..i].iter().collect()
                };
                tokens.push((Token::Field(field, value), column));
                continue;
            }
            if i < chars.len() && chars[i] == ':' {
                i += 1; // a colon ending a word ("GPipe: ...") is punctuation
            }
            let token = match word.as_str() {
                "AND" | "&&" => Token::And,
                "OR" | "||" => Token::Or,
                "NOT" => Token::Not,
                // Nothing (a colon alone), or punctuation standing alone
                // ("TP + PP", "A & B"), says nothing.
                _ if word.chars().all(|c| matches!(c, '+' | '&')) => continue,
                _ => Token::Word(word),
            };
            tokens.push((token, column));
        }
    }
    Ok(tokens)
}

/// Whether `chars[i]` separates two words written without a space: "TP+PP",
/// "DP/TP", "A&B", "DP,TP,PP" are searched as the words they list, which
/// written as one would be a phrase no text holds. A hyphen still binds
/// ("all-to-all"), "C++" and "&&" join no two words, and an old arXiv id
/// keeps the slash before its number ("cs/0112017").
fn separates_words(chars: &[char], i: usize) -> bool {
    matches!(chars[i], '+' | '/' | '&' | ',')
        && i > 0
        && chars[i - 1].is_alphanumeric()
        && chars
            .get(i + 1)
            .is_some_and(|&c| c.is_alphanumeric() && !(chars[i] == '/' && c.is_ascii_digit()))
}

/// Whether the characters up to the next space may list words (see
/// `separates_words`): not an identifier, which has a dot or colon inside
/// (a DOI, "10.5555/fict.7", or a URL; a dot ending a sentence is not one).
fn lists_words(span: &[char]) -> bool {
    let inner = span.strip_suffix(&['.']).unwrap_or(span);
    !inner.iter().any(|c| matches!(c, '.' | ':'))
}

/// A `-` or `+` starts a term only at the start of a word ("-x", not "a-b").
fn at_term_start(chars: &[char], i: usize) -> bool {
    i == 0 || chars[i - 1].is_whitespace() || chars[i - 1] == '('
}

fn quoted(chars: &[char], open: usize, notes: &mut Vec<String>) -> (String, usize) {
    match chars[open + 1..].iter().position(|&c| c == '"') {
        Some(len) => (
            chars[open + 1..open + 1 + len].iter().collect(),
            open + len + 2,
        ),
        None => {
            notes.push(format!("closed the quote opened at column {}", open + 1));
            (chars[open + 1..].iter().collect(), chars.len())
        }
    }
}

struct Parser {
    tokens: Vec<(Token, usize)>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(t, _)| t)
    }

    fn or_expr(&mut self) -> Result<Node, Error> {
        let mut alternatives = vec![self.and_expr()?];
        while self.peek() == Some(&Token::Or) {
            self.pos += 1;
            alternatives.push(self.and_expr()?);
        }
        Ok(flatten(alternatives, Node::Or))
    }

    fn and_expr(&mut self) -> Result<Node, Error> {
        // Side-by-side terms form groups; AND joins groups.
        let mut conjuncts = Vec::new();
        let mut group = Vec::new();
        loop {
            match self.peek() {
                None | Some(Token::Or) | Some(Token::Close) => break,
                Some(Token::And) => {
                    self.pos += 1;
                    if !group.is_empty() {
                        conjuncts.push(flatten(std::mem::take(&mut group), Node::Group));
                    }
                }
                _ => {
                    if let Some(node) = self.unary()? {
                        group.push(node);
                    }
                }
            }
        }
        if !group.is_empty() {
            conjuncts.push(flatten(group, Node::Group));
        }
        Ok(flatten(conjuncts, Node::And))
    }

    fn unary(&mut self) -> Result<Option<Node>, Error> {
        let Some((token, column)) = self.tokens.get(self.pos).cloned() else {
            return Ok(None);
        };
        self.pos += 1;
        Ok(match token {
            Token::Minus | Token::Not => self.unary()?.map(|n| Node::Not(Box::new(n))),
            Token::Plus => self.unary()?.map(|n| Node::Required(Box::new(n))),
            Token::Word(text) => Some(Node::Word { text, column }),
            Token::Phrase(text) => Some(Node::Phrase { text, column }),
            Token::Field(field, value) => Some(field_node(field, value.trim(), column)?),
            Token::Open => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(Error::Query(format!(
                        "parentheses nested more than {MAX_DEPTH} deep at column {column}"
                    )));
                }
                let inner = self.or_expr()?;
                if self.peek() != Some(&Token::Close) {
                    return Err(Error::Query(format!(
                        "unbalanced '(' at column {column}: add a ')' to close it"
                    )));
                }
                self.pos += 1;
                self.depth -= 1;
                Some(inner)
            }
            Token::Close | Token::And | Token::Or => None,
        })
    }
}

/// `field:value`, its value checked where it can be without an index.
fn field_node(field: &'static str, value: &str, column: usize) -> Result<Node, Error> {
    let problem = |what: &str| Error::Query(format!("{field}:{value} at column {column}: {what}"));
    if value.is_empty() {
        return Err(problem("empty value"));
    }
    match Filter::from_field(field, value) {
        None => Ok(Node::Title {
            text: value.to_string(),
            column,
        }),
        Some(Ok(filter)) => Ok(Node::Filter {
            filter,
            origin: Origin::Column(column),
        }),
        Some(Err(what)) => Err(problem(&what)),
    }
}

fn flatten(mut nodes: Vec<Node>, wrap: fn(Vec<Node>) -> Node) -> Node {
    if nodes.len() == 1 {
        nodes.pop().unwrap_or(Node::Group(Vec::new()))
    } else {
        wrap(nodes)
    }
}

impl Node {
    /// Calls `f` on this node and every node below it.
    pub fn visit(&self, f: &mut dyn FnMut(&Node)) {
        f(self);
        match self {
            Node::Not(n) | Node::Required(n) => n.visit(f),
            Node::And(ns) | Node::Or(ns) | Node::Group(ns) => ns.iter().for_each(|n| n.visit(f)),
            _ => {}
        }
    }
}

/// Every word of the query tree, for reporting and spelling.
pub fn words(node: &Node, out: &mut Vec<String>) {
    match node {
        Node::Word { text, .. } | Node::Phrase { text, .. } => out.push(text.clone()),
        Node::Filter { .. } | Node::Title { .. } | Node::Boost { .. } | Node::All => {}
        Node::Not(n) | Node::Required(n) => words(n, out),
        Node::And(ns) | Node::Or(ns) | Node::Group(ns) => ns.iter().for_each(|n| words(n, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(q: &str) -> String {
        parse(q)
            .map(|p| p.root.to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn words_phrases_and_operators() {
        assert_eq!(show("pipeline bubble"), "(pipeline bubble)");
        assert_eq!(
            show("\"pipeline bubble\" -gpipe"),
            "(\"pipeline bubble\" NOT gpipe)"
        );
        assert_eq!(
            show("moe AND (training OR inference)"),
            "(moe AND (training OR inference))"
        );
        assert_eq!(show("NOT zero +offload"), "(NOT zero +offload)");
        assert_eq!(show("all-reduce"), "all-reduce");
    }

    #[test]
    fn words_listed_without_spaces_are_words() {
        assert_eq!(show("TP+PP"), "(TP PP)");
        assert_eq!(show("DP,TP,PP on spot VMs"), "(DP TP PP on spot VMs)");
        assert_eq!(show("DP/TP & EP"), "(DP TP EP)");
        assert_eq!(show("C++ +offload"), "(C++ +offload)");
        assert_eq!(show("TP+PP."), "(TP PP.)");
        assert_eq!(show("10.5555/fict.2020.7"), "10.5555/fict.2020.7");
        assert_eq!(show("cs/0112017 a/b"), "(cs/0112017 a b)");
        assert_eq!(show("moe && training"), "(moe AND training)");
    }

    #[test]
    fn fields_and_ranges() {
        assert_eq!(
            show("tag:moe year:2020..2023"),
            "(tag:\"moe\" year:\"2020..2023\")"
        );
        assert_eq!(
            show("author:\"Deepak Narayanan\""),
            "author:\"Deepak Narayanan\""
        );
        assert_eq!(show("GPipe: giant"), "(GPipe giant)");
        // A colon after what no field is named like is text.
        assert_eq!(show("2:4 sparsity"), "(2:4 sparsity)");
        assert_eq!(show("fp8:e4m3"), "fp8:e4m3");
    }

    #[test]
    fn errors_point_at_columns() {
        assert_eq!(
            show("(pipeline"),
            "error: unbalanced '(' at column 1: add a ')' to close it"
        );
        assert_eq!(
            show("pipeline)"),
            "error: unbalanced ')' at column 9: remove it or add a '(' before it"
        );
        assert!(show("colour:red").starts_with("error: unknown field `colour:` at column 1"));
        assert_eq!(
            show("moe year:soon"),
            "error: year:soon at column 5: expected a year such as 2021, or a range such as 2020..2023"
        );
        assert_eq!(
            show("kind:tool"),
            "error: kind:tool at column 1: expected paper or project"
        );
        assert_eq!(show("tag:\"\""), "error: tag: at column 1: empty value");
        assert_eq!(show("   "), "error: the query has no words to search for");
        assert!(show(&format!("{}x", "(".repeat(40))).contains("nested more than 16 deep"));
    }

    #[test]
    fn lenient_repairs_are_noted() {
        let parsed = parse("\"pipeline bubble").unwrap();
        assert_eq!(parsed.root.to_string(), "\"pipeline bubble\"");
        assert_eq!(parsed.notes, ["closed the quote opened at column 1"]);
        let long = "word ".repeat(500);
        let parsed = parse(&long).unwrap();
        assert!(parsed.notes[0].contains("64 terms"));
    }
}
