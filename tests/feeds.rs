//! `serve`'s Atom feeds read by a real feed parser: Python's `feedparser`
//! parses each with no bozo flag (not well-formed XML, or not Atom as it
//! reads it), and finds the ids, dates, links and text the contracts say.
//! They pass the same guard as every answer.
//!
//! Without python3 and feedparser a test says why and passes, unless
//! `CI=true`: there it must run (`.ci/run` installs feedparser with pip).

mod common;

use std::process::Command;

use common::{Fixture, HOSTILE_RECORD_TITLE, Server, inbox_stream};
use serde_json::Value;

/// Reads each feed with feedparser, as JSON: the bozo flag and its
/// exception, the version, the feed's id, title, updated and links, and
/// each entry's id, title, updated, links, authors, tags and summary.
const READ: &str = r#"
import json, sys, feedparser
out = []
for path in sys.argv[1:]:
    d = feedparser.parse(open(path, 'rb').read())
    links = lambda x: [{'rel': l.get('rel'), 'href': l.get('href'), 'type': l.get('type')} for l in x.get('links', [])]
    out.append({
        'bozo': bool(d.bozo),
        'exception': str(d.get('bozo_exception', '')),
        'version': d.version,
        'feed': {'id': d.feed.get('id'), 'title': d.feed.get('title'),
                 'updated': d.feed.get('updated'), 'links': links(d.feed)},
        'entries': [{'id': e.get('id'), 'title': e.get('title'), 'updated': e.get('updated'),
                     'updated_parsed': list(e.updated_parsed[:6]) if e.get('updated_parsed') else None,
                     'link': e.get('link'), 'links': links(e),
                     'authors': [a.get('name') for a in e.get('authors', [])],
                     'tags': [t.get('term') for t in e.get('tags', [])],
                     'summary': e.get('summary')} for e in d.entries],
    })
print(json.dumps(out))
"#;

/// Whether feedparser can be run; else the test is skipped, or fails
/// under CI.
fn feedparser_installed() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import feedparser"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return true;
    }
    let under_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !under_ci,
        "CI=true but python3's feedparser is missing: pip install feedparser"
    );
    eprintln!("skipped: python3's feedparser is not installed (pip install feedparser)");
    false
}

/// `feeds` as feedparser reads them.
fn parse(feeds: &[&str]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (i, xml) in feeds.iter().enumerate() {
        let path = dir.path().join(format!("{i}.atom"));
        std::fs::write(&path, xml).unwrap();
        paths.push(path);
    }
    let output = Command::new("python3")
        .arg("-c")
        .arg(READ)
        .args(&paths)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// An HTTP client (reqwest, as the crate builds it).
fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// `GET url`: the feed's text, checked to be Atom with the security
/// headers of every answer.
async fn feed(url: &str) -> String {
    let response = http().get(url).send().await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    let headers = response.headers().clone();
    assert_eq!(
        headers["content-type"], "application/atom+xml; charset=utf-8",
        "{url}"
    );
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["x-frame-options"], "DENY");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .starts_with("default-src 'none'")
    );
    response.text().await.unwrap()
}

/// A fixture whose watches were added before the inbox's stream was
/// imported, and a server on it.
fn served() -> (Fixture, Server) {
    let fixture = Fixture::hostile();
    fixture
        .run(["watch", "add", "pipes", "pipelines"])
        .success();
    fixture
        .run(["watch", "add", "experts", "--tag", "moe"])
        .success();
    fixture
        .run([
            "watch",
            "add",
            "routing",
            "--like",
            "snarkshard-2023",
            "--min-similarity",
            "0.5",
        ])
        .success();
    fixture.import_snapshot(&inbox_stream());
    let server = Server::start(&fixture, &[]);
    (fixture, server)
}

fn ids(parsed: &Value) -> Vec<&str> {
    (parsed["entries"].as_array().unwrap().iter())
        .map(|e| e["id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn every_feed_parses_with_no_bozo_flag_newest_first() {
    if !feedparser_installed() {
        return;
    }
    let (_fixture, server) = served();
    let paths = [
        "/feed/search.atom?q=pipelines",
        "/feed/search.atom?tag=moe&collection=arxiv",
        "/feed/search.atom",
        "/feed/watch/pipes.atom",
        "/feed/watch/experts.atom",
        "/feed/watch/routing.atom",
        "/feed/inbox.atom",
    ];
    let mut texts = Vec::new();
    for path in paths {
        texts.push(feed(&server.url(path)).await);
    }
    let parsed = parse(&texts.iter().map(String::as_str).collect::<Vec<_>>());
    for (path, feed) in paths.iter().zip(&parsed) {
        assert_eq!(feed["bozo"], false, "{path}: {}", feed["exception"]);
        assert_eq!(feed["version"], "atom10", "{path}");
        assert!(
            feed["feed"]["id"]
                .as_str()
                .unwrap()
                .starts_with("urn:distml-search:feed:")
        );
        let links = feed["feed"]["links"].as_array().unwrap();
        assert!(
            links
                .iter()
                .any(|l| l["rel"] == "self" && l["href"] == server.url(path)),
            "{path}: {links:?}"
        );
        let entries = feed["entries"].as_array().unwrap();
        // Newest first.
        let days: Vec<&Value> = entries.iter().map(|e| &e["updated_parsed"]).collect();
        let sorted = {
            let mut days = days.clone();
            days.sort_by_key(|d| std::cmp::Reverse(d.to_string()));
            days
        };
        assert_eq!(days, sorted, "{path}");
        for entry in entries {
            let id = entry["id"].as_str().unwrap();
            let record = id.strip_prefix("urn:distml-search:entry:").unwrap();
            assert!(entry["updated_parsed"].is_array(), "{path}: {entry}");
            let view = format!(
                "{}?{}",
                server.base,
                url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("entry", record)
                    .finish()
            );
            assert_eq!(entry["link"], view.as_str(), "{path}");
            let related: Vec<&Value> = (entry["links"].as_array().unwrap().iter())
                .filter(|l| l["rel"] == "related")
                .collect();
            assert_eq!(related.len(), 1, "{path}: {entry}");
        }
    }
    assert_eq!(
        ids(&parsed[0]),
        [
            "urn:distml-search:entry:arxiv:1412.99983",
            "urn:distml-search:entry:hostile-2022",
            "urn:distml-search:entry:wobble-2021",
        ]
    );
    assert_eq!(
        ids(&parsed[1]),
        [
            "urn:distml-search:entry:arxiv:1412.99984",
            "urn:distml-search:entry:arxiv:1412.99987",
        ]
    );
    // A watch's feed holds what entered the index since it was added.
    assert_eq!(
        ids(&parsed[3]),
        ["urn:distml-search:entry:arxiv:1412.99983"]
    );
    assert_eq!(ids(&parsed[4]), ids(&parsed[1]));
    assert!(ids(&parsed[5]).contains(&"urn:distml-search:entry:arxiv:1412.99984"));
    assert!(!ids(&parsed[5]).contains(&"urn:distml-search:entry:arxiv:1412.99985"));
    assert_eq!(ids(&parsed[6]).len(), 4);

    // The record is shown as it is, markup as text.
    let first = &parsed[0]["entries"][0];
    assert_eq!(
        first["title"],
        "Glorp: Pipeline Parallelism with Fewer Bubbles on Pretend Accelerators"
    );
    assert_eq!(first["updated"], "2026-10-02T00:00:00Z");
    assert_eq!(
        first["authors"],
        serde_json::json!(["Dora Fictive", "Eli Madeup"])
    );
    assert_eq!(
        first["links"][1]["href"], "https://arxiv.org/abs/1412.99983",
        "the paper"
    );
    assert!(texts[4].contains(&format!(
        "<title>{}</title>",
        HOSTILE_RECORD_TITLE.replace('<', "&lt;").replace('>', "&gt;")
    )));
    let inbox = &parsed[6]["entries"].as_array().unwrap();
    assert!(
        inbox
            .iter()
            .all(|e| e["summary"].as_str().unwrap().starts_with("Score ")),
        "{inbox:?}"
    );
}

#[tokio::test]
async fn ids_and_dates_are_the_same_in_every_run() {
    if !feedparser_installed() {
        return;
    }
    let (fixture, server) = served();
    let path = "/feed/search.atom?collection=arxiv&q=experts";
    let before = feed(&server.url(path)).await;
    drop(server);
    // Another server, and the index rebuilt in place by a catalog edit.
    let edited = fixture.read("invented-systems.toml").replace(
        "Streams pretend micro-batches",
        "Streams make-believe micro-batches",
    );
    fixture.write("invented-systems.toml", &edited);
    let server = Server::start(&fixture, &[]);
    let after = feed(&server.url(path)).await;
    let parsed = parse(&[&before, &after]);
    let summary = |feed: &Value| -> Vec<(String, String)> {
        (feed["entries"].as_array().unwrap().iter())
            .map(|e| (e["id"].to_string(), e["updated"].to_string()))
            .collect()
    };
    assert!(!summary(&parsed[0]).is_empty());
    assert_eq!(summary(&parsed[0]), summary(&parsed[1]));
    assert_eq!(parsed[0]["feed"]["id"], parsed[1]["feed"]["id"]);
    assert_eq!(parsed[0]["feed"]["updated"], parsed[1]["feed"]["updated"]);
    // The same search in another order is the same feed.
    let reordered = feed(&server.url("/feed/search.atom?q=experts&collection=arxiv&limit=5")).await;
    assert_eq!(
        parse(&[&reordered])[0]["feed"]["id"],
        parsed[1]["feed"]["id"]
    );
}

#[tokio::test]
async fn feeds_pass_the_guard_and_say_what_is_wrong() {
    let (_fixture, server) = served();
    let (status, body) = server.get_with_host("/feed/inbox.atom", "evil.example");
    assert_eq!(status, 403, "{body}");
    let (status, body) = server.raw(&format!(
        "POST /feed/search.atom HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        server.port
    ));
    assert_eq!(status, 405, "{body}");
    let (status, body) = server.raw(&format!(
        "HEAD /feed/watch/pipes.atom HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
        server.port
    ));
    assert_eq!((status, body.as_str()), (200, ""));
    for (path, status, message) in [
        (
            "/feed/watch/nope.atom",
            404,
            "no watch named `nope` (watches: experts, pipes, routing)",
        ),
        (
            "/feed/watch/pipes",
            404,
            "no such feed: a watch's feed is /feed/watch/NAME.atom, not /feed/watch/pipes",
        ),
        (
            "/feed/search.atom?tag=no-such-tag",
            400,
            "--tag no-such-tag: ",
        ),
        (
            "/feed/search.atom?colour=red",
            400,
            "unknown parameter `colour`",
        ),
        (
            "/feed/inbox.atom?limit=0",
            400,
            "invalid value '0' for '--limit <N>'",
        ),
    ] {
        let response = http().get(server.url(path)).send().await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{path}");
        assert_eq!(response.headers()["content-type"], "application/json");
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert!(
            body["error"].as_str().unwrap().contains(message),
            "{path}: {body}"
        );
    }
}
