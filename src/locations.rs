//! Where the catalog and the index are: flag, then environment variable (both
//! handled by clap), then `./catalog` and `./index`, else the catalog built
//! into the binary and an index in the user's cache folder.

use std::path::{Path, PathBuf};

use crate::catalog::{Catalog, Problem, SourceFile, load_dir, load_files};
use crate::error::Error;
use crate::fsutil::read_regular_file;
use crate::model::metadata::{CACHE_FILE, Cache};

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/builtin_catalog.rs"));
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogSource {
    Dir(PathBuf),
    BuiltIn,
}

#[derive(Debug, Clone)]
pub struct Locations {
    pub catalog: CatalogSource,
    pub index: PathBuf,
}

impl Locations {
    pub fn resolve(catalog: Option<PathBuf>, index: Option<PathBuf>) -> Locations {
        let catalog = match catalog {
            Some(dir) => CatalogSource::Dir(dir),
            None if Path::new("catalog").is_dir() => CatalogSource::Dir(PathBuf::from("catalog")),
            None => CatalogSource::BuiltIn,
        };
        let index = index.unwrap_or_else(|| match &catalog {
            CatalogSource::Dir(dir) if dir == Path::new("catalog") => PathBuf::from("index"),
            CatalogSource::Dir(dir) => dir
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .join("index"),
            CatalogSource::BuiltIn => dirs::cache_dir()
                .unwrap_or_else(std::env::temp_dir)
                .join("distml-search")
                .join(concat!("index-", env!("CARGO_PKG_VERSION"))),
        });
        Locations { catalog, index }
    }

    /// The catalog folder, for commands that write to it.
    pub fn catalog_dir(&self) -> Result<&Path, Error> {
        match &self.catalog {
            CatalogSource::Dir(dir) => Ok(dir),
            CatalogSource::BuiltIn => Err(Error::Usage(
                "no catalog folder here: pass --catalog DIR (or set DISTML_CATALOG)".into(),
            )),
        }
    }

    pub fn describe_catalog(&self) -> String {
        match &self.catalog {
            CatalogSource::Dir(dir) => dir.display().to_string(),
            CatalogSource::BuiltIn => "the built-in catalog".to_string(),
        }
    }

    /// Loads the catalog with its load-time problems (validation is separate).
    pub fn load_catalog(&self) -> Result<(Catalog, Vec<Problem>), Error> {
        match &self.catalog {
            CatalogSource::Dir(dir) => {
                if !dir.is_dir() {
                    return Err(Error::Usage(format!(
                        "catalog folder {} does not exist: pass --catalog DIR",
                        dir.display()
                    )));
                }
                load_dir(dir)
            }
            CatalogSource::BuiltIn => Ok(load_files(&builtin_files())),
        }
    }
}

impl Locations {
    /// Every file the index is built from, by name: the catalog's TOML files
    /// and the metadata cache.
    pub fn index_inputs(&self) -> Result<Vec<(String, Vec<u8>)>, Error> {
        match &self.catalog {
            CatalogSource::BuiltIn => Ok(builtin::BUILTIN_CATALOG
                .iter()
                .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
                .collect()),
            CatalogSource::Dir(dir) => {
                let mut inputs = Vec::new();
                let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
                for entry in entries.flatten() {
                    let path = entry.path();
                    let name = entry.file_name().to_string_lossy().into_owned();
                    // Exactly the files loading reads: a FIFO or a device
                    // among them would hang the fingerprint.
                    if (name.ends_with(".toml") || name == CACHE_FILE)
                        && let Some(bytes) = read_regular_file(&path)?
                    {
                        inputs.push((name, bytes));
                    }
                }
                Ok(inputs)
            }
        }
    }

    /// The metadata cache beside the catalog (empty when there is none).
    pub fn load_cache(&self) -> Result<Cache, Error> {
        match &self.catalog {
            CatalogSource::Dir(dir) => Cache::load(dir),
            CatalogSource::BuiltIn => match builtin_file(CACHE_FILE) {
                Some(text) => Cache::parse(text, Path::new("<built-in>/metadata.json")),
                None => Ok(Cache::default()),
            },
        }
    }
}

/// The shipped catalog's TOML files, named as if they were in `<built-in>/`.
pub fn builtin_files() -> Vec<SourceFile> {
    builtin::BUILTIN_CATALOG
        .iter()
        .filter(|(name, _)| name.ends_with(".toml"))
        .map(|(name, text)| SourceFile::new(Path::new("<built-in>").join(name), text.to_string()))
        .collect()
}

/// A built-in file's contents by name (such as `metadata.json`).
pub fn builtin_file(name: &str) -> Option<&'static str> {
    builtin::BUILTIN_CATALOG
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}
