//! `mcp`: the tools an agent calls over the Model Context Protocol. The
//! official Python SDK's stdio client (`tests/mcp_client.py`) initializes,
//! lists the tools and calls each; every answer is compared whole with the
//! command's `--json` for the same input, and every bad argument's error
//! with what it says. Without Python's `mcp` package that test says why and
//! passes, unless `CI=true`: there it must run (`.ci/run` installs it).
//! Malformed protocol lines are sent raw, with no client.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{BIN, Cmd, Fixture, output_within};
use serde_json::{Value, json};

/// Python's `mcp` package can be imported; else the test is skipped, or
/// fails under CI.
fn client_installed() -> bool {
    let imported = Command::new("python3")
        .args(["-c", "import mcp.client.stdio"])
        .output()
        .is_ok_and(|o| o.status.success());
    if imported {
        return true;
    }
    let under_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !under_ci,
        "CI=true but Python's mcp package is missing: python3 -m pip install 'mcp>=2,<3'"
    );
    eprintln!(
        "skipped: Python's mcp package is not installed (python3 -m pip install 'mcp>=2,<3')"
    );
    false
}

/// What the Python client saw of a session making `calls` in the
/// fixture's folder: the server's name, the tools and each answer.
fn session(fixture: &Fixture, calls: &[(&str, Value)]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let calls: Vec<Value> = calls.iter().map(|(t, a)| json!([t, a])).collect();
    let cmd = Cmd::program(fixture, "python3")
        .arg(script)
        .arg(BIN)
        .arg(Value::Array(calls).to_string());
    let output = output_within(cmd, Duration::from_secs(180));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the client failed:\n{stderr}");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}\n{stderr}"))
}

/// The command's JSON Lines for `args` (it found something, or nothing).
fn lines(fixture: &Fixture, args: &[&str]) -> Value {
    let run = fixture.run(args);
    let run = if run.status.code() == Some(1) {
        run
    } else {
        run.success()
    };
    Value::Array(run.json_lines())
}

/// `search --json ARGS` as the tool answers it: the hits, whether more
/// matched than the limit (one more asked for is there), and what the
/// command said on standard error.
fn search(fixture: &Fixture, limit: usize, args: &[&str]) -> Value {
    let limit_flag = format!("--limit={limit}");
    let more_flag = format!("--limit={}", limit + 1);
    let run = fixture
        .cmd()
        .args(["search", "--json", &limit_flag])
        .args(args)
        .run();
    let notes: Vec<&str> = (run.stderr().lines())
        .map(|l| l.strip_prefix("distml-search: note: ").unwrap_or(l))
        .collect();
    let hits = run.json_lines();
    let one_more = fixture
        .cmd()
        .args(["search", "--json", &more_flag])
        .args(args)
        .run()
        .json_lines();
    json!({ "hits": hits, "more": one_more.len() > limit, "notes": notes })
}

/// The command's error message for `args`, as a tool error says it.
fn error(fixture: &Fixture, args: &[&str]) -> String {
    let run = fixture.run(args).code(2);
    let message = run.stderr().strip_prefix("distml-search: error: ");
    message
        .unwrap_or_else(|| run.fail("no error"))
        .trim_end()
        .to_string()
}

fn catalog_files(fixture: &Fixture) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(fixture.catalog())
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn every_tool_answers_as_its_command_prints_json() {
    if !client_installed() {
        return;
    }
    let fixture = Fixture::hostile_inbox();
    let before = catalog_files(&fixture);
    let calls = [
        ("search", json!({ "query": "pipelines", "limit": 2 })),
        (
            "search",
            json!({ "query": "experts all-to-all", "collection": "arxiv", "year": 2026 }),
        ),
        (
            "search",
            json!({ "tag": ["pipeline-parallelism"], "kind": "paper", "year": "2020..2022" }),
        ),
        ("search", json!({ "query": "pipelnes", "mode": "hybrid" })),
        ("show", json!({ "id": "wobble-2021" })),
        ("show", json!({ "id": "arxiv:1412.99983" })),
        ("similar", json!({ "id": "wobble-2021", "limit": 3 })),
        ("list", json!({})),
        (
            "list",
            json!({ "tag": ["mixture-of-experts"], "year": "2020.." }),
        ),
        ("inbox", json!({})),
        ("inbox", json!({ "limit": 1, "since": "2026-10-05" })),
        (
            "similar",
            json!({ "id": "arxiv:1412.99984", "mode": "semantic", "limit": 2 }),
        ),
    ];
    let expected = [
        search(&fixture, 2, &["pipelines"]),
        search(
            &fixture,
            10,
            &["--collection=arxiv", "--year=2026", "experts all-to-all"],
        ),
        search(
            &fixture,
            10,
            &[
                "--tag=pipeline-parallelism",
                "--kind=paper",
                "--year=2020..2022",
            ],
        ),
        search(&fixture, 10, &["--mode=hybrid", "pipelnes"]),
        fixture
            .run(["show", "--json", "wobble-2021"])
            .success()
            .json(),
        (fixture.run(["show", "--json", "arxiv:1412.99983"]))
            .success()
            .json(),
        json!({ "hits": lines(&fixture, &["similar", "--json", "--limit=3", "wobble-2021"]) }),
        json!({ "entries": lines(&fixture, &["list", "--json"]) }),
        json!({ "entries": lines(&fixture, &["list", "--json", "--tag=mixture-of-experts", "--year=2020.."]) }),
        json!({
            "candidates": lines(&fixture, &["inbox", "--json"]),
            "total": lines(&fixture, &["inbox", "--json", "--limit=10000"]).as_array().unwrap().len(),
        }),
        json!({
            "candidates": lines(&fixture, &["inbox", "--json", "--limit=1", "--since=2026-10-05"]),
            "total": lines(&fixture, &["inbox", "--json", "--limit=10000", "--since=2026-10-05"])
                .as_array().unwrap().len(),
        }),
        json!({ "hits": lines(&fixture, &["similar", "--json", "--mode=semantic", "--limit=2", "arxiv:1412.99984"]) }),
    ];
    // Each a fixture's own, so that no answer is empty by accident.
    for want in &expected {
        let list = ["hits", "entries", "candidates"].map(|k| want.get(k));
        assert!(
            list.iter()
                .flatten()
                .all(|l| l.as_array().is_some_and(|a| !a.is_empty())),
            "{want}"
        );
    }
    assert!(expected[3]["notes"] == json!(["searched for pipelines (not pipelnes)"]));
    assert!(expected[0]["more"] == json!(true));
    assert_eq!(expected[9]["total"], json!(4));
    assert_eq!(expected[10]["total"], json!(3));

    let seen = session(&fixture, &calls);
    assert_eq!(seen["server"], "distml-search");
    assert_eq!(
        seen["tools"],
        json!(["search", "show", "similar", "list", "inbox"])
    );
    assert_eq!(seen["read_only"], json!([true, true, true, true, true]));
    let answers = seen["answers"].as_array().unwrap();
    assert_eq!(answers.len(), calls.len());
    for ((call, want), answer) in calls.iter().zip(&expected).zip(answers) {
        assert_eq!(answer["is_error"], false, "{call:?}: {answer}");
        assert_eq!(&answer["structured"], want, "{call:?}");
        // The same object as text, for clients that read only text.
        let text: Value = serde_json::from_str(answer["texts"][0].as_str().unwrap()).unwrap();
        assert_eq!(&text, want, "{call:?}");
    }
    assert_eq!(catalog_files(&fixture), before, "the catalog was written");
}

#[test]
fn explained_hits_are_the_commands() {
    if !client_installed() {
        return;
    }
    let fixture = Fixture::invented();
    let arguments = json!({ "query": "experts", "explain": "readable", "exhaustive": true });
    let seen = session(&fixture, &[("search", arguments)]);
    let run = fixture.run(["search", "--json", "--explain", "--exhaustive", "experts"]);
    let hits = Value::Array(run.success().json_lines());
    assert!(hits[0]["explanation"].is_string(), "{hits}");
    assert_eq!(seen["answers"][0]["structured"]["hits"], hits);
}

#[test]
fn a_bad_argument_is_the_calls_error_and_the_server_goes_on() {
    if !client_installed() {
        return;
    }
    let fixture = Fixture::invented();
    let calls = [
        ("search", json!({ "query": "pipelines", "limit": 0 })),
        ("search", json!({ "query": "pipelines", "limit": "ten" })),
        ("search", json!({ "query": "pipelines", "year": "20x1" })),
        ("search", json!({ "query": "pipelines", "kind": "book" })),
        ("search", json!({})),
        ("list", json!({ "tags": ["mixture-of-experts"] })),
        ("list", json!({ "collection": "arxiv" })),
        ("show", json!({ "id": "wobbel-2021" })),
        ("similar", json!({ "limit": 3 })),
        ("inbox", json!({ "since": "yesterday" })),
        ("recommend", json!({})),
        ("show", json!({ "id": "wobble-2021" })),
    ];
    let seen = session(&fixture, &calls);
    let answers = seen["answers"].as_array().unwrap();
    let failed = |i: usize| {
        assert_eq!(
            answers[i]["is_error"], true,
            "{:?}: {}",
            calls[i], answers[i]
        );
        answers[i]["texts"][0].as_str().unwrap().to_string()
    };
    assert_eq!(failed(0), "`limit` must be 1 to 10000, not 0");
    assert_eq!(
        failed(1),
        "`limit`: invalid type: string \"ten\", expected u64"
    );
    assert_eq!(
        failed(2),
        "`year`: expected a year such as 2021, or a range such as 2020..2023"
    );
    assert_eq!(
        failed(3),
        "`kind`: expected one of paper, project, not \"book\""
    );
    // As the command says it, for the same input.
    assert_eq!(failed(4), "the query has no words to search for");
    assert_eq!(
        failed(5),
        "`tags` is no argument of list: its arguments are author, collection, kind, limit, \
         section, tag, venue, year"
    );
    assert_eq!(
        failed(6),
        error(&fixture, &["list", "--json", "--collection", "arxiv"])
    );
    assert_eq!(
        failed(7),
        error(&fixture, &["show", "--json", "wobbel-2021"])
    );
    assert_eq!(failed(8), "the arguments of similar: missing field `id`");
    assert_eq!(
        failed(9),
        "`since`: expected a day such as 2024-03-31 (YYYY-MM-DD)"
    );
    assert_eq!(
        answers[10]["protocol_error"],
        "no tool named `recommend`: the tools are search, show, similar, list, inbox"
    );
    let shown = fixture.run(["show", "--json", "wobble-2021"]).success();
    assert_eq!(answers[11]["structured"], shown.json());
}

/// JSON-RPC lines sent as they are, and the answers by id.
fn raw_session(fixture: &Fixture, lines: &[&str]) -> (Vec<Value>, String) {
    let mut input = lines.join("\n");
    input.push('\n');
    let run = fixture.cmd().arg("mcp").stdin(input).run().success();
    let answers = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap());
    (answers.collect(), run.stderr().to_string())
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

#[test]
fn malformed_lines_are_answered_or_dropped_and_the_server_goes_on() {
    let fixture = Fixture::invented();
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"show","arguments":{{"id":"{}"}}}}}}"#,
        "x".repeat(2 << 20)
    );
    let (answers, stderr) = raw_session(
        &fixture,
        &[
            INITIALIZE,
            INITIALIZED,
            "this is not JSON {",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"show","arguments":"wobble-2021"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/erase"}"#,
            "[1, 2]",
            &long,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"show","arguments":{"id":"wobble-2021"}}}"#,
        ],
    );
    let by_id = |id: i64| {
        (answers.iter().find(|a| a["id"] == id))
            .unwrap_or_else(|| panic!("no answer {id} in {answers:?}\n{stderr}"))
    };
    assert_eq!(by_id(1)["result"]["serverInfo"]["name"], "distml-search");
    // A request of the wrong shape, an unknown method and JSON that is no
    // message: errors; a line that is no JSON, or longer than a request can
    // be, is dropped unread.
    assert!(by_id(2)["error"]["code"].is_i64(), "{}", by_id(2));
    assert_eq!(by_id(3)["error"]["code"], -32601);
    let unnamed = answers.iter().filter(|a| a.get("id").is_none());
    assert_eq!(
        unnamed.map(|a| &a["error"]["code"]).collect::<Vec<_>>(),
        [-32600]
    );
    assert!(answers.iter().all(|a| a["id"] != 9));
    let shown = fixture.run(["show", "--json", "wobble-2021"]).success();
    assert_eq!(by_id(4)["result"]["structuredContent"], shown.json());
    assert_eq!(by_id(4)["result"]["isError"], false);
}

#[test]
fn the_search_tool_tells_agents_every_query_field() {
    let fixture = Fixture::invented();
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (answers, stderr) = raw_session(&fixture, &[INITIALIZE, INITIALIZED, list]);
    let tools = (answers.iter().find(|a| a["id"] == 2))
        .unwrap_or_else(|| panic!("no tools/list answer in {answers:?}\n{stderr}"));
    let search = (tools["result"]["tools"].as_array().unwrap().iter())
        .find(|t| t["name"] == "search")
        .expect("a search tool");
    let said = search["inputSchema"]["properties"]["query"]["description"]
        .as_str()
        .unwrap();
    assert_eq!(
        common::fields_listed(said),
        distml_search::search::understand::fields::FIELD_NAMES
    );
}

#[test]
fn a_client_that_leaves_before_initializing_ends_the_server_quietly() {
    let fixture = Fixture::invented();
    let run = fixture.cmd().arg("mcp").stdin("").run();
    run.success().stdout_is("").stderr_is("");
}
