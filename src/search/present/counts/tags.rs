//! The tag facet's counting: `tags` and `uses`, each tag of a document
//! once, walked beside a block of matches.

use std::io;

use tantivy::DocId;
use tantivy::columnar::{Column, ColumnIndex, StrColumn};

use super::columns::terms_of;

/// The tag facet: `tags` and `uses`, each tag of a document once. Few
/// documents have tags (the catalog's): those of the segment are listed
/// once, and a block of matches is walked beside the list.
pub(super) struct Tags {
    tags: Ordinals,
    uses: Ordinals,
    /// Each `uses` ordinal's ordinal in `tags`, if a document of the
    /// segment has that tag as a tag too.
    uses_as_tag: Vec<Option<u64>>,
    /// The documents with a tag or a use, ascending (`None`: all of them).
    tagged: Option<Vec<DocId>>,
    /// Where in `tagged` the last match was sought.
    cursor: usize,
}

impl Tags {
    pub(super) fn open(tags: Option<StrColumn>, uses: Option<StrColumn>) -> io::Result<Tags> {
        let uses_as_tag = match (&tags, &uses) {
            (Some(tags), Some(uses)) => {
                let mut found = Vec::with_capacity(uses.num_terms());
                let mut terms = uses.dictionary().stream()?;
                while terms.advance() {
                    found.push(tags.dictionary().term_ord(terms.key())?);
                }
                found
            }
            _ => Vec::new(),
        };
        let listed = |column: &Option<StrColumn>| {
            column
                .as_ref()
                .map_or(Some(Vec::new()), |c| docs_with_values(c.ords()))
        };
        let tagged = listed(&tags).zip(listed(&uses)).map(|(mut docs, more)| {
            docs.extend(more);
            docs.sort_unstable();
            docs.dedup();
            docs
        });
        Ok(Tags {
            tags: Ordinals::open(tags),
            uses: Ordinals::open(uses),
            uses_as_tag,
            tagged,
            cursor: 0,
        })
    }

    pub(super) fn count_block(&mut self, docs: &[DocId]) {
        let Some(tagged) = &self.tagged else {
            for &doc in docs {
                self.count(doc);
            }
            return;
        };
        let (Some(&first), Some(&last)) = (docs.first(), docs.last()) else {
            return;
        };
        // A segment's matches come in ascending order (tantivy's doc sets);
        // a block before the last is sought from the start.
        if self.cursor > 0 && tagged.get(self.cursor - 1).is_some_and(|&t| t >= first) {
            self.cursor = 0;
        }
        if tagged.get(self.cursor).is_none_or(|&t| t > last) {
            return;
        }
        for &doc in docs {
            self.cursor += tagged[self.cursor..].partition_point(|&t| t < doc);
            if tagged.get(self.cursor) == Some(&doc) {
                count_tags(&mut self.tags, &mut self.uses, &self.uses_as_tag, doc);
            }
        }
    }

    pub(super) fn count(&mut self, doc: DocId) {
        count_tags(&mut self.tags, &mut self.uses, &self.uses_as_tag, doc);
    }

    /// The `about` facet: primary tags only.
    pub(super) fn about_values(&self) -> io::Result<Vec<(String, u64)>> {
        self.tags.values()
    }

    pub(super) fn values(&self) -> io::Result<Vec<(String, u64)>> {
        let mut values = self.tags.values()?;
        values.extend(self.uses.values()?);
        Ok(values)
    }
}

/// A document's tags and uses, a tag in both counted once.
fn count_tags(tags: &mut Ordinals, uses: &mut Ordinals, uses_as_tag: &[Option<u64>], doc: DocId) {
    if let Some(column) = &uses.column {
        for ord in column.term_ords(doc) {
            let also_a_tag = match (uses_as_tag.get(ord as usize), &tags.column) {
                (Some(Some(tag)), Some(tags)) => tags.term_ords(doc).any(|t| t == *tag),
                _ => false,
            };
            if !also_a_tag {
                uses.counts[ord as usize] += 1;
            }
        }
    }
    if let Some(column) = &tags.column {
        for ord in column.term_ords(doc) {
            tags.counts[ord as usize] += 1;
        }
    }
}

/// The documents with a value in `column`, ascending; `None` when every
/// document has one.
fn docs_with_values(column: &Column<u64>) -> Option<Vec<DocId>> {
    match &column.index {
        ColumnIndex::Empty { .. } => Some(Vec::new()),
        ColumnIndex::Full => None,
        ColumnIndex::Optional(index) => Some(index.iter_non_null_docs().collect()),
        ColumnIndex::Multivalued(index) => Some(index.iter_non_null_docs().collect()),
    }
}

/// A text column (if the segment has one) and its matches per term
/// ordinal.
struct Ordinals {
    column: Option<StrColumn>,
    counts: Vec<u64>,
}

impl Ordinals {
    fn open(column: Option<StrColumn>) -> Ordinals {
        let counts = vec![0; column.as_ref().map_or(0, |c| c.num_terms())];
        Ordinals { column, counts }
    }

    /// The values counted, with their counts.
    fn values(&self) -> io::Result<Vec<(String, u64)>> {
        let Some(column) = &self.column else {
            return Ok(Vec::new());
        };
        let counted: Vec<(u64, u64)> = (self.counts.iter().enumerate())
            .filter(|(_, n)| **n > 0)
            .map(|(ord, n)| (ord as u64, *n))
            .collect();
        terms_of(column, &counted)
    }
}
