//! Shell completion: the shell asks the binary itself (`COMPLETE=bash
//! distml-search -- WORDS`), so flags, their values and the catalog's own
//! entry ids, tags and sections complete, for any subcommand.

use std::ffi::OsString;
use std::io::Write;

use clap::CommandFactory;
use clap_complete::CompletionCandidate;
use clap_complete::env::{EnvCompleter, Shells};

use crate::catalog::{Catalog, is_bidi_control};
use crate::cli::Cli;
use crate::error::Error;
use crate::locations::Locations;
use crate::render::text::inert;

/// The environment variable that turns a run into a completion request.
const VAR: &str = "COMPLETE";
const BIN: &str = "distml-search";

/// Answers a completion request and returns true, or returns false when
/// `COMPLETE` is not set (a normal run).
pub fn answer(args: &[OsString]) -> Result<bool, Error> {
    let current_dir = std::env::current_dir().ok();
    clap_complete::CompleteEnv::with_factory(Cli::command)
        .var(VAR)
        .bin(BIN)
        .try_complete(args.iter().cloned(), current_dir.as_deref())
        .map_err(|e| Error::Output(std::io::Error::other(e.to_string())))
}

/// The script that registers completion for `shell`: the same as
/// `COMPLETE=SHELL distml-search` prints.
pub fn write_registration(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<(), Error> {
    let name = shell.to_string();
    let shells = Shells::builtins();
    let completer: &dyn EnvCompleter = shells
        .completer(&name)
        .ok_or_else(|| Error::Usage(format!("no completion for the shell {name}")))?;
    completer
        .write_registration(VAR, BIN, BIN, BIN, out)
        .map_err(Error::output)
}

/// Candidates drawn from the catalog the command line would read when no
/// `--catalog` is typed; none when it cannot be read.
fn from_catalog(
    candidates: impl Fn(&Catalog) -> Vec<CompletionCandidate>,
) -> Vec<CompletionCandidate> {
    let dir = std::env::var_os("DISTML_CATALOG").map(Into::into);
    match Locations::resolve(dir, None).load_catalog() {
        Ok((catalog, _)) => candidates(&catalog),
        Err(_) => Vec::new(),
    }
}

/// A candidate for `value`, described by `help`, as the shell will show
/// them: none for a value a terminal would obey (a control or
/// bidirectional character: no id `check` accepts has one), and the
/// description made inert.
fn candidate(value: &str, help: Option<&str>) -> Option<CompletionCandidate> {
    if value.chars().any(|c| c.is_control() || is_bidi_control(c)) {
        return None;
    }
    let help = help.map(|h| inert(h).into());
    Some(CompletionCandidate::new(value).help(help))
}

/// Entry ids, each with its title as the description shells show.
pub fn entry_ids() -> Vec<CompletionCandidate> {
    from_catalog(|catalog| {
        (catalog.entries.iter())
            .filter_map(|e| candidate(&e.id, Some(&e.title)))
            .collect()
    })
}

pub fn tags() -> Vec<CompletionCandidate> {
    from_catalog(|catalog| {
        (catalog.vocabulary.tags.iter())
            .filter_map(|t| candidate(&t.id, Some(&t.label)))
            .collect()
    })
}

pub fn sections() -> Vec<CompletionCandidate> {
    from_catalog(|catalog| {
        (catalog.section_names().into_iter())
            .filter_map(|name| candidate(&name, None))
            .collect()
    })
}
