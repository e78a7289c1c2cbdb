//! From a catalog entry (and what the ingester cached about it) to an index
//! document, and back to the record that search results show.

use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{TantivyDocument, Term};

use super::schema::{Fields, identifier_key, identifier_query};
use super::seen_words::SeenWords;
use crate::analysis::{joined_hyphenated, joined_pairs};
use crate::catalog::{Entry, Vocabulary, squash};
use crate::embed::Reading;
use crate::ident;
use crate::model::metadata::CachedEntry;
use crate::model::{
    ARXIV_ID_PREFIX, Collection, Kind, PredictedTag, Record, Source, arxiv_record_id, arxiv_url,
    normalize_whitespace,
};
use crate::predict::Predictor;

/// The documents whose `field` holds exactly `text`.
pub fn exact_query(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::Basic,
    ))
}

/// Finds the record with this id, including imported records, whose id is
/// not written to the index.
pub fn id_query(fields: &Fields, id: &str) -> Box<dyn Query> {
    match id.strip_prefix(ARXIV_ID_PREFIX) {
        Some(arxiv) => Box::new(BooleanQuery::new(vec![
            (
                Occur::Must,
                exact_query(fields.collection, Collection::Arxiv.as_str()),
            ),
            (
                Occur::Must,
                identifier_query(fields.arxiv_key, ident::strip_version(arxiv)),
            ),
        ])),
        None => exact_query(fields.id, id),
    }
}

/// Finds the records of this kind (`paper`, `project`), including imported
/// records, which are papers without saying so.
pub fn kind_query(fields: &Fields, kind: Kind) -> Box<dyn Query> {
    if kind != Kind::Paper {
        return exact_query(fields.kind, kind.as_str());
    }
    Box::new(BooleanQuery::new(vec![
        (
            Occur::Should,
            exact_query(fields.kind, Kind::Paper.as_str()),
        ),
        (
            Occur::Should,
            exact_query(fields.collection, Collection::Arxiv.as_str()),
        ),
    ]))
}

impl Record {
    /// The entry, completed by the cache: its full author list, its abstract
    /// and identifiers that lookups found.
    pub fn from_entry(entry: &Entry, cached: Option<&CachedEntry>) -> Record {
        let fetched = cached
            .and_then(|c| c.authors.as_ref())
            .filter(|a| !a.value.is_empty());
        let authors = fetched.map_or_else(|| entry.authors.clone(), |a| a.value.clone());
        let abstract_sourced = cached.and_then(|c| c.abstract_text.as_ref());
        Record {
            collection: Collection::Catalog,
            id: entry.id.clone(),
            kind: entry.kind,
            title: entry.title.clone(),
            authors,
            et_al: entry.et_al && fetched.is_none(),
            venue: entry.venue.clone(),
            year: entry.year,
            section: entry.section.clone(),
            tags: entry.tags.clone(),
            uses: entry.uses.clone(),
            predicted: Vec::new(),
            url: entry.url.clone(),
            arxiv: entry.arxiv.clone().or_else(|| {
                cached
                    .and_then(|c| c.arxiv.as_ref())
                    .map(|i| i.value.clone())
            }),
            doi: entry
                .doi
                .clone()
                .or_else(|| cached.and_then(|c| c.doi.as_ref()).map(|i| i.value.clone())),
            note: entry.note.clone(),
            abstract_text: abstract_sourced.map(|a| a.value.clone()),
            abstract_source: abstract_sourced.map(|a| a.source),
            submitted: None,
            added: None,
        }
    }

    /// The index document. With `seen`, only words it has not seen are
    /// written to the typo dictionary (see [`SeenWords`]). With `predictor`,
    /// a record without curated tags gets its predicted tags (in place of
    /// `predicted`, which is written as it is without one).
    ///
    /// The hot code of a million-record import: its helpers are small and
    /// inlined, so that the split into them costs nothing.
    pub fn to_document(
        &self,
        fields: &Fields,
        vocabulary: &Vocabulary,
        seen: Option<&mut SeenWords>,
        predictor: Option<&Predictor>,
    ) -> TantivyDocument {
        self.document(fields, vocabulary, seen, |record, add| match predictor {
            Some(predictor) => predictor.predict_each(record, add),
            None => (record.predicted.iter()).for_each(|p| add(&p.tag, p.confidence)),
        })
    }

    /// [`Record::to_document`] with `predictor`, for a record read already
    /// ([`crate::embed::read_record`]): an import's, which keeps its vector
    /// for the segment's vector file, and whose tags are predicted through
    /// its word pieces.
    pub fn to_document_embedded(
        &self,
        fields: &Fields,
        vocabulary: &Vocabulary,
        seen: &mut SeenWords,
        (predictor, reading): (&Predictor, &Reading),
    ) -> TantivyDocument {
        self.document(fields, vocabulary, Some(seen), |record, add| {
            predictor.predict_each_read(record, reading, add)
        })
    }

    /// The document, whose predicted tags `predict` hands to the function it
    /// is given, tag by tag with their confidence.
    #[inline(always)]
    fn document(
        &self,
        fields: &Fields,
        vocabulary: &Vocabulary,
        seen: Option<&mut SeenWords>,
        predict: impl FnOnce(&Record, &mut dyn FnMut(&str, f32)),
    ) -> TantivyDocument {
        let mut doc = TantivyDocument::default();
        let imported = self.is_imported();
        self.add_description(&mut doc, fields, vocabulary, imported);
        // The typo dictionary: every word a query may mean. Names are found
        // in `authors`, which is analyzed alike (and unique names are the
        // costliest terms to write twice).
        // Allocated only once a word is learnt: an imported record learns
        // only its title's unseen words, most often none. An empty text adds
        // nothing (an imported record's note would add a lone space).
        let mut dictionary = String::new();
        let mut learn = |text: &str| {
            if !text.is_empty() {
                dictionary.push_str(text);
                dictionary.push(' ');
            }
        };
        learn(&self.note);
        self.add_tags(&mut doc, fields, vocabulary, &mut learn);
        predict(self, &mut |tag, confidence| {
            add_predicted_tag(&mut doc, fields, tag, confidence);
        });
        if !self.note.is_empty() {
            doc.add_text(fields.note, &self.note);
        }
        // Imported records keep spellings and the typo dictionary to their
        // titles: it is the abstracts' extra terms that would make a
        // million-record import slow.
        let mut prose_abstract = "";
        if let Some(text) = &self.abstract_text {
            doc.add_text(fields.abstract_text, text);
            if !imported {
                prose_abstract = text;
                learn(text);
            }
        }
        match seen {
            Some(seen) => seen.push_unseen(&self.title, &mut dictionary),
            None => learn(&self.title),
        }
        if let Some(source) = self.abstract_source.filter(|_| !imported) {
            doc.add_text(fields.abstract_source, source.as_str());
        }
        let prose = [self.title.as_str(), self.note.as_str(), prose_abstract];
        add_joined(&mut doc, fields, prose, imported);
        if !dictionary.is_empty() {
            doc.add_text(fields.words, dictionary);
        }
        self.add_identifiers(&mut doc, fields);
        if let Some(day) = self.submitted.as_deref().and_then(day_number) {
            doc.add_i64(fields.submitted, day);
        }
        if let Some(added) = self.added {
            doc.add_i64(fields.added, added);
        }
        doc
    }

    /// The collection, id, URL and kind, then what a result's byline shows.
    #[inline]
    fn add_description(
        &self,
        doc: &mut TantivyDocument,
        fields: &Fields,
        vocabulary: &Vocabulary,
        imported: bool,
    ) {
        doc.add_text(fields.collection, self.collection.as_str());
        // An imported record's id and URL follow from its arXiv id: writing
        // them would add two terms found in no other document, the costliest
        // kind, to each of a million records. Its kind (paper) and abstract
        // source (arXiv) follow from its collection: each field a million
        // records write costs a second or so of an import.
        if !imported {
            doc.add_text(fields.id, &self.id);
            doc.add_text(fields.url, &self.url);
            doc.add_text(fields.kind, self.kind.as_str());
            // Whole, as one word: "alpa-projects" is no work of "projects".
            if let Some(owner) = ident::code_owner(&self.url) {
                doc.add_text(fields.owner, squash(owner));
            }
        }
        doc.add_text(fields.title, &self.title);
        (vocabulary.name_phrases()).in_title(&self.title, |marker| {
            doc.add_text(fields.title_names, marker);
        });
        for author in &self.authors {
            doc.add_text(fields.authors, author);
        }
        if self.et_al {
            doc.add_u64(fields.et_al, 1);
        }
        if let Some(venue) = &self.venue {
            doc.add_text(fields.venue, venue);
        }
        if let Some(year) = self.year {
            doc.add_i64(fields.year, year);
        }
        doc.add_text(fields.section, &self.section);
    }

    /// The tags and their labels; their names go to the typo dictionary.
    #[inline]
    fn add_tags(
        &self,
        doc: &mut TantivyDocument,
        fields: &Fields,
        vocabulary: &Vocabulary,
        learn: &mut impl FnMut(&str),
    ) {
        for tag in &self.tags {
            doc.add_text(fields.tags, tag);
            if let Some(t) = vocabulary.get(tag) {
                doc.add_text(fields.tag_text, &t.label);
                doc.add_text(fields.tag_description, &t.description);
                t.names().for_each(&mut *learn);
            }
        }
        for tag in &self.uses {
            doc.add_text(fields.uses, tag);
            if let Some(t) = vocabulary.get(tag) {
                t.names().for_each(&mut *learn);
            }
        }
    }

    #[inline]
    fn add_identifiers(&self, doc: &mut TantivyDocument, fields: &Fields) {
        if let Some(arxiv) = &self.arxiv {
            doc.add_text(fields.arxiv, arxiv);
            doc.add_u64(fields.arxiv_key, identifier_key(arxiv));
        }
        if let Some(doi) = &self.doi {
            let doi = doi.to_lowercase();
            doc.add_u64(fields.doi_key, identifier_key(&doi));
            doc.add_text(fields.doi, doi);
        }
    }

    pub fn from_document(doc: &TantivyDocument, fields: &Fields) -> Record {
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let all = |field| {
            doc.get_all(field)
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        };
        let imported = text(fields.collection).as_deref() == Some(Collection::Arxiv.as_str());
        let collection = if imported {
            Collection::Arxiv
        } else {
            Collection::Catalog
        };
        let arxiv = text(fields.arxiv);
        let derived = |make: fn(&str) -> String| {
            imported
                .then(|| arxiv.as_deref().map(make))
                .flatten()
                .unwrap_or_default()
        };
        let abstract_text = text(fields.abstract_text).map(|a| normalize_whitespace(&a));
        Record {
            id: text(fields.id).unwrap_or_else(|| derived(arxiv_record_id)),
            url: text(fields.url).unwrap_or_else(|| derived(arxiv_url)),
            // Imported records are papers, their abstracts from arXiv,
            // without saying so (see `to_document`).
            kind: text(fields.kind)
                .and_then(|k| Kind::parse(&k))
                .unwrap_or_default(),
            abstract_source: match text(fields.abstract_source) {
                Some(source) => Source::parse(&source),
                None => (imported && abstract_text.is_some()).then_some(Source::Arxiv),
            },
            collection,
            title: text(fields.title).unwrap_or_default(),
            authors: all(fields.authors),
            et_al: doc.get_first(fields.et_al).and_then(|v| v.as_u64()) == Some(1),
            venue: text(fields.venue),
            year: doc.get_first(fields.year).and_then(|v| v.as_i64()),
            section: text(fields.section).unwrap_or_default(),
            tags: all(fields.tags),
            uses: all(fields.uses),
            predicted: predicted(doc, fields),
            arxiv,
            doi: text(fields.doi),
            note: text(fields.note).unwrap_or_default(),
            abstract_text,
            submitted: doc
                .get_first(fields.submitted)
                .and_then(|v| v.as_i64())
                .map(|n| format!("{:04}-{:02}-{:02}", n / 10000, n / 100 % 100, n % 100)),
            added: doc.get_first(fields.added).and_then(|v| v.as_i64()),
        }
    }
}

/// `YYYY-MM-DD` as the number YYYYMMDD, which orders as the days do.
pub fn day_number(day: &str) -> Option<i64> {
    let digits: String = day.split('-').collect();
    (day.len() == 10 && digits.len() == 8)
        .then(|| digits.parse().ok())
        .flatten()
}

/// Predicted tags are not learnt by the typo dictionary: a prediction is not
/// a word of the record.
#[inline]
fn add_predicted_tag(doc: &mut TantivyDocument, fields: &Fields, tag: &str, confidence: f32) {
    doc.add_text(fields.predicted, tag);
    doc.add_f64(fields.predicted_confidence, f64::from(confidence));
}

/// The predicted tags of a stored document, each with its confidence.
fn predicted(doc: &TantivyDocument, fields: &Fields) -> Vec<PredictedTag> {
    let confidences = doc
        .get_all(fields.predicted_confidence)
        .map(|v| v.as_f64().unwrap_or_default() as f32);
    doc.get_all(fields.predicted)
        .filter_map(|v| v.as_str().map(str::to_string))
        .zip(confidences)
        .map(|(tag, confidence)| PredictedTag { tag, confidence })
        .collect()
}

/// The words of `prose` written together (see [`joined_pairs`]); for an
/// imported record only the hyphen-bound ones ([`joined_hyphenated`]).
#[inline]
fn add_joined(doc: &mut TantivyDocument, fields: &Fields, prose: [&str; 3], imported: bool) {
    for part in prose.into_iter().filter(|p| !p.is_empty()) {
        let joined = if imported {
            joined_hyphenated(part)
        } else {
            joined_pairs(part)
        };
        if !joined.is_empty() {
            doc.add_text(fields.joined, joined);
        }
    }
}
