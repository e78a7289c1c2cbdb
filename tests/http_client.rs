//! The HTTP client against local servers: statuses, retries and their
//! spacing, timeouts, body caps, and what happens when a host is gone.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use distml_search::ingest::http::{
    FetchError, HostPolicy, HttpClient, HttpConfig, host_key, user_agent,
};
use url::Url;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const MAILTO: &str = "tests@example.org";

/// Tiny backoffs keep the file fast; `max_backoff` stays above the 1 s
/// `Retry-After` so that it is honoured in full.
fn config() -> HttpConfig {
    HttpConfig {
        user_agent: user_agent(Some(MAILTO)),
        timeout: Duration::from_secs(2),
        connect_timeout: Duration::from_secs(1),
        max_body_bytes: 1024,
        max_retries: 2,
        base_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_secs(2),
        failure_budget: 6,
    }
}

fn client() -> HttpClient {
    HttpClient::new(config()).expect("client builds")
}

fn url_of(base: &str, path: &str) -> Url {
    Url::parse(base)
        .and_then(|u| u.join(path))
        .expect("valid URL")
}

/// A raw server on loopback that runs `serve` on each accepted connection
/// and counts them. The thread ends with the test process.
fn raw_server(serve: fn(std::net::TcpStream)) -> (Url, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            count.fetch_add(1, Ordering::SeqCst);
            serve(stream);
        }
    });
    (url_of(&format!("http://127.0.0.1:{port}"), "/x"), accepted)
}

/// Reads (most of) the request so that closing does not turn into a reset
/// before the client has read our reply.
fn read_request(stream: &mut std::net::TcpStream) {
    let mut buf = [0u8; 4096];
    let _ = stream.read(&mut buf);
}

#[tokio::test]
async fn success_returns_the_body_and_sends_the_user_agent() {
    let server = MockServer::start().await;
    let agent = user_agent(Some(MAILTO));
    assert!(agent.starts_with("distml-search/"));
    assert!(agent.ends_with("; mailto:tests@example.org)"));
    Mock::given(method("GET"))
        .and(path("/ok"))
        .and(header("user-agent", agent.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_string("hello, world"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client();
    let url = url_of(&server.uri(), "/ok");
    let response = client.get(&url).await.expect("200");
    assert_eq!(response.status, 200);
    assert_eq!(response.body, "hello, world");
    assert_eq!(response.url, url);
    assert_eq!(client.requests_made(), 1);
}

#[tokio::test]
async fn not_found_is_a_response_for_the_caller_to_judge() {
    let server = MockServer::start().await;
    Mock::given(path("/missing"))
        .respond_with(ResponseTemplate::new(404).set_body_string("Resource not found."))
        .expect(1)
        .mount(&server)
        .await;
    let response = client()
        .get(&url_of(&server.uri(), "/missing"))
        .await
        .expect("404 is Ok");
    assert_eq!(response.status, 404);
    assert_eq!(response.body, "Resource not found.");
}

#[tokio::test]
async fn service_unavailable_twice_then_success_takes_three_requests() {
    let server = MockServer::start().await;
    Mock::given(path("/flaky"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(2)
        .with_priority(1)
        .expect(2)
        .mount(&server)
        .await;
    Mock::given(path("/flaky"))
        .respond_with(ResponseTemplate::new(200).set_body_string("finally"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client();
    let response = client
        .get(&url_of(&server.uri(), "/flaky"))
        .await
        .expect("third try");
    assert_eq!(response.body, "finally");
    assert_eq!(client.requests_made(), 3);
}

#[tokio::test]
async fn too_many_requests_waits_for_retry_after() {
    let server = MockServer::start().await;
    Mock::given(path("/busy"))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "1"))
        .up_to_n_times(1)
        .with_priority(1)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(path("/busy"))
        .respond_with(ResponseTemplate::new(200))
        .expect(1)
        .mount(&server)
        .await;
    let client = client();
    let started = Instant::now();
    let response = client
        .get(&url_of(&server.uri(), "/busy"))
        .await
        .expect("second try");
    assert_eq!(response.status, 200);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(client.requests_made(), 2);
}

#[tokio::test]
async fn server_error_forever_gives_up_after_max_retries_plus_one() {
    let server = MockServer::start().await;
    Mock::given(path("/broken"))
        .respond_with(ResponseTemplate::new(500))
        .expect(3)
        .mount(&server)
        .await;
    let url = url_of(&server.uri(), "/broken");
    let error = client().get(&url).await.expect_err("500 forever");
    let message = error.to_string();
    assert!(
        matches!(error, FetchError::Exhausted { attempts: 3, .. }),
        "{error:?}"
    );
    assert!(message.contains(url.as_str()), "{message}");
    assert!(message.contains("HTTP 500"), "{message}");
    assert!(!message.contains('\n'));
}

#[tokio::test]
async fn a_timeout_is_retried_then_reported() {
    let server = MockServer::start().await;
    Mock::given(path("/slow"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_millis(600)))
        .mount(&server)
        .await;
    let client = HttpClient::new(HttpConfig {
        timeout: Duration::from_millis(150),
        max_retries: 1,
        ..config()
    })
    .expect("client builds");
    let error = client
        .get(&url_of(&server.uri(), "/slow"))
        .await
        .expect_err("too slow");
    assert!(
        matches!(error, FetchError::Exhausted { attempts: 2, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("timed out"), "{error}");
    assert_eq!(client.requests_made(), 2);
}

#[tokio::test]
async fn forbidden_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(path("/private"))
        .respond_with(ResponseTemplate::new(403).set_body_string("go\naway"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client();
    let error = client
        .get(&url_of(&server.uri(), "/private?api_key=s3cret&q=1"))
        .await
        .expect_err("403");
    let FetchError::Status {
        status,
        body_excerpt,
        ..
    } = &error
    else {
        panic!("expected Status, got {error:?}");
    };
    assert_eq!(*status, 403);
    assert_eq!(body_excerpt, "go away");
    assert_eq!(client.requests_made(), 1);
    // One line, naming the URL, with the key redacted.
    let message = error.to_string();
    assert!(message.contains("/private?api_key=***&q=1"), "{message}");
    assert!(
        !message.contains("s3cret") && !message.contains('\n'),
        "{message}"
    );
}

#[tokio::test]
async fn a_declared_body_over_the_cap_is_too_large() {
    let server = MockServer::start().await;
    Mock::given(path("/big"))
        .respond_with(ResponseTemplate::new(200).set_body_string("x".repeat(2048)))
        .expect(1)
        .mount(&server)
        .await;
    let error = client()
        .get(&url_of(&server.uri(), "/big"))
        .await
        .expect_err("over 1 KiB");
    assert!(
        matches!(error, FetchError::TooLarge { limit: 1024, .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_endless_streamed_body_is_cut_off_at_the_cap() {
    // Chunked, so no length is declared: the cap must hold while streaming,
    // and the client must stop reading long before the server stops writing:
    // the server sees its writes fail before it has sent its 50 MiB.
    const CHUNKS: usize = 50 * 1024;
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = url_of(
        &format!("http://{}", listener.local_addr().expect("addr")),
        "/x",
    );
    let (sent, chunks_sent) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        read_request(&mut stream);
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        stream.write_all(head.as_bytes()).expect("head");
        let chunk = format!("400\r\n{}\r\n", "y".repeat(0x400));
        let written = (0..CHUNKS)
            .take_while(|_| stream.write_all(chunk.as_bytes()).is_ok())
            .count();
        let _ = sent.send(written);
    });
    let client = client();
    let error = client.get(&url).await.expect_err("endless");
    assert!(
        matches!(error, FetchError::TooLarge { limit: 1024, .. }),
        "{error:?}"
    );
    drop(client);
    let written =
        tokio::task::spawn_blocking(move || chunks_sent.recv_timeout(Duration::from_secs(120)))
            .await
            .unwrap()
            .expect("the server ends once the client hangs up");
    assert!(written < CHUNKS, "the client read all {written} chunks");
}

#[tokio::test]
async fn a_refused_connection_marks_the_host_unreachable() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let url = url_of(&format!("http://127.0.0.1:{port}"), "/a?api_key=k");
    let client = client();
    let error = client.get(&url).await.expect_err("refused");
    let FetchError::HostUnreachable { host, .. } = &error else {
        panic!("expected HostUnreachable, got {error:?}");
    };
    assert_eq!(host, &format!("127.0.0.1:{port}"));
    assert_eq!(
        client.requests_made(),
        1,
        "connection failures are not retried"
    );
    let message = error.to_string();
    assert!(message.contains("/a?api_key=***"), "{message}");

    // Listening on the port now would show any attempt to connect again.
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("rebind");
    listener.set_nonblocking(true).expect("nonblocking");
    let other = url_of(&format!("http://127.0.0.1:{port}"), "/b");
    let again = client.get(&other).await.expect_err("still unreachable");
    assert!(
        matches!(again, FetchError::HostUnreachable { .. }),
        "{again:?}"
    );
    assert_eq!(client.requests_made(), 1, "nothing more was sent");
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the client connected to a host it knows is unreachable"
    );
}

#[tokio::test]
async fn min_interval_spaces_request_starts() {
    let server = MockServer::start().await;
    Mock::given(path("/paced"))
        .respond_with(ResponseTemplate::new(200))
        .expect(3)
        .mount(&server)
        .await;
    let url = url_of(&server.uri(), "/paced");
    let client = client();
    let host = host_key(&url).expect("host");
    client.set_policy(
        &host,
        HostPolicy {
            max_concurrent: 1,
            min_interval: Duration::from_millis(300),
        },
    );
    let started = Instant::now();
    for _ in 0..3 {
        client.get(&url).await.expect("200");
    }
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn max_concurrent_limits_requests_in_flight() {
    let server = MockServer::start().await;
    Mock::given(path("/one-at-a-time"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_millis(200)))
        .expect(3)
        .mount(&server)
        .await;
    let url = url_of(&server.uri(), "/one-at-a-time");
    let client = client();
    client.set_policy(
        &host_key(&url).expect("host"),
        HostPolicy {
            max_concurrent: 1,
            min_interval: Duration::ZERO,
        },
    );
    let started = Instant::now();
    // Spawned clones: the client is Send + Sync, clones share the limit.
    let tasks: Vec<_> = (0..3)
        .map(|_| {
            let (client, url) = (client.clone(), url.clone());
            tokio::spawn(async move { client.get(&url).await })
        })
        .collect();
    for task in tasks {
        task.await.expect("task").expect("200");
    }
    // Serialised: 3 x 200 ms, where the default policy would take ~400 ms.
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "{:?}",
        started.elapsed()
    );
}

/// A connection that is accepted and then closed without a reply is a
/// server-side failure after connecting, so it is transient and retried
/// (unlike a refused connection); the host stays reachable.
#[tokio::test]
async fn a_connection_closed_without_reply_is_retried() {
    let (url, accepted) = raw_server(drop);
    let client = client();
    let error = client.get(&url).await.expect_err("always closed");
    assert!(
        matches!(error, FetchError::Exhausted { attempts: 3, .. }),
        "{error:?}"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 3);
    assert_eq!(client.requests_made(), 3);
}

/// Same for a response cut off mid-body.
#[tokio::test]
async fn a_truncated_body_is_retried() {
    let (url, accepted) = raw_server(|mut stream| {
        read_request(&mut stream);
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc");
    });
    let client = client();
    let error = client.get(&url).await.expect_err("always truncated");
    assert!(
        matches!(error, FetchError::Exhausted { attempts: 3, .. }),
        "{error:?}"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_host_that_keeps_failing_is_given_up_after_its_budget() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&server)
        .await;
    let client = HttpClient::new(HttpConfig {
        max_retries: 1,
        failure_budget: 3,
        ..config()
    })
    .unwrap();
    // Two attempts each: the second request spends the budget on its first
    // retry, and from then on the host is not asked.
    for path in ["/a", "/b", "/c", "/d"] {
        let _ = client.get(&url_of(&server.uri(), path)).await;
    }
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
    let error = client.get(&url_of(&server.uri(), "/e")).await.unwrap_err();
    assert!(
        matches!(error, FetchError::HostUnreachable { .. }),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_retry_after_longer_than_the_run_waits_gives_the_host_up() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "999999"))
        .mount(&server)
        .await;
    let client = client();
    let error = client.get(&url_of(&server.uri(), "/a")).await.unwrap_err();
    assert!(
        error.to_string().contains("asked to wait 999999 s"),
        "{error}"
    );
    let _ = client.get(&url_of(&server.uri(), "/b")).await;
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}
