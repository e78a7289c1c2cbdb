//! `index` asks its sources at the same time, treats 404 and 410 as the same
//! definite miss for every source, and survives a closed stderr. The servers
//! are loopback stand-ins; every paper, id and DOI here is fictional.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use common::{Cmd, Fixture, TAGS};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

const SECTION: &str = "[section]\nname = \"Papers\"\norder = 1\n";

const LANES_ENTRY: &str = r#"
[[entry]]
id = "lanes-2015"
kind = "paper"
title = "A Fictional Rendezvous of Request Lanes"
url = "https://arxiv.org/abs/1412.99990"
authors = ["Ada Example"]
venue = "FICT"
year = 2015
arxiv = "1412.99990"
tags = ["pipeline-parallelism"]
note = "Fictional."
"#;

const QUEUES_ENTRY: &str = r#"
[[entry]]
id = "queues-2022"
kind = "paper"
title = "Imaginary Queues at Two Hosts"
url = "https://example.org/fictional/queues.pdf"
authors = ["Dan Invented"]
venue = "FICT"
year = 2022
doi = "10.1000/example.7"
tags = ["mixture-of-experts"]
note = "Fictional."
"#;

const ARXIV_FEED: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <id>https://arxiv.org/api/fixture</id>
  <title>arXiv Query</title>
  <updated>2026-11-30T00:00:00Z</updated>
  <entry>
    <id>http://arxiv.org/abs/1412.99990v1</id>
    <title>A Fictional Rendezvous of Request Lanes</title>
    <updated>2014-12-30T00:00:00Z</updated>
    <published>2014-12-30T00:00:00Z</published>
    <summary>Two imaginary services answer only together.</summary>
    <author><name>Ada Example</name></author>
    <category term="cs.DC" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>
"#;

fn crossref_work() -> String {
    serde_json::json!({
        "status": "ok", "message-type": "work",
        "message": {
            "DOI": "10.1000/example.7", "title": ["Imaginary Queues at Two Hosts"],
            "author": [{"given": "Dan", "family": "Invented"}],
            "published-print": {"date-parts": [[2022, 4, 2]]},
            "abstract": "<jats:p>Queues that wait for each other.</jats:p>"
        }
    })
    .to_string()
}

/// The first request of each of two servers waits until both have one.
#[derive(Default)]
struct Rendezvous {
    arrived: Mutex<u32>,
    both: Condvar,
}

impl Rendezvous {
    /// Whether the other server was asked within `bound` of this one.
    fn meet(&self, bound: Duration) -> bool {
        let mut arrived = self.arrived.lock().unwrap();
        *arrived += 1;
        self.both.notify_all();
        let (arrived, _) = self
            .both
            .wait_timeout_while(arrived, bound, |n| *n < 2)
            .unwrap();
        *arrived >= 2
    }
}

/// A loopback server whose first request answers `body` once the other
/// server has been asked too (else 400, which is not retried, so a run that
/// asks one host after the other ends with a failure instead of hanging).
/// Later requests get 404. Returns its base URL and whether it met.
fn rendezvous_server(rendezvous: Arc<Rendezvous>, body: String) -> (String, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let met = Arc::new(AtomicBool::new(false));
    let flag = met.clone();
    std::thread::spawn(move || {
        let mut first = true;
        for stream in listener.incoming().flatten() {
            read_head(&stream);
            let (status, body) = if std::mem::take(&mut first) {
                let together = rendezvous.meet(Duration::from_secs(10));
                flag.store(together, Ordering::SeqCst);
                if together {
                    ("200 OK", body.as_str())
                } else {
                    ("400 Bad Request", "asked alone")
                }
            } else {
                ("404 Not Found", "")
            };
            answer(stream, status, body);
        }
    });
    (base, met)
}

fn read_head(stream: &TcpStream) {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
        line.clear();
    }
}

fn answer(mut stream: TcpStream, status: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn fixture(entries: &[&str]) -> Fixture {
    let papers = format!("{SECTION}{}", entries.concat());
    Fixture::with_files(&[("tags.toml", TAGS), ("papers.toml", &papers)])
}

fn index_cmd(fixture: &Fixture, arxiv: &str, crossref: &str, openalex: &str) -> Cmd {
    fixture
        .cmd()
        .env_remove("DISTML_OFFLINE")
        .env("DISTML_ARXIV_API", arxiv)
        .env("DISTML_CROSSREF_API", crossref)
        .env("DISTML_OPENALEX_API", openalex)
        .env_remove("DISTML_OPENALEX_KEY")
        .env("DISTML_ARXIV_DELAY_MS", "0")
        .env("DISTML_HTTP_TIMEOUT_MS", "20000")
        .arg("index")
}

#[test]
fn arxiv_and_crossref_are_asked_at_the_same_time() {
    let rendezvous = Arc::new(Rendezvous::default());
    let (arxiv, arxiv_met) = rendezvous_server(rendezvous.clone(), ARXIV_FEED.to_string());
    let (crossref, crossref_met) = rendezvous_server(rendezvous, crossref_work());
    let fixture = fixture(&[LANES_ENTRY, QUEUES_ENTRY]);
    let run = index_cmd(
        &fixture,
        &format!("{arxiv}/api/query"),
        &crossref,
        &crossref,
    )
    .run()
    .success()
    .stdout_has("indexed 2 entries (2 with abstracts)");
    if !(arxiv_met.load(Ordering::SeqCst) && crossref_met.load(Ordering::SeqCst)) {
        run.fail("one source was asked only after the other had answered");
    }
    let cache: serde_json::Value = serde_json::from_str(&fixture.read("metadata.json")).unwrap();
    let entries = &cache["entries"];
    assert_eq!(entries["lanes-2015"]["abstract"]["source"], "arxiv");
    assert_eq!(
        entries["queues-2022"]["abstract"]["value"],
        "Queues that wait for each other."
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn gone_and_not_found_are_the_same_miss_for_every_source() {
    let server = MockServer::start().await;
    // Crossref does not know the DOI, arXiv's title search is gone, and so
    // is OpenAlex's work: misses to remember, not failures to report.
    Mock::given(path_regex("^/crossref/works/10\\.1000"))
        .respond_with(ResponseTemplate::new(410))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/arxiv"))
        .respond_with(ResponseTemplate::new(404).set_body_string("<html>gone</html>"))
        .mount(&server)
        .await;
    Mock::given(path_regex("^/openalex/"))
        .respond_with(ResponseTemplate::new(410).set_body_string("Gone"))
        .expect(1)
        .mount(&server)
        .await;
    let fixture = fixture(&[QUEUES_ENTRY]);
    let uri = server.uri();
    index_cmd(
        &fixture,
        &format!("{uri}/arxiv"),
        &format!("{uri}/crossref"),
        &format!("{uri}/openalex"),
    )
    .env("DISTML_OPENALEX_KEY", "test-key")
    .run()
    .success()
    .stderr_has("1 not found, 0 failed");
    let cache: serde_json::Value = serde_json::from_str(&fixture.read("metadata.json")).unwrap();
    let missed = &cache["entries"]["queues-2022"]["not_found"];
    for source in ["arxiv", "crossref", "openalex"] {
        assert!(missed[source].is_string(), "{source}: {missed}");
    }
}

#[test]
fn a_full_stderr_does_not_end_index() {
    let fixture = fixture(&[LANES_ENTRY, QUEUES_ENTRY]);
    // Nothing listens here: every source is unreachable, and the progress
    // lines and the warning all go to a stderr that refuses them.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = index_cmd(&fixture, &base, &base, &base)
        .into_command()
        .stderr(full)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("indexed 2 entries"), "{stdout}");
}
