//! `Cmd`: the binary run on a fixture, and `Run`: what it did, checked whole.
//!
//! ```ignore
//! Cmd::new(&fixture).args(["search", "--json", "gpipe"]).run().success().json_lines();
//! ```
//!
//! Every check panics with the command, its exit status, stdout and stderr.

use std::ffi::OsStr;
use std::fmt::Display;
use std::io::Write;
use std::process::{Command, ExitStatus, Stdio};

use serde_json::Value;

use super::Fixture;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_distml-search");

pub struct Cmd {
    command: Command,
    stdin: Option<Vec<u8>>,
}

impl Cmd {
    /// The binary in `fixture`'s folder, offline, without colour and with no
    /// location variables, so that `./catalog` and `./index` are used.
    pub fn new(fixture: &Fixture) -> Self {
        Cmd::program(fixture, BIN)
    }

    /// As [`Cmd::new`], but running `program` (a wrapper such as `setpriv`,
    /// given the binary as an argument).
    pub fn program(fixture: &Fixture, program: impl AsRef<OsStr>) -> Self {
        let mut cmd = Cmd {
            command: Command::new(program),
            stdin: None,
        };
        cmd.command
            .current_dir(fixture.dir.path())
            .env_remove("DISTML_CATALOG")
            .env_remove("DISTML_INDEX")
            .env("NO_COLOR", "1")
            .env("DISTML_OFFLINE", "1");
        cmd
    }

    /// The binary with the test's own environment and folder.
    pub fn bare() -> Self {
        Cmd {
            command: Command::new(BIN),
            stdin: None,
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.command.arg(arg);
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Self {
        self.command.args(args);
        self
    }

    /// Runs in `dir` (the working directory).
    pub fn in_dir(mut self, dir: impl AsRef<std::path::Path>) -> Self {
        self.command.current_dir(dir);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.command.env(key, value);
        self
    }

    pub fn env_remove(mut self, key: &str) -> Self {
        self.command.env_remove(key);
        self
    }

    /// Runs the binary through `bash -c`, after `setup` (such as `ulimit -f 32`).
    pub fn after_shell(self, setup: &str) -> Self {
        let mut shell = Command::new("bash");
        shell
            .arg("-c")
            .arg(format!("{setup}; exec \"$0\" \"$@\""))
            .arg(BIN)
            .args(self.command.get_args());
        if let Some(dir) = self.command.get_current_dir() {
            shell.current_dir(dir);
        }
        for (key, value) in self.command.get_envs() {
            match value {
                Some(value) => shell.env(key, value),
                None => shell.env_remove(key),
            };
        }
        Cmd {
            command: shell,
            stdin: self.stdin,
        }
    }

    /// Bytes for standard input (otherwise it is empty).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// The command itself, for tests that spawn, signal or pipe it.
    pub fn into_command(self) -> Command {
        self.command
    }

    /// Runs to the end and captures both outputs.
    pub fn run(mut self) -> Run {
        let shown = shown(&self.command);
        let mut child = self
            .command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
        let feeder = self.stdin.take().map(|bytes| {
            let mut pipe = child.stdin.take().unwrap();
            // A thread, so that a child that writes before it reads cannot
            // deadlock with us; one that stops reading early is its business.
            std::thread::spawn(move || drop(pipe.write_all(&bytes)))
        });
        let output = child.wait_with_output().unwrap();
        if let Some(feeder) = feeder {
            feeder.join().unwrap();
        }
        Run {
            shown,
            status: output.status,
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// The command as a failure shows it: the folder, changed variables, and
/// the arguments (a very long one cut).
fn shown(command: &Command) -> String {
    let mut text = String::new();
    if let Some(dir) = command.get_current_dir() {
        text.push_str(&format!("cd {} && ", dir.display()));
    }
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => text.push_str(&format!("{}={:?} ", key.display(), value)),
            None => text.push_str(&format!("-u {} ", key.display())),
        }
    }
    text.push_str("distml-search");
    for arg in command.get_args() {
        let arg = arg.to_string_lossy();
        let cut: String = arg.chars().take(80).collect();
        let more = if cut.len() < arg.len() { "…" } else { "" };
        text.push_str(&format!(" {cut:?}{more}"));
    }
    text
}

/// One finished run of the binary.
pub struct Run {
    shown: String,
    pub status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Panics with `why` and everything the run printed.
    #[track_caller]
    pub fn fail(&self, why: impl Display) -> ! {
        panic!(
            "{why}\ncommand: {}\nstatus: {}\n--- stdout\n{}--- stderr\n{}---",
            self.shown, self.status, self.stdout, self.stderr
        )
    }

    /// Exit status 0.
    #[track_caller]
    pub fn success(self) -> Self {
        self.code(0)
    }

    #[track_caller]
    pub fn code(self, code: i32) -> Self {
        if self.status.code() != Some(code) {
            self.fail(format!("expected exit status {code}"));
        }
        self
    }

    /// Standard output is exactly `expected`.
    #[track_caller]
    pub fn stdout_is(self, expected: &str) -> Self {
        if self.stdout != expected {
            self.fail(format!("stdout differs:\n{}", diff(expected, &self.stdout)));
        }
        self
    }

    /// Standard error is exactly `expected`.
    #[track_caller]
    pub fn stderr_is(self, expected: &str) -> Self {
        if self.stderr != expected {
            self.fail(format!("stderr differs:\n{}", diff(expected, &self.stderr)));
        }
        self
    }

    /// For outputs that are not a contract as a whole (progress, help texts).
    #[track_caller]
    pub fn stdout_has(self, needle: &str) -> Self {
        if !self.stdout.contains(needle) {
            self.fail(format!("stdout lacks {needle:?}"));
        }
        self
    }

    #[track_caller]
    pub fn stdout_lacks(self, needle: &str) -> Self {
        if self.stdout.contains(needle) {
            self.fail(format!("stdout has {needle:?}"));
        }
        self
    }

    #[track_caller]
    pub fn stderr_has(self, needle: &str) -> Self {
        if !self.stderr.contains(needle) {
            self.fail(format!("stderr lacks {needle:?}"));
        }
        self
    }

    #[track_caller]
    pub fn stderr_lacks(self, needle: &str) -> Self {
        if self.stderr.contains(needle) {
            self.fail(format!("stderr has {needle:?}"));
        }
        self
    }

    pub fn stdout(&self) -> &str {
        &self.stdout
    }

    pub fn stderr(&self) -> &str {
        &self.stderr
    }

    pub fn stdout_lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// Each line of stdout as JSON.
    #[track_caller]
    pub fn json_lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| self.fail(format!("not JSON ({e}): {line}")))
            })
            .collect()
    }

    /// Stdout as one JSON document.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| self.fail(format!("not JSON: {e}")))
    }

    /// The `id` of each JSON line, in order.
    #[track_caller]
    pub fn ids(&self) -> Vec<String> {
        self.json_lines()
            .iter()
            .map(|hit| match hit["id"].as_str() {
                Some(id) => id.to_owned(),
                None => self.fail(format!("a line without an id: {hit}")),
            })
            .collect()
    }
}

/// A line-by-line comparison: `-` expected, `+` actual, ` ` both.
fn diff(expected: &str, actual: &str) -> String {
    let (expected, actual): (Vec<&str>, Vec<&str>) = (
        expected.split_inclusive('\n').collect(),
        actual.split_inclusive('\n').collect(),
    );
    let mut text = String::new();
    for i in 0..expected.len().max(actual.len()) {
        match (expected.get(i), actual.get(i)) {
            (Some(e), Some(a)) if e == a => text.push_str(&format!("  {e:?}\n")),
            (e, a) => {
                if let Some(e) = e {
                    text.push_str(&format!("- {e:?}\n"));
                }
                if let Some(a) = a {
                    text.push_str(&format!("+ {a:?}\n"));
                }
            }
        }
    }
    text
}
