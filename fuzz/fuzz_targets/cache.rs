//! The metadata cache reader, and writing back what it read.
#![no_main]

use std::path::Path;

use distml_search::model::metadata::Cache;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(cache) = Cache::parse(&String::from_utf8_lossy(data), Path::new("metadata.json")) {
        let text = cache.to_json();
        let again = Cache::parse(&text, Path::new("metadata.json")).expect("written cache reads back");
        assert_eq!(again.to_json(), text);
    }
});
