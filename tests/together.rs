//! Writers and readers together, on one index and one catalog: `serve`
//! answers a bounded load of concurrent `/api/search` clients while
//! `harvest` (a loopback OAI-PMH server), `import --arxiv-snapshot`,
//! `index` and `inbox accept` run, with no failed request, every answer
//! from a whole generation and its memory bounded; and each writer killed
//! (SIGKILL) at moments drawn from a fixed seed leaves a catalog `check`
//! accepts and an index that answers. Every record is fictional (2014's
//! arXiv ids had four digits after the dot).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Cmd, Fixture, Server, snapshot_line};
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Records of the harvest: two pages.
const HARVESTED: usize = 40;
const PAGE: usize = 20;

/// A snapshot of `n` fictional records, 1412.6xxxx; the first ones are
/// in every snapshot here, the inbox's candidates.
fn snapshot(n: usize) -> String {
    (0..n)
        .map(|i| {
            snapshot_line(
                &format!("1412.6{i:04}"),
                &format!("Pretend pipeline schedules for zorblat accelerators, study {i}"),
                &[("Ada", "Example")],
                "Thu, 1 Oct 2026 10:00:00 GMT",
                "We split pretend models into pipeline stages and schedule micro-batches so that the bubble shrinks.",
                None,
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A loopback OAI-PMH server with `HARVESTED` records of cs.DC, 1412.8xxxx,
/// each list a new version of them (a later datestamp), so that every
/// harvest from the same day has pages to store and index.
async fn oai() -> MockServer {
    let server = MockServer::start().await;
    let lists = AtomicUsize::new(0);
    Mock::given(method("GET"))
        .and(path("/oai"))
        .respond_with(move |request: &wiremock::Request| {
            let page: usize = request
                .url
                .query_pairs()
                .find(|(k, _)| k == "resumptionToken")
                .and_then(|(_, v)| v.strip_prefix("page-")?.parse().ok())
                .unwrap_or(0);
            let list = match page {
                0 => lists.fetch_add(1, Ordering::SeqCst) + 1,
                _ => lists.load(Ordering::SeqCst),
            };
            let date = format!("2999-{:02}-{:02}", 1 + list / 28 % 12, 1 + list % 28);
            let mut body = String::from(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<OAI-PMH xmlns=\"http://www.openarchives.org/OAI/2.0/\">\n<responseDate>2999-12-31T00:00:00Z</responseDate>\n<request verb=\"ListRecords\">http://127.0.0.1/oai</request>\n<ListRecords>\n",
            );
            for i in page * PAGE..((page + 1) * PAGE).min(HARVESTED) {
                body.push_str(&format!(
                    "<record><header><identifier>oai:arXiv.org:1412.8{i:04}</identifier><datestamp>{date}</datestamp><setSpec>cs</setSpec></header><metadata><arXiv xmlns=\"http://arxiv.org/OAI/arXiv/\"><id>1412.8{i:04}</id><created>2999-01-01</created><authors><author><keyname>Example</keyname><forenames>Ada</forenames></author></authors><title>Harvested pretend experts, study {i}</title><categories>cs.DC</categories><abstract>Pretend experts exchange tokens with an all-to-all.</abstract></arXiv></metadata></record>\n"
                ));
            }
            let token = match (page + 1) * PAGE < HARVESTED {
                true => format!("page-{}", page + 1),
                false => String::new(),
            };
            body.push_str(&format!(
                "<resumptionToken>{token}</resumptionToken>\n</ListRecords>\n</OAI-PMH>\n"
            ));
            ResponseTemplate::new(200).set_body_raw(body, "text/xml")
        })
        .mount(&server)
        .await;
    server
}

/// The four writers, by name, on `fixture`.
struct Writers<'f> {
    fixture: &'f Fixture,
    oai: String,
}

impl Writers<'_> {
    fn import(&self, file: &str) -> Cmd {
        self.fixture
            .cmd()
            .args(["import", "--arxiv-snapshot", file])
    }

    fn harvest(&self) -> Cmd {
        self.fixture
            .cmd()
            .args(["harvest", "--from", "2999-01-01"])
            .env("DISTML_OAI_API", &self.oai)
            .env("DISTML_ARXIV_DELAY_MS", "0")
    }

    fn index(&self) -> Cmd {
        self.fixture.cmd().args(["index", "--offline"])
    }

    fn accept(&self, n: usize) -> Cmd {
        self.fixture.cmd().args([
            "inbox",
            "accept",
            &format!("1412.6{n:04}"),
            "--note",
            "Pretend pipeline schedules that shrink the bubble.",
            "--tags",
            "pipeline-parallelism",
        ])
    }
}

/// The fixture with snapshots `a.jsonl` (60 records) and `b.jsonl` (90)
/// beside its catalog, `a` imported.
fn fixture() -> Fixture {
    let fixture = Fixture::new();
    std::fs::write(fixture.dir.path().join("a.jsonl"), snapshot(60)).unwrap();
    std::fs::write(fixture.dir.path().join("b.jsonl"), snapshot(90)).unwrap();
    fixture
        .run(["import", "--arxiv-snapshot", "a.jsonl"])
        .success();
    fixture
}

/// `GET path` on its own connection: the status and the body.
fn get(port: u16, path: &str) -> Result<(u16, String), String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .map_err(|e| e.to_string())?;
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {response:?}"))?;
    let body = response.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Ok((status, body.to_string()))
}

/// The server's peak resident memory (VmHWM), in MiB.
fn peak_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib / 1024
}

/// Clients at once: well under the server's cap of requests in flight,
/// so that no request is shed with a 503.
const CLIENTS: usize = 4;
/// Requests in all, at least: the writers usually take longer.
const REQUESTS: usize = 2_000;

#[tokio::test(flavor = "multi_thread")]
async fn serve_answers_every_search_while_the_writers_run() {
    let oai = oai().await;
    let fixture = fixture();
    let writers = Writers {
        fixture: &fixture,
        oai: format!("{}/oai", oai.uri()),
    };
    let server = Server::start(&fixture, &[]);
    let port = server.port;
    // What `collection:arxiv` may count in a whole generation: a snapshot
    // (none, a or b), less the records accepted into the catalog (up to
    // three), and the harvested records (none, one page or both).
    let mut whole = std::collections::BTreeSet::new();
    for snapshot in [0, 60, 90] {
        for accepted in 0..=3.min(snapshot) {
            for harvested in [0, PAGE, HARVESTED] {
                whole.insert(snapshot - accepted + harvested);
            }
        }
    }
    let done = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let queries = [
        "/api/search?q=pipeline+bubble",
        "/api/search?q=zorblat&limit=50",
        "/api/search?q=expert+all-to-all",
        "/api/search?q=collection:arxiv&limit=5",
        "/api/search?q=id:gpipe-2019",
    ];
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (done, sent, whole) = (done.clone(), sent.clone(), whole.clone());
            std::thread::spawn(move || {
                let mut failures = Vec::new();
                let mut i = c;
                while !(done.load(Ordering::SeqCst) && sent.load(Ordering::SeqCst) >= REQUESTS) {
                    let query = queries[i % queries.len()];
                    i += 1;
                    sent.fetch_add(1, Ordering::SeqCst);
                    let answer = get(port, query).and_then(|(status, body)| {
                        let value: Value = serde_json::from_str(&body)
                            .map_err(|e| format!("{status}: not JSON ({e}): {body}"))?;
                        match (status, value["hits"].as_array(), value["total"].as_u64()) {
                            (200, Some(_), Some(total)) => Ok((query, total as usize)),
                            _ => Err(format!("{status}: {body}")),
                        }
                    });
                    match answer {
                        Ok((query, total)) if query.contains("collection:arxiv") => {
                            if !whole.contains(&total) {
                                failures.push(format!("{query}: {total}, of no whole generation"));
                            }
                        }
                        Ok(_) => {}
                        Err(e) => failures.push(format!("{query}: {e}")),
                    }
                }
                failures
            })
        })
        .collect();
    // The writers, each in turn in a thread of its own, all at once.
    let started = Instant::now();
    let runs: Vec<(&str, Vec<Cmd>)> = vec![
        (
            "import",
            vec![
                writers.import("b.jsonl"),
                writers.import("a.jsonl"),
                writers.import("b.jsonl"),
            ],
        ),
        ("harvest", vec![writers.harvest(), writers.harvest()]),
        (
            "index",
            vec![writers.index(), writers.index(), writers.index()],
        ),
        (
            "accept",
            vec![writers.accept(0), writers.accept(1), writers.accept(2)],
        ),
    ];
    std::thread::scope(|scope| {
        for (name, cmds) in runs {
            scope.spawn(move || {
                for cmd in cmds {
                    let output = common::output_within(cmd, Duration::from_secs(120));
                    assert!(
                        output.status.success(),
                        "{name} failed: {}",
                        String::from_utf8_lossy(&output.stderr)
                    );
                }
            });
        }
    });
    let writing = started.elapsed();
    done.store(true, Ordering::SeqCst);
    let failures: Vec<String> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    let sent = sent.load(Ordering::SeqCst);
    assert!(
        failures.is_empty(),
        "{} of {sent} requests failed, the first: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    let peak = peak_mib(server.pid());
    eprintln!("{sent} requests, writers for {writing:?}, server peak {peak} MiB");
    assert!(peak < 400, "the server's memory grew to {peak} MiB");
    drop(server);
    // What the writers left: a catalog check accepts, with the accepted
    // works, and an index that finds them, the last snapshot's records
    // and the harvested ones (a record accepted after the last import
    // stays in the arxiv collection beside its entry).
    fixture.run(["check"]).success();
    let run = fixture
        .run(["search", "--json", "-n", "1000", "collection:arxiv"])
        .success();
    let records = run.ids().len();
    assert!(
        (90 - 3 + HARVESTED..=90 + HARVESTED).contains(&records),
        "{records} records: {}",
        run.stdout()
    );
    for n in 0..3 {
        let run = fixture
            .run(["show", "--json", &format!("arxiv:1412.6{n:04}")])
            .success();
        assert_eq!(run.json()["collection"], "catalog");
    }
}

/// A small generator of its own, so that a failure can be replayed.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    /// A fraction in [0, 1).
    fn fraction(&mut self) -> f64 {
        (self.next() % 10_000) as f64 / 10_000.0
    }
}

/// Starts `cmd` and kills it (SIGKILL) after `after`; `None` if it was
/// killed, else how long it took.
fn kill_after(cmd: Cmd, after: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut child = cmd
        .into_command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while started.elapsed() < after {
        if child.try_wait().unwrap().is_some() {
            return Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let ended = child.try_wait().unwrap().map(|_| started.elapsed());
    child.kill().unwrap();
    child.wait().unwrap();
    ended
}

/// How long `cmd` takes when left alone (it must succeed).
fn timed(cmd: Cmd) -> Duration {
    let started = Instant::now();
    let output = common::output_within(cmd, Duration::from_secs(120));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    started.elapsed()
}

/// `check` accepts the catalog and the index answers.
#[track_caller]
fn whole(fixture: &Fixture, after: &str) {
    let run = fixture.run(["check"]);
    if run.status.code() != Some(0) {
        run.fail(format!("check refuses the catalog after {after}"));
    }
    let run = fixture.run(["search", "--json", "zero bubble"]);
    if run.status.code() != Some(0)
        || run.ids().first().map(String::as_str) != Some("zero-bubble-2024")
    {
        run.fail(format!("the index does not answer after {after}"));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn writers_killed_at_random_moments_leave_a_whole_catalog_and_index() {
    let oai = oai().await;
    let fixture = fixture();
    let writers = Writers {
        fixture: &fixture,
        oai: format!("{}/oai", oai.uri()),
    };
    // Each writer's time when left alone, the second run's (the first
    // trains the tag predictor): kills fall within it.
    let mut change = 0;
    let mut edit = || {
        change += 1;
        fixture.write(
            "pipeline-parallelism.toml",
            &common::PIPELINES.replace(
                "Splits the backward pass",
                &format!("Edit {change}: splits the backward pass"),
            ),
        );
    };
    let twice = |first: Cmd, second: Cmd| {
        timed(first);
        timed(second)
    };
    let mut spans = [
        (
            "import",
            twice(writers.import("b.jsonl"), writers.import("a.jsonl")),
        ),
        ("harvest", twice(writers.harvest(), writers.harvest())),
        ("index", {
            edit();
            timed(writers.index());
            edit();
            timed(writers.index())
        }),
        ("accept", twice(writers.accept(10), writers.accept(11))),
    ];
    let mut random = Lcg(46);
    let mut killed = 0;
    let mut accepted = 11;
    // Until 24 kills, or 40 runs: a run that ends before its kill is
    // timed, and the next kill of its writer falls within that time.
    let mut round = 0;
    while killed < 24 && round < 40 {
        round += 1;
        let (name, span) = spans[round % spans.len()];
        let cmd = match name {
            "import" => writers.import(if round % 8 == 0 { "a.jsonl" } else { "b.jsonl" }),
            "harvest" => writers.harvest(),
            "index" => {
                // Something to rebuild: the catalog changed.
                edit();
                writers.index()
            }
            _ => {
                accepted += 1;
                writers.accept(accepted)
            }
        };
        // Within the run, from its start (loading) to near its end.
        let at = span.mul_f64(0.02 + 0.9 * random.fraction());
        match kill_after(cmd, at) {
            None => killed += 1,
            Some(took) => spans[round % spans.len()].1 = took,
        }
        whole(
            &fixture,
            &format!("{name} killed after {at:?} (round {round})"),
        );
    }
    assert!(killed >= 20, "only {killed} of {round} runs were killed");
    // Nothing a kill left blocks the next run of each writer.
    for cmd in [
        writers.import("b.jsonl"),
        writers.harvest(),
        writers.index(),
        writers.accept(accepted + 1),
    ] {
        timed(cmd);
    }
    whole(&fixture, "every writer ran again");
    let run = fixture
        .run(["search", "--json", "-n", "1000", "collection:arxiv"])
        .success();
    assert!(run.ids().len() > HARVESTED, "{}", run.stdout());
    assert!(
        common::generations(&fixture.index()).len() == 1,
        "{:?}",
        common::generations(&fixture.index())
    );
}
