//! `check --online` against loopback mocks: dead links (404, 500 after
//! retries, timeouts, refused connections), permanent redirects, HEAD
//! refused then GET, preprints since published (arXiv's DOI and
//! journal-ref, Crossref's venue), duplicates, the cache, `--apply`, and
//! at most two requests in flight per host. Everything is fictional: the
//! arXiv ids cannot exist (ids of 2014 had four digits after the dot) and
//! 10.99999 is no registrant.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Cmd, Fixture, TAGS};
use wiremock::matchers::{method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const SECTION: &str = "[section]\nname = \"Widgets\"\norder = 1\n";

fn paper(id: &str, title: &str, url: &str, venue: &str, arxiv: Option<&str>) -> String {
    let arxiv = arxiv.map_or(String::new(), |a| format!("arxiv = \"{a}\"\n"));
    format!(
        "\n[[entry]]\nid = \"{id}\"\nkind = \"paper\"\ntitle = \"{title}\"\nurl = \"{url}\"\nauthors = [\"Ada Quill\"]\nvenue = \"{venue}\"\nyear = 2024\n{arxiv}tags = [\"pipeline-parallelism\"]\nnote = \"Fictional.\"\n"
    )
}

fn project(id: &str, title: &str, url: &str) -> String {
    format!(
        "\n[[entry]]\nid = \"{id}\"\nkind = \"project\"\ntitle = \"{title}\"\nurl = \"{url}\"\ntags = [\"collective-communication\"]\nnote = \"Fictional.\"\n"
    )
}

/// A preprint listed with arXiv as its venue.
fn sharded_preprint() -> String {
    paper(
        "sharded-2024",
        "Sharded Widgets",
        "https://arxiv.org/abs/1412.88801",
        "arXiv",
        Some("1412.88801"),
    )
}

fn catalog(entries: &[String]) -> Fixture {
    Fixture::with_files(&[("tags.toml", TAGS), ("widgets.toml", &section(entries))])
}

fn section(entries: &[String]) -> String {
    format!("{SECTION}{}", entries.concat())
}

/// `check --online` with every service at `services` (a mock's base URL).
fn check(fixture: &Fixture, services: &str) -> Cmd {
    fixture
        .cmd()
        .args(["check", "--online"])
        .env("DISTML_ARXIV_API", format!("{services}/arxiv"))
        .env("DISTML_CROSSREF_API", format!("{services}/crossref"))
        .env("DISTML_OPENALEX_API", format!("{services}/openalex"))
        .env_remove("DISTML_OPENALEX_KEY")
        .env_remove("DISTML_MAILTO")
        .env_remove("DISTML_CHECK_TTL_H")
        .env("DISTML_ARXIV_DELAY_MS", "0")
        .env("DISTML_HTTP_TIMEOUT_MS", "3000")
}

/// An arXiv API answer with one entry per (id, title, doi, journal_ref).
fn atom(papers: &[(&str, &str, Option<&str>, Option<&str>)]) -> String {
    let mut xml = String::from(
        "<?xml version='1.0' encoding='UTF-8'?>\n<feed xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\" xmlns:arxiv=\"http://arxiv.org/schemas/atom\" xmlns=\"http://www.w3.org/2005/Atom\">\n  <title>arXiv Query</title>\n",
    );
    xml.push_str(&format!(
        "  <opensearch:totalResults>{}</opensearch:totalResults>\n",
        papers.len()
    ));
    for (id, title, doi, journal_ref) in papers {
        xml.push_str(&format!(
            "  <entry>\n    <id>http://arxiv.org/abs/{id}v2</id>\n    <title>{title}</title>\n    <published>2024-01-05T00:00:00Z</published>\n    <summary>Fictional.</summary>\n    <author><name>Ada Quill</name></author>\n"
        ));
        if let Some(doi) = doi {
            xml.push_str(&format!("    <arxiv:doi>{doi}</arxiv:doi>\n"));
        }
        if let Some(journal_ref) = journal_ref {
            xml.push_str(&format!(
                "    <arxiv:journal_ref>{journal_ref}</arxiv:journal_ref>\n"
            ));
        }
        xml.push_str("  </entry>\n");
    }
    xml.push_str("</feed>\n");
    xml
}

fn crossref_work(doi: &str, venue: &str, year: i64) -> String {
    serde_json::json!({
        "status": "ok", "message-type": "work",
        "message": {
            "DOI": doi, "type": "proceedings-article", "title": ["Fictional"],
            "container-title": [venue],
            "published-print": {"date-parts": [[year, 6]]}
        }
    })
    .to_string()
}

async fn mount(server: &MockServer, verb: &str, at: &str, response: ResponseTemplate) {
    Mock::given(method(verb))
        .and(path(at))
        .respond_with(response)
        .mount(server)
        .await;
}

/// arXiv's API answering `feed` to every id list.
async fn mount_arxiv(server: &MockServer, feed: String) {
    Mock::given(method("GET"))
        .and(path("/arxiv"))
        .respond_with(ResponseTemplate::new(200).set_body_string(feed))
        .mount(server)
        .await;
}

/// Crossref answering `response` for the DOI `10.99999/{suffix}`.
async fn mount_crossref(server: &MockServer, suffix: &str, response: ResponseTemplate) {
    let suffix = suffix.replace('.', "\\.");
    Mock::given(method("GET"))
        .and(path_regex(format!(
            "^/crossref/works/10\\.99999(/|%2F){suffix}$"
        )))
        .respond_with(response)
        .mount(server)
        .await;
}

/// arXiv's record of `sharded-2024` with a DOI, whose Crossref record
/// dates its journal version `year`.
async fn widgets_published_in(server: &MockServer, year: i64) {
    let feed = atom(&[(
        "1412.88801",
        "Sharded Widgets",
        Some("10.99999/widgets.1"),
        None,
    )]);
    mount_arxiv(server, feed).await;
    let work = crossref_work("10.99999/widgets.1", "Journal of Fictional Widgets", year);
    let answer = ResponseTemplate::new(200).set_body_string(work);
    mount_crossref(server, "widgets.1", answer).await;
}

/// The links of the main scenario, and what each answers.
async fn links_scenario(server: &MockServer) {
    mount(server, "HEAD", "/fine", ResponseTemplate::new(200)).await;
    mount(server, "HEAD", "/gone", ResponseTemplate::new(404)).await;
    mount(server, "GET", "/gone", ResponseTemplate::new(404)).await;
    mount(server, "HEAD", "/broken", ResponseTemplate::new(500)).await;
    let moved = ResponseTemplate::new(301).insert_header("Location", "/new-home");
    mount(server, "HEAD", "/moved", moved).await;
    let away = ResponseTemplate::new(302).insert_header("Location", "/login");
    mount(server, "HEAD", "/away", away).await;
    mount(server, "HEAD", "/no-head", ResponseTemplate::new(405)).await;
    mount(server, "GET", "/no-head", ResponseTemplate::new(200)).await;
    // Two preprints: one with a DOI and a journal-ref (Crossref does not
    // know the DOI), one with a DOI only (Crossref gives the venue).
    let feed = atom(&[
        (
            "1412.88801",
            "Sharded Widgets",
            Some("10.99999/widgets.1"),
            Some("Journal of Fictional Widgets 3 (2025) 1-9"),
        ),
        (
            "1412.88802",
            "Pipelined Gadgets",
            Some("10.99999/gadgets.2"),
            None,
        ),
    ]);
    Mock::given(method("GET"))
        .and(path("/arxiv"))
        .and(query_param("id_list", "1412.88801,1412.88802"))
        .respond_with(ResponseTemplate::new(200).set_body_string(feed))
        .mount(server)
        .await;
    mount_crossref(server, "widgets.1", ResponseTemplate::new(404)).await;
    let work = crossref_work(
        "10.99999/gadgets.2",
        "Proceedings of the Fictional Conference on Gadgets",
        2026,
    );
    let answer = ResponseTemplate::new(200).set_body_string(work);
    mount_crossref(server, "gadgets.2", answer).await;
}

fn links_catalog(base: &str) -> Fixture {
    catalog(&[
        project("fine", "Fine Widgets", &format!("{base}/fine")),
        project("gone", "Gone Widgets", &format!("{base}/gone")),
        project("broken", "Broken Widgets", &format!("{base}/broken")),
        project("moved", "Moved Widgets", &format!("{base}/moved")),
        project("away", "Away Widgets", &format!("{base}/away")),
        project("no-head", "Headless Widgets", &format!("{base}/no-head")),
        sharded_preprint(),
        paper(
            "gadgets-2024",
            "Pipelined Gadgets",
            "https://arxiv.org/abs/1412.88802",
            "arxiv",
            Some("1412.88802"),
        ),
    ])
}

#[tokio::test(flavor = "multi_thread")]
async fn the_json_report_names_every_problem_and_proposes_fixes() {
    let server = MockServer::start().await;
    links_scenario(&server).await;
    let base = server.uri();
    let fixture = links_catalog(&base);
    let before = fixture.read("widgets.toml");
    let run = check(&fixture, &base).arg("--json").run().code(2);
    let expected = [
        format!(
            r#"{{"id":"gone","problem":"dead-link","url":"{base}/gone","detail":"HTTP 404 Not Found","suggestion":null}}"#
        ),
        format!(
            r#"{{"id":"broken","problem":"dead-link","url":"{base}/broken","detail":"HTTP 500 Internal Server Error (3 attempts)","suggestion":null}}"#
        ),
        format!(
            r#"{{"id":"moved","problem":"redirect","url":"{base}/moved","detail":"HTTP 301 Moved Permanently to {base}/new-home","suggestion":"url = \"{base}/new-home\""}}"#
        ),
        r#"{"id":"sharded-2024","problem":"published-version","url":"https://arxiv.org/abs/1412.88801","detail":"arXiv 1412.88801 has a published version: DOI 10.99999/widgets.1, journal-ref \"Journal of Fictional Widgets 3 (2025) 1-9\"","suggestion":"venue = \"Journal of Fictional Widgets 3 (2025) 1-9\", year = 2025, url = \"https://doi.org/10.99999/widgets.1\""}"#.to_owned(),
        r#"{"id":"gadgets-2024","problem":"published-version","url":"https://arxiv.org/abs/1412.88802","detail":"arXiv 1412.88802 has a published version: DOI 10.99999/gadgets.2","suggestion":"venue = \"Proceedings of the Fictional Conference on Gadgets\", year = 2026, url = \"https://doi.org/10.99999/gadgets.2\""}"#.to_owned(),
    ];
    run.stdout_is(&(expected.join("\n") + "\n"))
        .stderr_has("error: 5 problems found online in catalog (2 dead-link, 2 published-version, 1 redirect); `check --online --apply` writes 3 proposals");
    // Without --apply nothing but the cache is written.
    assert_eq!(fixture.read("widgets.toml"), before);
    assert!(fixture.catalog().join("health.json").is_file());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_text_report_gives_each_problem_its_detail_and_suggestion() {
    let server = MockServer::start().await;
    links_scenario(&server).await;
    let base = server.uri();
    let fixture = links_catalog(&base);
    let run = check(&fixture, &base).run().code(2);
    let run = run.stdout_has(&format!(
        "moved: redirect: {base}/moved\n  HTTP 301 Moved Permanently to {base}/new-home\n  suggestion: url = \"{base}/new-home\"\n"
    ))
    .stdout_has(&format!("gone: dead-link: {base}/gone\n  HTTP 404 Not Found\n"))
    .stderr_has("online: 6 links (0 from the cache), 2 arXiv papers (0 from the cache)");
    // The 302 and the HEAD refused (then a GET that works) are fine.
    for fine in ["away:", "no-head:", "fine:"] {
        assert!(!run.stdout().contains(fine), "{fine} reported");
    }
    let heads = server.received_requests().await.unwrap();
    assert!(
        heads
            .iter()
            .any(|r| r.method.as_str() == "GET" && r.url.path() == "/no-head"),
        "no GET after the refused HEAD"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_run_within_the_ttl_asks_nothing() {
    let server = MockServer::start().await;
    links_scenario(&server).await;
    let base = server.uri();
    let fixture = links_catalog(&base);
    let first = check(&fixture, &base).arg("--json").run().code(2);
    let cache = fixture.read("health.json");
    let asked = server.received_requests().await.unwrap().len();
    assert!(asked >= 9, "only {asked} requests");
    let second = check(&fixture, &base).arg("--json").run().code(2);
    assert_eq!(second.stdout(), first.stdout());
    second.stderr_has(
        "online: 6 links (6 from the cache), 2 arXiv papers (2 from the cache), 0 requests",
    );
    assert_eq!(server.received_requests().await.unwrap().len(), asked);
    // Unchanged, so deterministic: same content, same order.
    assert_eq!(fixture.read("health.json"), cache);
    // A time-to-live of zero asks again.
    check(&fixture, &base)
        .env("DISTML_CHECK_TTL_H", "0")
        .run()
        .code(2)
        .stderr_has("online: 6 links (0 from the cache)");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_that_times_out_is_dead() {
    let server = MockServer::start().await;
    let slow = ResponseTemplate::new(200).set_delay(Duration::from_secs(3));
    mount(&server, "HEAD", "/slow", slow).await;
    mount(&server, "HEAD", "/fine", ResponseTemplate::new(200)).await;
    let base = server.uri();
    let fixture = catalog(&[
        project("slow", "Slow Widgets", &format!("{base}/slow")),
        project("fine", "Fine Widgets", &format!("{base}/fine")),
    ]);
    let run = check(&fixture, &base)
        .env("DISTML_HTTP_TIMEOUT_MS", "300")
        .arg("--json")
        .run()
        .code(2);
    let lines = run.json_lines();
    assert_eq!(lines.len(), 1, "{}", run.stdout());
    assert_eq!(lines[0]["id"], "slow");
    assert_eq!(lines[0]["problem"], "dead-link");
    assert_eq!(lines[0]["detail"], "timed out after 300 ms (3 attempts)");
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_connection_is_a_dead_link_when_the_network_is_up() {
    let server = MockServer::start().await;
    mount(&server, "HEAD", "/fine", ResponseTemplate::new(200)).await;
    let base = server.uri();
    let port = closed_port();
    let fixture = catalog(&[
        project("fine", "Fine Widgets", &format!("{base}/fine")),
        project(
            "refused",
            "Refused Widgets",
            &format!("http://127.0.0.1:{port}/x"),
        ),
    ]);
    let run = check(&fixture, &base).arg("--json").run().code(2);
    let lines = run.json_lines();
    assert_eq!(lines.len(), 1, "{}", run.stdout());
    assert_eq!(lines[0]["id"], "refused");
    let detail = lines[0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!("cannot connect to 127.0.0.1:{port}: ")),
        "{detail}"
    );
}

#[test]
fn with_no_network_it_ends_fast_with_one_warning_per_host() {
    let (a, b, services) = (closed_port(), closed_port(), closed_port());
    let mut entries: Vec<String> = (1..=3)
        .flat_map(|i| {
            [
                project(
                    &format!("a{i}"),
                    &format!("Widget Alpha {i}"),
                    &format!("http://127.0.0.1:{a}/{i}"),
                ),
                project(
                    &format!("b{i}"),
                    &format!("Widget Beta {i}"),
                    &format!("http://127.0.0.1:{b}/{i}"),
                ),
            ]
        })
        .collect();
    entries.push(sharded_preprint());
    let fixture = catalog(&entries);
    let started = Instant::now();
    let run = check(&fixture, &format!("http://127.0.0.1:{services}"))
        .run()
        .success();
    assert!(started.elapsed() < Duration::from_secs(10));
    if run.stderr().matches("warning:").count() != 3 {
        run.fail("expected one warning per host");
    }
    run.stderr_has(&format!("warning: could not reach 127.0.0.1:{a} ("))
        .stderr_has("; 3 links not checked")
        .stderr_has(&format!("warning: could not reach 127.0.0.1:{services} ("))
        .stderr_has("; 1 arXiv paper not checked")
        .stdout_is("catalog: ok online\n");
    // Nothing learned, nothing kept: the next run asks again.
    let cache: serde_json::Value = serde_json::from_str(&fixture.read("health.json")).unwrap();
    assert_eq!(cache["links"], serde_json::json!({}));
    assert_eq!(cache["papers"], serde_json::json!({}));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_work_twice_is_a_duplicate_but_a_new_version_is_not() {
    let server = MockServer::start().await;
    for at in ["/a", "/b", "/d", "/e", "/f", "/g", "/h", "/i", "/j", "/k"] {
        mount(&server, "HEAD", at, ResponseTemplate::new(200)).await;
    }
    mount_arxiv(
        &server,
        atom(&[("1412.88804", "Widget Queues", None, None)]),
    )
    .await;
    let base = server.uri();
    let url = |p: &str| format!("{base}/{p}");
    let fixture = catalog(&[
        paper("doi-a", "Widget Tables", &url("a"), "FICT", None),
        paper("doi-b", "Tables of Widgets", &url("b"), "FICT", None),
        paper(
            "queues-2024",
            "Widget Queues",
            "https://arxiv.org/abs/1412.88804",
            "FICT",
            Some("1412.88804"),
        ),
        paper("queues-again", "Queueing Widgets", &url("d"), "FICT", None),
        paper(
            "typo-1",
            "Sharded Widget Training at Scale",
            &url("e"),
            "FICT",
            None,
        ),
        paper(
            "typo-2",
            "Sharded Widget Trainning at Scale",
            &url("f"),
            "FICT",
            None,
        ),
        paper(
            "zorblax-2",
            "Zorblax2: Elastic Widget Pools",
            &url("g"),
            "FICT",
            None,
        ),
        paper(
            "zorblax-3",
            "Zorblax3: Elastic Widget Pools",
            &url("h"),
            "FICT",
            None,
        ),
        paper(
            "quux-v1",
            "Quuxnet v1: Widget Pipelines",
            &url("i"),
            "FICT",
            None,
        ),
        paper(
            "quux-v2",
            "Quuxnet v2: Widget Pipelines",
            &url("j"),
            "FICT",
            None,
        ),
        // A project and the paper that presents it: two entries, one title.
        project(
            "widget-trainer",
            "Sharded Widget Training at Scale",
            &url("k"),
        ),
    ]);
    // What the ingester found by lookup: DOIs (in two spellings) and an arXiv id.
    fixture.write(
        "metadata.json",
        r#"{"version": 1, "entries": {
  "doi-a": {"doi": {"value": "10.99999/tables.1", "found_by": "title-search", "source": "crossref", "confidence": 0.97}},
  "doi-b": {"doi": {"value": "10.99999/TABLES.1", "found_by": "title-search", "source": "crossref", "confidence": 0.96}},
  "queues-again": {"arxiv": {"value": "1412.88804", "found_by": "title-search", "source": "arxiv", "confidence": 0.98}}
}}"#,
    );
    let run = check(&fixture, &base).arg("--json").run().code(2);
    let found: Vec<(String, String, String)> = run
        .json_lines()
        .iter()
        .map(|l| {
            (
                l["id"].as_str().unwrap().to_owned(),
                l["problem"].as_str().unwrap().to_owned(),
                l["detail"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("doi-b", "same work as `doi-a`: DOI 10.99999/tables.1"),
        (
            "queues-again",
            "same work as `queues-2024`: arXiv id 1412.88804",
        ),
        ("typo-2", "same work as `typo-1`: a near-identical title"),
    ]
    .map(|(id, detail)| (id.to_owned(), "duplicate".to_owned(), detail.to_owned()));
    assert_eq!(found, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn apply_writes_the_proposals_and_the_catalog_then_passes_check() {
    let server = MockServer::start().await;
    let moved = ResponseTemplate::new(308).insert_header("Location", "/new-home");
    mount(&server, "HEAD", "/moved", moved).await;
    widgets_published_in(&server, 2025).await;
    let base = server.uri();
    let entries = [
        project("moved", "Moved Widgets", &format!("{base}/moved")),
        sharded_preprint(),
    ];
    let fixture = catalog(&entries);
    check(&fixture, &base)
        .arg("--apply")
        .run()
        .success()
        .stderr_has("note: applied 2 proposals to ");
    let expected = section(&entries)
        .replace(&format!("{base}/moved"), &format!("{base}/new-home"))
        .replace(
            "https://arxiv.org/abs/1412.88801",
            "https://doi.org/10.99999/widgets.1",
        )
        .replace(
            "venue = \"arXiv\"",
            "venue = \"Journal of Fictional Widgets\"",
        )
        .replace("year = 2024", "year = 2025")
        .replace("arxiv = \"1412.88801\"", "doi = \"10.99999/widgets.1\"");
    assert_eq!(fixture.read("widgets.toml"), expected);
    // The arXiv id the url no longer carries is kept in metadata.json.
    let metadata: serde_json::Value = serde_json::from_str(&fixture.read("metadata.json")).unwrap();
    assert_eq!(
        metadata["entries"]["sharded-2024"]["arxiv"]["value"],
        "1412.88801"
    );
    fixture.run(["check"]).success();
}

/// A server that answers every request after a pause, counting how many
/// it is answering at once; the highest count is kept.
fn counting_server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let now = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let seen = most.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (now, most) = (now.clone(), most.clone());
            std::thread::spawn(move || answer_slowly(stream, &now, &most));
        }
    });
    (base, seen)
}

fn answer_slowly(mut stream: TcpStream, now: &AtomicUsize, most: &AtomicUsize) {
    let mut buffer = [0u8; 4096];
    let mut request = Vec::new();
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
    let in_flight = now.fetch_add(1, Ordering::SeqCst) + 1;
    most.fetch_max(in_flight, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(150));
    now.fetch_sub(1, Ordering::SeqCst);
    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
}

#[test]
fn at_most_two_requests_are_in_flight_per_host() {
    let (base, most) = counting_server();
    let entries: Vec<String> = (1..=8)
        .map(|i| {
            project(
                &format!("w{i}"),
                &format!("Widget Number {i}"),
                &format!("{base}/{i}"),
            )
        })
        .collect();
    let fixture = catalog(&entries);
    check(&fixture, &format!("http://127.0.0.1:{}", closed_port()))
        .run()
        .success()
        .stdout_is("catalog: ok online\n");
    assert_eq!(most.load(Ordering::SeqCst), 2);
}

#[test]
fn a_host_that_never_answers_is_left_at_the_runs_deadline() {
    // Accepts every connection and never says a word.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let fixture = catalog(&[project("mute", "Mute Widgets", &format!("{base}/x"))]);
    let started = Instant::now();
    check(&fixture, &format!("http://127.0.0.1:{}", closed_port()))
        .env("DISTML_HTTP_TIMEOUT_MS", "600000")
        .env("DISTML_CHECK_DEADLINE_S", "1")
        .run()
        .success()
        .stderr_has("warning: stopped at the run's deadline (1 s, DISTML_CHECK_DEADLINE_S); 1 link and 0 arXiv papers not checked");
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// A server says where a link went; the catalog takes only a web page no
/// other entry is (issue 46).
#[tokio::test(flavor = "multi_thread")]
async fn check_online_apply_writes_no_redirect_that_is_not_a_web_page_or_another_entry() {
    let server = MockServer::start().await;
    let base = server.uri();
    let to = |location: &str| ResponseTemplate::new(301).insert_header("Location", location);
    mount(&server, "HEAD", "/script", to("javascript:alert(1)")).await;
    mount(&server, "HEAD", "/local", to("file:///etc/passwd")).await;
    mount(&server, "HEAD", "/taken", to(&format!("{base}/home"))).await;
    mount(&server, "HEAD", "/home", ResponseTemplate::new(200)).await;
    mount(&server, "HEAD", "/fine", to(&format!("{base}/fine-now"))).await;
    let fixture = catalog(&[
        project("script", "Script Widgets", &format!("{base}/script")),
        project("local", "Local Widgets", &format!("{base}/local")),
        project("taken", "Taken Widgets", &format!("{base}/taken")),
        project("home", "Home Widgets", &format!("{base}/home")),
        project("fine", "Fine Widgets", &format!("{base}/fine")),
    ]);
    let run = check(&fixture, &base).arg("--apply").run();
    let written = fixture.read("widgets.toml");
    for hostile in ["javascript:", "file:"] {
        assert!(!written.contains(hostile), "{hostile} written:\n{written}");
    }
    // The one redirect to a page of its own is applied.
    assert!(written.contains(&format!("{base}/fine-now")), "{written}");
    assert_eq!(written.matches(&format!("\"{base}/home\"")).count(), 1);
    assert!(
        run.stdout().contains("not a web page") && run.stdout().contains("the url of `home`"),
        "{}",
        run.stdout()
    );
    fixture.run(["check"]).success();
}

/// A published version dated far ahead keeps the entry's year: the rest of
/// the proposal is applied, and `check` passes (issue 46).
#[tokio::test(flavor = "multi_thread")]
async fn apply_writes_no_year_check_would_refuse() {
    let server = MockServer::start().await;
    widgets_published_in(&server, 2099).await;
    let base = server.uri();
    let fixture = catalog(&[sharded_preprint()]);
    check(&fixture, &base).arg("--apply").run().success();
    let written = fixture.read("widgets.toml");
    assert!(written.contains("year = 2024\n"), "{written}");
    assert!(written.contains("venue = \"Journal of Fictional Widgets\""));
    fixture.run(["check"]).success();
}

/// A listed title other than the one arXiv gives its id is reported, as
/// advice: the check still passes. Case, punctuation and spacing aside.
#[tokio::test(flavor = "multi_thread")]
async fn a_title_other_than_arxivs_is_reported_as_advice() {
    let server = MockServer::start().await;
    let feed = atom(&[
        (
            "1412.88805",
            "Elastic Widget Sharding for Imaginary Clusters",
            None,
            None,
        ),
        ("1412.88806", "Gadget-Pipes: Pretend  Pipelines", None, None),
    ]);
    mount_arxiv(&server, feed).await;
    let base = server.uri();
    let fixture = catalog(&[
        paper(
            "elastic-2024",
            "Sharding Widgets Elastically",
            "https://arxiv.org/abs/1412.88805",
            "FICT",
            Some("1412.88805"),
        ),
        paper(
            "gadget-pipes-2024",
            "Gadget Pipes: pretend pipelines",
            "https://arxiv.org/abs/1412.88806",
            "FICT",
            Some("1412.88806"),
        ),
    ]);
    let run = check(&fixture, &base).arg("--json").run().success();
    run.stdout_is(
        r#"{"id":"elastic-2024","problem":"title-differs","url":"https://arxiv.org/abs/1412.88805","detail":"arXiv 1412.88805 titles it \"Elastic Widget Sharding for Imaginary Clusters\"","suggestion":"title = \"Elastic Widget Sharding for Imaginary Clusters\""}
"#,
    )
    .stderr_has("warning: 1 title not as arXiv gives it (advice: the check still passes)")
    .stderr_lacks("error:");
    check(&fixture, &base)
        .run()
        .success()
        .stdout_is(
            "elastic-2024: title-differs: https://arxiv.org/abs/1412.88805\n  arXiv 1412.88805 titles it \"Elastic Widget Sharding for Imaginary Clusters\"\n  suggestion: title = \"Elastic Widget Sharding for Imaginary Clusters\"\ncatalog: ok online\n",
        );
    // Advice, not a proposal: --apply leaves the title as listed.
    check(&fixture, &base).arg("--apply").run().success();
    assert!(
        fixture
            .read("widgets.toml")
            .contains("title = \"Sharding Widgets Elastically\"")
    );
}
