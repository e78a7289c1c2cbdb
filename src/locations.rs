//! Where the catalog and the index are: flag, then environment variable (both
//! handled by clap), then `./catalog` and `./index`, else the catalog built
//! into the binary and an index in the user's cache folder.

use std::path::{Path, PathBuf};

use crate::catalog::builtin::{BUILTIN_CATALOG, builtin_file, builtin_files};
use crate::catalog::{Catalog, Problem, load_dir, load_files};
use crate::error::Error;
use crate::fsutil::read_regular_file;
use crate::model::metadata::{CACHE_FILE, Cache};

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
            CatalogSource::BuiltIn => {
                let user_metadata = match self.user_metadata() {
                    Some(path) => read_regular_file(&path)?,
                    None => None,
                };
                let mut inputs: Vec<(String, Vec<u8>)> = BUILTIN_CATALOG
                    .iter()
                    .filter(|(name, _)| user_metadata.is_none() || *name != CACHE_FILE)
                    .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
                    .collect();
                if let Some(bytes) = user_metadata {
                    inputs.push((CACHE_FILE.to_string(), bytes));
                }
                Ok(inputs)
            }
            CatalogSource::Dir(dir) => {
                let mut inputs = Vec::new();
                let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
                for entry in entries.flatten() {
                    let path = entry.path();
                    let name = entry.file_name().to_string_lossy().into_owned();
                    // Exactly the files loading reads: a FIFO or a device
                    // among them would hang the fingerprint.
                    let rejections = name == crate::catalog::INBOX_FILE;
                    if (name.ends_with(".toml") && !rejections || name == CACHE_FILE)
                        && let Some(bytes) = read_regular_file(&path)?
                    {
                        inputs.push((name, bytes));
                    }
                }
                Ok(inputs)
            }
        }
    }

    /// Where fetched metadata is kept: beside the catalog, or for the
    /// built-in catalog (which cannot be written) in the user's data folder
    /// (`$XDG_DATA_HOME/distml-search`), so that an installed binary fetches
    /// each abstract once.
    pub fn metadata_dir(&self) -> Option<PathBuf> {
        match &self.catalog {
            CatalogSource::Dir(dir) => Some(dir.clone()),
            CatalogSource::BuiltIn => dirs::data_dir().map(|d| d.join("distml-search")),
        }
    }

    /// The built-in catalog's metadata as this user last fetched it, if so.
    fn user_metadata(&self) -> Option<PathBuf> {
        match &self.catalog {
            CatalogSource::BuiltIn => self
                .metadata_dir()
                .map(|dir| Cache::path(&dir))
                .filter(|path| path.is_file()),
            CatalogSource::Dir(_) => None,
        }
    }

    /// The metadata cache beside the catalog (empty when there is none);
    /// for the built-in catalog, the user's copy once a fetch has made one
    /// (it starts from the built-in cache), else the built-in cache.
    pub fn load_cache(&self) -> Result<Cache, Error> {
        if let Some(path) = self.user_metadata() {
            return Cache::load(path.parent().unwrap_or(Path::new(".")));
        }
        match &self.catalog {
            CatalogSource::Dir(dir) => Cache::load(dir),
            CatalogSource::BuiltIn => match builtin_file(CACHE_FILE) {
                Some(text) => Cache::parse(text, Path::new("<built-in>/metadata.json")),
                None => Ok(Cache::default()),
            },
        }
    }
}
