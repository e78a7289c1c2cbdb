//! One module per subcommand: each resolves its inputs, calls the library and
//! writes to the given output. Exit statuses are decided in `lib.rs`.

pub mod check;
pub mod export;
pub mod import;

use crate::catalog::{Catalog, validate};
use crate::clock::current_year;
use crate::error::Error;
use crate::locations::Locations;

/// The catalog, refusing one with problems: the first is shown with a pointer
/// to `check` for the rest. `curated` also applies the curation rules (tags,
/// notes, identifiers); without it only unreadable data is refused.
pub fn load_valid_catalog(locations: &Locations, curated: bool) -> Result<Catalog, Error> {
    let (catalog, mut problems) = locations.load_catalog()?;
    if curated {
        problems.extend(validate(&catalog, current_year()));
    }
    problems.sort();
    match problems.first() {
        None => Ok(catalog),
        Some(first) => Err(Error::Catalog {
            first: first.to_string(),
            more: problems.len() - 1,
        }),
    }
}
