//! What the catalog's writers may write (issue 46, items 4, 11 and 13):
//! nothing a list, a sync or a server says goes into the catalog
//! unchecked, every catalog `import`, `import --sync --apply`,
//! `inbox accept` write passes `check` (`check --online --apply`: in
//! `tests/health.rs`), section
//! files never take the catalog's own files' names, and writers take the
//! catalog's lock. Every name, link and server here is fictional.

mod common;

use std::process::Stdio;

use common::{Fixture, TAGS, snapshot_line};

/// `check` passes on the fixture's catalog: what was written is accepted.
#[track_caller]
fn check_accepts(fixture: &Fixture) {
    fixture.run(["check"]).success();
}

/// `text` written beside the catalog as `name`.
fn beside(fixture: &Fixture, name: &str, text: &str) {
    std::fs::write(fixture.dir.path().join(name), text).unwrap();
}

const SYNC_BEFORE: &str = "# Pretend List

## Papers

- [Quillmoss: Sharding Pretend Tensors](https://example.org/quillmoss) by Ada Example, OSDI 2021
- [Brambleway: Pretend Pipelines at Scale](https://example.org/brambleway) by Bo Sample, SOSP 2021
- [Thistledown: Imaginary Collectives](https://example.org/thistledown) by Cy Fiction, NSDI 2022
- [Marshwick: Made-up Offload for Pretend Models](https://example.org/marshwick) by Di Invent, ATC 2022
- [Fenlight: Curated Pretend Experts](https://example.org/fenlight) by Ed Mock, EuroSys 2022
- [Reedmere: Draft Pretend Schedulers](https://example.org/reedmere) by Flo Fake, FAST 2023
";

/// Every change hostile: a `file:` link, a year far ahead, the link of
/// another entry, bylines gone; and new items with a `file:` link and an
/// impossible year.
const SYNC_AFTER: &str = "# Pretend List

## Papers

- [Quillmoss: Sharding Pretend Tensors](file:///etc/passwd) by Ada Example, OSDI 2021
- [Brambleway: Pretend Pipelines at Scale](https://example.org/brambleway) by Bo Sample, SOSP 2099
- [Thistledown: Imaginary Collectives](https://example.org/marshwick) by Cy Fiction, NSDI 2022
- [Marshwick: Made-up Offload for Pretend Models](https://example.org/marshwick) by Di Invent, ATC 2022
- [Fenlight: Curated Pretend Experts](https://example.org/fenlight)
- [Reedmere: Draft Pretend Schedulers](https://example.org/reedmere)
- [Gorsebright: A Local File](file:///home/someone/notes.md) by Gil Pretend, OSDI 2023
- [Heathrow Pretend: Far Future Experts](https://example.org/heathrow) by Hu Pretend, OSDI 2099
";

/// A catalog imported from [`SYNC_BEFORE`], with `fenlight-2022` curated.
fn synced_catalog() -> Fixture {
    let fixture = Fixture::with_files(&[]);
    beside(&fixture, "before.md", SYNC_BEFORE);
    beside(&fixture, "after.md", SYNC_AFTER);
    fixture.run(["import", "before.md"]).success();
    let text = fixture.read("papers.toml");
    let start = text.find("id = \"fenlight-2022\"").unwrap();
    let at = start
        + text[start..]
            .find("tags = []\nnote = \"\"\ndraft = true\n")
            .unwrap();
    let curated = format!(
        "{}tags = [\"pipeline-parallelism\"]\nnote = \"Curated.\"\n{}",
        &text[..at],
        &text[at + "tags = []\nnote = \"\"\ndraft = true\n".len()..]
    );
    fixture.write("papers.toml", &curated);
    check_accepts(&fixture);
    fixture
}

#[test]
fn a_sync_applies_no_hostile_change_and_check_accepts_what_it_wrote() {
    let fixture = synced_catalog();
    let run = fixture
        .run(["import", "--sync", "after.md", "--apply"])
        .success();
    let papers = fixture.read("papers.toml");
    for hostile in ["file:", "2099"] {
        assert!(!papers.contains(hostile), "{hostile} written:\n{papers}");
    }
    // Each refusal is said, at its line of the list.
    for said in [
        "after.md:5: url-changed upstream for `quillmoss-2021`",
        "not an http(s) URL",
        "after.md:6: year-changed upstream for `brambleway-2021`",
        "year 2099 is outside",
        "after.md:7: url-changed upstream for `thistledown-2022`",
        "already the url of `marshwick-2022`",
        "after.md:9: authors-changed upstream for `fenlight-2022`",
        "after.md:10: authors-changed upstream for `reedmere-2023`",
        "--allow-emptied",
        "after.md:11: skipped: its link is no web page",
        // A new item comes without the year `check` would refuse.
        "after.md:12: year 2099 is outside",
    ] {
        assert!(run.stderr().contains(said), "{said}:\n{}", run.stderr());
    }
    // The curated paper keeps its authors and venue; so does the draft.
    assert!(papers.contains("authors = [\"Ed Mock\"]"), "{papers}");
    assert!(papers.contains("authors = [\"Flo Fake\"]"), "{papers}");
    check_accepts(&fixture);

    // With the curator's word a draft loses its byline; a curated paper
    // still keeps what `check` requires of it.
    let run = fixture
        .run(["import", "--sync", "after.md", "--apply", "--allow-emptied"])
        .success();
    let papers = fixture.read("papers.toml");
    assert!(!papers.contains("Flo Fake"), "{papers}");
    assert!(papers.contains("authors = [\"Ed Mock\"]"), "{papers}");
    run.stderr_has("a curated paper needs its authors");
    check_accepts(&fixture);
}

const HOSTILE_LIST: &str = "# Hostile Pretend List

## Tags

- [Pebblecrest: Pretend Tags](https://example.org/pebblecrest) by Ada Example, OSDI 2021

## Inbox

- [Sorrelgate: Pretend Inboxes](https://example.org/sorrelgate) by Bo Sample, OSDI 2021

## List

- [Wrenfield: Pretend Lists](https://example.org/wrenfield) by Cy Fiction, OSDI 2021

## Removed

- [Ashcombe: Pretend Removals](https://example.org/ashcombe) by Di Invent, OSDI 2021

## Ranking

- [Duskmoor: Pretend Rankings](https://example.org/duskmoor) by Ed Mock, OSDI 2021

## Metadata

- [Larchmont: Pretend Metadata](https://example.org/larchmont) by Flo Fake, OSDI 2021

## Health

- [Oakhollow: Pretend Health](https://example.org/oakhollow) by Gil Pretend, OSDI 2021
- [Write to the Pretend Maintainers](mailto:maintainers@example.org)
- [Nettlebrook: A Local File](file:///etc/hosts) by Hu Pretend, OSDI 2021
- [Cloudberry: Far Future Pretence](https://example.org/cloudberry) by Io Pretend, OSDI 2099
";

#[test]
fn an_import_never_takes_the_catalogs_own_file_names_nor_writes_what_check_refuses() {
    let fixture = Fixture::with_files(&[]);
    beside(&fixture, "hostile.md", HOSTILE_LIST);
    let json = fixture
        .run(["import", "hostile.md", "--dry-run", "--json"])
        .success();
    let lines = json.json_lines();
    let mailto = lines
        .iter()
        .find(|l| l["title"] == "Write to the Pretend Maintainers")
        .unwrap();
    assert_eq!(mailto["url"], "mailto:maintainers@example.org");
    assert_eq!(mailto["outcome"], "skipped");
    let file = lines
        .iter()
        .find(|l| l["url"] == "file:///etc/hosts")
        .unwrap();
    assert_eq!(file["outcome"], "skipped");

    fixture.run(["import", "hostile.md"]).success();
    // The vocabulary is the shipped one, not a section; no inbox, list,
    // ranking or removed file was made from a section.
    assert!(fixture.read("tags.toml").contains("[[tag]]"));
    for own in ["inbox.toml", "list.toml", "removed.toml", "ranking.toml"] {
        let path = fixture.catalog().join(own);
        if path.exists() {
            assert!(
                !fixture.read(own).contains("[section]"),
                "{own} holds a section"
            );
        }
    }
    let papers = fixture.run(["list", "--json", "--limit", "100"]).success();
    assert_eq!(papers.json_lines().len(), 8, "{}", papers.stdout());
    let all: String = std::fs::read_dir(fixture.catalog())
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert!(!all.contains("https://mailto"), "mailto became a web link");
    assert!(!all.contains("url = \"file:"), "a file: link was written");
    assert!(
        !all.contains("year = 2099"),
        "an impossible year was written"
    );
    check_accepts(&fixture);
}

#[test]
fn inbox_accept_never_writes_an_entry_check_refuses() {
    let fixture = Fixture::hostile();
    // A record without authors: the accepted paper could not pass `check`.
    fixture.import_snapshot(&[snapshot_line(
        "1412.99983",
        "Glorp: Pipeline Parallelism with Fewer Bubbles on Pretend Accelerators",
        &[],
        "Fri, 2 Oct 2026 10:00:00 GMT",
        "We split the model into pipeline stages and schedule micro-batches.",
        None,
    )]);
    let before = fixture.read("invented-systems.toml");
    let run = fixture.run([
        "inbox",
        "accept",
        "1412.99983",
        "--note",
        "Pretend stages.",
        "--section",
        "Invented Systems",
        "--tags",
        "pipeline-parallelism",
    ]);
    run.code(2).stderr_has("paper has no `authors`");
    assert_eq!(fixture.read("invented-systems.toml"), before);
    check_accepts(&fixture);
}

#[test]
fn concurrent_imports_of_different_lists_all_land() {
    let papers = "[section]\nname = \"Papers\"\norder = 1\n";
    let fixture = Fixture::with_files(&[("tags.toml", TAGS), ("papers.toml", papers)]);
    let names = [
        "Alder", "Birch", "Cedar", "Damson", "Elder", "Fir", "Gorse", "Hazel",
    ];
    for (i, name) in names.iter().enumerate() {
        let list = format!(
            "# List {i}\n\n## Papers\n\n- [{name}: Pretend Work Number {i}](https://example.org/{name}) by Ada Example, OSDI 2021\n"
        );
        beside(&fixture, &format!("{name}.md"), &list);
    }
    let children: Vec<_> = names
        .iter()
        .map(|name| {
            let mut command = fixture
                .cmd()
                .args(["import", &format!("{name}.md")])
                .into_command();
            command.stdout(Stdio::piped()).stderr(Stdio::piped());
            command.spawn().unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{stdout}");
        assert!(stdout.contains("added 1 entry"), "{stdout}");
    }
    let written = fixture.read("papers.toml");
    for name in names {
        assert!(
            written.contains(&format!("title = \"{name}:")),
            "{name} lost"
        );
    }
    check_accepts(&fixture);
}

#[test]
fn an_import_says_added_only_once_written() {
    let fixture = Fixture::with_files(&[]);
    beside(&fixture, "list.md", SYNC_BEFORE);
    // The list's own record cannot be written: a folder holds its name.
    std::fs::create_dir(fixture.catalog().join("list.toml")).unwrap();
    fixture
        .run(["import", "list.md"])
        .code(2)
        .stdout_lacks("added");
}

/// The writers of `metadata.json` beside the catalog's files take the
/// catalog's lock too: while another command holds it, a snapshot import
/// (which merges what it says of catalog entries) and a fetching `index`
/// wait, saying so, and run once it is released.
#[test]
fn metadata_writers_wait_for_the_catalogs_lock() {
    use std::io::BufRead;
    let fixture = Fixture::new();
    beside(&fixture, "stream.jsonl", &common::inbox_stream().join("\n"));
    let refused = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let services = format!("http://127.0.0.1:{refused}");
    let writers = [
        fixture
            .cmd()
            .args(["import", "--arxiv-snapshot", "stream.jsonl"]),
        fixture
            .cmd()
            .env_remove("DISTML_OFFLINE")
            .env("DISTML_ARXIV_API", format!("{services}/arxiv"))
            .env("DISTML_CROSSREF_API", format!("{services}/crossref"))
            .env("DISTML_OPENALEX_API", format!("{services}/openalex"))
            .env("DISTML_ARXIV_DELAY_MS", "0")
            .arg("index"),
    ];
    for writer in writers {
        let held = std::fs::File::create(fixture.catalog().join(".lock")).unwrap();
        held.lock().unwrap();
        let mut child = writer
            .into_command()
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        assert!(
            line.contains("another command is writing the catalog; waiting"),
            "did not wait for the lock: {line:?}"
        );
        assert!(child.try_wait().unwrap().is_none(), "ended holding nothing");
        drop(held);
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        assert!(child.wait().unwrap().success(), "{rest}");
    }
    check_accepts(&fixture);
}
