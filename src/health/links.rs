//! Link checks: a HEAD for each link, a GET when the server refuses the
//! HEAD (many answer 403, 405 or even 404 to one), redirects not followed.
//! The client keeps each host at two requests in flight and retries what
//! is transient; a host that cannot be connected to fails all its links at
//! once, with one request.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use url::Url;

use super::cache::{LinkResult, Verdict};
use crate::ingest::http::{FetchError, HttpClient, Probe, ProbeMethod, host_key, status_reason};

/// Links checked at once across all hosts; each host has its own, lower
/// limit in the client.
const IN_FLIGHT: usize = 16;

/// What one link came to on the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Checked {
    /// A server answered (or kept failing): a result to keep.
    Done(LinkResult),
    /// Connecting to the host failed. Dead, unless the whole network is.
    ConnectFailed { host: String, reason: String },
    /// The host was given up before this link was asked.
    Unchecked { host: String, reason: String },
}

/// Checks every link in `urls` (none twice), putting each one's outcome in
/// `out` as it arrives, so that a run stopped at its deadline keeps what
/// it learned.
pub(crate) async fn check_links(
    client: &HttpClient,
    urls: Vec<String>,
    now: &str,
    out: &mut BTreeMap<String, Checked>,
) {
    let gate = Arc::new(Semaphore::new(IN_FLIGHT));
    let mut tasks = JoinSet::new();
    for url in by_turns_of_host(urls) {
        let (client, gate, now) = (client.clone(), gate.clone(), now.to_owned());
        tasks.spawn(async move {
            let _permit = gate.acquire_owned().await;
            let checked = check_one(&client, &url, &now).await;
            (url, checked)
        });
    }
    while let Some(joined) = tasks.join_next().await {
        // A task only fails by panicking; its link stays unchecked.
        if let Ok((url, checked)) = joined {
            out.insert(url, checked);
        }
    }
}

/// The links one host at a time in turn (a link of each host, then a
/// second of each, ...): the gate is taken in this order, and a run of one
/// host's links would hold it all while that host serves two at a time.
fn by_turns_of_host(urls: Vec<String>) -> Vec<String> {
    let mut hosts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for url in urls {
        let host = Url::parse(&url)
            .ok()
            .and_then(|u| host_key(&u))
            .unwrap_or_default();
        hosts.entry(host).or_default().push(url);
    }
    let mut queues: Vec<std::vec::IntoIter<String>> =
        hosts.into_values().map(Vec::into_iter).collect();
    let mut ordered = Vec::new();
    loop {
        let before = ordered.len();
        ordered.extend(queues.iter_mut().filter_map(Iterator::next));
        if ordered.len() == before {
            return ordered;
        }
    }
}

async fn check_one(client: &HttpClient, url: &str, now: &str) -> Checked {
    let parsed = match Url::parse(url) {
        Ok(parsed) => parsed,
        Err(e) => return Checked::Done(dead(now, None, format!("not a URL: {e}"))),
    };
    let answer = match client.probe(ProbeMethod::Head, &parsed).await {
        Ok(probe) if probe.status >= 400 => client.probe(ProbeMethod::Get, &parsed).await,
        other => other,
    };
    classify(&parsed, answer, now)
}

/// The one decision of what a probe's answer means for a link.
pub(crate) fn classify(url: &Url, answer: Result<Probe, FetchError>, now: &str) -> Checked {
    let result = |verdict, status, location, detail| LinkResult {
        checked_at: now.to_owned(),
        verdict,
        status,
        location,
        detail,
    };
    match answer {
        Ok(Probe { status, location }) => match status {
            // Permanent: the catalog should say where the page is now.
            301 | 308 => {
                let location = location.and_then(|l| url.join(&l).ok()).map(String::from);
                Checked::Done(result(Verdict::Moved, Some(status), location, None))
            }
            400.. => Checked::Done(dead(now, Some(status), status_reason(status))),
            // 2xx, and temporary redirects (302, 303, 307), which are not followed.
            _ => Checked::Done(result(Verdict::Ok, Some(status), None, None)),
        },
        Err(FetchError::HostUnreachable {
            host,
            reason,
            connect_failed,
            ..
        }) => {
            if connect_failed {
                Checked::ConnectFailed { host, reason }
            } else {
                Checked::Unchecked { host, reason }
            }
        }
        Err(FetchError::Exhausted {
            attempts, reason, ..
        }) => Checked::Done(dead(now, None, format!("{reason} ({attempts} attempts)"))),
        Err(other) => Checked::Done(dead(now, None, other.to_string())),
    }
}

fn dead(now: &str, status: Option<u16>, detail: String) -> LinkResult {
    LinkResult {
        checked_at: now.to_owned(),
        verdict: Verdict::Dead,
        status,
        location: None,
        detail: Some(detail),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(status: u16, location: Option<&str>) -> Result<Probe, FetchError> {
        Ok(Probe {
            status,
            location: location.map(str::to_owned),
        })
    }

    fn verdict(answer: Result<Probe, FetchError>) -> (Verdict, Option<String>) {
        let url = Url::parse("http://h.example/a/b").unwrap();
        match classify(&url, answer, "t") {
            Checked::Done(r) => (r.verdict, r.location.or(r.detail)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hosts_take_turns() {
        let urls = [
            "http://a.example/1",
            "http://a.example/2",
            "http://a.example/3",
            "http://b.example/1",
            "http://c.example/1",
        ];
        let ordered = by_turns_of_host(urls.iter().map(|u| u.to_string()).collect());
        assert_eq!(
            ordered,
            [
                "http://a.example/1",
                "http://b.example/1",
                "http://c.example/1",
                "http://a.example/2",
                "http://a.example/3"
            ]
        );
    }

    #[test]
    fn permanent_redirects_are_reported_with_an_absolute_location() {
        assert_eq!(
            verdict(probe(301, Some("/c"))),
            (Verdict::Moved, Some("http://h.example/c".into()))
        );
        assert_eq!(
            verdict(probe(308, Some("https://n.example/"))),
            (Verdict::Moved, Some("https://n.example/".into()))
        );
    }

    #[test]
    fn temporary_redirects_and_successes_are_fine() {
        for status in [200, 204, 302, 303, 307] {
            assert_eq!(verdict(probe(status, Some("/x"))), (Verdict::Ok, None));
        }
    }

    #[test]
    fn client_errors_are_dead_with_their_reason() {
        assert_eq!(
            verdict(probe(404, None)),
            (Verdict::Dead, Some("HTTP 404 Not Found".into()))
        );
        let exhausted = Err(FetchError::Exhausted {
            url: "u".into(),
            attempts: 3,
            reason: "HTTP 500 Internal Server Error".into(),
        });
        assert_eq!(
            verdict(exhausted),
            (
                Verdict::Dead,
                Some("HTTP 500 Internal Server Error (3 attempts)".into())
            )
        );
    }
}
