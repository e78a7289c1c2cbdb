//! How much the server takes on at once (`serve`'s flags and their
//! `DISTML_SERVE_*` variables): open connections, requests in flight, the
//! hits of one answer, and how long a connection may idle or stall.

use std::time::Duration;

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once; past it the oldest is closed (`listen`).
    pub max_connections: usize,
    /// Requests being answered at once; more are answered 503 at once.
    pub max_requests: usize,
    /// Hits (or candidates) in one answer: a larger `limit` gets this many.
    pub max_limit: usize,
    /// How long a connection may take to send a request's head, wait
    /// between requests, or leave an answer unread before it is closed.
    pub idle_timeout: Duration,
}

/// Requests' heads (request line and headers) are at most this long,
/// answered 431 past it; above the URI's own bound (64 KiB, answered 414).
pub const MAX_HEAD_BYTES: usize = 96 * 1024;

impl Limits {
    /// `max_connections`, but never more than half of the file descriptors
    /// the process may open: the index's files and the answers need room.
    pub fn connections(&self) -> usize {
        self.max_connections.min(descriptors() / 2).max(1)
    }
}

/// The soft limit of open file descriptors.
#[cfg(target_os = "linux")]
fn descriptors() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    match unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } {
        0 => usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX),
        _ => usize::MAX,
    }
}

#[cfg(not(target_os = "linux"))]
fn descriptors() -> usize {
    usize::MAX
}
