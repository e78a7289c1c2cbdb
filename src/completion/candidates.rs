//! What a value completes to, drawn from the catalog: entry ids, tags and
//! section names. The command line's definitions (`cli.rs`) name these;
//! nothing here reads them back.

use clap_complete::CompletionCandidate;

use crate::catalog::{Catalog, is_bidi_control};
use crate::locations::Locations;
use crate::render::text::inert;

/// Candidates drawn from the catalog the command line would read when no
/// `--catalog` is typed; none when it cannot be read.
fn from_catalog(
    candidates: impl Fn(&Catalog) -> Vec<CompletionCandidate>,
) -> Vec<CompletionCandidate> {
    let dir = std::env::var_os("DISTML_CATALOG").map(Into::into);
    match Locations::resolve(dir, None).load_catalog() {
        Ok((catalog, _)) => candidates(&catalog),
        Err(_) => Vec::new(),
    }
}

/// A candidate for `value`, described by `help`, as the shell will show
/// them: none for a value a terminal would obey (a control or
/// bidirectional character: no id `check` accepts has one), and the
/// description made inert.
fn candidate(value: &str, help: Option<&str>) -> Option<CompletionCandidate> {
    if value.chars().any(|c| c.is_control() || is_bidi_control(c)) {
        return None;
    }
    let help = help.map(|h| inert(h).into());
    Some(CompletionCandidate::new(value).help(help))
}

/// Entry ids, each with its title as the description shells show.
pub fn entry_ids() -> Vec<CompletionCandidate> {
    from_catalog(|catalog| {
        (catalog.entries.iter())
            .filter_map(|e| candidate(&e.id, Some(&e.title)))
            .collect()
    })
}

pub fn tags() -> Vec<CompletionCandidate> {
    from_catalog(|catalog| {
        (catalog.vocabulary.tags.iter())
            .filter_map(|t| candidate(&t.id, Some(&t.label)))
            .collect()
    })
}

pub fn sections() -> Vec<CompletionCandidate> {
    from_catalog(|catalog| {
        (catalog.section_names().into_iter())
            .filter_map(|name| candidate(&name, None))
            .collect()
    })
}
