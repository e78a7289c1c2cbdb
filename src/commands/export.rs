//! `export`: the catalog as an awesome-list README or citations (BibTeX,
//! CSL-JSON, RIS), and the
//! index's documents as JSON Lines.

use std::io::Write;

use crate::catalog::markdown::{ListLayout, export_markdown};
use crate::cli::{ExportArgs, ExportFormat};
use crate::error::Error;
use crate::fsutil::write_atomic;
use crate::index::Fields;
use crate::locations::{CatalogSource, Locations};

/// The title of a list exported from a catalog that was not imported from one.
const DEFAULT_TITLE: &str = "Awesome Distributed Machine Learning System";
use crate::model::Record;
use crate::render::json::record_value;
use tantivy::{DocAddress, TantivyDocument};

pub fn run(
    locations: &Locations,
    args: &ExportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    if args.format == ExportFormat::Ndjson {
        return export_documents(locations, args, out, err);
    }
    let catalog = crate::ready::load_valid_catalog(locations, false)?;
    if let Some(citations) = args.format.citations() {
        let cache = locations.load_cache()?;
        let records: Vec<Record> = (catalog.in_list_order().into_iter())
            .map(|e| Record::from_entry(e, cache.get(&e.id)))
            .collect();
        return write_out(args, &citations.of(&records), out);
    }
    // A catalog imported from a list writes that list's own text back.
    let layout = match (&locations.catalog, &args.title) {
        (CatalogSource::Dir(dir), None) => ListLayout::load(dir)?,
        _ => None,
    };
    let text = match layout {
        Some(layout) => layout.export(&catalog, args.notes),
        None => {
            let title = args.title.as_deref().unwrap_or(DEFAULT_TITLE);
            export_markdown(&catalog, title, args.notes)
        }
    };
    write_out(args, &text, out)
}

/// `text` to `--output`'s file (atomically) or to `out`: on a terminal,
/// made inert (a list's own text or a note could hold what a terminal
/// obeys); to a file or a pipe, exactly the catalog's.
fn write_out(args: &ExportArgs, text: &str, out: &mut dyn Write) -> Result<(), Error> {
    use std::io::IsTerminal;
    match &args.output {
        Some(path) => write_atomic(path, text.as_bytes()),
        None if std::io::stdout().is_terminal() => out
            .write_all(crate::inert::inert_lines(text).as_bytes())
            .map_err(Error::output),
        None => out.write_all(text.as_bytes()).map_err(Error::output),
    }
}

/// Every document of the index, one JSON object per line: what a Quickwit
/// index (`quickwit/distml-index.yaml`) ingests.
fn export_documents(
    locations: &Locations,
    args: &ExportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let (_, open) = crate::ready::ready_index(locations, err)?;
    let searcher = open.reader.searcher();
    let fields = Fields::from_schema(&open.index.schema())?;
    let mut target: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| Error::io(path, e))?,
        )),
        None => Box::new(std::io::BufWriter::new(out)),
    };
    for (segment, reader) in searcher.segment_readers().iter().enumerate() {
        for doc in reader.doc_ids_alive() {
            let document: TantivyDocument = searcher.doc(DocAddress::new(segment as u32, doc))?;
            let record = Record::from_document(&document, &fields);
            let mut value = record_value(&record);
            if let serde_json::Value::Object(map) = &mut value {
                map.insert("abstract".into(), serde_json::json!(record.abstract_text));
            }
            let line = crate::inert::inert_json(value.to_string());
            writeln!(target, "{line}").map_err(|e| Error::io("<output>", e))?;
        }
    }
    target.flush().map_err(|e| Error::io("<output>", e))
}
