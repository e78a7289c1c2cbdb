//! `Server`: the binary's `serve --port 0` on a fixture, stopped when
//! dropped; `get` and `raw` for requests the tests write themselves.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

use super::{Cmd, Fixture};

pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT/`, as the first line of output said.
    pub base: String,
    pub port: u16,
}

impl Server {
    /// Starts the server and waits for its first line, which it prints once
    /// it listens.
    pub fn start(fixture: &Fixture, args: &[&str]) -> Server {
        Server::start_cmd(Cmd::new(fixture).args(["serve", "--port", "0"]).args(args))
    }

    /// As `start`, with `cmd` (`serve --port 0` and what else it needs).
    pub fn start_cmd(cmd: Cmd) -> Server {
        let mut child = cmd
            .into_command()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start the server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line {line:?}"))
            .trim_end()
            .to_string();
        let port = base
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Server { child, base, port }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path.trim_start_matches('/'))
    }

    /// A request written whole (`Connection: close`), and the response's
    /// status and body.
    pub fn raw(&self, request: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let status = response
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {response:?}"));
        let body = response
            .split_once("\r\n\r\n")
            .map_or("", |(_, b)| b)
            .to_string();
        (status, body)
    }

    /// `GET path` with this Host header.
    pub fn get_with_host(&self, path: &str, host: &str) -> (u16, String) {
        self.raw(&format!(
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        ))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
