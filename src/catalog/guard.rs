//! What the catalog's writers check before they write. A value from a
//! list, a sync or a server enters the catalog only where `check` would
//! accept it (an http(s) link no other entry has, a plausible year), a
//! section file never takes the name of one of the catalog's own files,
//! and every write is vetted as a whole: the catalog it leaves must load
//! and validate no worse than the one it found.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::load::load_dir_with;
use super::validate::{MIN_YEAR, validate};
use super::{Catalog, INBOX_FILE, LIST_FILE, RANKING_FILE, REMOVED_FILE, TAGS_FILE, url_key};
use crate::clock::current_year;
use crate::error::Error;
use crate::fsutil::MAX_CATALOG_FILE;

/// The catalog folder's own files: a section file may not take their
/// names, nor their stems (`metadata.toml` would be read as a section
/// beside `metadata.json` and confuse whoever reads the folder).
const OWN_FILES: [&str; 7] = [
    TAGS_FILE,
    RANKING_FILE,
    LIST_FILE,
    REMOVED_FILE,
    INBOX_FILE,
    crate::model::metadata::CACHE_FILE,
    // `health::cache`'s, which imports the catalog (not the other way).
    "health.json",
];

/// Whether a section file named `stem`.toml would be one of the catalog's
/// own files or share a stem with one.
pub fn is_own_stem(stem: &str) -> bool {
    OWN_FILES
        .iter()
        .any(|own| own.split('.').next() == Some(stem))
}

/// Why `url` cannot be an entry's link (`check` wants http or https with a
/// host), if it cannot.
pub fn url_refusal(url: &str) -> Option<String> {
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => None,
        Ok(u) => Some(format!("{}: is not an http(s) URL", u.scheme())),
        Err(_) => Some("not an http(s) URL".into()),
    }
}

/// Why `year` cannot be an entry's, if it cannot (the range `check` has).
pub fn year_refusal(year: i64) -> Option<String> {
    let last = current_year() + 1;
    (!(MIN_YEAR..=last).contains(&year))
        .then(|| format!("year {year} is outside {MIN_YEAR}..{last}"))
}

/// The entry of `catalog`, other than `except`, whose link is the same page
/// as `url` (two entries may not share one).
pub fn url_owner<'c>(catalog: &'c Catalog, url: &str, except: &str) -> Option<&'c str> {
    let key = url_key(url);
    (catalog.entries.iter())
        .find(|e| e.id != except && url_key(&e.url) == key)
        .map(|e| e.id.as_str())
}

/// Refuses `writes` (path, whole new text) into the catalog folder `dir`
/// when a file would be larger than the loader reads, or when the catalog
/// they leave would have a problem that `check` reports and the catalog
/// has not now. Nothing is written either way: the caller writes after.
pub fn vet_writes(dir: &Path, writes: &[(PathBuf, String)]) -> Result<(), Error> {
    for (path, text) in writes {
        if text.len() as u64 > MAX_CATALOG_FILE {
            return Err(Error::Usage(format!(
                "{}: nothing written: it would hold {} MiB, more than the {} MiB a catalog file may",
                path.display(),
                text.len() >> 20,
                MAX_CATALOG_FILE >> 20
            )));
        }
    }
    // Problems are compared without their numbers: lines move when a file
    // is edited, and a problem the catalog already has is no new one.
    let shape = |message: &str| message.replace(|c: char| c.is_ascii_digit(), "");
    let mut known: HashMap<String, usize> = HashMap::new();
    for problem in problems(dir, &[])? {
        *known.entry(shape(&problem.message)).or_default() += 1;
    }
    let mut after = problems(dir, writes)?;
    after.sort();
    for problem in after {
        match known.get_mut(&shape(&problem.message)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                return Err(Error::Usage(format!(
                    "{problem}: nothing written, as `check` would refuse the catalog so written"
                )));
            }
        }
    }
    Ok(())
}

/// Every problem `check` would report of the folder with `writes` made.
fn problems(dir: &Path, writes: &[(PathBuf, String)]) -> Result<Vec<super::Problem>, Error> {
    let (catalog, mut problems) = load_dir_with(dir, writes)?;
    problems.extend(validate(&catalog, current_year()));
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_links_and_plausible_years_pass() {
        assert_eq!(url_refusal("https://example.org/a"), None);
        assert!(url_refusal("javascript:alert(1)").is_some());
        assert!(url_refusal("file:///etc/passwd").is_some());
        assert!(url_refusal("mailto:a@example.org").is_some());
        assert_eq!(year_refusal(2021), None);
        assert!(year_refusal(2099).is_some());
        assert!(year_refusal(1066).is_some());
    }

    #[test]
    fn own_files_are_known_by_stem() {
        for stem in [
            "tags", "inbox", "list", "removed", "ranking", "metadata", "health",
        ] {
            assert!(is_own_stem(stem), "{stem}");
        }
        assert!(!is_own_stem("papers"));
    }

    #[test]
    fn a_file_the_loader_would_not_read_is_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let huge = "#".repeat(MAX_CATALOG_FILE as usize + 1);
        let refused = vet_writes(dir.path(), &[(dir.path().join("s.toml"), huge)]).unwrap_err();
        assert!(
            refused.to_string().contains("more than the 64 MiB"),
            "{refused}"
        );
    }

    #[test]
    fn a_write_that_adds_a_problem_is_refused_and_one_that_keeps_them_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let tags = "[[tag]]\nid = \"t\"\nlabel = \"T\"\ndescription = \"d\"\n";
        std::fs::write(dir.path().join(TAGS_FILE), tags).unwrap();
        let section = |year: i64| {
            format!(
                "[section]\nname = \"S\"\norder = 1\n\n[[entry]]\nid = \"a\"\nkind = \"project\"\ntitle = \"A\"\nurl = \"https://example.org/a\"\nyear = {year}\ntags = [\"t\"]\nnote = \"n\"\n"
            )
        };
        let path = dir.path().join("s.toml");
        assert!(vet_writes(dir.path(), &[(path.clone(), section(2020))]).is_ok());
        let refused = vet_writes(dir.path(), &[(path.clone(), section(2999))]).unwrap_err();
        assert!(refused.to_string().contains("year 2999"), "{refused}");
        // A catalog that already has the problem may keep it.
        std::fs::write(&path, section(2998)).unwrap();
        assert!(vet_writes(dir.path(), &[(path, section(2999))]).is_ok());
    }
}
