//! The awesome-list importer, and exporting what it read.
#![no_main]

use distml_search::catalog::markdown::parse_list;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let list = parse_list(&text);
    let _ = list.entry_count();
});
