//! A connection as hyper reads and writes it, with two changes hyper has no
//! setting for: its own answers to requests it cannot parse (a byte that
//! is not ASCII in the address, an address or headers too long), which
//! carry no body and none of the guard's headers, become the JSON error
//! every other answer is; and a write that makes no progress for the idle
//! timeout (a client that never reads) ends the connection, freeing its
//! answer.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::http::StatusCode;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Sleep, sleep};

use super::guard::{MAX_URI_BYTES, SECURITY_HEADERS};
use super::limits::MAX_HEAD_BYTES;

pub struct Transport {
    stream: TcpStream,
    stall: Duration,
    /// Running while a write waits for the client to read.
    stalled: Option<Pin<Box<Sleep>>>,
    /// The JSON answer written in place of hyper's, and how much of it is.
    replacing: Option<(Vec<u8>, usize)>,
}

impl Transport {
    pub fn new(stream: TcpStream, stall: Duration) -> Transport {
        Transport {
            stream,
            stall,
            stalled: None,
            replacing: None,
        }
    }

    fn write_stream(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.stream).poll_write(cx, buf) {
            Poll::Pending => {
                let stall = self.stall;
                let timer = self.stalled.get_or_insert_with(|| Box::pin(sleep(stall)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client reads nothing",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
            done => {
                self.stalled = None;
                done
            }
        }
    }
}

impl AsyncRead for Transport {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Transport {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.replacing.is_none()
            && let Some(status) = hypers_own_answer(buf)
        {
            this.replacing = Some((json_answer(status), 0));
        }
        let Some((answer, sent)) = this.replacing.take() else {
            return this.write_stream(cx, buf);
        };
        let mut sent = sent;
        while sent < answer.len() {
            match this.write_stream(cx, &answer[sent..]) {
                Poll::Ready(Ok(n)) => sent += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {
                    this.replacing = Some((answer, sent));
                    return Poll::Pending;
                }
            }
        }
        // Hyper's head counts as written: the answer it stands for is.
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(Pin::new(&mut self.stream).poll_flush(cx))?;
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The status of the bodiless answer hyper writes itself for a request it
/// could not parse; none for an answer of ours (which has the guard's
/// headers) or part of one.
fn hypers_own_answer(buf: &[u8]) -> Option<StatusCode> {
    let status = match buf.strip_prefix(b"HTTP/1.1 ")?.get(..4)? {
        b"400 " => StatusCode::BAD_REQUEST,
        b"414 " => StatusCode::URI_TOO_LONG,
        b"431 " => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        _ => return None,
    };
    let head = buf.to_ascii_lowercase();
    let bodiless = head.ends_with(b"\r\n\r\n")
        && memchr::memmem::find(&head, b"\r\ncontent-length: 0\r\n").is_some();
    let ours = memchr::memmem::find(&head, b"x-content-type-options").is_some();
    (bodiless && !ours && buf.len() < 512).then_some(status)
}

/// The whole answer, as the API's errors are: JSON, with the guard's
/// headers; the connection closes after it, as hyper's would.
fn json_answer(status: StatusCode) -> Vec<u8> {
    let message = match status {
        StatusCode::URI_TOO_LONG => format!("the address is longer than {MAX_URI_BYTES} bytes"),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            format!("the request's headers are longer than {MAX_HEAD_BYTES} bytes")
        }
        _ => "the request cannot be read: its method, address or a header is malformed \
              (an address is ASCII, other bytes percent-encoded)"
            .to_string(),
    };
    let body = json!({"error": message, "status": status.as_u16()}).to_string();
    let mut head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in SECURITY_HEADERS {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(&body);
    head.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_bodiless_parse_errors_are_replaced() {
        let hyper = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: Sat, 05 Dec 2026 22:00:00 GMT\r\n\r\n";
        assert_eq!(hypers_own_answer(hyper), Some(StatusCode::BAD_REQUEST));
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nx-content-type-options: nosniff\r\n\r\n";
        assert_eq!(hypers_own_answer(ours), None);
        assert_eq!(hypers_own_answer(b"HTTP/1.1 200 OK\r\n\r\n"), None);
        assert_eq!(hypers_own_answer(b"HTTP/1.1 400 Bad"), None);
    }

    #[test]
    fn the_replacement_is_json_with_the_guards_headers() {
        let answer = String::from_utf8(json_answer(StatusCode::URI_TOO_LONG)).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 414 URI Too Long\r\n"),
            "{answer}"
        );
        assert!(answer.contains("\r\nx-frame-options: DENY\r\n"), "{answer}");
        assert!(
            answer.ends_with(r#"{"error":"the address is longer than 32768 bytes","status":414}"#)
        );
    }
}
