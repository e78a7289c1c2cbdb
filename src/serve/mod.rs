//! `serve`: the search page, its JSON API and Atom feeds over HTTP (axum on tokio,
//! hyper's connections run by `listen`), for a browser on this machine.
//! Read-only; every request passes `guard` (method, Host, size) first, then
//! the cap on requests in flight (`Limits`). Imports flow one way: the
//! router names the handlers (`api`, `feed`, `assets`), handlers ask the
//! `App`, and `reply` turns its work into responses. Nothing here
//! searches: `app` calls the library as the commands do.

mod api;
mod app;
mod assets;
mod feed;
mod flight;
mod guard;
mod inbox;
mod limits;
mod listen;
mod params;
mod reply;
mod site;
mod transport;

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::error_handling::HandleErrorLayer;
use axum::routing::get;
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;

pub use app::App;
pub use inbox::Inbox;
pub use limits::Limits;

use crate::error::Error;

/// Binds `addr`, says where on the first line of `out`, and serves until
/// the process is stopped, within `limits`.
pub fn serve(app: App, addr: SocketAddr, limits: Limits, out: &mut dyn Write) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            Error::Usage(format!(
                "cannot listen on {addr}: {e} (another port, or --port 0 for any free one)"
            ))
        })?;
        let local = listener.local_addr().map_err(Error::Runtime)?;
        writeln!(out, "listening on http://{local}/").map_err(Error::output)?;
        out.flush().map_err(Error::output)?;
        let router = router(Arc::new(app), local, &limits);
        listen::accept_forever(listener, router, limits).await;
        Ok(())
    })
}

fn router(app: Arc<App>, local: SocketAddr, limits: &Limits) -> Router {
    Router::new()
        .route("/", get(assets::page))
        .route("/assets/{name}", get(assets::asset))
        .route("/api/search", get(api::search))
        // Ids hold colons and, in DOIs, slashes: the rest of the path.
        .route("/api/entry/{*id}", get(api::entry))
        .route("/api/similar/{*id}", get(api::similar))
        .route("/api/inbox", get(api::inbox))
        .route("/feed/search.atom", get(feed::search))
        .route("/feed/inbox.atom", get(feed::inbox))
        .route("/feed/watch/{file}", get(feed::watch))
        .fallback(api::not_found)
        // One semaphore for every route (a per-route limit would multiply
        // the cap); a request past it is shed at once with 503, not queued.
        .layer(
            ServiceBuilder::new()
                .layer(HandleErrorLayer::new(reply::overloaded))
                .load_shed()
                .layer(GlobalConcurrencyLimitLayer::new(limits.max_requests)),
        )
        .layer(axum::middleware::from_fn_with_state(
            guard::Guard::new(local),
            guard::check,
        ))
        .with_state(app)
}
