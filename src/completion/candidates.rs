//! What a value completes to, drawn from the catalog: entry ids, tags and
//! section names. The command line's definitions (`cli.rs`) name these;
//! nothing here reads them back.

use clap_complete::CompletionCandidate;

use crate::catalog::Catalog;
use crate::locations::Locations;

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

/// Entry ids, each with its title as the description shells show.
pub fn entry_ids() -> Vec<CompletionCandidate> {
    from_catalog(|catalog| {
        catalog
            .entries
            .iter()
            .map(|e| CompletionCandidate::new(&e.id).help(Some(e.title.clone().into())))
            .collect()
    })
}

pub fn tags() -> Vec<CompletionCandidate> {
    from_catalog(|catalog| {
        catalog
            .vocabulary
            .tags
            .iter()
            .map(|t| CompletionCandidate::new(&t.id).help(Some(t.label.clone().into())))
            .collect()
    })
}

pub fn sections() -> Vec<CompletionCandidate> {
    from_catalog(|catalog| {
        catalog
            .section_names()
            .into_iter()
            .map(CompletionCandidate::new)
            .collect()
    })
}
