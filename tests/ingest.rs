//! `index` against loopback mocks of arXiv and Crossref (wiremock): the cache
//! fills, abstracts become searchable, titles resolve without a wrong match,
//! faults lose nothing, and a second run asks nothing. All papers, ids and
//! DOIs here are fictional (the arXiv ids cannot exist: 2014 ids had four
//! digits; 10.1000 is the DOI handbook's example prefix).

mod common;

use std::time::Duration;

use common::{Cmd, Fixture, Run, TAGS, search_ids, wait_for};
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

/// `index` with every service at `server_uri`, no arXiv delay, and no
/// OpenAlex key.
fn index_cmd(fixture: &Fixture, server_uri: &str, extra: &[&str]) -> Cmd {
    fixture
        .cmd()
        .env_remove("DISTML_OFFLINE")
        .env("DISTML_ARXIV_API", format!("{server_uri}/arxiv"))
        .env("DISTML_CROSSREF_API", format!("{server_uri}/crossref"))
        .env("DISTML_OPENALEX_API", format!("{server_uri}/openalex"))
        .env_remove("DISTML_OPENALEX_KEY")
        .env("DISTML_ARXIV_DELAY_MS", "0")
        .env("DISTML_HTTP_TIMEOUT_MS", "2000")
        .arg("index")
        .args(extra)
}

fn index(fixture: &Fixture, server_uri: &str, extra: &[&str]) -> Run {
    index_cmd(fixture, server_uri, extra).run()
}

fn metadata(fixture: &Fixture) -> serde_json::Value {
    serde_json::from_str(&fixture.read("metadata.json")).unwrap()
}

/// The fixture indexed against healthy services (kept alive, as their
/// expectations are checked when they are dropped), and the run.
async fn indexed() -> (MockServer, Fixture, Run) {
    let server = healthy_services().await;
    let fixture = fixture();
    let run = index(&fixture, &server.uri(), &[]).success();
    (server, fixture, run)
}

#[tokio::test(flavor = "multi_thread")]
async fn index_reports_what_it_fetched_and_indexed() {
    let (_server, _, run) = indexed().await;
    run.stderr_has("metadata: 0 cached, 4 fetched, 1 resolved by title, 1 candidates to confirm")
        .stdout_has("indexed 5 entries (4 with abstracts)");
}

#[tokio::test(flavor = "multi_thread")]
async fn arxiv_metadata_fills_the_cache_with_its_source() {
    let (_server, fixture, _) = indexed().await;
    let bubbles = &metadata(&fixture)["entries"]["bubbles-2015"];
    assert_eq!(bubbles["abstract"]["source"], "arxiv");
    assert_eq!(
        bubbles["abstract"]["value"],
        "We study imaginary idle slots called zorblats in pipelines."
    );
    assert_eq!(
        bubbles["authors"]["value"],
        serde_json::json!(["Ada Example", "Bob Placeholder"])
    );
    assert_eq!(bubbles["arxiv"]["found_by"], "url");
}

#[tokio::test(flavor = "multi_thread")]
async fn crossref_abstracts_lose_their_markup_and_venues_are_kept() {
    let (_server, fixture, _) = indexed().await;
    let experts = &metadata(&fixture)["entries"]["experts-2022"];
    assert_eq!(
        experts["abstract"]["value"],
        "Routing tokens to <nobody> with flibbertigibbets."
    );
    assert_eq!(
        experts["venue"]["value"],
        "Proceedings of the Fictional Conference"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_doi_crossref_does_not_know_is_resolved_by_title_on_arxiv() {
    let (_server, fixture, _) = indexed().await;
    let unregistered = &metadata(&fixture)["entries"]["unregistered-2020"];
    assert_eq!(unregistered["arxiv"]["value"], "1412.99997");
    assert_eq!(unregistered["arxiv"]["found_by"], "title-search");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_close_title_by_another_author_is_a_candidate_never_applied() {
    let (_server, fixture, _) = indexed().await;
    let decoyed = &metadata(&fixture)["entries"]["decoyed-2019"];
    assert!(
        decoyed.get("arxiv").is_none() && decoyed.get("abstract").is_none(),
        "{decoyed}"
    );
    assert_eq!(decoyed["candidates"][0]["arxiv"], "1412.99996");
    let reason = decoyed["candidates"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("first author differs"), "{reason}");
}

#[tokio::test(flavor = "multi_thread")]
async fn words_found_only_in_abstracts_are_searchable_with_abstract_snippets() {
    let (_server, fixture, _) = indexed().await;
    let run = fixture.run(["search", "--json", "zorblats"]).success();
    let hit = &run.json_lines()[0];
    assert_eq!(hit["id"], "bubbles-2015");
    assert_eq!(hit["snippet_field"], "abstract");
}

#[tokio::test(flavor = "multi_thread")]
async fn show_says_which_service_each_field_came_from() {
    let (_server, fixture, _) = indexed().await;
    fixture
        .run(["show", "experts-2022"])
        .success()
        .stdout_has("abstract (from crossref)")
        .stdout_has("flibbertigibbets")
        .stdout_has("authors   Dan Invented, Gus Notreal  (from crossref)");
}

#[tokio::test(flavor = "multi_thread")]
async fn show_lists_a_candidate_for_the_curator() {
    let (_server, fixture, _) = indexed().await;
    fixture
        .run(["show", "decoyed-2019"])
        .success()
        .stdout_has("candidate Generalised Pipelines for Pretend Training (1412.99996)");
}

#[tokio::test(flavor = "multi_thread")]
async fn stats_counts_the_abstracts_fetched() {
    let (_server, fixture, _) = indexed().await;
    fixture
        .run(["stats"])
        .success()
        .stdout_has("metadata: abstracts 4/5 (80%)");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_run_makes_no_request() {
    let server = healthy_services().await;
    let fixture = fixture();
    index(&fixture, &server.uri(), &[]).success();
    let before = fixture.read("metadata.json");

    let silent = MockServer::start().await;
    let run = index(&fixture, &silent.uri(), &[]).success();
    // The decoyed paper stays unresolved, but its misses are remembered.
    if !silent.received_requests().await.unwrap().is_empty() {
        run.fail("the second run made requests");
    }
    assert_eq!(fixture.read("metadata.json"), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_refresh_keeps_the_cache_and_the_index() {
    let server = healthy_services().await;
    let fixture = fixture();
    index(&fixture, &server.uri(), &[]).success();
    let before = fixture.read("metadata.json");

    let broken = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<feed><entry><title>cut"))
        .mount(&broken)
        .await;
    index(&fixture, &broken.uri(), &["--refresh"])
        .success()
        .stderr_has("failed");
    assert_eq!(
        fixture.read("metadata.json"),
        before,
        "a failed refresh must not change the cache"
    );
    assert_eq!(search_ids(&fixture, &["zorblats"]), ["bubbles-2015"]);
}

/// A port nothing listens on: connections are refused, as offline.
fn refused_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test(flavor = "multi_thread")]
async fn without_network_index_warns_once_and_still_builds_the_index() {
    let fixture = fixture();
    let run = index(
        &fixture,
        &format!("http://127.0.0.1:{}", refused_port()),
        &[],
    )
    .success();
    if run.stderr().matches("warning:").count() != 1 {
        run.fail("expected one warning");
    }
    run.stderr_has("5 papers lack metadata")
        .stdout_has("indexed 5 entries");
    assert!(
        !fixture.catalog().join("metadata.json").exists(),
        "nothing learned, nothing written"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_network_index_makes_one_request_and_waits_for_nothing() {
    // With ten minutes between arXiv requests and as long a timeout, a run
    // that tried a second request, or waited its turn before knowing the
    // host is gone, would not end in the two minutes given here.
    let fixture = fixture();
    let cmd = index_cmd(
        &fixture,
        &format!("http://127.0.0.1:{}", refused_port()),
        &[],
    )
    .env("DISTML_ARXIV_DELAY_MS", "600000")
    .env("DISTML_HTTP_TIMEOUT_MS", "600000");
    let output = common::output_within(cmd, Duration::from_secs(120));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains(" failed (1 requests)\n"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn offline_never_touches_the_network() {
    let server = MockServer::start().await;
    let fixture = fixture();
    index(&fixture, &server.uri(), &["--offline"]).success();
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
    index(&fixture, &server.uri(), &[]).success();
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
    index_cmd(&fixture, &server.uri(), &["--verbose"])
        .env("DISTML_OPENALEX_KEY", "test-key")
        .run()
        .success()
        .stderr_has("GET ")
        .stderr_has("api_key=***")
        .stderr_lacks("test-key");
    let cache = metadata(&fixture);
    let abstract_text = &cache["entries"]["experts-2022"]["abstract"];
    assert_eq!(abstract_text["value"], "Experts route snarks and snarks");
    assert_eq!(abstract_text["source"], "openalex");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_killed_mid_way_keeps_a_valid_cache_with_what_it_got() {
    // Three DOIs answer at once, the other nine only after a minute: the run
    // is killed once the three are cached, while it waits for the rest.
    let server = MockServer::start().await;
    let mut papers = String::from("[section]\nname = \"Papers\"\norder = 1\n");
    for i in 0..12 {
        papers.push_str(&format!(
            "\n[[entry]]\nid = \"doi-{i}\"\nkind = \"paper\"\ntitle = \"Fictional DOI Paper {i}\"\nurl = \"https://doi.org/10.1000/slow.{i}\"\nauthors = [\"Dan Invented\"]\nvenue = \"FICT\"\nyear = 2022\ndoi = \"10.1000/slow.{i}\"\ntags = [\"mixture-of-experts\"]\nnote = \"Fictional.\"\n"
        ));
        let delay = Duration::from_secs(if i < 3 { 0 } else { 60 });
        Mock::given(method("GET"))
            .and(path_regex(format!(
                "^/crossref/works/10\\.1000(/|%2F)slow\\.{i}$"
            )))
            .respond_with(ResponseTemplate::new(200).set_delay(delay).set_body_string(
                crossref_work(
                    &format!("10.1000/slow.{i}"),
                    &format!("Fictional DOI Paper {i}"),
                    "<jats:p>Slow.</jats:p>",
                ),
            ))
            .mount(&server)
            .await;
    }
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("papers.toml", &papers)]);
    let mut child = index_cmd(&fixture, &server.uri(), &[])
        .env("DISTML_HTTP_TIMEOUT_MS", "120000")
        .into_command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let cache = fixture.catalog().join("metadata.json");
    let watched = cache.clone();
    let waited = tokio::task::spawn_blocking(move || {
        wait_for("three abstracts in the cache", || abstracts(&watched) >= 3);
    })
    .await;
    child.kill().unwrap();
    let status = child.wait().unwrap();
    waited.unwrap();
    assert!(!status.success(), "the run ended before it was killed");
    assert_eq!(abstracts(&cache), 3);
}

/// How many entries of the cache at `path` have an abstract; the cache is
/// written atomically, so it is absent or whole.
fn abstracts(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |text| {
        let cache: serde_json::Value = serde_json::from_str(&text).expect("a valid cache");
        cache["entries"]
            .as_object()
            .unwrap()
            .values()
            .filter(|e| e.get("abstract").is_some())
            .count()
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_service_that_answers_500_to_everything_is_given_up_with_one_warning() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&server)
        .await;
    let fixture = fixture();
    // Every request failed, 805 of them in 20 minutes, before the budget.
    let run = index(&fixture, &server.uri(), &[]).success();
    if run.stderr().matches("warning:").count() != 1 {
        run.fail("expected one warning");
    }
    run.stderr_has("could not reach")
        .stdout_has("indexed 5 entries");
    let asked = server.received_requests().await.unwrap().len();
    assert!(
        asked <= 10,
        "{asked} requests to a service that always fails"
    );
}

#[test]
fn a_service_that_never_answers_is_left_at_the_runs_deadline() {
    // Accepts every connection and never says a word.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let fixture = fixture();
    index_cmd(&fixture, &base, &[])
        .env("DISTML_HTTP_TIMEOUT_MS", "600000")
        .env("DISTML_INGEST_DEADLINE_S", "2")
        .run()
        .success()
        .stderr_has("stopped at the run's deadline (2 s, DISTML_INGEST_DEADLINE_S)")
        .stdout_has("indexed 5 entries");
}
