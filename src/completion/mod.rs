//! Shell completion: the shell asks the binary itself (`COMPLETE=bash
//! distml-search -- WORDS`), so flags, their values and the catalog's own
//! entry ids, tags and sections complete, for any subcommand.

use std::ffi::OsString;
use std::io::Write;

pub mod candidates;

use clap::CommandFactory;
use clap_complete::env::{EnvCompleter, Shells};

use crate::cli::Cli;
use crate::error::Error;

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
