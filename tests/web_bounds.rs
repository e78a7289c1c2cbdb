//! `serve` bounds its work: requests past the cap get a quick 503, answers
//! are at most `--max-limit` hits, idle and non-reading connections are
//! closed and cannot crowd out a real request, concurrent inbox requests
//! cost one computation, and every error answer, even those of requests
//! that cannot be parsed, is JSON with the security headers. Against the
//! spawned binary on loopback.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{Cmd, Fixture, Server, snapshot_line};
use serde_json::Value;

/// `serve --port 0` with these `DISTML_SERVE_*` variables (variables, not
/// flags, so that a build without them runs the same test and fails it).
fn serve_with(fixture: &Fixture, vars: &[(&str, &str)]) -> Cmd {
    let mut cmd = Cmd::new(fixture).args(["serve", "--port", "0"]);
    for (name, value) in vars {
        cmd = cmd.env(name, value);
    }
    cmd
}

/// An answer read off a raw connection.
struct Raw {
    status: u16,
    head: String,
    body: String,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", self.head, self.body))
    }
}

/// Writes `request` whole and reads the answer until the server closes
/// (each request here asks it to, or is one it cannot go on after).
fn raw(server: &Server, request: &[u8]) -> Raw {
    raw_to(server.port, request)
}

/// `raw` on a port, for threads of its own.
fn raw_to(port: u16, request: &[u8]) -> Raw {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // A server may answer and close before reading all of a huge request.
    let _ = stream.write_all(request);
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no answer: {text:?}"));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    Raw {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

fn get(server: &Server, path: &str) -> Raw {
    get_on(server.port, path)
}

fn get_on(port: u16, path: &str) -> Raw {
    raw_to(
        port,
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    )
}

/// An error answer as every one must be: JSON `{"error", "status"}` with
/// the guard's headers.
fn assert_json_error(answer: &Raw, status: u16, what: &str) {
    assert_eq!(answer.status, status, "{what}: {}", answer.head);
    assert_eq!(
        answer.header("content-type"),
        Some("application/json"),
        "{what}"
    );
    let body = answer.json();
    assert_eq!(body["status"], status, "{what}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{what}"
    );
    assert_eq!(
        answer.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(answer.header("x-frame-options"), Some("DENY"), "{what}");
    assert!(
        answer
            .header("content-security-policy")
            .is_some_and(|csp| csp.starts_with("default-src 'none'")),
        "{what}"
    );
}

/// The hostile fixture and `n` more arXiv records (inbox candidates), with
/// abstracts of `sentences` more sentences, so that an answer of many hits
/// weighs something.
fn many_records(n: usize, sentences: usize) -> Fixture {
    let fixture = Fixture::hostile();
    let words = [
        "pipeline",
        "expert",
        "gradient",
        "shard",
        "bubble",
        "collective",
        "tensor",
        "offload",
        "schedule",
        "memory",
        "bandwidth",
        "overlap",
    ];
    let lines: Vec<String> = (0..n)
        .map(|i| {
            let w = |k: usize| words[(i / k + k) % words.len()];
            let summary = format!(
                "We {} the {} of {} training with {} and {} across many accelerators. {}",
                w(1),
                w(2),
                w(3),
                w(5),
                w(7),
                "Results show lower step time and memory at scale. ".repeat(sentences)
            );
            snapshot_line(
                &format!("2601.{:05}", i + 10),
                &format!("Record {i}: {} {} for {} models", w(1), w(3), w(2)),
                &[("Ann", "Author"), ("Bo", "Writer")],
                "Thu, 1 Oct 2026 10:00:00 GMT",
                &summary,
                None,
            )
        })
        .collect();
    fixture.import_snapshot(&lines);
    fixture
}

/// The server's CPU time, all its threads', to the nanosecond: `stat`'s
/// ticks are 10 ms, a whole inbox's work in a release build.
fn cpu_time(server: &Server) -> Duration {
    let pid = libc::pid_t::try_from(server.pid()).unwrap();
    let mut clock: libc::clockid_t = 0;
    // SAFETY: writes only the clock id, through a pointer to a local.
    assert_eq!(unsafe { libc::clock_getcpuclockid(pid, &mut clock) }, 0);
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes only the time, through a pointer to a local.
    assert_eq!(unsafe { libc::clock_gettime(clock, &mut now) }, 0);
    Duration::new(
        now.tv_sec.try_into().unwrap(),
        now.tv_nsec.try_into().unwrap(),
    )
}

/// The server's resident memory.
fn resident_mib(server: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        / 1024
}

#[test]
fn every_error_answer_is_json_with_the_security_headers() {
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    let host = format!("Host: 127.0.0.1:{}\r\n", server.port);
    let request = |line: &[u8], extra: &str| {
        let mut bytes = line.to_vec();
        bytes.extend_from_slice(format!("\r\n{host}{extra}Connection: close\r\n\r\n").as_bytes());
        bytes
    };
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        (
            "bytes that are not ASCII in the path",
            request(b"GET /api/entry/\xff\xfe HTTP/1.1", ""),
            400,
        ),
        (
            "a path not UTF-8 once decoded",
            request(b"GET /api/entry/%FF%FE HTTP/1.1", ""),
            400,
        ),
        (
            "an asset name not UTF-8",
            request(b"GET /assets/%C3%28 HTTP/1.1", ""),
            400,
        ),
        (
            "a URI over 64 KiB",
            request(
                format!("GET /api/search?q={} HTTP/1.1", "a".repeat(70 * 1024)).as_bytes(),
                "",
            ),
            414,
        ),
        (
            "a header of 100 KiB",
            request(
                b"GET /api/search?q=x HTTP/1.1",
                &format!("X-Big: {}\r\n", "b".repeat(100 * 1024)),
            ),
            431,
        ),
        (
            "200 headers",
            request(
                b"GET /api/search?q=x HTTP/1.1",
                &(0..200)
                    .map(|i| format!("X-H{i}: v\r\n"))
                    .collect::<String>(),
            ),
            431,
        ),
        (
            "a request line that is no request",
            b"\x16\x03\x01\x02\x00 hello\r\n\r\n".to_vec(),
            400,
        ),
        (
            "an unknown route",
            request(b"GET /nowhere HTTP/1.1", ""),
            404,
        ),
        (
            "an unknown method",
            request(b"BREW /api/search HTTP/1.1", ""),
            405,
        ),
        (
            "POST",
            request(b"POST /api/search HTTP/1.1", "Content-Length: 0\r\n"),
            405,
        ),
    ];
    for (what, bytes, status) in cases {
        assert_json_error(&raw(&server, &bytes), status, what);
    }
    // Still serving.
    assert_eq!(get(&server, "/api/search?q=pipelines").status, 200);
}

#[test]
fn a_limit_past_the_servers_bound_is_answered_with_the_bound() {
    let fixture = Fixture::hostile_inbox();
    let server = Server::start_cmd(serve_with(&fixture, &[("DISTML_SERVE_MAX_LIMIT", "2")]));
    let search = get(&server, "/api/search?limit=3").json();
    assert_eq!(search["hits"].as_array().unwrap().len(), 2);
    assert_eq!(search["more"], true);
    assert_eq!(
        search["notes"][0],
        "2 hits at most in one answer here, not 3"
    );
    let similar = get(&server, "/api/similar/wobble-2021?limit=3").json();
    assert_eq!(similar["hits"].as_array().unwrap().len(), 2);
    let inbox = get(&server, "/api/inbox?limit=10000").json();
    assert_eq!(inbox["candidates"].as_array().unwrap().len(), 2);
    assert_eq!(inbox["total"], 4);
    // The CLI's bound still holds: past it is an error, not a clamp.
    assert_eq!(get(&server, "/api/search?limit=10001").status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn requests_past_the_cap_get_a_quick_503_with_retry_after() {
    let fixture = many_records(2000, 6);
    let server = Server::start_cmd(serve_with(&fixture, &[("DISTML_SERVE_MAX_REQUESTS", "2")]));
    let port = server.port;
    let tasks: Vec<_> = (0..24)
        .map(|_| {
            tokio::task::spawn_blocking(move || {
                let started = Instant::now();
                let answer = get_on(port, "/api/search?q=training&limit=1000");
                (answer, started.elapsed())
            })
        })
        .collect();
    let mut refused = 0;
    for task in tasks {
        let (answer, took) = task.await.unwrap();
        match answer.status {
            200 => assert_eq!(answer.json()["hits"].as_array().unwrap().len(), 1000),
            503 => {
                refused += 1;
                assert_json_error(&answer, 503, "past the cap");
                assert_eq!(answer.header("retry-after"), Some("1"));
                assert!(took < Duration::from_secs(2), "503 after {took:?}");
            }
            other => panic!("status {other}: {}", answer.body),
        }
    }
    assert!(refused > 0, "24 requests at once, 2 allowed, none refused");
}

#[test]
fn idle_connections_are_closed_and_cannot_crowd_out_a_real_request() {
    let fixture = Fixture::hostile();
    // 128 descriptors: 300 idle sockets would use them all. Their timeout
    // is longer than the real request may wait: the cap must make room.
    let server = Server::start_cmd(
        serve_with(&fixture, &[("DISTML_SERVE_IDLE_TIMEOUT_MS", "4000")])
            .after_shell("ulimit -n 128"),
    );
    let mut idle: Vec<TcpStream> = (0..300)
        .map(|i| {
            let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
            if i % 2 == 0 {
                // A head begun and never ended.
                stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
            }
            stream
        })
        .collect();
    let started = Instant::now();
    let mut real = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    real.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        real,
        "GET /api/search?q=pipelines HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
        server.port
    )
    .unwrap();
    let mut answer = String::new();
    let read = real.read_to_string(&mut answer);
    assert!(
        read.is_ok() && answer.starts_with("HTTP/1.1 200 "),
        "no answer in {:?} beside 300 idle sockets: {read:?}",
        started.elapsed()
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // Each idle socket is closed by the server, not kept forever.
    for stream in &mut idle {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut rest = Vec::new();
        match stream.read_to_end(&mut rest) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
            Err(e) => panic!("an idle socket still open after 10 s: {e}"),
        }
    }
}

/// The server's open sockets (its listener among them).
fn sockets(server: &Server) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", server.pid()))
        .unwrap()
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter(|target| target.to_string_lossy().starts_with("socket:"))
        .count()
}

#[test]
fn clients_that_never_read_are_let_go_and_pin_no_memory() {
    let fixture = many_records(2000, 6);
    let server = Server::start_cmd(serve_with(
        &fixture,
        &[("DISTML_SERVE_IDLE_TIMEOUT_MS", "1000")],
    ));
    let path = "/api/search?q=training&limit=10000";
    let one = get(&server, path).body.len();
    let before = resident_mib(&server);
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        server.port
    );
    // Eight answers each, more than the kernel's buffers hold, none read.
    let readers: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
            stream.write_all(request.repeat(8).as_bytes()).unwrap();
            stream
        })
        .collect();
    // Each answered (its first bytes read), so each accepted.
    for mut stream in &readers {
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream.read_exact(&mut [0; 1024]).unwrap();
    }
    let asked = Instant::now();
    let mut peak = before;
    while sockets(&server) > 1 && asked.elapsed() < Duration::from_secs(60) {
        peak = peak.max(resident_mib(&server));
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = resident_mib(&server);
    eprintln!(
        "{one} bytes an answer; {before} MiB before, {peak} MiB at most, {after} MiB after {:?}",
        asked.elapsed()
    );
    assert_eq!(
        sockets(&server),
        1,
        "8 clients that never read still held after {:?} ({one} bytes an answer; {before} MiB before, {after} MiB now)",
        asked.elapsed()
    );
    assert!(
        after < before + 100,
        "{before} MiB before, {peak} MiB at most with 8 clients that never read, {after} MiB once let go ({one} bytes an answer)"
    );
    drop(readers);
    assert_eq!(get(&server, "/api/search?q=pipelines").status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_inbox_requests_at_once_cost_about_one_and_the_server_stays_responsive() {
    let fixture = many_records(2000, 6);
    let server = Server::start(&fixture, &[]);
    let port = server.port;
    let inbox = move |path: String| tokio::task::spawn_blocking(move || get_on(port, &path));
    // The model is learned by the first request; then one costs this much.
    let first = inbox("/api/inbox?limit=1000".into()).await.unwrap();
    assert_eq!(first.status, 200);
    let start = cpu_time(&server);
    assert_eq!(
        inbox("/api/inbox?limit=1000".into()).await.unwrap().status,
        200
    );
    let one = cpu_time(&server) - start;

    let start = cpu_time(&server);
    let tasks: Vec<_> = (0..20)
        .map(|_| inbox("/api/inbox?limit=1000".into()))
        .collect();
    let asked = Instant::now();
    let search = get(&server, "/api/search?q=pipelines");
    let searched = asked.elapsed();
    for task in tasks {
        let answer = task.await.unwrap();
        match answer.status {
            200 => assert_eq!(answer.json(), first.json()),
            503 => assert_json_error(&answer, 503, "an inbox request past the bound"),
            other => panic!("status {other}: {}", answer.body),
        }
    }
    let twenty = cpu_time(&server) - start;
    eprintln!(
        "one inbox: {one:?} of CPU; twenty at once: {twenty:?}; a search meanwhile: {searched:?}"
    );
    assert_eq!(search.status, 200);
    assert!(
        searched < Duration::from_secs(2),
        "a search took {searched:?}"
    );
    assert!(
        twenty < one * 5 + Duration::from_millis(200),
        "twenty at once cost {twenty:?}, one {one:?}"
    );

    // Different questions at once: each answered or refused cleanly.
    let tasks: Vec<_> = (1..=20)
        .map(|n| inbox(format!("/api/inbox?limit={}", 900 + n)))
        .collect();
    for task in tasks {
        let answer = task.await.unwrap();
        match answer.status {
            200 => {}
            503 => {
                assert_json_error(&answer, 503, "an inbox request past the bound");
                assert_eq!(answer.header("retry-after"), Some("2"));
            }
            other => panic!("status {other}: {}", answer.body),
        }
    }
}

#[test]
fn an_inbox_request_whose_client_leaves_stops_costing() {
    let fixture = many_records(2000, 6);
    let server = Server::start(&fixture, &[]);
    // The model is learned by a first request; then a whole one costs this.
    assert_eq!(get(&server, "/api/inbox?limit=1").status, 200);
    let start = cpu_time(&server);
    assert_eq!(get(&server, "/api/inbox?limit=1000").status, 200);
    let whole = cpu_time(&server) - start;

    let start = cpu_time(&server);
    let mut left = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(
        left,
        "GET /api/inbox?limit=1000 HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        server.port
    )
    .unwrap();
    // Left a quarter of the way through (a whole one takes some 20 ms of
    // CPU in a release build, seconds in a debug one).
    let leaves_after = (whole / 4).min(Duration::from_millis(30));
    std::thread::sleep(leaves_after);
    drop(left);
    std::thread::sleep(whole * 2 + Duration::from_millis(500));
    let after_leaving = cpu_time(&server) - start;
    eprintln!(
        "a whole inbox: {whole:?} of CPU; one left after {leaves_after:?}: {after_leaving:?}"
    );
    assert!(
        after_leaving < whole / 2,
        "a request left after {leaves_after:?} cost {after_leaving:?}, a whole one {whole:?}"
    );
    assert_eq!(get(&server, "/api/inbox?limit=1000").status, 200);
}
