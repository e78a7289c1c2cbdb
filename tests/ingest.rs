//! `index` against loopback mocks of arXiv and Crossref (wiremock): the cache
//! fills, abstracts become searchable, titles resolve without a wrong match,
//! faults lose nothing, and a second run asks nothing. All papers, ids and
//! DOIs here are fictional (the arXiv ids cannot exist: 2014 ids had four
//! digits; 10.1000 is the DOI handbook's example prefix).

mod common;

use std::process::Output;
use std::time::{Duration, Instant};

use common::{Fixture, TAGS, stderr_of, stdout_of};
use wiremock::matchers::{method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const PAPERS: &str = r#"[section]
name = "Papers"
order = 1

[[entry]]
id = "bubbles-2015"
kind = "paper"
title = "A Fictional Study of Pipeline Bubbles"
url = "https://arxiv.org/abs/1412.99998"
authors = ["Ada Example"]
et_al = true
venue = "FICT"
year = 2015
arxiv = "1412.99998"
tags = ["pipeline-parallelism"]
note = "Fictional."

[[entry]]
id = "checkpoints-2015"
kind = "paper"
title = "Placeholder Notes on Gradient Checkpointing"
url = "https://arxiv.org/pdf/1412.99999v2"
authors = ["Carol Sample"]
venue = "FICT"
year = 2015
arxiv = "1412.99999"
tags = ["activation-recomputation"]
note = "Fictional."

[[entry]]
id = "experts-2022"
kind = "paper"
title = "Imaginary Experts: Routing Tokens Nowhere"
url = "https://dl.acm.org/doi/abs/10.1000/example.3"
authors = ["Dan Invented"]
et_al = true
venue = "FICT"
year = 2022
doi = "10.1000/example.3"
tags = ["mixture-of-experts"]
note = "Fictional."

[[entry]]
id = "unregistered-2020"
kind = "paper"
title = "Sharding Optimizer State Across Make-Believe Clusters"
url = "https://dl.acm.org/doi/10.5555/fictional.4"
authors = ["Eve Madeup"]
et_al = true
venue = "FICT"
year = 2020
doi = "10.5555/fictional.4"
tags = ["collective-communication"]
note = "Fictional."

[[entry]]
id = "decoyed-2019"
kind = "paper"
title = "Generalized Pipelines for Pretend Training"
url = "https://example.org/conference/decoyed.pdf"
authors = ["Fay Fable"]
et_al = true
venue = "FICT"
year = 2019
tags = ["pipeline-parallelism"]
note = "Fictional."
"#;

struct Paper<'a> {
    id: &'a str,
    title: &'a str,
    authors: &'a [&'a str],
    summary: &'a str,
    published: &'a str,
}

/// An arXiv API answer, in the API's Atom layout.
fn atom(papers: &[Paper<'_>]) -> String {
    let mut xml = String::from(
        "<?xml version='1.0' encoding='UTF-8'?>\n<feed xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\" xmlns:arxiv=\"http://arxiv.org/schemas/atom\" xmlns=\"http://www.w3.org/2005/Atom\">\n  <id>https://arxiv.org/api/fixture</id>\n  <title>arXiv Query</title>\n  <updated>2026-11-30T00:00:00Z</updated>\n",
    );
    xml.push_str(&format!("  <opensearch:totalResults>{}</opensearch:totalResults>\n  <opensearch:startIndex>0</opensearch:startIndex>\n", papers.len()));
    for p in papers {
        xml.push_str(&format!(
            "  <entry>\n    <id>http://arxiv.org/abs/{id}v1</id>\n    <title>{title}</title>\n    <updated>{published}T00:00:00Z</updated>\n    <link href=\"https://arxiv.org/abs/{id}v1\" rel=\"alternate\" type=\"text/html\"/>\n    <summary>{summary}</summary>\n    <category term=\"cs.DC\" scheme=\"http://arxiv.org/schemas/atom\"/>\n    <published>{published}T00:00:00Z</published>\n    <arxiv:primary_category term=\"cs.DC\"/>\n",
            id = p.id,
            title = p.title,
            summary = p.summary,
            published = p.published
        ));
        for a in p.authors {
            xml.push_str(&format!(
                "    <author>\n      <name>{a}</name>\n    </author>\n"
            ));
        }
        xml.push_str("  </entry>\n");
    }
    xml.push_str("</feed>\n");
    xml
}

fn crossref_work(doi: &str, title: &str, abstract_jats: &str) -> String {
    serde_json::json!({
        "status": "ok", "message-type": "work", "message-version": "1.0.0",
        "message": {
            "DOI": doi, "type": "proceedings-article", "title": [title],
            "author": [{"given": "Dan", "family": "Invented", "sequence": "first", "affiliation": []},
                       {"given": "Gus", "family": "Notreal", "sequence": "additional", "affiliation": []}],
            "container-title": ["Proceedings of the Fictional Conference"],
            "published-print": {"date-parts": [[2022, 4, 2]]},
            "abstract": abstract_jats,
            "URL": format!("https://doi.org/{doi}")
        }
    })
    .to_string()
}

fn empty_search() -> String {
    serde_json::json!({"status": "ok", "message-type": "work-list", "message": {"total-results": 0, "items": []}}).to_string()
}

/// Mocks answering for every fictional paper of `PAPERS`.
async fn healthy_services() -> MockServer {
    let server = MockServer::start().await;
    let batch = atom(&[
        Paper {
            id: "1412.99998",
            title: "A Fictional Study of Pipeline Bubbles",
            authors: &["Ada Example", "Bob Placeholder"],
            summary: "We study imaginary idle slots called zorblats in pipelines.",
            published: "2014-12-30",
        },
        Paper {
            id: "1412.99999",
            title: "Placeholder Notes on Gradient Checkpointing",
            authors: &["Carol Sample"],
            summary: "Notes on recomputing quuxes.",
            published: "2014-12-31",
        },
    ]);
    Mock::given(method("GET"))
        .and(path("/arxiv"))
        .and(query_param("id_list", "1412.99998,1412.99999"))
        .and(query_param("max_results", "2"))
        .respond_with(ResponseTemplate::new(200).set_body_string(batch))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex("^/crossref/works/10\\.1000(/|%2F)example\\.3$"))
        .respond_with(ResponseTemplate::new(200).set_body_string(crossref_work(
            "10.1000/example.3",
            "Imaginary Experts",
            "<jats:p>Routing tokens to &lt;nobody&gt; with flibbertigibbets.</jats:p>",
        )))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex(
            "^/crossref/works/10\\.5555(/|%2F)fictional\\.4$",
        ))
        .respond_with(ResponseTemplate::new(404).set_body_string("Resource not found."))
        .mount(&server)
        .await;
    // Title search: the unregistered DOI's paper is on arXiv...
    Mock::given(method("GET"))
        .and(path("/arxiv"))
        .and(query_param(
            "search_query",
            "ti:\"Sharding Optimizer State Across Make Believe Clusters\"",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_string(atom(&[Paper {
            id: "1412.99997",
            title: "Sharding Optimizer State Across Make-Believe Clusters",
            authors: &["Eve Madeup"],
            summary: "Sharding widgets across pretend clusters.",
            published: "2019-10-01",
        }])))
        .mount(&server)
        .await;
    // ...and the venue-only paper has a decoy: a close title by someone else.
    Mock::given(method("GET"))
        .and(path("/arxiv"))
        .and(query_param(
            "search_query",
            "ti:\"Generalized Pipelines for Pretend Training\"",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_string(atom(&[Paper {
            id: "1412.99996",
            title: "Generalised Pipelines for Pretend Training",
            authors: &["Someone Else"],
            summary: "A different paper.",
            published: "2018-01-01",
        }])))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/crossref/works"))
        .respond_with(ResponseTemplate::new(200).set_body_string(empty_search()))
        .mount(&server)
        .await;
    server
}

fn fixture() -> Fixture {
    Fixture::with_files(&[("tags.toml", TAGS), ("papers.toml", PAPERS)])
}

fn index(fixture: &Fixture, server_uri: &str, extra: &[&str]) -> Output {
    let mut cmd = fixture.cmd();
    cmd.env_remove("DISTML_OFFLINE")
        .env("DISTML_ARXIV_API", format!("{server_uri}/arxiv"))
        .env("DISTML_CROSSREF_API", format!("{server_uri}/crossref"))
        .env("DISTML_OPENALEX_API", format!("{server_uri}/openalex"))
        .env_remove("DISTML_OPENALEX_KEY")
        .env("DISTML_ARXIV_DELAY_MS", "0")
        .env("DISTML_HTTP_TIMEOUT_MS", "2000")
        .arg("index")
        .args(extra);
    cmd.output().unwrap()
}

fn metadata(fixture: &Fixture) -> serde_json::Value {
    serde_json::from_str(&fixture.read("metadata.json")).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn index_fills_the_cache_and_abstracts_become_searchable() {
    let server = healthy_services().await;
    let fixture = fixture();
    let output = index(&fixture, &server.uri(), &[]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    let stderr = stderr_of(&output);
    assert!(
        stderr.contains(
            "metadata: 0 cached, 4 fetched, 1 resolved by title, 1 candidates to confirm"
        ),
        "{stderr}"
    );
    assert!(
        stdout_of(&output).contains("indexed 5 entries (4 with abstracts)"),
        "{}",
        stdout_of(&output)
    );

    let cache = metadata(&fixture);
    let bubbles = &cache["entries"]["bubbles-2015"];
    assert_eq!(bubbles["abstract"]["source"], "arxiv");
    assert_eq!(
        bubbles["authors"]["value"],
        serde_json::json!(["Ada Example", "Bob Placeholder"])
    );
    assert_eq!(bubbles["arxiv"]["found_by"], "url");
    let experts = &cache["entries"]["experts-2022"];
    assert_eq!(
        experts["abstract"]["value"],
        "Routing tokens to <nobody> with flibbertigibbets."
    );
    assert_eq!(
        experts["venue"]["value"],
        "Proceedings of the Fictional Conference"
    );

    // The 10.5555 DOI got a 404 and was resolved by title on arXiv.
    let unregistered = &cache["entries"]["unregistered-2020"];
    assert_eq!(unregistered["arxiv"]["value"], "1412.99997");
    assert_eq!(unregistered["arxiv"]["found_by"], "title-search");
    // The decoy is a candidate for a curator, never applied.
    let decoyed = &cache["entries"]["decoyed-2019"];
    assert!(
        decoyed.get("arxiv").is_none() && decoyed.get("abstract").is_none(),
        "{decoyed}"
    );
    assert_eq!(decoyed["candidates"][0]["arxiv"], "1412.99996");
    assert!(
        decoyed["candidates"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("first author differs")
    );

    // Words found only in abstracts are searchable, with abstract snippets.
    let hit = fixture
        .cmd()
        .args(["search", "--json", "zorblats"])
        .output()
        .unwrap();
    let line: serde_json::Value =
        serde_json::from_str(stdout_of(&hit).lines().next().unwrap()).unwrap();
    assert_eq!(line["id"], "bubbles-2015");
    assert_eq!(line["snippet_field"], "abstract");
    let show = stdout_of(
        &fixture
            .cmd()
            .args(["show", "experts-2022"])
            .output()
            .unwrap(),
    );
    assert!(
        show.contains("abstract (from crossref)") && show.contains("flibbertigibbets"),
        "{show}"
    );
    assert!(
        show.contains("authors   Dan Invented, Gus Notreal  (from crossref)"),
        "{show}"
    );
    let show = stdout_of(
        &fixture
            .cmd()
            .args(["show", "decoyed-2019"])
            .output()
            .unwrap(),
    );
    assert!(
        show.contains("candidate Generalised Pipelines for Pretend Training (1412.99996)"),
        "{show}"
    );
    let stats = stdout_of(&fixture.cmd().arg("stats").output().unwrap());
    assert!(stats.contains("metadata: abstracts 4/5 (80%)"), "{stats}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_run_makes_no_request() {
    let server = healthy_services().await;
    let fixture = fixture();
    assert!(index(&fixture, &server.uri(), &[]).status.success());
    let before = fixture.read("metadata.json");

    let silent = MockServer::start().await;
    let output = index(&fixture, &silent.uri(), &[]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    // The decoyed paper stays unresolved, but its misses are remembered.
    assert_eq!(
        silent.received_requests().await.unwrap().len(),
        0,
        "{}",
        stderr_of(&output)
    );
    assert_eq!(fixture.read("metadata.json"), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_refresh_keeps_the_cache_and_the_index() {
    let server = healthy_services().await;
    let fixture = fixture();
    assert!(index(&fixture, &server.uri(), &[]).status.success());
    let before = fixture.read("metadata.json");

    let broken = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<feed><entry><title>cut"))
        .mount(&broken)
        .await;
    let output = index(&fixture, &broken.uri(), &["--refresh"]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert!(
        stderr_of(&output).contains("failed"),
        "{}",
        stderr_of(&output)
    );
    assert_eq!(
        fixture.read("metadata.json"),
        before,
        "a failed refresh must not change the cache"
    );
    let hit = fixture
        .cmd()
        .args(["search", "--json", "zorblats"])
        .output()
        .unwrap();
    assert_eq!(hit.status.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_network_index_ends_fast_with_one_warning() {
    let fixture = fixture();
    // A port nothing listens on: connections are refused, as offline.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let started = Instant::now();
    let output = index(&fixture, &format!("http://127.0.0.1:{port}"), &[]);
    let elapsed = started.elapsed();
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    let stderr = stderr_of(&output);
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
    assert!(stderr.contains("5 papers lack metadata"), "{stderr}");
    assert!(
        !fixture.catalog().join("metadata.json").exists(),
        "nothing learned, nothing written"
    );
    assert!(stdout_of(&output).contains("indexed 5 entries"));
}

#[tokio::test(flavor = "multi_thread")]
async fn offline_never_touches_the_network() {
    let server = MockServer::start().await;
    let fixture = fixture();
    let output = index(&fixture, &server.uri(), &["--offline"]);
    assert!(output.status.success());
    assert_eq!(server.received_requests().await.unwrap().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_503_is_retried_and_a_crossref_404_is_not_cached_as_data() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/arxiv"))
        .respond_with(ResponseTemplate::new(503).insert_header("Retry-After", "0"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/arxiv"))
        .and(query_param("max_results", "2"))
        .respond_with(ResponseTemplate::new(200).set_body_string(atom(&[
            Paper {
                id: "1412.99998",
                title: "A Fictional Study of Pipeline Bubbles",
                authors: &["Ada Example"],
                summary: "Zorblats.",
                published: "2014-12-30",
            },
            Paper {
                id: "1412.99999",
                title: "Placeholder Notes on Gradient Checkpointing",
                authors: &["Carol Sample"],
                summary: "Quuxes.",
                published: "2014-12-31",
            },
        ])))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex("^/crossref/works/10"))
        .respond_with(ResponseTemplate::new(404).set_body_string("Resource not found."))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_string(empty_search()))
        .mount(&server)
        .await;
    let fixture = fixture();
    let output = index(&fixture, &server.uri(), &[]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    let cache = metadata(&fixture);
    assert_eq!(
        cache["entries"]["bubbles-2015"]["abstract"]["value"],
        "Zorblats."
    );
    let experts = &cache["entries"]["experts-2022"];
    assert!(experts.get("abstract").is_none());
    assert!(experts["not_found"]["crossref"].is_string(), "{experts}");
}

#[tokio::test(flavor = "multi_thread")]
async fn openalex_fills_missing_abstracts_when_keyed_and_verbose_logs_requests() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path_regex("^/crossref/works/10\\.1000(/|%2F)example\\.3$"))
        .respond_with(ResponseTemplate::new(200).set_body_string(crossref_work(
            "10.1000/example.3",
            "Imaginary Experts",
            "",
        )))
        .mount(&server)
        .await;
    let work = serde_json::json!({
        "id": "https://openalex.org/W0000000001", "doi": "https://doi.org/10.1000/example.3",
        "title": "Imaginary Experts", "display_name": "Imaginary Experts",
        "publication_year": 2022, "publication_date": "2022-04-02",
        "authorships": [{"author_position": "first", "author": {"id": "https://openalex.org/A1", "display_name": "Dan Invented"}}],
        "primary_location": {"source": {"display_name": "Proceedings of the Fictional Conference"}},
        "abstract_inverted_index": {"Experts": [0], "route": [1], "snarks": [2, 4], "and": [3]}
    });
    Mock::given(method("GET"))
        .and(path("/openalex/works/doi:10.1000/example.3"))
        .and(query_param("api_key", "test-key"))
        .respond_with(ResponseTemplate::new(200).set_body_string(work.to_string()))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_string(empty_search()))
        .mount(&server)
        .await;
    let fixture = Fixture::with_files(&[
        ("tags.toml", TAGS),
        (
            "papers.toml",
            &PAPERS[..PAPERS
                .find("[[entry]]\nid = \"unregistered-2020\"")
                .unwrap()]
                .replace("arxiv = \"1412.9999", "# arxiv = \"1412.9999")
                .replace(
                    "url = \"https://arxiv.org/abs/1412.99998\"",
                    "url = \"https://example.org/a\"",
                )
                .replace(
                    "url = \"https://arxiv.org/pdf/1412.99999v2\"",
                    "url = \"https://example.org/b\"",
                ),
        ),
    ]);
    let mut cmd = fixture.cmd();
    cmd.env_remove("DISTML_OFFLINE")
        .env("DISTML_ARXIV_API", format!("{}/arxiv", server.uri()))
        .env("DISTML_CROSSREF_API", format!("{}/crossref", server.uri()))
        .env("DISTML_OPENALEX_API", format!("{}/openalex", server.uri()))
        .env("DISTML_OPENALEX_KEY", "test-key")
        .env("DISTML_ARXIV_DELAY_MS", "0")
        .args(["index", "--verbose"]);
    let output = cmd.output().unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    let stderr = stderr_of(&output);
    assert!(
        stderr.contains("GET ") && stderr.contains("api_key=***") && !stderr.contains("test-key"),
        "{stderr}"
    );
    let cache = metadata(&fixture);
    let abstract_text = &cache["entries"]["experts-2022"]["abstract"];
    assert_eq!(abstract_text["value"], "Experts route snarks and snarks");
    assert_eq!(abstract_text["source"], "openalex");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_killed_mid_way_keeps_a_valid_cache_with_what_it_got() {
    let server = MockServer::start().await;
    let mut papers = String::from("[section]\nname = \"Papers\"\norder = 1\n");
    for i in 0..12 {
        papers.push_str(&format!(
            "\n[[entry]]\nid = \"doi-{i}\"\nkind = \"paper\"\ntitle = \"Fictional DOI Paper {i}\"\nurl = \"https://doi.org/10.1000/slow.{i}\"\nauthors = [\"Dan Invented\"]\nvenue = \"FICT\"\nyear = 2022\ndoi = \"10.1000/slow.{i}\"\ntags = [\"mixture-of-experts\"]\nnote = \"Fictional.\"\n"
        ));
        Mock::given(method("GET"))
            .and(path_regex(format!(
                "^/crossref/works/10\\.1000(/|%2F)slow\\.{i}$"
            )))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_delay(Duration::from_millis(150))
                    .set_body_string(crossref_work(
                        &format!("10.1000/slow.{i}"),
                        &format!("Fictional DOI Paper {i}"),
                        "<jats:p>Slow.</jats:p>",
                    )),
            )
            .mount(&server)
            .await;
    }
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("papers.toml", &papers)]);
    let bin = assert_cmd::cargo::cargo_bin("distml-search");
    let mut child = std::process::Command::new(bin)
        .current_dir(fixture.dir.path())
        .env("DISTML_CROSSREF_API", format!("{}/crossref", server.uri()))
        .env("DISTML_ARXIV_API", format!("{}/arxiv", server.uri()))
        .env("DISTML_ARXIV_DELAY_MS", "0")
        .env_remove("DISTML_OFFLINE")
        .arg("index")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let cache = fixture.catalog().join("metadata.json");
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        let records =
            std::fs::read_to_string(&cache).map_or(0, |t| t.matches("\"fetched_at\"").count());
        if records >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap();
    let _ = child.wait();
    let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap())
        .expect("a valid cache after the kill");
    let fetched = value["entries"]
        .as_object()
        .unwrap()
        .values()
        .filter(|e| e.get("abstract").is_some())
        .count();
    assert!((3..12).contains(&fetched), "{fetched} records kept");
}
