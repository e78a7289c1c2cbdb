//! A full disk during each writer, on a small tmpfs mounted for the test:
//! `index --offline`, `import --arxiv-snapshot`, `harvest`, `import LIST`,
//! `inbox accept` and `check --online --apply` each end within seconds
//! with one error line that says the disk is full; the previous generation
//! still answers `search`, the catalog still passes `check`, and once the
//! space is back the same command succeeds. Mounting needs root: elsewhere
//! the tests are skipped with a note (never under CI=true).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Cmd, Fixture, TAGS, generations, snapshot_line};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// "Within seconds": the debug binary's slowest writer here fails in
/// about one; a hang or a retry loop takes far longer.
const WITHIN: Duration = Duration::from_secs(20);

/// A tmpfs of its own, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// A tmpfs of `kib` KiB, or `None` (with a note) where this user may
    /// not mount one; under CI=true that fails the test instead.
    fn mount(kib: u64) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k,mode=0755")])
            .arg("tmpfs")
            .arg(dir.path())
            .output();
        match mounted {
            Ok(out) if out.status.success() => Some(Tmpfs { dir }),
            other => {
                let why = match other {
                    Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
                    Err(e) => e.to_string(),
                };
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "CI runs as root and must mount a tmpfs: {why}"
                );
                eprintln!("note: skipped, cannot mount a tmpfs here (root only): {why}");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn filler(&self) -> PathBuf {
        self.path().join("filler")
    }

    /// Fills the disk but for `kib` KiB.
    fn fill_but(&self, kib: u64) {
        use std::io::Write;
        let mut file = std::fs::File::create(self.filler()).unwrap();
        for chunk in [1 << 20, 4096] {
            let bytes = vec![0u8; chunk];
            while file.write_all(&bytes).is_ok() {}
        }
        let full = file.metadata().unwrap().len();
        file.set_len(full.saturating_sub(kib * 1024)).unwrap();
    }

    /// The space back.
    fn free(&self) {
        std::fs::remove_file(self.filler()).unwrap();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazily: a process of a failed test may still hold a file there.
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// A fixture on its own tmpfs (dropped before the tmpfs, fields in order).
struct Disk {
    fixture: Fixture,
    tmpfs: Tmpfs,
}

impl Disk {
    /// `files` as the catalog, on a 16 MiB tmpfs; `None` where a tmpfs
    /// cannot be mounted.
    fn with_files(files: &[(&str, &str)]) -> Option<Disk> {
        let tmpfs = Tmpfs::mount(16 * 1024)?;
        let fixture = Fixture::with_files_in(tmpfs.path(), files);
        Some(Disk { fixture, tmpfs })
    }

    /// The shared fixture's catalog, indexed.
    fn indexed() -> Option<Disk> {
        let disk = Disk::with_files(&[
            ("tags.toml", TAGS),
            ("open-source-projects.toml", common::PROJECTS),
            ("pipeline-parallelism.toml", common::PIPELINES),
            ("mixture-of-experts-system.toml", common::MOE),
        ])?;
        disk.fixture.run(["index", "--offline"]).success();
        Some(disk)
    }

    /// Runs `cmd` on the full disk: it must end within seconds, with
    /// status 2 and one error line that says the disk is full.
    #[track_caller]
    fn fails_for_want_of_space(&self, cmd: Cmd) {
        let started = Instant::now();
        let output = common::output_within(cmd, Duration::from_secs(120));
        let elapsed = started.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let shown = || {
            format!(
                "status {:?} after {elapsed:?}\n--- stdout\n{}--- stderr\n{stderr}---",
                output.status.code(),
                String::from_utf8_lossy(&output.stdout)
            )
        };
        assert_eq!(output.status.code(), Some(2), "{}", shown());
        assert!(elapsed < WITHIN, "not within seconds: {}", shown());
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("distml-search: error: "))
            .collect();
        // A harvest's report of what it kept may come first.
        assert!(
            errors.len() == 1 && stderr.lines().last() == Some(errors[0]),
            "not one error line, last: {}",
            shown()
        );
        assert!(
            !stderr.contains("warning:"),
            "a warning besides the error: {}",
            shown()
        );
        assert!(
            errors[0].contains("disk is full ("),
            "the error does not say the disk is full: {}",
            shown()
        );
    }

    /// The previous generation answers and the catalog passes `check`.
    #[track_caller]
    fn keeps_what_it_had(&self) {
        let run = self
            .fixture
            .run(["search", "--json", "zero bubble"])
            .success();
        assert_eq!(run.ids()[0], "zero-bubble-2024");
        self.fixture.run(["check"]).success();
    }

    /// The catalog's files and their text (`.lock` aside).
    fn catalog_files(&self) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = std::fs::read_dir(self.fixture.catalog())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name != ".lock")
            .map(|name| {
                let text = std::fs::read_to_string(self.fixture.catalog().join(&name)).unwrap();
                (name, text)
            })
            .collect();
        files.sort();
        files
    }

    /// The ids of the arxiv collection.
    fn arxiv_count(&self) -> usize {
        let run = self
            .fixture
            .run(["search", "--collection", "arxiv", "--json", "-n", "1000"]);
        run.ids().len()
    }
}

/// Fictional words, so that an index cannot compress them away.
fn words(seed: usize, n: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "zor", "blat", "quix", "nim", "vel", "tor", "pan", "dra", "keth", "mol", "sar", "fen",
        "lio", "gru", "wob", "ter",
    ];
    let mut state = (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    (0..n)
        .map(|_| {
            let parts = 2 + next() % 3;
            (0..parts)
                .map(|_| SYLLABLES[next() % 16])
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A section of `n` projects with notes of fictional words.
fn generated(n: usize) -> String {
    let mut section = String::from("[section]\nname = \"Generated\"\norder = 9\n");
    for i in 0..n {
        section.push_str(&format!(
            "\n[[entry]]\nid = \"g-{i}\"\nkind = \"project\"\ntitle = \"Generated {}\"\nurl = \"https://example.org/{i}\"\ntags = [\"pipeline-parallelism\"]\nnote = \"{}.\"\n",
            words(i, 4),
            words(i + 1000, 30)
        ));
    }
    section
}

#[test]
fn index_on_a_full_disk() {
    let Some(disk) = Disk::indexed() else { return };
    disk.fixture.write("generated.toml", &generated(400));
    let before = generations(&disk.fixture.index());
    disk.tmpfs.fill_but(32);
    disk.fails_for_want_of_space(disk.fixture.cmd().args(["index", "--offline"]));
    assert_eq!(generations(&disk.fixture.index()), before);
    disk.keeps_what_it_had();
    disk.tmpfs.free();
    disk.fixture.run(["index", "--offline"]).success();
    assert_eq!(generations(&disk.fixture.index()).len(), 1);
    let run = disk.fixture.run(["search", "--json", "id:g-7"]).success();
    assert_eq!(run.ids(), ["g-7"]);
}

/// An index holding imported records is updated in place (one tantivy
/// commit in the current generation) when the catalog changes.
#[test]
fn an_index_update_in_place_on_a_full_disk() {
    let Some(disk) = Disk::indexed() else { return };
    disk.fixture.import_snapshot(&records(20));
    disk.fixture.write("generated.toml", &generated(400));
    let before = generations(&disk.fixture.index());
    disk.tmpfs.fill_but(32);
    disk.fails_for_want_of_space(disk.fixture.cmd().args(["index", "--offline"]));
    assert_eq!(generations(&disk.fixture.index()), before);
    disk.keeps_what_it_had();
    assert_eq!(disk.arxiv_count(), 20);
    disk.tmpfs.free();
    disk.fixture.run(["index", "--offline"]).success();
    let run = disk.fixture.run(["search", "--json", "id:g-7"]).success();
    assert_eq!(run.ids(), ["g-7"]);
    assert_eq!(disk.arxiv_count(), 20);
}

/// `n` fictional snapshot lines with long abstracts.
fn records(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            snapshot_line(
                &format!("1412.7{i:04}"),
                &format!("Pretend {}", words(i, 6)),
                &[("Ada", "Example")],
                "Thu, 1 Oct 2026 10:00:00 GMT",
                &words(i + 500, 400),
                None,
            )
        })
        .collect()
}

#[test]
fn a_snapshot_import_on_a_full_disk() {
    let Some(disk) = Disk::indexed() else { return };
    // Beside the tmpfs: only the index fills it.
    let outside = tempfile::tempdir().unwrap();
    let snapshot = outside.path().join("snapshot.jsonl");
    std::fs::write(&snapshot, records(100).join("\n")).unwrap();
    let import = || {
        disk.fixture
            .cmd()
            .args(["import", "--arxiv-snapshot"])
            .arg(&snapshot)
    };
    let before = generations(&disk.fixture.index());
    disk.tmpfs.fill_but(128);
    disk.fails_for_want_of_space(import());
    assert_eq!(generations(&disk.fixture.index()), before);
    disk.keeps_what_it_had();
    disk.tmpfs.free();
    import().run().success();
    assert_eq!(disk.arxiv_count(), 100);
    assert_eq!(generations(&disk.fixture.index()).len(), 1);
}

/// A loopback OAI-PMH server with `n` fictional records of cs.DC in pages
/// of 20, each with a long abstract.
async fn oai(n: usize) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/oai"))
        .respond_with(move |request: &wiremock::Request| {
            let page: usize = request
                .url
                .query_pairs()
                .find(|(k, _)| k == "resumptionToken")
                .and_then(|(_, v)| v.strip_prefix("page-")?.parse().ok())
                .unwrap_or(0);
            let mut body = String::from(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<OAI-PMH xmlns=\"http://www.openarchives.org/OAI/2.0/\">\n<responseDate>2999-01-08T00:00:00Z</responseDate>\n<request verb=\"ListRecords\">http://127.0.0.1/oai</request>\n<ListRecords>\n",
            );
            for i in page * 20..((page + 1) * 20).min(n) {
                body.push_str(&format!(
                    "<record><header><identifier>oai:arXiv.org:1412.8{i:04}</identifier><datestamp>2999-01-02</datestamp><setSpec>cs</setSpec></header><metadata><arXiv xmlns=\"http://arxiv.org/OAI/arXiv/\"><id>1412.8{i:04}</id><created>2999-01-01</created><authors><author><keyname>Example</keyname><forenames>Ada</forenames></author></authors><title>Pretend {}</title><categories>cs.DC</categories><abstract>{}</abstract></arXiv></metadata></record>\n",
                    words(i, 6),
                    words(i + 700, 400)
                ));
            }
            let token = match (page + 1) * 20 < n {
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

#[tokio::test(flavor = "multi_thread")]
async fn a_harvest_on_a_full_disk() {
    let Some(disk) = Disk::indexed() else { return };
    let server = oai(100).await;
    let harvest = || {
        disk.fixture
            .cmd()
            .args(["harvest", "--from", "2999-01-01"])
            .env("DISTML_OAI_API", format!("{}/oai", server.uri()))
            .env("DISTML_ARXIV_DELAY_MS", "0")
    };
    // Room for a few pages: the failure comes mid-way, after some are
    // stored and indexed.
    disk.tmpfs.fill_but(600);
    disk.fails_for_want_of_space(harvest());
    disk.keeps_what_it_had();
    disk.tmpfs.free();
    harvest().run().success();
    assert_eq!(disk.arxiv_count(), 100);
}

#[test]
fn a_list_import_on_a_full_disk() {
    let Some(disk) = Disk::with_files(&[
        ("tags.toml", TAGS),
        ("pipeline-parallelism.toml", common::PIPELINES),
    ]) else {
        return;
    };
    // Two sections: the first file fits in the space left, the second not.
    let mut list = String::from("# Pretend list\n\n## Pipeline Parallelism\n\n");
    list.push_str("- [Pretend pipelines](https://example.org/pipes) by Ada Example, FICT 2021\n");
    list.push_str("\n## Generated\n\n");
    for i in 0..200 {
        list.push_str(&format!(
            "- [Pretend {}](https://example.org/g/{i}) by Ada Example, FICT 2021\n",
            words(i, 5)
        ));
    }
    let outside = tempfile::tempdir().unwrap();
    let file = outside.path().join("list.md");
    std::fs::write(&file, list).unwrap();
    let before = disk.catalog_files();
    disk.tmpfs.fill_but(8);
    disk.fails_for_want_of_space(disk.fixture.cmd().arg("import").arg(&file));
    assert_eq!(disk.catalog_files(), before, "the catalog changed");
    disk.fixture.run(["check"]).success();
    disk.tmpfs.free();
    disk.fixture.cmd().arg("import").arg(&file).run().success();
    assert!(
        disk.fixture
            .read("generated.toml")
            .contains("example.org/g/199")
    );
}

#[test]
fn an_accept_on_a_full_disk() {
    let Some(disk) = Disk::indexed() else { return };
    disk.fixture.import_snapshot(&common::inbox_stream());
    // A large metadata.json: the section's file fits in the space left,
    // metadata.json then does not.
    let abstract_text = words(1, 6000);
    disk.fixture.write(
        "metadata.json",
        &format!(
            "{{\n  \"version\": 1,\n  \"entries\": {{\n    \"gpipe-2019\": {{\n      \"abstract\": {{\"value\": \"{abstract_text}\", \"source\": \"arxiv\"}}\n    }}\n  }}\n}}\n"
        ),
    );
    disk.fixture.run(["index", "--offline"]).success();
    let accept = || {
        disk.fixture.cmd().args([
            "inbox",
            "accept",
            "1412.99983",
            "--note",
            "Pretend pipelines with fewer bubbles.",
        ])
    };
    let before = disk.catalog_files();
    disk.tmpfs.fill_but(8);
    disk.fails_for_want_of_space(accept());
    assert_eq!(disk.catalog_files(), before, "the catalog changed");
    disk.keeps_what_it_had();
    disk.tmpfs.free();
    accept().run().success();
    let metadata = disk.fixture.read("metadata.json");
    assert!(metadata.contains("\"glorp-2026\""), "{metadata}");
    disk.fixture.run(["check"]).success();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_check_online_apply_on_a_full_disk() {
    let server = MockServer::start().await;
    Mock::given(method("HEAD"))
        .and(path("/moved"))
        .respond_with(ResponseTemplate::new(308).insert_header("Location", "/new-home"))
        .mount(&server)
        .await;
    let base = server.uri();
    let section = format!(
        "[section]\nname = \"Widgets\"\norder = 1\n\n[[entry]]\nid = \"moved\"\nkind = \"project\"\ntitle = \"Moved Widgets\"\nurl = \"{base}/moved\"\ntags = [\"collective-communication\"]\nnote = \"Fictional.\"\n"
    );
    let Some(disk) = Disk::with_files(&[("tags.toml", TAGS), ("widgets.toml", &section)]) else {
        return;
    };
    let apply = || {
        disk.fixture
            .cmd()
            .args(["check", "--online", "--apply"])
            .env("DISTML_ARXIV_API", format!("{base}/arxiv"))
            .env("DISTML_CROSSREF_API", format!("{base}/crossref"))
            .env("DISTML_OPENALEX_API", format!("{base}/openalex"))
            .env_remove("DISTML_OPENALEX_KEY")
            .env("DISTML_ARXIV_DELAY_MS", "0")
            .env("DISTML_HTTP_TIMEOUT_MS", "3000")
    };
    let before = disk.catalog_files();
    disk.tmpfs.fill_but(0);
    disk.fails_for_want_of_space(apply());
    assert_eq!(disk.catalog_files(), before, "the catalog changed");
    disk.fixture.run(["check"]).success();
    disk.tmpfs.free();
    apply().run().success();
    assert!(disk.fixture.read("widgets.toml").contains("/new-home"));
    disk.fixture.run(["check"]).success();
}
