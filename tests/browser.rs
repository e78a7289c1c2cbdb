//! The page in a real browser: Debian's chromium, headless, driven through
//! chromedriver (fantoccini). Typing searches, a filter narrows, an entry
//! opens, the back button restores what was shown, keys move and open,
//! and hostile data stays text. Also takes the README's screenshot
//! (`docs/screenshot.png`, rewritten when `DISTML_UPDATE_SCREENSHOT=1`).
//!
//! Without chromium or chromedriver the test says why and passes, unless
//! `CI=true`: there it must run.

mod common;

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Fixture, Server};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

const HOSTILE_TITLE: &str = "<img src=x onerror=alert(1)> Hostile Pipelines";

/// Flags chromium needs here: no sandbox as root, and no network of its own
/// (the network is closed; it would wait on it).
const CHROMIUM_FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1200,900",
];

fn program(variable: &str, default: &str) -> PathBuf {
    std::env::var_os(variable).map_or_else(|| PathBuf::from(default), PathBuf::from)
}

/// chromedriver on a free port, stopped when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    fn start(chromedriver: &Path) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromedriver.display()));
        let driver = Driver { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn browser(driver: &Driver, chromium: &Path, profile: &Path) -> Client {
    let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|f| f.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    let capabilities = json!({
        "goog:chromeOptions": {"binary": chromium.display().to_string(), "args": args}
    });
    let Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("cannot start a chromium session")
}

/// Waits until the script `condition` (a JS expression) holds.
async fn until(client: &Client, what: &str, condition: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let held = client
            .execute(&format!("return Boolean({condition});"), vec![])
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        if held == json!(true) {
            return;
        }
        if Instant::now() > deadline {
            let status = client
                .execute(
                    "return document.getElementById('status').textContent + ' @ ' + location.href;",
                    vec![],
                )
                .await
                .unwrap_or_default();
            panic!("timed out waiting for {what} ({condition}); the page shows {status}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn click(client: &Client, css: &str) {
    let element = client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"));
    element.click().await.unwrap();
}

async fn js(client: &Client, expression: &str) -> Value {
    client
        .execute(&format!("return {expression};"), vec![])
        .await
        .unwrap()
}

const STATUS: &str = "document.getElementById('status').textContent";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_searches_filters_opens_and_goes_back_in_chromium() {
    let chromium = program("DISTML_CHROMIUM", "/usr/bin/chromium");
    let chromedriver = program("DISTML_CHROMEDRIVER", "/usr/bin/chromedriver");
    let missing: Vec<&Path> = [&chromium, &chromedriver]
        .into_iter()
        .filter(|p| !p.exists())
        .map(PathBuf::as_path)
        .collect();
    if !missing.is_empty() {
        let under_ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(
            !under_ci,
            "CI=true but {missing:?} are missing: install chromium and chromium-driver"
        );
        eprintln!("skipped: {missing:?} not installed (apt-get install chromium chromium-driver)");
        return;
    }
    let fixture = Fixture::hostile();
    let server = Server::start(&fixture, &[]);
    let driver = Driver::start(&chromedriver);
    let profile = tempfile::tempdir().unwrap();
    let client = browser(&driver, &chromium, profile.path()).await;

    // Before any query: everything, with the filters' counts.
    client.goto(&server.base).await.unwrap();
    until(
        &client,
        "the listing",
        &format!("{STATUS}.startsWith('4 results')"),
    )
    .await;

    // Typing searches; the hostile title is shown as the text it is.
    let input = client.find(Locator::Id("q")).await.unwrap();
    input.send_keys("pipelines").await.unwrap();
    until(
        &client,
        "the results of typing",
        &format!("{STATUS}.startsWith('2 results')"),
    )
    .await;
    let title = client
        .find(Locator::Css("[data-id='hostile-2022'] .title"))
        .await
        .unwrap();
    assert_eq!(title.text().await.unwrap(), HOSTILE_TITLE);
    assert_eq!(
        js(
            &client,
            "document.querySelectorAll('main img, main script, main b, main i').length"
        )
        .await,
        json!(0)
    );
    let snippet = js(
        &client,
        "document.querySelector(\"[data-id='hostile-2022'] .snippet\").textContent",
    )
    .await;
    assert!(
        snippet
            .as_str()
            .unwrap()
            .contains("<b onmouseover=alert(3)>markup</b>"),
        "{snippet}"
    );
    assert_eq!(
        js(
            &client,
            "document.querySelectorAll('#results mark').length > 0"
        )
        .await,
        json!(true)
    );

    // A filter narrows, and goes into the URL.
    click(
        &client,
        "button.facet[data-facet='section'][data-value='Invented Systems']",
    )
    .await;
    until(
        &client,
        "the section's results",
        &format!("{STATUS}.startsWith('1 result')"),
    )
    .await;
    let url = client.current_url().await.unwrap();
    assert_eq!(url.query(), Some("q=pipelines&section=Invented+Systems"));

    // An entry opens, with its abstract, BibTeX and similar works.
    click(&client, "[data-id='wobble-2021'] .title").await;
    until(
        &client,
        "the entry",
        "document.getElementById('entry-title')?.textContent.startsWith('Wobble')",
    )
    .await;
    until(
        &client,
        "similar works",
        "document.querySelectorAll('#similar li a').length > 0",
    )
    .await;
    let bibtex = client
        .find(Locator::Id("bibtex"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(bibtex.starts_with("@"), "{bibtex}");
    assert_eq!(
        js(&client, "document.getElementById('search-view').hidden").await,
        json!(true)
    );

    // Back: the filtered results; back again: before the filter.
    client.back().await.unwrap();
    until(
        &client,
        "the filtered results again",
        &format!(
            "!document.getElementById('search-view').hidden && {STATUS}.startsWith('1 result')"
        ),
    )
    .await;
    assert_eq!(
        js(&client, "document.getElementById('q').value").await,
        json!("pipelines")
    );
    client.back().await.unwrap();
    until(
        &client,
        "the unfiltered results again",
        &format!("{STATUS}.startsWith('2 results')"),
    )
    .await;
    assert_eq!(
        client.current_url().await.unwrap().query(),
        Some("q=pipelines")
    );

    // Keys: down to the first result, j and k move, Enter opens, Escape
    // comes back.
    let selected = "document.querySelector('#results .hit.selected')?.dataset.id";
    let press = |key: String| {
        let client = client.clone();
        async move {
            let focused = client.active_element().await.unwrap();
            focused.send_keys(&key).await.unwrap();
        }
    };
    click(&client, "#q").await;
    press(Key::Down.to_string()).await;
    until(
        &client,
        "the first result selected",
        &format!("{selected} === 'hostile-2022'"),
    )
    .await;
    press("j".into()).await;
    until(
        &client,
        "the second result selected",
        &format!("{selected} === 'wobble-2021'"),
    )
    .await;
    press("k".into()).await;
    until(
        &client,
        "the first result again",
        &format!("{selected} === 'hostile-2022'"),
    )
    .await;
    press(Key::Enter.to_string()).await;
    until(
        &client,
        "the entry opened by Enter",
        "document.getElementById('entry-title')?.textContent.includes('Hostile')",
    )
    .await;
    press(Key::Escape.to_string()).await;
    until(
        &client,
        "the results after Escape",
        &format!(
            "!document.getElementById('search-view').hidden && {STATUS}.startsWith('2 results')"
        ),
    )
    .await;

    // The hostile entry, opened from its shared URL, stays text throughout.
    client
        .goto(&format!("{}?entry=hostile-2022", server.base))
        .await
        .unwrap();
    until(
        &client,
        "the hostile entry",
        "document.getElementById('entry-title')",
    )
    .await;
    let shown = js(&client, "[document.getElementById('entry-title').textContent, document.querySelector('#entry-view .byline').textContent]").await;
    assert_eq!(shown, json!([HOSTILE_TITLE, "<script>alert(2)</script>"]));
    assert_eq!(
        js(
            &client,
            "document.querySelectorAll('main img, main script, main b, main i').length"
        )
        .await,
        json!(0)
    );
    // An alert would have been left open; the session's next command fails then.
    assert_eq!(js(&client, "document.readyState").await, json!("complete"));

    // On a phone's width nothing runs off the side.
    client.set_window_size(390, 844).await.unwrap();
    client
        .goto(&format!("{}?q=pipelines", server.base))
        .await
        .unwrap();
    until(
        &client,
        "results on a phone",
        &format!("{STATUS}.startsWith('2 results')"),
    )
    .await;
    assert_eq!(
        js(
            &client,
            "document.documentElement.scrollWidth <= window.innerWidth"
        )
        .await,
        json!(true)
    );

    screenshot(&client).await;
    client.close().await.unwrap();
}

/// The shipped catalog searched for "pipeline bubble", as the README shows.
async fn screenshot(client: &Client) {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
    let files: Vec<(String, String)> = std::fs::read_dir(&shipped)
        .unwrap()
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let fixture = Fixture::with_files(&refs);
    let server = Server::start(&fixture, &[]);
    client.set_window_size(1200, 900).await.unwrap();
    client
        .goto(&format!("{}?q=pipeline+bubble", server.base))
        .await
        .unwrap();
    until(
        client,
        "the shipped catalog's results",
        &format!("{STATUS}.includes('result')"),
    )
    .await;
    let png = client.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshot.png");
    std::fs::write(&target, &png).unwrap();
    if std::env::var("DISTML_UPDATE_SCREENSHOT").is_ok_and(|v| v == "1") {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::write(docs.join("screenshot.png"), &png).unwrap();
    }
}
