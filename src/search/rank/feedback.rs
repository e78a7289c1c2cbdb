//! Feedback from the first result: the works that share its techniques
//! come after it. A title or a described need finds its work first, and
//! what a reader wants next is the other works about the same techniques,
//! which may share few of the query's words ("training deep nets with
//! sublinear memory": the other rematerialization papers).
//!
//! Each candidate behind the first gains the first's score times the
//! `feedback` weight times the share of the first's tags it holds, and
//! stays behind the first. Only curated tags count: they are in a column,
//! where a candidate's are read without reading its document.

use std::collections::{HashMap, HashSet};

use tantivy::collector::DocSetCollector;
use tantivy::columnar::StrColumn;
use tantivy::query::{BooleanQuery, Occur, Query};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, DocId, DocSet, Searcher, TantivyDocument, Term};

use crate::catalog::squash;
use crate::error::Error;
use crate::index::exact_query;
use crate::search::plan::compile::Context;
use crate::search::understand::query::Node;

/// Candidates fetched for feedback to reorder, however few are shown.
pub const POOL: usize = 40;

/// The most of its distance to the first result that a result may gain.
const HEADROOM: f32 = 0.99;

/// What feedback added to a result's score, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Feedback {
    pub bonus: f32,
    /// The first result's tags that this one shares, by name.
    pub shared: Vec<String>,
    /// Those it uses without being about them (its `uses`).
    pub used: Vec<String>,
    /// Those it shares as predicted tags only.
    pub predicted: Vec<String>,
    /// The first result's project, when this one is of it too (or is it).
    pub project: Option<String>,
    /// The account hosting the first result's code, when the query names it
    /// and hosts this one's too.
    pub maker: Option<String>,
}

/// Whether feedback reorders the results of `root` at `weight`. Not when
/// the query types a year or a venue: those already say which works come
/// first, and the first one's techniques would undo it.
pub fn applies(root: &Node, weight: f32) -> bool {
    weight > 0.0 && !names_a_facet(root)
}

fn names_a_facet(node: &Node) -> bool {
    match node {
        Node::Boost { .. } => true,
        Node::Group(children) | Node::And(children) | Node::Or(children) => {
            children.iter().any(names_a_facet)
        }
        Node::Required(inner) => names_a_facet(inner),
        _ => false,
    }
}

/// Whether the first of `top` (best first) gives feedback: it leads alone,
/// and has tags.
pub fn leads(searcher: &Searcher, top: &[(f32, DocAddress)]) -> Result<bool, Error> {
    match top {
        [first, second, ..] if first.0 > second.0 => {
            Ok(!Columns::new(searcher, "tags").tags(first.1)?.is_empty())
        }
        _ => Ok(false),
    }
}

/// Reorders `top` (best first) by feedback from its first result, and says
/// what each result that gained was given. Nothing changes when the first
/// place is tied (which result leads would depend on the index's order) or
/// the first result has no tags. A tag a result only uses counts `uses /
/// tag` (the weights of `Boosts`) of a curated one, a tag it only has
/// predicted `predicted / tag`.
pub fn rerank(
    cx: &Context<'_>,
    root: &Node,
    top: &mut [(f32, DocAddress)],
) -> Result<Vec<(DocAddress, Feedback)>, Error> {
    let (lead_score, lead) = match top {
        [first, second, ..] if first.0 > second.0 => *first,
        _ => return Ok(Vec::new()),
    };
    let mut columns = Columns::new(cx.searcher, "tags");
    let mut uses = Columns::new(cx.searcher, "uses");
    let lead_tags = columns.tags(lead)?;
    if lead_tags.is_empty() {
        return Ok(Vec::new());
    }
    // Read once: both the project and the maker are found from it.
    let lead_doc: TantivyDocument = cx.searcher.doc(lead)?;
    let project = project_of(cx, &lead_doc)?;
    let maker = named_maker_of(cx, root, &lead_doc)?;
    let mut found: Vec<Feedback> = Vec::with_capacity(top.len());
    for &(_, address) in top.iter() {
        let curated = columns.tags(address)?;
        let used = uses.tags(address)?;
        let (shared, rest): (Vec<String>, Vec<String>) =
            (lead_tags.iter().cloned()).partition(|t| curated.contains(t));
        found.push(Feedback {
            bonus: 0.0,
            shared,
            used: rest.into_iter().filter(|t| used.contains(t)).collect(),
            predicted: Vec::new(),
            project: (project.as_ref())
                .filter(|(_, works)| works.contains(&address))
                .map(|(name, _)| name.clone()),
            maker: (maker.as_ref())
                .filter(|(_, works)| works.contains(&address))
                .map(|(name, _)| name.clone()),
        });
    }
    add_predicted(cx, top, &lead_tags, &mut found)?;
    // Relative to a curated tag, as the tag clauses weigh them.
    let relative = |weight: f32| {
        if cx.boosts.tag > 0.0 {
            weight / cx.boosts.tag
        } else {
            0.0
        }
    };
    let (used_share, predicted_share) = (relative(cx.boosts.uses), relative(cx.boosts.predicted));
    let mut given = Vec::new();
    for ((score, address), mut feedback) in top.iter_mut().zip(found).skip(1) {
        let held = feedback.shared.len() as f32
            + used_share * feedback.used.len() as f32
            + predicted_share * feedback.predicted.len() as f32;
        // The same project counts as much as all of the first's tags, and
        // so does the same maker, named by the query.
        let share = held / lead_tags.len() as f32
            + f32::from(u8::from(feedback.project.is_some()))
            + f32::from(u8::from(feedback.maker.is_some()));
        // Behind the first however much is added, and in their order
        // among those whose gain would pass it (no ties made at a cap).
        let room = (lead_score - *score) * HEADROOM;
        let raised = *score + (cx.boosts.feedback * lead_score * share).min(room);
        if raised > *score {
            feedback.bonus = raised - *score;
            given.push((*address, feedback));
            *score = raised;
        }
    }
    // Stable: results that gained alike keep their order.
    top[1..].sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(given)
}

/// The project of the first result `doc` (its `project`, or its own id
/// when works name it theirs), and where that project's works are: the
/// project's entry and its members, all but `doc`.
fn project_of(
    cx: &Context<'_>,
    doc: &TantivyDocument,
) -> Result<Option<(String, HashSet<DocAddress>)>, Error> {
    let Some(id) = doc.get_first(cx.fields.id).and_then(|v| v.as_str()) else {
        return Ok(None);
    };
    let project = (cx.members.iter())
        .find(|(project, work)| *work == id || *project == id)
        .map(|(project, _)| project.clone());
    let Some(project) = project else {
        return Ok(None);
    };
    let family: Vec<(Occur, Box<dyn Query>)> = (cx.members.iter())
        .filter(|(p, _)| *p == project)
        .map(|(_, work)| work.as_str())
        .chain([project.as_str()])
        .filter(|work| *work != id)
        .map(|work| (Occur::Should, exact_query(cx.fields.id, work)))
        .collect();
    let works = cx
        .searcher
        .search(&BooleanQuery::new(family), &DocSetCollector)?;
    Ok(Some((project, works)))
}

/// The account hosting the code of the first result `doc`, when a word of
/// `root` names it ("Alibaba ..."), and the other works it hosts: the query
/// asks for that maker's works, which the first one's techniques alone
/// would leave behind every framework.
fn named_maker_of(
    cx: &Context<'_>,
    root: &Node,
    doc: &TantivyDocument,
) -> Result<Option<(String, HashSet<DocAddress>)>, Error> {
    let Some(owner) = (doc.get_first(cx.fields.url))
        .and_then(|v| v.as_str())
        .and_then(crate::ident::code_owner)
        .map(squash)
    else {
        return Ok(None);
    };
    let mut named = false;
    crate::search::understand::intent::wanted_words(root, &mut |word| {
        named |= squash(word) == owner
    });
    if !named {
        return Ok(None);
    }
    let hosted = exact_query(cx.fields.owner, &owner);
    let works = cx.searcher.search(&hosted, &DocSetCollector)?;
    Ok(Some((owner, works)))
}

/// To each result's `predicted`, the first result's tags that it has
/// predicted and not curated: found in the postings of `predicted`, sought
/// in each segment's candidates in document order, as postings are read.
fn add_predicted(
    cx: &Context<'_>,
    top: &[(f32, DocAddress)],
    lead_tags: &[String],
    found: &mut [Feedback],
) -> Result<(), Error> {
    let mut by_segment: Vec<(u32, DocId, usize)> = (top.iter().enumerate().skip(1))
        .map(|(i, (_, a))| (a.segment_ord, a.doc_id, i))
        .collect();
    by_segment.sort_unstable();
    for segment in by_segment.chunk_by(|a, b| a.0 == b.0) {
        let reader = cx.searcher.segment_reader(segment[0].0);
        let inverted = reader.inverted_index(cx.fields.predicted)?;
        for tag in lead_tags {
            let term = Term::from_field_text(cx.fields.predicted, tag);
            let postings = (inverted.read_postings(&term, IndexRecordOption::Basic))
                .map_err(tantivy::TantivyError::from)?;
            let Some(mut postings) = postings else {
                continue;
            };
            for &(_, doc, i) in segment {
                if postings.doc() <= doc
                    && postings.seek(doc) == doc
                    && !found[i].shared.contains(tag)
                    && !found[i].used.contains(tag)
                {
                    found[i].predicted.push(tag.clone());
                }
            }
        }
    }
    Ok(())
}

/// A tag column (`tags` or `uses`) of each segment, opened once.
struct Columns<'a> {
    searcher: &'a Searcher,
    field: &'static str,
    open: HashMap<u32, Option<StrColumn>>,
}

impl<'a> Columns<'a> {
    fn new(searcher: &'a Searcher, field: &'static str) -> Self {
        Columns {
            searcher,
            field,
            open: HashMap::new(),
        }
    }

    /// The column's tags of the document at `address`.
    fn tags(&mut self, address: DocAddress) -> Result<Vec<String>, Error> {
        let column = match self.open.entry(address.segment_ord) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let segment = self.searcher.segment_reader(address.segment_ord);
                e.insert(segment.fast_fields().str(self.field)?)
            }
        };
        let Some(column) = column else {
            return Ok(Vec::new());
        };
        let mut tags = Vec::new();
        for ord in column.term_ords(address.doc_id) {
            let mut tag = String::new();
            column
                .ord_to_str(ord, &mut tag)
                .map_err(tantivy::TantivyError::from)?;
            tags.push(tag);
        }
        Ok(tags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::understand::filter::{Filter, YearRange};

    fn word(text: &str) -> Node {
        Node::Word {
            text: text.into(),
            column: 0,
        }
    }

    #[test]
    fn a_typed_year_or_venue_turns_feedback_off() {
        let words = Node::Group(vec![word("frugal"), word("memory")]);
        assert!(applies(&words, 0.5));
        assert!(!applies(&words, 0.0), "a weight of 0 turns it off");
        let year = Node::Boost {
            filter: Filter::Year(YearRange::from(2021)),
            column: 7,
        };
        let with_year = Node::Group(vec![word("frugal"), year.clone()]);
        assert!(!applies(&with_year, 0.5));
        let required = Node::And(vec![word("frugal"), Node::Required(Box::new(year))]);
        assert!(!applies(&required, 0.5));
    }
}
