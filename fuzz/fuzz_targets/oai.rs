//! The OAI-PMH `ListRecords` parser on arbitrary pages, and what the
//! harvest asks of each page: the next token and each record's arXiv id.
#![no_main]

use distml_search::harvest::oai::parse_list_records;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match parse_list_records(&String::from_utf8_lossy(data)) {
        Ok(page) => {
            let _ = page.next_token();
            for record in &page.records {
                let _ = record.arxiv_id();
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
