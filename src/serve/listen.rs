//! Accepting connections and serving each with hyper's HTTP/1 (axum's own
//! `serve` has no header-read timeout and no cap). At most
//! `Limits::connections` are open at once, so that idle sockets cannot use
//! up the process's file descriptors; a connection past the cap makes the
//! oldest one close, so that a flood of idle sockets cannot keep a real
//! request waiting: at once if it never sent a whole request, else by
//! hyper's graceful shutdown (at once if idle, after its answer if not).
//! Hyper's header-read timeout runs from the end of one request to the
//! head of the next, so it closes idle keep-alive connections too;
//! `transport` closes those that stop reading.

use std::collections::VecDeque;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore};
use tower::ServiceExt;

use super::limits::{Limits, MAX_HEAD_BYTES};
use super::transport::Transport;

/// Serves `router` on `listener` until the process is stopped.
pub async fn accept_forever(listener: TcpListener, router: Router, limits: Limits) {
    let cap = limits.connections();
    let slots = Arc::new(Semaphore::new(cap));
    // Each open connection's signal to close, oldest first.
    let mut open: VecDeque<Arc<Notify>> = VecDeque::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.idle_timeout)
        .max_header_size(MAX_HEAD_BYTES)
        // Past this, a head that has not ended is answered 431.
        .max_buf_size(MAX_HEAD_BYTES + 8 * 1024);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of descriptors for a moment (the index's files count too),
            // or a client gone before it was accepted: try again shortly.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // A connection's task holds the last reference but ours when done.
        open.retain(|close| Arc::strong_count(close) > 1);
        let slot = match Arc::clone(&slots).try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                if let Some(oldest) = open.pop_front() {
                    oldest.notify_one();
                }
                // The semaphore is never closed.
                let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                    return;
                };
                slot
            }
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Transport::new(stream, limits.idle_timeout));
        let asked = Arc::new(AtomicBool::new(false));
        let service = {
            let asked = Arc::clone(&asked);
            router.clone().map_request(move |request| {
                asked.store(true, Ordering::Relaxed);
                request
            })
        };
        let connection = http.serve_connection(io, TowerToHyperService::new(service));
        let close = Arc::new(Notify::new());
        open.push_back(Arc::clone(&close));
        tokio::spawn(async move {
            let mut connection = pin!(connection);
            // Errors are the client's (reset, timed out, malformed): the
            // answer, if any, is written already.
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = close.notified() => {
                    if asked.load(Ordering::Relaxed) {
                        connection.as_mut().graceful_shutdown();
                        let _ = connection.await;
                    }
                }
            }
            drop(slot);
        });
    }
}
