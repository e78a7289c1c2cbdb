//! The conversation with the OAI-PMH server for one set: the first request,
//! then the resumption tokens until the list ends. Politeness, retries,
//! `Retry-After` and the per-host failure budget are the HTTP client's.

use std::time::Duration;

use url::Url;

use super::guard::LoopGuard;
use super::oai::{ErrorCode, Page, first_url, parse_list_records, resume_url};
use super::store::Run;
use crate::error::Error;
use crate::ingest::http::{HostPolicy, HttpClient, HttpConfig, host_key};

/// How often an expired token may send the list back to its start: a
/// server whose tokens always expire must not keep a harvest forever.
const MAX_RESTARTS: u32 = 3;

pub struct Endpoint {
    client: HttpClient,
    base: Url,
}

impl Endpoint {
    /// A client that sends `base` one request at a time, `delay` apart.
    pub fn new(base: Url, http: HttpConfig, delay: Duration) -> Result<Endpoint, Error> {
        let client = HttpClient::new(http)?;
        if let Some(host) = host_key(&base) {
            client.set_policy(
                &host,
                HostPolicy {
                    max_concurrent: 1,
                    min_interval: delay,
                },
            );
        }
        Ok(Endpoint { client, base })
    }

    /// Requests sent, retries included.
    pub fn requests(&self) -> u64 {
        self.client.requests_made()
    }
}

/// Lists the records of `run` page by page, from its token if it has one,
/// calling `on_page` after `run` has moved past each page (its token is the
/// next page's, or `None` after the last). A `noRecordsMatch` is an empty
/// list; an expired token (`badResumptionToken`) asks for the list again
/// from the run's start, which the caller's duplicate check makes safe.
///
/// A list that goes round (a token again, or pages of nothing new) is an
/// error after its page is stored; the run is left without a token, so the
/// next harvest asks for its window again rather than for the loop.
pub async fn list_records(
    endpoint: &Endpoint,
    run: &mut Run,
    on_page: &mut dyn FnMut(&Page, &mut Run) -> Result<(), Error>,
    note: &mut dyn FnMut(String),
) -> Result<(), Error> {
    let mut restarts = 0;
    let mut guard = LoopGuard::default();
    loop {
        let url = match &run.token {
            Some(token) => resume_url(&endpoint.base, token),
            None => first_url(
                &endpoint.base,
                &run.set,
                run.from.as_deref(),
                run.until.as_deref(),
            ),
        };
        let response = endpoint.client.get(&url).await?;
        if !(200..300).contains(&response.status) {
            return Err(Error::OaiStatus {
                url: url.to_string(),
                status: response.status,
            });
        }
        match parse_list_records(&response.body) {
            Ok(page) => {
                let looping = guard.check(&page);
                run.token = match looping {
                    Some(_) => None,
                    None => page.next_token().map(str::to_string),
                };
                run.pages += 1;
                on_page(&page, run)?;
                if let Some(why) = looping {
                    return Err(Error::Usage(format!(
                        "harvest: the list of set {} at {} goes round ({why}); what was harvested is kept, and the next `distml-search harvest` asks for the set again from {}",
                        run.set,
                        endpoint.base,
                        run.from.as_deref().unwrap_or("its first record")
                    )));
                }
                if run.token.is_none() {
                    return Ok(());
                }
            }
            Err(e) if e.has(&ErrorCode::NoRecordsMatch) => {
                run.token = None;
                return Ok(());
            }
            Err(e)
                if e.has(&ErrorCode::BadResumptionToken)
                    && run.token.is_some()
                    && restarts < MAX_RESTARTS =>
            {
                restarts += 1;
                guard = LoopGuard::default();
                note(format!(
                    "the server no longer knows the resumption token (it expired?); asking for set {} again from {}",
                    run.set,
                    run.from.as_deref().unwrap_or("its first record")
                ));
                run.token = None;
            }
            Err(e) => return Err(Error::Usage(format!("GET {url}: {e}"))),
        }
    }
}
