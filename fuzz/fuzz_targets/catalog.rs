//! The catalog loader and validator on arbitrary section and vocabulary files.
#![no_main]

use distml_search::catalog::{SourceFile, load_files, validate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // Half the input is a section file, the other half the vocabulary.
    let split = text.char_indices().nth(text.chars().count() / 2).map_or(text.len(), |(i, _)| i);
    let files = [
        SourceFile::new("catalog/section.toml", text[..split].to_string()),
        SourceFile::new("catalog/tags.toml", text[split..].to_string()),
        SourceFile::new("catalog/whole.toml", text.to_string()),
    ];
    let (catalog, _problems) = load_files(&files);
    for problem in validate(&catalog, 2026) {
        let _ = problem.to_string();
    }
});
