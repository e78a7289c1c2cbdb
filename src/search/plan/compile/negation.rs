//! What `-x` takes out. A work's name takes out the works it names: the
//! work, its project's works, the works whose names start with it
//! ("-deepspeed": DeepSpeed-MoE) and those whose titles hold it ("-zero":
//! ZeRO, ZeRO-Offload, ZeRO-Infinity). Not the works that only mention it or
//! share its technique: "offloading -zero" keeps PatrickStar, which compares
//! itself with ZeRO. A technique's name takes out that technique's works,
//! unless the query asks for the same technique ("collective communication
//! -msccl"): then only the works whose text names it. Anything else is taken
//! out wherever it is written.

use std::collections::HashSet;

use tantivy::query::{BooleanQuery, Occur};

use super::words::{Quoting, field_query};
use super::{Compilation, Context, Mode, Q};
use crate::catalog::squash;
use crate::error::Error;
use crate::index::id_query;
use crate::search::understand::query::Node;

impl Compilation<'_> {
    /// What `-x` excludes. Every mode excludes what the exact query does: a
    /// part that excluded only its own clauses of `x` (none, for a word in
    /// the phrases part) would match documents the exact query does not.
    pub(super) fn excluded(&mut self, inner: &Node) -> Result<Q, Error> {
        let was = std::mem::replace(&mut self.excluding, true);
        let excluded = self.excluded_works(inner);
        self.excluding = was;
        excluded
    }

    fn excluded_works(&mut self, inner: &Node) -> Result<Q, Error> {
        if matches!(self.mode, Mode::Terms | Mode::Phrases) {
            let mut exact = Compilation::new(
                self.cx,
                Mode::Exhaustive,
                self.asked.clone(),
                self.code_asked,
            );
            return exact.excluded(inner);
        }
        let Some(text) = plain_text(inner) else {
            return self.node(inner);
        };
        let works = self.named_works(&text);
        if !works.is_empty() {
            self.exclusions.push(format!(
                "left out {text:?}: the works so named ({}) and titles holding it",
                works.join(", ")
            ));
            let mut parts: Vec<Q> = works
                .iter()
                .map(|id| id_query(self.cx.fields, id))
                .collect();
            parts.extend(field_query(&mut self.english, self.cx.fields.title, &text));
            return Ok(any(parts));
        }
        if let Some(tag) = self.cx.synonyms.lookup(&text)
            && self.asked.contains(&tag.id)
        {
            self.exclusions.push(format!(
                "left out {text:?}: only the works that name it, since the query asks for {}",
                tag.id
            ));
            let parts = self.text_parts(&text, Quoting::Plain);
            return Ok(any(parts));
        }
        self.node(inner)
    }

    /// The catalog's works that `text` names: by name, by the first word of
    /// their name, or by their title's initials, with the works of a
    /// project so named.
    fn named_works(&self, text: &str) -> Vec<String> {
        let cx = self.cx;
        let typed = squash(text);
        // A name's start of five letters or more names it too: "-msccl"
        // means MSCCLang, not every work that speaks of collectives.
        let names = |name: &str| {
            name == typed || (typed.len() >= MIN_NAME_START && name.starts_with(&typed))
        };
        let mut works: Vec<String> = (cx.work_names.iter().chain(cx.name_heads))
            .filter(|(name, _)| names(name))
            .map(|(_, id)| id.clone())
            .collect();
        works.extend(cx.works_by_initials(text).into_iter().map(str::to_string));
        let members = (cx.members.iter())
            .filter(|(project, _)| works.contains(project))
            .map(|(_, member)| member.clone())
            .collect::<Vec<_>>();
        works.extend(members);
        let mut seen = HashSet::new();
        works.retain(|id| seen.insert(id.clone()));
        works
    }
}

/// The fewest letters of a work's name that name it after a `-`.
const MIN_NAME_START: usize = 5;

/// The words of `-word`, `-"a phrase"` or `-(a few words)`, as typed.
fn plain_text(node: &Node) -> Option<String> {
    match node {
        Node::Word { text, .. } | Node::Phrase { text, .. } => Some(text.clone()),
        Node::Group(children) => {
            let words: Option<Vec<&str>> = (children.iter())
                .map(|c| match c {
                    Node::Word { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            Some(words?.join(" "))
        }
        _ => None,
    }
}

fn any(parts: Vec<Q>) -> Q {
    Box::new(BooleanQuery::new(
        parts.into_iter().map(|q| (Occur::Should, q)).collect(),
    ))
}

/// The tags that the query's wanted words name (not those after a `-`).
pub(super) fn asked(cx: &Context<'_>, tree: &Node) -> HashSet<String> {
    let mut tags = HashSet::new();
    collect_asked(cx, tree, &mut tags);
    tags
}

fn collect_asked(cx: &Context<'_>, node: &Node, tags: &mut HashSet<String>) {
    match node {
        Node::Group(children) => {
            let mut run: Vec<&str> = Vec::new();
            for child in children {
                if let Node::Word { text, .. } = child {
                    run.push(text);
                } else {
                    named_in_run(cx, &run, tags);
                    run.clear();
                    collect_asked(cx, child, tags);
                }
            }
            named_in_run(cx, &run, tags);
        }
        Node::Word { text, .. } => named_in_run(cx, &[text], tags),
        Node::Phrase { text, .. } => tags.extend(cx.synonyms.lookup(text).map(|t| t.id.clone())),
        Node::And(children) | Node::Or(children) => {
            for child in children {
                collect_asked(cx, child, tags);
            }
        }
        Node::Required(inner) => collect_asked(cx, inner, tags),
        _ => {}
    }
}

fn named_in_run(cx: &Context<'_>, run: &[&str], tags: &mut HashSet<String>) {
    let mut i = 0;
    while i < run.len() {
        match cx.synonyms.longest_at(run, i) {
            Some((len, tag)) => {
                tags.insert(tag.id.clone());
                i += len;
            }
            None => i += 1,
        }
    }
}
