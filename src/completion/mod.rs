//! Shell completion: the shell asks the binary itself (`COMPLETE=bash
//! distml-search -- WORDS`), so flags, their values and the catalog's own
//! entry ids, tags and sections complete, for any subcommand.

use std::ffi::OsString;
use std::io::Write;

pub mod candidates;

use clap_complete::env::{Elvish, EnvCompleter, Fish, Powershell, Shells, Zsh};

use crate::error::Error;

/// The environment variable that turns a run into a completion request.
const VAR: &str = "COMPLETE";
const BIN: &str = "distml-search";

/// Answers a completion request for the command `command` makes and
/// returns true, or returns false when `COMPLETE` is not set (a normal
/// run).
pub fn answer(args: &[OsString], command: fn() -> clap::Command) -> Result<bool, Error> {
    let current_dir = std::env::current_dir().ok();
    clap_complete::CompleteEnv::with_factory(command)
        .var(VAR)
        .bin(BIN)
        .shells(SHELLS)
        .try_complete(args.iter().cloned(), current_dir.as_deref())
        .map_err(|e| Error::Output(std::io::Error::other(e.to_string())))
}

/// The script that registers completion for `shell`: the same as
/// `COMPLETE=SHELL distml-search` prints.
pub fn write_registration(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<(), Error> {
    let name = shell.to_string();
    let shells = SHELLS;
    let completer: &dyn EnvCompleter = shells
        .completer(&name)
        .ok_or_else(|| Error::Usage(format!("no completion for the shell {name}")))?;
    completer
        .write_registration(VAR, BIN, BIN, BIN, out)
        .map_err(Error::output)
}

/// clap_complete's shells, with bash's own adapter.
const SHELLS: Shells<'static> = Shells(&[&Bash, &Elvish, &Fish, &Powershell, &Zsh]);

/// The word being completed as the command line holds it, quotes and all,
/// which bash's registration passes (its `$2` has an opened quote taken
/// off, a backslash left in).
const BASH_WORD: &str = "_DISTML_COMPLETE_WORD";

/// clap_complete's bash adapter, whose script also passes the word being
/// completed as typed ([`BASH_WORD`]): bash inserts a candidate as it is,
/// so a section's name with a space must come quoted, unless the word
/// opened a quote, which bash closes itself.
struct Bash;

impl EnvCompleter for Bash {
    fn name(&self) -> &'static str {
        clap_complete::env::Bash.name()
    }

    fn is(&self, name: &str) -> bool {
        clap_complete::env::Bash.is(name)
    }

    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn Write,
    ) -> Result<(), std::io::Error> {
        let mut script = Vec::new();
        clap_complete::env::Bash.write_registration(var, name, bin, completer, &mut script)?;
        let script = String::from_utf8_lossy(&script);
        let anchor = "_CLAP_IFS=\"$IFS\" \\\n";
        let passed = format!("{anchor}        {BASH_WORD}=\"${{COMP_WORDS[COMP_CWORD]}}\" \\\n");
        buf.write_all(script.replacen(anchor, &passed, 1).as_bytes())
    }

    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&std::path::Path>,
        buf: &mut dyn Write,
    ) -> Result<(), std::io::Error> {
        let word = std::env::var(BASH_WORD).unwrap_or_default();
        candidates::asked_by_bash(word);
        clap_complete::env::Bash.write_complete(cmd, args, current_dir, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bash_script_passes_the_word_as_typed() {
        let mut script = Vec::new();
        write_registration(clap_complete::Shell::Bash, &mut script).unwrap();
        let script = String::from_utf8(script).unwrap();
        assert!(
            script.contains("_DISTML_COMPLETE_WORD=\"${COMP_WORDS[COMP_CWORD]}\" \\\n"),
            "{script}"
        );
    }
}
