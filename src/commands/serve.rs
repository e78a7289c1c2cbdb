//! `serve`: the index opened once (rebuilt first when missing or stale, as
//! `search` does), then the web page and its API until interrupted.

use std::io::Write;
use std::net::SocketAddr;

use super::ready_index;
use crate::cli::ServeArgs;
use crate::error::Error;
use crate::locations::Locations;
use crate::search::Boosts;
use crate::serve::{App, Inbox, serve};

pub fn run(
    locations: &Locations,
    args: &ServeArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let (catalog, open) = ready_index(locations, err)?;
    let cache = locations.load_cache()?;
    let boosts = Boosts::load(locations.catalog_dir().ok())?;
    let dir = locations.catalog_dir().ok().map(|d| d.to_path_buf());
    let inbox = Inbox::new(dir);
    let app = App::new(catalog, cache, open, boosts, inbox);
    serve(app, SocketAddr::new(args.bind, args.port), out)
}
