//! `serve`: the index opened once (rebuilt first when missing or stale, as
//! `search` does), then the web page and its API until interrupted.

use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use crate::cli::ServeArgs;
use crate::error::Error;
use crate::locations::Locations;
use crate::ready::ready_index;
use crate::search::Boosts;
use crate::serve::{App, Inbox, Limits, serve};

pub fn run(
    locations: &Locations,
    args: &ServeArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let (catalog, open) = ready_index(locations, err)?;
    // A harvest's pages, added to this generation, show without a restart.
    let open = open.following()?;
    let cache = locations.load_cache()?;
    let boosts = Boosts::load(locations.catalog_dir().ok())?;
    let dir = locations.catalog_dir().ok().map(|d| d.to_path_buf());
    let inbox = Inbox::new(dir);
    // The flags' ranges make these fit.
    let limits = Limits {
        max_connections: args.max_connections as usize,
        max_requests: args.max_requests as usize,
        max_limit: args.max_limit as usize,
        idle_timeout: Duration::from_millis(args.idle_timeout_ms),
    };
    let app = App::new(catalog, cache, open, boosts, inbox, limits.max_limit)
        .with_watches(super::watch::watches_dir(locations).ok());
    serve(app, SocketAddr::new(args.bind, args.port), limits, out)
}
