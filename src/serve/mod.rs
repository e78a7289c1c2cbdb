//! `serve`: the search page and its JSON API over HTTP (axum on tokio),
//! for a browser on this machine. Read-only; every request passes
//! `guard` (method, Host, size) first. Nothing here searches: `app` calls
//! the library as the commands do.

mod api;
mod app;
mod assets;
mod guard;
mod inbox;
mod params;

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::get;

pub use app::App;
pub use inbox::Inbox;

use crate::error::Error;

/// Binds `addr`, says where on the first line of `out`, and serves until
/// the process is stopped.
pub fn serve(app: App, addr: SocketAddr, out: &mut dyn Write) -> Result<(), Error> {
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
        axum::serve(listener, router(Arc::new(app), local))
            .await
            .map_err(Error::Runtime)
    })
}

fn router(app: Arc<App>, local: SocketAddr) -> Router {
    Router::new()
        .route("/", get(assets::page))
        .route("/assets/{name}", get(assets::asset))
        .route("/api/search", get(api::search))
        // Ids hold colons and, in DOIs, slashes: the rest of the path.
        .route("/api/entry/{*id}", get(api::entry))
        .route("/api/similar/{*id}", get(api::similar))
        .route("/api/inbox", get(inbox::inbox))
        .fallback(api::not_found)
        .layer(axum::middleware::from_fn_with_state(
            guard::Guard::new(local),
            guard::check,
        ))
        .with_state(app)
}
