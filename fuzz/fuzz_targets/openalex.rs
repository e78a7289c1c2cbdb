//! The OpenAlex parsers (inverted-index abstracts) on arbitrary bodies.
#![no_main]

use distml_search::ingest::openalex::parse_work;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let body = String::from_utf8_lossy(data);
    let _ = parse_work(&body);
});
