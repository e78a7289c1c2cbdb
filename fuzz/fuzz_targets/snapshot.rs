//! The arXiv snapshot line parser on arbitrary lines.
#![no_main]

use distml_search::snapshot::parse_line;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for line in String::from_utf8_lossy(data).lines() {
        let _ = parse_line(line);
    }
});
