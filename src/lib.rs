//! distml-search: a search engine for the literature of distributed machine
//! learning. The binary is a thin wrapper around [`run`].

// Public: what the fuzz targets, the benchmarks and the integration tests
// use. The rest is private to the crate, so that the compiler finds what
// nothing uses.
pub mod allocator;
pub mod analysis;
pub mod catalog;
mod cli;
pub mod clock;
mod commands;
mod completion;
mod diagnostic;
pub mod embed;
mod environment;
pub mod error;
mod fsutil;
pub mod harvest;
mod health;
mod ident;
mod inbox;
pub mod index;
mod inert;
pub mod ingest;
pub mod locations;
mod manual;
mod mcp;
pub mod model;
mod named;
pub mod predict;
mod ready;
mod render;
pub mod search;
mod serve;
pub mod snapshot;
mod watch;

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;

use cli::{Cli, Command};
use error::Error;
use locations::Locations;

/// Exit statuses, as grep: a match, no match, an error.
pub const EXIT_OK: i32 = 0;
pub const EXIT_NO_MATCH: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

/// Parses `args`, runs the command and returns the exit status. Errors are
/// reported here, once, on one line.
pub fn run(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> i32 {
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // A shell asking for completions (`COMPLETE=bash distml-search -- ...`).
    match completion::answer(&args, <Cli as clap::CommandFactory>::command) {
        Ok(true) => return EXIT_OK,
        Ok(false) => {}
        Err(e) => {
            diagnostic::error(&mut std::io::stderr(), e);
            return EXIT_ERROR;
        }
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // One prefix for every error, clap's included.
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            let _ = write!(std::io::stderr(), "distml-search: error: {text}");
            return EXIT_ERROR;
        }
        Err(e) => {
            let _ = e.print();
            return EXIT_OK;
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    diagnostic::install_panic_hook();
    match diagnostic::catch_panic(|| execute(cli, &mut out, &mut err)) {
        Ok(Ok(code)) => code,
        Ok(Err(e)) if e.is_broken_pipe() => EXIT_OK,
        Ok(Err(e)) => {
            diagnostic::error(&mut err, e.explained());
            EXIT_ERROR
        }
        Err(panic) => {
            diagnostic::error(
                &mut err,
                format_args!(
                    "internal error ({panic}); if the index is damaged, `distml-search index` rebuilds it"
                ),
            );
            EXIT_ERROR
        }
    }
}

fn execute(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    let locations = Locations::resolve(cli.global.catalog, cli.global.index);
    let style = style(cli.global.color);
    let found = |found: bool| if found { EXIT_OK } else { EXIT_NO_MATCH };
    if cli.command.wants_throughput() {
        allocator::for_throughput();
    }
    match cli.command {
        Command::Index(args) => commands::index::run(&locations, &args, out, err).map(|()| EXIT_OK),
        Command::Search(args) => {
            commands::search::run(&locations, &args, style, out, err).map(found)
        }
        Command::Similar(args) => {
            commands::search::run_similar(&locations, &args, style, out, err).map(found)
        }
        Command::Show(args) => commands::show::run(&locations, &args, style, out).map(|()| EXIT_OK),
        Command::List(args) => commands::list::run(&locations, &args, style, out, err).map(found),
        Command::Stats(args) => commands::stats::run(&locations, &args, out).map(|()| EXIT_OK),
        Command::Check(args) if args.online => {
            let clean = commands::check::run_online(&locations, &args, out, err)?;
            Ok(if clean { EXIT_OK } else { EXIT_ERROR })
        }
        Command::Check(_) => Ok(if commands::check::run(&locations, out, err)? {
            EXIT_OK
        } else {
            EXIT_ERROR
        }),
        Command::Import(args) => {
            commands::import::run(&locations, &args, out, err).map(|()| EXIT_OK)
        }
        Command::Export(args) => {
            commands::export::run(&locations, &args, out, err).map(|()| EXIT_OK)
        }
        Command::Harvest(args) => commands::harvest::run(&locations, &args, err).map(|()| EXIT_OK),
        Command::Serve(args) => commands::serve::run(&locations, &args, out, err).map(|()| EXIT_OK),
        Command::Inbox(args) => commands::inbox::run(&locations, &args, style, out, err).map(found),
        Command::Mcp => commands::mcp::run(&locations, out, err).map(|()| EXIT_OK),
        Command::Watch(args) => commands::watch::run(&locations, &args, style, out, err).map(found),
        Command::Completions { shell } => {
            completion::write_registration(shell, out)?;
            Ok(EXIT_OK)
        }
        Command::Man { dir: None } => manual::write_main_page(out).map(|()| EXIT_OK),
        Command::Man { dir: Some(dir) } => {
            let pages = manual::write_pages(&dir)?;
            writeln!(out, "{pages} pages written to {}", dir.display()).map_err(Error::output)?;
            Ok(EXIT_OK)
        }
    }
}

/// Colour when asked, or on a terminal unless `NO_COLOR` is set or `TERM`
/// is `dumb` (a terminal that cannot show escape codes, as ripgrep decides);
/// the width of `$COLUMNS`, else of the terminal, else 80.
fn style(choice: cli::ColorChoice) -> render::Style {
    use std::io::IsTerminal;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let color = match choice {
        cli::ColorChoice::Always => true,
        cli::ColorChoice::Never => false,
        cli::ColorChoice::Auto => !no_color && !dumb && std::io::stdout().is_terminal(),
    };
    let terminal = || terminal_size::terminal_size().map(|(width, _)| usize::from(width.0));
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
    let cut = columns.is_some() || std::io::stdout().is_terminal();
    let width = columns.or_else(terminal).unwrap_or(80);
    render::Style {
        color,
        // The whole width: listings use it; prose is kept narrower where it
        // is wrapped (`Style::prose_width`).
        width: width.max(40),
        cut,
    }
}
