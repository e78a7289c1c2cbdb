//! `harvest` against a loopback OAI-PMH server written from arXiv's
//! documentation of its interface: `ListRecords` in the `arXiv` format,
//! pages joined by resumption tokens, `noRecordsMatch`, expired tokens
//! (`badResumptionToken`) and flow control (503 with `Retry-After`). Its
//! records are fictional: 1412.8xxxx ids (2014 ids had four digits).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Cmd, Fixture, Run, generations};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// One fictional record the server holds.
#[derive(Clone)]
struct Paper {
    id: String,
    datestamp: String,
    categories: String,
    title: String,
    deleted: bool,
}

fn paper(n: usize, datestamp: &str, categories: &str) -> Paper {
    Paper {
        id: format!("1412.8{n:04}"),
        datestamp: datestamp.to_string(),
        categories: categories.to_string(),
        title: format!("Pretend zorblat pipelines, study {n}"),
        deleted: false,
    }
}

/// `n` records of cs.DC, changed on the first five days of 2999.
fn papers(n: usize) -> Vec<Paper> {
    (1..=n)
        .map(|i| paper(i, &format!("2999-01-0{}", 1 + (i - 1) % 5), "cs.DC cs.LG"))
        .collect()
}

/// What the server does besides answering.
#[derive(Default)]
struct Quirks {
    /// Answer the first request with 503 and `Retry-After: 1`.
    busy_once: bool,
    /// Reject this page's token once, as expired.
    expire_token_once: Option<usize>,
    /// Answer 500 to every request for this page and later.
    broken_from_page: Option<usize>,
    /// Hold back the answer for this page.
    slow_page: Option<(usize, Duration)>,
}

/// The OAI-PMH server: pages of `PAGE` records; a token names the page.
struct Oai {
    papers: Vec<Paper>,
    quirks: Quirks,
    requests: AtomicUsize,
    expired: AtomicUsize,
}

const PAGE: usize = 10;

impl Respond for Oai {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let nth = self.requests.fetch_add(1, Ordering::SeqCst);
        if self.quirks.busy_once && nth == 0 {
            return ResponseTemplate::new(503).insert_header("Retry-After", "1");
        }
        let query: Vec<(String, String)> = request.url.query_pairs().into_owned().collect();
        let get = |key: &str| query.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        if get("verb").as_deref() != Some("ListRecords") {
            return xml(error("badVerb", "only ListRecords here"));
        }
        let (page, from, until) = match get("resumptionToken") {
            Some(token) => {
                let Some(rest) = token.strip_prefix("page-") else {
                    return xml(error("badResumptionToken", "unknown token"));
                };
                let mut parts = rest.split('~');
                let page: usize = parts.next().unwrap().parse().unwrap();
                let from = parts.next().filter(|s| !s.is_empty()).map(str::to_string);
                let until = parts.next().filter(|s| !s.is_empty()).map(str::to_string);
                if self.quirks.expire_token_once == Some(page)
                    && self.expired.fetch_add(1, Ordering::SeqCst) == 0
                {
                    return xml(error("badResumptionToken", "the token expired"));
                }
                (page, from, until)
            }
            None => {
                if get("metadataPrefix").as_deref() != Some("arXiv") || get("set").is_none() {
                    return xml(error("badArgument", "metadataPrefix=arXiv and set needed"));
                }
                (0, get("from"), get("until"))
            }
        };
        if self.quirks.broken_from_page.is_some_and(|p| page >= p) {
            return ResponseTemplate::new(500);
        }
        let matching: Vec<&Paper> = self
            .papers
            .iter()
            .filter(|p| from.as_deref().is_none_or(|f| p.datestamp.as_str() >= f))
            .filter(|p| until.as_deref().is_none_or(|u| p.datestamp.as_str() <= u))
            .collect();
        if matching.is_empty() {
            return xml(error("noRecordsMatch", "no records in that window"));
        }
        let shown =
            &matching[(page * PAGE).min(matching.len())..((page + 1) * PAGE).min(matching.len())];
        let more = (page + 1) * PAGE < matching.len();
        let token = if more {
            format!(
                "page-{}~{}~{}",
                page + 1,
                from.unwrap_or_default(),
                until.unwrap_or_default()
            )
        } else {
            String::new()
        };
        let mut body = String::from(HEAD);
        body.push_str("<ListRecords>\n");
        for p in shown {
            body.push_str(&record(p));
        }
        body.push_str(&format!(
            "<resumptionToken cursor=\"{}\" completeListSize=\"{}\">{token}</resumptionToken>\n</ListRecords>\n</OAI-PMH>\n",
            page * PAGE,
            matching.len()
        ));
        let answer = xml(body);
        match self.quirks.slow_page {
            Some((slow, delay)) if slow == page => answer.set_delay(delay),
            _ => answer,
        }
    }
}

const HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<OAI-PMH xmlns=\"http://www.openarchives.org/OAI/2.0/\">\n<responseDate>2999-01-08T00:00:00Z</responseDate>\n<request verb=\"ListRecords\">http://127.0.0.1/oai</request>\n";

fn xml(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "text/xml")
}

fn error(code: &str, message: &str) -> String {
    format!("{HEAD}<error code=\"{code}\">{message}</error>\n</OAI-PMH>\n")
}

/// A `ListRecords` page of `papers`, then `token` (empty: the last page).
fn list_page(papers: &[Paper], token: &str) -> String {
    let mut body = String::from(HEAD);
    body.push_str("<ListRecords>\n");
    for p in papers {
        body.push_str(&record(p));
    }
    body.push_str(&format!(
        "<resumptionToken>{token}</resumptionToken>\n</ListRecords>\n</OAI-PMH>\n"
    ));
    body
}

/// A server that answers its `n`th request (from 0) with the page
/// `answer(n)` gives, whatever was asked.
async fn scripted(
    answer: impl Fn(usize) -> (Vec<Paper>, String) + Send + Sync + 'static,
) -> MockServer {
    let server = MockServer::start().await;
    let requests = AtomicUsize::new(0);
    Mock::given(wiremock::matchers::path("/oai"))
        .respond_with(move |_: &Request| {
            let (papers, token) = answer(requests.fetch_add(1, Ordering::SeqCst));
            xml(list_page(&papers, &token))
        })
        .mount(&server)
        .await;
    server
}

fn record(p: &Paper) -> String {
    if p.deleted {
        return format!(
            "<record><header status=\"deleted\"><identifier>oai:arXiv.org:{}</identifier><datestamp>{}</datestamp><setSpec>cs</setSpec></header></record>\n",
            p.id, p.datestamp
        );
    }
    format!(
        "<record>\n<header><identifier>oai:arXiv.org:{id}</identifier><datestamp>{date}</datestamp><setSpec>cs</setSpec></header>\n<metadata>\n<arXiv xmlns=\"http://arxiv.org/OAI/arXiv/\">\n<id>{id}</id><created>2999-01-01</created>\n<authors><author><keyname>Example</keyname><forenames>Ada</forenames></author></authors>\n<title>{title}</title>\n<categories>{categories}</categories>\n<abstract>  We schedule imaginary micro-batches &amp; quuxes.\n</abstract>\n</arXiv>\n</metadata>\n</record>\n",
        id = p.id,
        date = p.datestamp,
        title = p.title,
        categories = p.categories,
    )
}

/// A loopback OAI-PMH server holding `papers`.
async fn server(papers: Vec<Paper>, quirks: Quirks) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::path("/oai"))
        .respond_with(Oai {
            papers,
            quirks,
            requests: AtomicUsize::new(0),
            expired: AtomicUsize::new(0),
        })
        .mount(&server)
        .await;
    server
}

/// `harvest ARGS` against `server`, with no delay between requests.
fn harvest(fixture: &Fixture, server: &MockServer, args: &[&str]) -> Run {
    harvest_cmd(fixture, server).args(args).run()
}

fn harvest_cmd(fixture: &Fixture, server: &MockServer) -> Cmd {
    fixture
        .cmd()
        .arg("harvest")
        .env("DISTML_OAI_API", format!("{}/oai", server.uri()))
        .env("DISTML_ARXIV_DELAY_MS", "0")
}

/// The ids of the arxiv collection, sorted.
fn arxiv_ids(fixture: &Fixture) -> Vec<String> {
    let run = fixture
        .run(["search", "--collection", "arxiv", "--json", "-n", "1000"])
        .code(0);
    let mut ids = run.ids();
    ids.sort();
    ids
}

fn expected_ids(range: std::ops::RangeInclusive<usize>) -> Vec<String> {
    range.map(|n| format!("arxiv:1412.8{n:04}")).collect()
}

/// The query of each request the server received, in order.
async fn queries(server: &MockServer) -> Vec<String> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| r.url.query().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn three_pages_joined_by_resumption_tokens_join_the_arxiv_collection() {
    let server = server(papers(25), Quirks::default()).await;
    let fixture = Fixture::invented();
    harvest(&fixture, &server, &["--from", "2999-01-01"])
        .success()
        .stderr_has("harvest: set cs from 2999-01-01: 3 pages, 25 records: 25 new, 0 updated, 0 unchanged, 0 outside the categories, 0 withdrawn; 25 added to the index");
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=25));
    assert_eq!(
        queries(&server).await,
        [
            "verb=ListRecords&metadataPrefix=arXiv&set=cs&from=2999-01-01",
            "verb=ListRecords&resumptionToken=page-1%7E2999-01-01%7E",
            "verb=ListRecords&resumptionToken=page-2%7E2999-01-01%7E",
        ]
    );
    // A harvested record is searchable by its words and shown whole.
    let run = fixture
        .run(["search", "--json", "zorblat study 7", "-n", "1"])
        .success();
    let hit = &run.json_lines()[0];
    assert_eq!(hit["id"], "arxiv:1412.80007");
    assert_eq!(hit["authors"], serde_json::json!(["Ada Example"]));
    assert_eq!(hit["year"], 2999);
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_are_spaced_by_the_arxiv_delay() {
    let server = server(papers(25), Quirks::default()).await;
    let fixture = Fixture::invented();
    let started = Instant::now();
    harvest_cmd(&fixture, &server)
        .args(["--from", "2999-01-01"])
        .env("DISTML_ARXIV_DELAY_MS", "700")
        .run()
        .success();
    // Three requests: two waits.
    assert!(started.elapsed() >= Duration::from_millis(1400));
    assert_eq!(queries(&server).await.len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn only_records_of_the_categories_are_kept() {
    let mut all = papers(6);
    all[1].categories = "cs.CV".into();
    all[2].categories = "cs.CV cs.DC".into();
    all[3].categories = "math.OC".into();
    let server = server(all, Quirks::default()).await;
    let fixture = Fixture::invented();
    harvest(&fixture, &server, &["--from", "2999-01-01"])
        .success()
        .stderr_has("4 new, 0 updated, 0 unchanged, 2 outside the categories");
    assert_eq!(
        arxiv_ids(&fixture),
        [
            "arxiv:1412.80001",
            "arxiv:1412.80003",
            "arxiv:1412.80005",
            "arxiv:1412.80006"
        ]
    );
    // An archive keeps every category of it.
    let fixture = Fixture::invented();
    harvest(
        &fixture,
        &server,
        &["--from", "2999-01-01", "--categories", "cs.CV"],
    )
    .success();
    assert_eq!(
        arxiv_ids(&fixture),
        ["arxiv:1412.80002", "arxiv:1412.80003"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_records_match_is_an_empty_harvest() {
    let server = server(papers(5), Quirks::default()).await;
    let fixture = Fixture::invented();
    let run = harvest(&fixture, &server, &["--from", "2999-02-01"]).success();
    let run = run.stderr_has("harvest: set cs from 2999-02-01: 0 pages, 0 records: 0 new, 0 updated, 0 unchanged, 0 outside the categories, 0 withdrawn; 0 added to the index in 0 ms (1 requests, ");
    assert_eq!(run.stderr().lines().count(), 1, "{}", run.stderr());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_token_asks_for_the_list_again_and_keeps_each_record_once() {
    let server = server(
        papers(25),
        Quirks {
            expire_token_once: Some(2),
            ..Quirks::default()
        },
    )
    .await;
    let fixture = Fixture::invented();
    harvest(&fixture, &server, &["--from", "2999-01-01"])
        .success()
        .stderr_has("no longer knows the resumption token")
        .stderr_has("25 new, 0 updated, 20 unchanged");
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=25));
    let asked = queries(&server).await;
    assert_eq!(asked.len(), 6, "{asked:?}");
    assert_eq!(
        asked[0], asked[3],
        "the list is asked for again from its start"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_busy_server_is_asked_again_after_its_retry_after() {
    let server = server(
        papers(3),
        Quirks {
            busy_once: true,
            ..Quirks::default()
        },
    )
    .await;
    let fixture = Fixture::invented();
    let started = Instant::now();
    harvest(&fixture, &server, &["--from", "2999-01-01"])
        .success()
        .stderr_has("3 new");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was not waited for"
    );
    let asked = queries(&server).await;
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[0], asked[1]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_harvest_stopped_by_a_failing_server_resumes_with_every_record_once() {
    let broken = server(
        papers(25),
        Quirks {
            broken_from_page: Some(2),
            ..Quirks::default()
        },
    )
    .await;
    let fixture = Fixture::invented();
    let run = harvest_cmd(&fixture, &broken)
        .args(["--from", "2999-01-01"])
        .env("DISTML_HTTP_TIMEOUT_MS", "2000")
        .run()
        .code(2);
    let run = run.stderr_has("2 pages, 20 records: 20 new");
    let errors: Vec<&str> = run
        .stderr()
        .lines()
        .filter(|l| l.contains("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", run.stderr());
    assert!(
        errors[0].contains("resumes where this one stopped"),
        "{}",
        errors[0]
    );
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=20));

    let healthy = server(papers(25), Quirks::default()).await;
    harvest(&fixture, &healthy, &[])
        .success()
        .stderr_has("(resumed): 1 pages, 5 records: 5 new");
    assert_eq!(
        queries(&healthy).await,
        ["verb=ListRecords&resumptionToken=page-2%7E2999-01-01%7E"]
    );
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=25));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_harvest_resumes_with_no_record_lost_or_twice() {
    let slow = server(
        papers(25),
        Quirks {
            slow_page: Some((2, Duration::from_secs(30))),
            ..Quirks::default()
        },
    )
    .await;
    let fixture = Fixture::invented();
    let mut child = harvest_cmd(&fixture, &slow)
        .args(["--from", "2999-01-01"])
        .into_command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let state = fixture.index().join("harvested/state.json");
    common::wait_for("two pages to be stored", || {
        std::fs::read_to_string(&state).is_ok_and(|s| s.contains("\"pages\": 2"))
            && queries_blocking(&slow) >= 3
    });
    child.kill().unwrap();
    child.wait().unwrap();

    let healthy = server(papers(25), Quirks::default()).await;
    harvest(&fixture, &healthy, &[])
        .success()
        .stderr_has("5 new");
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=25));
    let stored = std::fs::read_to_string(fixture.index().join("harvested/records.jsonl")).unwrap();
    assert_eq!(stored.lines().count(), 25, "each record stored once");
}

/// How many requests `server` received, from a test's own thread.
fn queries_blocking(server: &MockServer) -> usize {
    let server_requests = tokio::task::block_in_place(|| {
        tokio::runtime::Handle::current().block_on(server.received_requests())
    });
    server_requests.map_or(0, |r| r.len())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_next_harvest_asks_from_the_latest_datestamp() {
    let fixture = Fixture::invented();
    let first = server(papers(10), Quirks::default()).await;
    harvest(&fixture, &first, &["--from", "2999-01-01"])
        .success()
        .stderr_has("latest datestamp 2999-01-05");

    // Since then: study 3 changed, 11 is new, and 5 was withdrawn; 10,
    // changed on the latest day, is received again.
    let mut later = papers(11);
    later[2].datestamp = "2999-01-07".into();
    later[2].title = "Pretend zorblat pipelines, study 3, revised".into();
    later[10].datestamp = "2999-01-07".into();
    later[4].datestamp = "2999-01-07".into();
    later[4].deleted = true;
    let second = server(later, Quirks::default()).await;
    harvest(&fixture, &second, &[])
        .success()
        .stderr_has("set cs from 2999-01-05: 1 pages, 4 records: 1 new, 1 updated, 1 unchanged, 0 outside the categories, 1 withdrawn");
    assert_eq!(
        queries(&second).await,
        ["verb=ListRecords&metadataPrefix=arXiv&set=cs&from=2999-01-05"]
    );
    let mut ids = expected_ids(1..=11);
    ids.remove(4);
    assert_eq!(arxiv_ids(&fixture), ids);
    let run = fixture
        .run(["search", "--json", "revised zorblat", "-n", "1"])
        .success();
    assert_eq!(
        run.json_lines()[0]["title"],
        "Pretend zorblat pipelines, study 3, revised"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn harvested_records_survive_rebuilds_damage_and_snapshot_imports() {
    let server = server(papers(12), Quirks::default()).await;
    let fixture = Fixture::invented();
    harvest(&fixture, &server, &["--from", "2999-01-01"]).success();

    // A rebuild from the catalog, after a catalog edit.
    let edited = fixture
        .read("invented-systems.toml")
        .replace("Streams pretend", "Streams make-believe");
    fixture.write("invented-systems.toml", &edited);
    fixture.run(["index"]).success();
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=12));

    // A damaged index, set aside and built afresh.
    let generation = fixture.index().join(&generations(&fixture.index())[0]);
    std::fs::remove_file(generation.join("meta.json")).unwrap();
    fixture
        .run(["search", "zorblat"])
        .success()
        .stderr_has("set aside");
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=12));

    // A snapshot import writes a new generation; its older version of a
    // harvested record gives way to the harvest's.
    let snapshot = fixture.dir.path().join("snapshot.jsonl");
    std::fs::write(
        &snapshot,
        concat!(
            r#"{"id":"1412.80001","title":"Stale snapshot title","abstract":"x","categories":"cs.DC","update_date":"2999-01-01","authors_parsed":[["Sample","Carol",""]]}"#,
            "\n",
            r#"{"id":"1412.89999","title":"Only in the snapshot","abstract":"x","categories":"cs.DC","update_date":"2999-01-01","authors_parsed":[["Sample","Carol",""]]}"#,
            "\n"
        ),
    )
    .unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", snapshot.to_str().unwrap()])
        .success();
    let mut ids = expected_ids(1..=12);
    ids.push("arxiv:1412.89999".into());
    assert_eq!(arxiv_ids(&fixture), ids);
    assert!(
        fixture
            .run([
                "search",
                "--json",
                "stale snapshot",
                "--collection",
                "arxiv"
            ])
            .ids()
            .iter()
            .all(|id| id != "arxiv:1412.80001")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn harvested_records_survive_an_index_of_another_schema() {
    let server = server(papers(4), Quirks::default()).await;
    let fixture = Fixture::invented();
    harvest(&fixture, &server, &["--from", "2999-01-01"]).success();
    // An older build's index, of another schema, holding an older version
    // of a harvested record: the rebuild carries it, then the harvest's
    // version replaces it.
    common::older_schema_index(
        &fixture.index(),
        &[("1412.80001", "Obsolete Yarnwheel Title")],
        0,
    );

    fixture.run(["search", "zorblat"]).success();
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=4));
    fixture.run(["search", "yarnwheel"]).code(1);
}

#[test]
fn dates_and_windows_are_checked_in_one_line() {
    let fixture = Fixture::invented();
    let run = fixture.run(["harvest", "--from", "2999-13-01"]).code(2);
    assert!(
        run.stderr().contains("invalid value '2999-13-01' for '--from <DATE>': expected a day such as 2024-03-31 (YYYY-MM-DD)"),
        "{}",
        run.stderr()
    );
    fixture
        .run(["harvest", "--from", "2999-02-01", "--until", "2999-01-01"])
        .code(2)
        .stderr_is("distml-search: error: --from 2999-02-01 is after --until 2999-01-01: no day is in that window\n");
    let run = fixture
        .run(["harvest", "--categories", "cs.DC,NOT A CATEGORY"])
        .code(2);
    assert!(
        run.stderr()
            .contains("expected arXiv categories such as cs.DC"),
        "{}",
        run.stderr()
    );
}

#[test]
fn with_no_network_it_ends_quickly_with_one_error() {
    let fixture = Fixture::invented();
    let started = Instant::now();
    let run = fixture
        .cmd()
        .args(["harvest", "--from", "2999-01-01"])
        // A port nothing listens on: the connection is refused.
        .env("DISTML_OAI_API", "http://127.0.0.1:9/oai")
        .run()
        .code(2);
    assert!(started.elapsed() < Duration::from_secs(20));
    let lines: Vec<&str> = run.stderr().lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stderr());
    assert!(
        lines[0].starts_with("distml-search: error: harvest: could not reach 127.0.0.1:9"),
        "{}",
        lines[0]
    );
}

/// `harvest ARGS` against `server`, killed after a minute (a harvest that
/// loops would otherwise hold the test forever): exit 124 then.
fn harvest_bounded(fixture: &Fixture, server: &MockServer, args: &[&str]) -> Run {
    Cmd::program(fixture, "timeout")
        .args(["60", common::BIN, "harvest"])
        .args(args)
        .env("DISTML_OAI_API", format!("{}/oai", server.uri()))
        .env("DISTML_ARXIV_DELAY_MS", "0")
        .run()
}

/// The one error line of `run`, which must say `what`.
fn one_error<'a>(run: &'a Run, what: &str) -> &'a str {
    let errors: Vec<&str> = run
        .stderr()
        .lines()
        .filter(|l| l.contains("error:"))
        .collect();
    if errors.len() != 1 || !errors[0].contains(what) {
        run.fail(format!("expected one error line saying {what:?}"));
    }
    errors[0]
}

/// The lines of `harvested/records.jsonl`.
fn stored_lines(fixture: &Fixture) -> Vec<String> {
    std::fs::read_to_string(fixture.index().join("harvested/records.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn harvest_state(fixture: &Fixture) -> serde_json::Value {
    let text = std::fs::read_to_string(fixture.index().join("harvested/state.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resumption_token_that_never_changes_ends_the_harvest_with_one_error() {
    let looping = scripted(|_| (papers(3), "again".to_string())).await;
    let fixture = Fixture::invented();
    let started = Instant::now();
    let run = harvest_bounded(&fixture, &looping, &["--from", "2999-01-01"]).code(2);
    assert!(started.elapsed() < Duration::from_secs(20));
    let error = one_error(&run, "goes round");
    assert!(
        error.contains("the resumption token \"again\" a second time"),
        "{error}"
    );
    assert!(error.contains("what was harvested is kept"), "{error}");
    run.stderr_has("2 pages, 6 records: 3 new, 0 updated, 3 unchanged");
    assert_eq!(queries(&looping).await.len(), 2);
    // What it sent is kept, each record once, and searchable.
    assert_eq!(stored_lines(&fixture).len(), 3);
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=3));
    // The run is left without the token: the next harvest asks for the
    // window again, from its start, and ends with every record once.
    let state = harvest_state(&fixture);
    assert_eq!(state["run"]["token"], serde_json::Value::Null, "{state}");
    assert!(state["latest"].get("cs").is_none(), "{state}");
    let healthy = server(papers(25), Quirks::default()).await;
    harvest(&fixture, &healthy, &[])
        .success()
        .stderr_has("(resumed): 3 pages, 25 records: 22 new, 0 updated, 3 unchanged");
    assert_eq!(
        queries(&healthy).await[0],
        "verb=ListRecords&metadataPrefix=arXiv&set=cs&from=2999-01-01"
    );
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=25));
    assert_eq!(stored_lines(&fixture).len(), 25);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_that_changes_forever_over_the_same_records_ends_the_harvest() {
    let looping = scripted(|n| (papers(3), format!("t-{n}"))).await;
    let fixture = Fixture::invented();
    let started = Instant::now();
    let run = harvest_bounded(&fixture, &looping, &["--from", "2999-01-01"]).code(2);
    assert!(started.elapsed() < Duration::from_secs(20));
    let error = one_error(&run, "goes round");
    assert!(
        error.contains("3 pages in a row held no record it had not already sent"),
        "{error}"
    );
    // The first page, then three that bring nothing new.
    assert_eq!(queries(&looping).await.len(), 4);
    assert_eq!(stored_lines(&fixture).len(), 3);
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=3));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_that_never_ends_stops_at_the_runs_deadline_and_is_resumed() {
    // Two new records a page, forever.
    let endless = scripted(|n| {
        let papers = (2 * n + 1..=2 * n + 2)
            .map(|i| paper(i, "2999-01-02", "cs.DC"))
            .collect();
        (papers, format!("t-{n}"))
    })
    .await;
    let fixture = Fixture::invented();
    let started = Instant::now();
    let run = Cmd::program(&fixture, "timeout")
        .args(["60", common::BIN, "harvest", "--from", "2999-01-01"])
        .env("DISTML_OAI_API", format!("{}/oai", endless.uri()))
        .env("DISTML_ARXIV_DELAY_MS", "100")
        .env("DISTML_HARVEST_DEADLINE_S", "2")
        .run()
        .code(2);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(15), "{took:?}");
    one_error(
        &run,
        "harvest: stopped at the run's deadline (2 s, DISTML_HARVEST_DEADLINE_S); what was harvested is kept",
    );
    // Every page received is stored and indexed, and the run keeps its
    // token for the next harvest to resume from.
    let pages = queries(&endless).await.len();
    let stored = stored_lines(&fixture).len();
    assert!(
        stored >= 4 && stored <= 2 * pages,
        "{stored} of {pages} pages"
    );
    assert_eq!(arxiv_ids(&fixture).len(), stored);
    let token = harvest_state(&fixture)["run"]["token"].clone();
    assert_eq!(token, format!("t-{}", stored / 2 - 1), "{stored}");
    // A deadline must be a number.
    harvest_cmd(&fixture, &endless)
        .env("DISTML_HARVEST_DEADLINE_S", "soon")
        .run()
        .code(2)
        .stderr_is("distml-search: error: DISTML_HARVEST_DEADLINE_S must be a whole number of seconds, not \"soon\"\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn records_whose_identifier_is_no_arxiv_id_are_skipped_and_counted() {
    let mut sent = papers(2);
    for id in [
        "../../../../tmp/x",
        "a b",
        "2612.60006/../x",
        "2612.6\u{1b}[2J0007",
    ] {
        let mut bad = paper(9, "2999-01-03", "cs.DC");
        bad.id = id.to_string();
        sent.push(bad);
    }
    let server = server(sent, Quirks::default()).await;
    let fixture = Fixture::invented();
    harvest(&fixture, &server, &["--from", "2999-01-01"])
        .success()
        .stderr_has("1 pages, 6 records: 2 new, 0 updated, 0 unchanged, 0 outside the categories, 0 withdrawn; 4 skipped: not an arXiv id; 2 added to the index");
    let stored = stored_lines(&fixture);
    assert_eq!(stored.len(), 2, "{stored:?}");
    for line in &stored {
        assert!(line.starts_with(r#"{"id":"1412.8000"#), "{line}");
    }
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=2));
}

#[tokio::test(flavor = "multi_thread")]
async fn datestamps_after_the_response_or_unreadable_never_move_the_next_start() {
    // The server answers on 2999-01-08 (HEAD).
    let mut sent = papers(4);
    sent[1].datestamp = "9999-12-31".into();
    sent[2].datestamp = "zzzz".into();
    sent[3].datestamp = "2999-01-09".into();
    let misdating = server(sent, Quirks::default()).await;
    let fixture = Fixture::invented();
    harvest(&fixture, &misdating, &["--from", "2999-01-01"])
        .success()
        .stderr_has("1 pages, 4 records: 1 new, 0 updated, 0 unchanged, 0 outside the categories, 0 withdrawn; 3 skipped: datestamp unreadable or after the response's date; 1 added to the index")
        .stderr_has("latest datestamp 2999-01-01");
    assert_eq!(stored_lines(&fixture).len(), 1);
    assert_eq!(harvest_state(&fixture)["latest"]["cs"], "2999-01-01");
    // The next harvest starts where the real records ended.
    let next = server(papers(5), Quirks::default()).await;
    harvest(&fixture, &next, &[]).success();
    assert_eq!(
        queries(&next).await,
        ["verb=ListRecords&metadataPrefix=arXiv&set=cs&from=2999-01-01"]
    );
    assert_eq!(arxiv_ids(&fixture), expected_ids(1..=5));
}

/// The ids `watch ARGS --json --mark-read` shows, sorted; exit 0 with some,
/// 1 with none.
fn watch_read(fixture: &Fixture, args: &[&str]) -> Vec<String> {
    let run = fixture
        .cmd()
        .arg("watch")
        .args(args)
        .args(["--json", "--mark-read", "-n", "1000"])
        .run();
    let mut ids = run.ids();
    let run = run.code(if ids.is_empty() { 1 } else { 0 });
    for hit in run.json_lines() {
        assert!(hit["watch"].is_string(), "{hit}");
        assert!(
            hit["added"].as_str().is_some_and(|a| a.ends_with('Z')),
            "{hit}"
        );
    }
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread")]
async fn a_watch_shows_each_new_match_once_across_harvests() {
    let fixture = Fixture::invented();
    fixture
        .run(["watch", "add", "zorblat", "zorblat"])
        .success()
        .stdout_has("added watch zorblat: \"zorblat\" (0 matches now;");
    fixture
        .run([
            "watch",
            "add",
            "wobbly",
            "--like",
            "wobble-2021",
            "--min-similarity",
            "0.3",
        ])
        .success();
    // The catalog's own works were there before the watches.
    assert!(watch_read(&fixture, &[]).is_empty());

    let first = server(papers(10), Quirks::default()).await;
    harvest(&fixture, &first, &["--from", "2999-01-01"])
        .success()
        .stderr_has("10 new, 0 updated")
        .stderr_has("; watches: wobbly 10 new, zorblat 10 new\n");
    assert_eq!(
        watch_read(&fixture, &["show", "zorblat"]),
        expected_ids(1..=10)
    );
    assert_eq!(
        watch_read(&fixture, &["show", "wobbly"]),
        expected_ids(1..=10)
    );

    // Five new papers, and a new version of one already harvested: only
    // the new ones are new.
    let mut more = papers(15);
    more[2].datestamp = "2999-01-06".into();
    more[2].title = "Pretend zorblat pipelines, study 3, revised".into();
    for p in &mut more[10..] {
        p.datestamp = "2999-01-06".into();
    }
    let second = server(more, Quirks::default()).await;
    harvest(&fixture, &second, &[])
        .success()
        .stderr_has("5 new, 1 updated")
        .stderr_has("; watches: wobbly 5 new, zorblat 5 new\n");
    assert_eq!(watch_read(&fixture, &[]).len(), 10, "five, for each watch");
    fixture
        .run(["search", "--json", "revised zorblat"])
        .success()
        .stdout_has("study 3, revised");

    // Nothing new: none.
    harvest(&fixture, &second, &[])
        .success()
        .stderr_has("0 new, 0 updated")
        .stderr_has("; watches: wobbly 0 new, zorblat 0 new\n");
    assert!(watch_read(&fixture, &[]).is_empty());
    // A rebuild (the catalog edited) keeps every record's stamp.
    let edited = fixture.read("invented-systems.toml").replace(
        "Streams pretend micro-batches",
        "Streams make-believe micro-batches",
    );
    fixture.write("invented-systems.toml", &edited);
    assert!(watch_read(&fixture, &[]).is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_harvest_shows_in_a_running_servers_feeds() {
    let fixture = Fixture::invented();
    fixture
        .run(["watch", "add", "zorblat", "zorblat"])
        .success();
    let serving = common::Server::start(&fixture, &[]);
    let feed = |path: &str| {
        let (status, body) = serving.get_with_host(path, "127.0.0.1");
        assert_eq!(status, 200, "{body}");
        body
    };
    assert!(!feed("/feed/watch/zorblat.atom").contains("<entry>"));
    let oai = server(papers(3), Quirks::default()).await;
    harvest(&fixture, &oai, &["--from", "2999-01-01"]).success();
    // The server follows the index's commits.
    common::wait_for("the harvest in the feed", || {
        feed("/feed/watch/zorblat.atom").matches("<entry>").count() == 3
    });
    let search = feed("/feed/search.atom?q=zorblat&collection=arxiv");
    assert!(
        search.contains("<id>urn:distml-search:entry:arxiv:1412.80003</id>"),
        "{search}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endpoint_that_is_no_oai_pmh_ends_the_harvest_with_one_error() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::path("/oai"))
        .respond_with(ResponseTemplate::new(404).set_body_string("no such page"))
        .mount(&server)
        .await;
    let fixture = Fixture::invented();
    let run = harvest(&fixture, &server, &["--from", "2999-01-01"]).code(2);
    assert_eq!(
        run.stderr().trim_end(),
        format!(
            "distml-search: error: harvest: GET {}/oai?verb=ListRecords&metadataPrefix=arXiv&set=cs&from=2999-01-01 returned HTTP 404: is DISTML_OAI_API an OAI-PMH endpoint?; what was harvested is kept, and the next `distml-search harvest` resumes where this one stopped",
            server.uri()
        )
    );
}
