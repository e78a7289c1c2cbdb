//! The environment variables the program reads, each declared once: the
//! code reads them by these names (clap's `env` for the ones a flag also
//! sets), and the man page's ENVIRONMENT section lists this table.

macro_rules! variables {
    ($($(#[doc = $doc:literal])* $constant:ident = $name:literal: $meaning:literal;)+) => {
        $( $(#[doc = $doc])* pub const $constant: &str = $name; )+

        /// Every variable and what it sets, in the man page's order.
        pub const VARIABLES: &[(&str, &str)] = &[$(($name, $meaning)),+];
    };
}

variables! {
    CATALOG = "DISTML_CATALOG": "the catalog folder (as --catalog)";
    INDEX = "DISTML_INDEX": "the index folder (as --index)";
    OFFLINE = "DISTML_OFFLINE": "index without fetching metadata (as index --offline)";
    MODE = "DISTML_MODE": "how results are ranked: keyword, semantic or hybrid (as --mode)";
    ARXIV_API = "DISTML_ARXIV_API": "arXiv's query API";
    OAI_API = "DISTML_OAI_API": "arXiv's OAI-PMH interface, for harvest";
    CROSSREF_API = "DISTML_CROSSREF_API": "Crossref's API";
    OPENALEX_API = "DISTML_OPENALEX_API": "OpenAlex's API";
    OPENALEX_KEY = "DISTML_OPENALEX_KEY": "an OpenAlex API key; without one OpenAlex is skipped";
    ARXIV_DELAY_MS = "DISTML_ARXIV_DELAY_MS": "milliseconds between requests to arXiv (3000)";
    HTTP_TIMEOUT_MS = "DISTML_HTTP_TIMEOUT_MS": "the timeout of one HTTP request";
    INGEST_DEADLINE_S = "DISTML_INGEST_DEADLINE_S": "the longest a metadata fetch runs (1800)";
    HARVEST_DEADLINE_S = "DISTML_HARVEST_DEADLINE_S": "the longest a harvest runs (14400); the next resumes it";
    CHECK_TTL_H = "DISTML_CHECK_TTL_H": "hours check --online trusts a result (168; 0 asks again)";
    CHECK_DEADLINE_S = "DISTML_CHECK_DEADLINE_S": "the longest check --online runs (600)";
    SERVE_MAX_CONNECTIONS = "DISTML_SERVE_MAX_CONNECTIONS": "serve: connections open at once (256; as --max-connections)";
    SERVE_MAX_REQUESTS = "DISTML_SERVE_MAX_REQUESTS": "serve: requests answered at once, more get 503 (64; as --max-requests)";
    SERVE_MAX_LIMIT = "DISTML_SERVE_MAX_LIMIT": "serve: hits in one answer (1000; as --max-limit)";
    SERVE_IDLE_TIMEOUT_MS = "DISTML_SERVE_IDLE_TIMEOUT_MS": "serve: milliseconds a connection may idle or leave an answer unread (10000; as --idle-timeout-ms)";
    MAILTO = "DISTML_MAILTO": "a contact address sent to the APIs' polite pools";
}
