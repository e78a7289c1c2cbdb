//! `serve`: the JSON API answers as the CLI does (hits as `search --json`,
//! entries as `show --json`, the same messages), counts every match by
//! facet, refuses other hosts, methods and oversized requests, and serves
//! many clients at once. Run against the spawned binary with a real HTTP
//! client (reqwest) and, where the request itself is the test, raw TCP.

mod common;

use common::{Fixture, Server};
use serde_json::{Value, json};

/// An HTTP client (reqwest, as the crate builds it: rustls with ring,
/// installed once though only plain HTTP is spoken here).
fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// `GET url`: status and body as JSON.
async fn get(url: &str) -> (u16, Value) {
    let response = http().get(url).send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{url}: {e}: {text}"));
    (status, value)
}

/// The CLI's message for `args`: its stderr without the prefix.
fn cli_error(fixture: &Fixture, args: &[&str]) -> String {
    let run = fixture.cmd().args(args).run().code(2);
    run.stderr()
        .trim_end()
        .strip_prefix("distml-search: error: ")
        .unwrap_or_else(|| panic!("stderr {:?}", run.stderr()))
        .to_string()
}

#[test]
fn the_first_line_says_where_it_listens_on_loopback() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    assert_eq!(server.base, format!("http://127.0.0.1:{}/", server.port));
    assert_ne!(server.port, 0);
}

#[test]
fn a_port_in_use_is_one_line_that_says_what_to_do() {
    let fixture = Fixture::hostile();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    fixture
        .run(["serve", "--port", &port])
        .code(2)
        .stdout_is("")
        .stderr_has(&format!(
            "distml-search: error: cannot listen on 127.0.0.1:{port}: "
        ))
        .stderr_has("(another port, or --port 0 for any free one)");
}

#[tokio::test]
async fn search_answers_the_hits_of_search_json_with_every_match_counted() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    let (status, body) = get(&server.url("/api/search?q=pipelines&limit=1")).await;
    assert_eq!(status, 200);
    let cli = fixture
        .run(["search", "--json", "-n", "1", "pipelines"])
        .success()
        .json_lines();
    assert_eq!(body["hits"], Value::Array(cli));
    let mut rest = body.clone();
    rest.as_object_mut().unwrap().remove("hits");
    assert_eq!(
        rest,
        json!({
            "total": 2,
            "more": true,
            "notes": [],
            "techniques": [],
            "facets": {
                "tag": [{"value": "pipeline-parallelism", "count": 2}],
                "section": [
                    {"value": "Hostile Data", "count": 1},
                    {"value": "Invented Systems", "count": 1},
                ],
                "year": [{"value": 2021, "count": 1}, {"value": 2022, "count": 1}],
                "venue": [{"value": "FICT", "count": 2}],
                "kind": [{"value": "paper", "count": 2}],
                "collection": [{"value": "catalog", "count": 2}],
                "about": [{"value": "pipeline-parallelism", "count": 2}],
            },
        })
    );
    // The tags a query names, for the page's tag filter to show first.
    let (_, named) = get(&server.url("/api/search?q=pipeline+bubble+allreduce")).await;
    assert_eq!(
        named["techniques"],
        json!(["pipeline-parallelism", "collective-communication"])
    );
}

#[tokio::test]
async fn filters_alone_browse_and_narrow_as_the_flags_do() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    let (_, body) = get(&server.url("/api/search?section=Invented+Systems&kind=paper")).await;
    let cli = fixture
        .run([
            "search",
            "--json",
            "--section",
            "Invented Systems",
            "--kind",
            "paper",
        ])
        .success()
        .json_lines();
    assert_eq!(body["hits"], Value::Array(cli));
    assert_eq!(body["total"], 2);
    assert_eq!(
        body["facets"]["year"],
        json!([{"value": 2021, "count": 1}, {"value": 2023, "count": 1}])
    );
    // Nothing at all lists everything, with its counts: the page's start.
    let (status, all) = get(&server.url("/api/search")).await;
    assert_eq!(status, 200);
    assert_eq!(all["total"], 4);
    assert_eq!(
        all["facets"]["kind"],
        json!([{"value": "paper", "count": 3}, {"value": "project", "count": 1}])
    );
    let (_, tagged) = get(&server.url("/api/search?q=pretend&tag=moe&year=2020..2023")).await;
    let cli = fixture
        .run([
            "search",
            "--json",
            "pretend",
            "--tag",
            "moe",
            "--year",
            "2020..2023",
        ])
        .success()
        .json_lines();
    assert_eq!(tagged["hits"], Value::Array(cli));
}

#[tokio::test]
async fn a_bad_query_or_filter_is_400_with_the_clis_message() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    for (query, args) in [
        ("q=year%3Asoon", vec!["search", "year:soon"]),
        ("q=the+of+and", vec!["search", "the of and"]),
        ("tag=nonsense", vec!["search", "--tag", "nonsense"]),
        ("section=Nowhere", vec!["search", "--section", "Nowhere"]),
    ] {
        let (status, body) = get(&server.url(&format!("/api/search?{query}"))).await;
        assert_eq!(
            body,
            json!({"error": cli_error(&fixture, &args), "status": 400}),
            "{query}"
        );
        assert_eq!(status, 400);
    }
    let (status, body) = get(&server.url("/api/search?q=x&limit=0")).await;
    assert_eq!(
        (status, body),
        (
            400,
            json!({"error": "invalid value '0' for '--limit <N>': expected 1 to 10000", "status": 400})
        )
    );
    let (status, body) = get(&server.url("/api/search?q=x&color=red")).await;
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("unknown parameter `color`")
    );
}

#[tokio::test]
async fn entry_is_show_json_with_its_bibtex_and_similar_is_similar_json() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    let (status, entry) = get(&server.url("/api/entry/wobble-2021")).await;
    assert_eq!(status, 200);
    let mut shown = fixture
        .run(["show", "--json", "wobble-2021"])
        .success()
        .json();
    let bibtex = fixture
        .run(["search", "id:wobble-2021", "--format", "bibtex"])
        .success()
        .stdout()
        .to_string();
    shown["bibtex"] = json!(bibtex);
    assert_eq!(entry, shown);
    // By identifier too, as `show arxiv:ID` finds it.
    let (_, by_arxiv) = get(&server.url("/api/entry/arxiv:1412.99990")).await;
    assert_eq!(by_arxiv["id"], "wobble-2021");

    let (status, similar) = get(&server.url("/api/similar/wobble-2021?limit=2")).await;
    assert_eq!(status, 200);
    let cli = fixture
        .run(["similar", "--json", "-n", "2", "wobble-2021"])
        .success()
        .json_lines();
    assert_eq!(similar, json!({ "hits": cli }));

    for (path, args) in [
        ("/api/entry/wobbel-2021", vec!["show", "wobbel-2021"]),
        ("/api/similar/wobbel-2021", vec!["similar", "wobbel-2021"]),
    ] {
        let (status, body) = get(&server.url(path)).await;
        assert_eq!(
            (status, body),
            (
                404,
                json!({"error": cli_error(&fixture, &args), "status": 404})
            )
        );
    }
}

#[test]
fn a_host_that_is_not_a_loopback_name_is_refused() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    let port = server.port;
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        format!("localhost.evil.example:{port}"),
        format!("localhost:{}", port.wrapping_add(1)),
        format!("192.168.1.5:{port}"),
    ] {
        let (status, body) = server.get_with_host("/api/search?q=pipelines", &host);
        assert_eq!(status, 403, "{host}");
        assert!(body.contains("is not this machine"), "{body}");
    }
    let (status, _) = server.raw("GET / HTTP/1.0\r\n\r\n");
    assert_eq!(status, 403, "no Host at all");
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "localhost".to_string(),
    ] {
        let (status, _) = server.get_with_host("/api/search?q=pipelines", &host);
        assert_eq!(status, 200, "{host}");
    }
}

#[test]
fn only_get_and_head_and_bounded_requests_are_served() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    let host = format!("127.0.0.1:{}", server.port);
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        let (status, body) = server.raw(&format!(
            "{method} /api/search?q=x HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ));
        assert_eq!(status, 405, "{method}: {body}");
    }
    let (status, body) = server.raw(&format!(
        "HEAD /api/search?q=pipelines HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    ));
    assert_eq!((status, body.as_str()), (200, ""));
    let (status, _) = server.raw(&format!(
        "GET /api/search?q=x HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
    ));
    assert_eq!(status, 413, "a body");
    let long = format!("/api/search?q={}", "a".repeat(40_000));
    assert_eq!(server.get_with_host(&long, &host).0, 414);
    let (status, body) =
        server.get_with_host(&format!("/api/search?q={}", "a".repeat(4097)), &host);
    assert_eq!(status, 400);
    assert_eq!(
        body,
        r#"{"error":"the query is longer than 4096 characters: shorten it","status":400}"#
    );
}

#[tokio::test]
async fn no_cross_origin_access_and_the_page_is_self_contained() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    let client = http();
    let response = client
        .get(server.url("/api/search?q=pipelines"))
        .header("Origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert!(
        !headers
            .keys()
            .any(|name| name.as_str().starts_with("access-control-")),
        "{headers:?}"
    );
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .starts_with("default-src 'none'; script-src 'self';")
    );
    let page = client.get(server.url("/?q=anything")).send().await.unwrap();
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    let page = page.text().await.unwrap();
    assert!(page.contains(r#"<script src="/assets/app.js" defer></script>"#));
    for asset in ["/assets/app.js", "/assets/style.css"] {
        let response = client.get(server.url(asset)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{asset}");
        let text = response.text().await.unwrap();
        // Nothing loaded from elsewhere, and no data parsed as markup.
        for forbidden in [
            "src=\"http",
            "url(http",
            "@import",
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
        ] {
            assert!(!text.contains(forbidden), "{asset} has {forbidden}");
        }
    }
    let (status, body) = get(&server.url("/assets/missing.js")).await;
    assert_eq!((status, body["status"].clone()), (404, json!(404)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_clients_at_once_get_the_same_answers() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    let urls = [
        server.url("/api/search?q=pipelines"),
        server.url("/api/search?tag=moe"),
        server.url("/api/entry/gizmo"),
        server.url("/api/similar/snarkshard-2023"),
    ];
    let mut expected = Vec::new();
    for url in &urls {
        expected.push(get(url).await);
    }
    let mut tasks = Vec::new();
    for n in 0..64 {
        let urls = urls.clone();
        tasks.push(tokio::spawn(async move {
            // Each client its own connection pool, as separate browsers.
            let client = http();
            let mut answers = Vec::new();
            for round in 0..4 {
                let url = &urls[(n + round) % urls.len()];
                let response = client.get(url).send().await.unwrap();
                let status = response.status().as_u16();
                let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
                answers.push(((n + round) % urls.len(), (status, body)));
            }
            answers
        }));
    }
    for task in tasks {
        for (which, answer) in task.await.unwrap() {
            assert_eq!(answer, expected[which]);
        }
    }
    assert_eq!(expected[0].0, 200);
}

#[tokio::test]
async fn inbox_answers_the_objects_of_inbox_json_and_sees_rejections() {
    let fixture = Fixture::hostile_inbox();
    let server = Server::start(&fixture, &[]);
    let inbox_json = |args: &[&str]| {
        fixture
            .cmd()
            .args(["inbox", "--json"])
            .args(args)
            .run()
            .success()
            .json_lines()
    };
    let (status, body) = get(&server.url("/api/inbox")).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"candidates": inbox_json(&[]), "total": 4}));
    let hostile = body["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["arxiv"] == "1412.99987")
        .unwrap();
    assert_eq!(hostile["title"], common::HOSTILE_RECORD_TITLE);
    assert_eq!(
        hostile["authors"],
        json!(["<script>alert(5)</script> Nobody"])
    );

    let (_, recent) = get(&server.url("/api/inbox?since=2026-11-16&limit=1")).await;
    assert_eq!(
        recent,
        json!({"candidates": inbox_json(&["--since", "2026-11-16", "--limit", "1"]), "total": 2})
    );

    // Rejected by the command while the server runs: gone at the next request.
    fixture.run(["inbox", "reject", "1412.99985"]).success();
    let (_, after) = get(&server.url("/api/inbox")).await;
    assert_eq!(after, json!({"candidates": inbox_json(&[]), "total": 3}));

    for (query, message) in [
        (
            "since=2026-13-01",
            "invalid value '2026-13-01' for '--since <DATE>': expected a day such as 2024-03-31 (YYYY-MM-DD)",
        ),
        (
            "limit=0",
            "invalid value '0' for '--limit <N>': expected 1 to 10000",
        ),
        (
            "accept=1412.99983",
            "unknown parameter `accept` (parameters: limit, since)",
        ),
    ] {
        let (status, body) = get(&server.url(&format!("/api/inbox?{query}"))).await;
        assert_eq!(
            (status, body),
            (400, json!({"error": message, "status": 400})),
            "{query}"
        );
    }
    // A broken inbox.toml is the catalog's fault, not the request's: 500,
    // with the command's message.
    fixture.write("inbox.toml", "[[rejected]\narxiv = 1\n");
    let (status, body) = get(&server.url("/api/inbox")).await;
    assert_eq!(
        (status, body),
        (
            500,
            json!({"error": cli_error(&fixture, &["inbox"]), "status": 500})
        )
    );
    fixture
        .run(["inbox", "--since", "2026-13-01"])
        .code(2)
        .stderr_has("invalid value '2026-13-01' for '--since <DATE>': expected a day such as 2024-03-31 (YYYY-MM-DD)");
}
