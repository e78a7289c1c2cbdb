//! A loaded catalog kept as bytes beside the index, so that a command that
//! searches need not parse its TOML again: the fingerprint of the files it
//! was read from, then its sections, entries, vocabulary and listings, in
//! postcard. Reading and parsing the shipped catalog's TOML took about 3 ms
//! of every search command; decoding this takes under one.
//!
//! Only a catalog that loaded without problems is kept, and it is read
//! back only for the same fingerprint by a build of the same sources
//! (`SOURCE_HASH`, from `build.rs`: postcard's bytes say nothing of
//! the types they were written from): what is read is what the TOML would
//! give. Anything else (no file, another fingerprint or build, bytes that
//! do not decode) is no catalog, and the TOML is read as before.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::name_phrases::NamePhrases;
use super::{Catalog, Entry, Listing, Section, Vocabulary};
use crate::error::Error;

/// The file's name in the index's folder.
pub const COMPILED_FILE: &str = "catalog.bin";

/// What the file starts with: the sources of the build that wrote it.
const BUILD: &str = env!("SOURCE_HASH");

/// What the file holds after the build and the fingerprint: the catalog,
/// with its vocabulary's lookups and names of several words, which take a
/// search that reads them longer to make than the rest to decode.
#[derive(Serialize, Deserialize)]
struct Parts<S, E, V, L, N> {
    sections: S,
    entries: E,
    vocabulary: V,
    listings: L,
    name_phrases: N,
}

type Owned = Parts<Vec<Section>, Vec<Entry>, Vocabulary, HashMap<String, Listing>, NamePhrases>;
type Borrowed<'a> = Parts<
    &'a [Section],
    &'a [Entry],
    &'a Vocabulary,
    &'a HashMap<String, Listing>,
    &'a NamePhrases,
>;

/// The catalog kept at `path` for the inputs of `fingerprint`, if it is
/// there and whole.
pub fn read(path: &Path, fingerprint: &str) -> Option<Catalog> {
    // Mapped, not read: a one-off search decodes its pages from the page
    // cache without copying them first.
    let file = std::fs::File::open(path).ok()?;
    // SAFETY: `write` replaces the file by renaming another over it; it is
    // never written in place, so the mapped bytes never change.
    let bytes = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    let (build, rest) = postcard::take_from_bytes::<&str>(&bytes).ok()?;
    let (kept, rest) = postcard::take_from_bytes::<&str>(rest).ok()?;
    if build != BUILD || kept != fingerprint {
        return None;
    }
    let parts: Owned = postcard::from_bytes(rest).ok()?;
    Some(Catalog {
        sections: parts.sections,
        entries: parts.entries,
        vocabulary: parts.vocabulary.with_name_phrases(parts.name_phrases),
        listings: parts.listings,
        lookups: Default::default(),
    })
}

/// Keeps `catalog`, loaded from the inputs of `fingerprint`, at `path`
/// (whole or not at all).
pub fn write(path: &Path, fingerprint: &str, catalog: &Catalog) -> Result<(), Error> {
    let parts: Borrowed = Parts {
        sections: &catalog.sections,
        entries: &catalog.entries,
        vocabulary: &catalog.vocabulary,
        listings: &catalog.listings,
        name_phrases: catalog.vocabulary.name_phrases(),
    };
    let encode = |e: postcard::Error| Error::Index(format!("{}: {e}", path.display()));
    let mut bytes = postcard::to_stdvec(BUILD).map_err(encode)?;
    bytes.extend(postcard::to_stdvec(fingerprint).map_err(encode)?);
    bytes.extend(postcard::to_stdvec(&parts).map_err(encode)?);
    crate::fsutil::write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::builtin::builtin_files;
    use crate::catalog::{Tag, load_files, squash};

    #[test]
    fn the_shipped_catalog_reads_back_as_it_loaded_for_its_fingerprint_only() {
        let (loaded, problems) = load_files(&builtin_files());
        assert!(problems.is_empty());
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(COMPILED_FILE);
        write(&path, "inputs-1", &loaded).unwrap();

        let kept = read(&path, "inputs-1").unwrap();
        assert_eq!(kept.sections, loaded.sections);
        assert_eq!(kept.entries, loaded.entries);
        assert_eq!(kept.vocabulary.tags, loaded.vocabulary.tags);
        assert_eq!(kept.listings, loaded.listings);
        assert_eq!(kept.lookups(), loaded.lookups());
        for name in loaded.vocabulary.tags.iter().flat_map(Tag::names) {
            let id = |catalog: &Catalog| {
                catalog
                    .vocabulary
                    .named(&squash(name))
                    .map(|t| t.id.clone())
            };
            assert_eq!(id(&kept), id(&loaded), "{name}");
        }

        // The names of several words, as a title is searched for them.
        let markers = |catalog: &Catalog| -> Vec<String> {
            let mut found = Vec::new();
            for entry in &loaded.entries {
                (catalog.vocabulary.name_phrases())
                    .in_title(&entry.title, |m| found.push(m.to_string()));
            }
            found
        };
        assert!(!markers(&loaded).is_empty());
        assert_eq!(markers(&kept), markers(&loaded));

        assert!(read(&path, "inputs-2").is_none());
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
        assert!(read(&path, "inputs-1").is_none());
        assert!(read(&folder.path().join("none"), "inputs-1").is_none());
    }
}
