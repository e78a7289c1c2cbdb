//! The arXiv Atom parser on arbitrary bodies.
#![no_main]

use distml_search::ingest::arxiv::parse_feed;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = parse_feed(&String::from_utf8_lossy(data));
});
