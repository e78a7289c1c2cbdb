//! Messages to the user, on the standard error the command was given, in one
//! format: `distml-search: LEVEL: message`, on one line, with control
//! characters made inert (a message may quote a hostile file name or id).
//! A closed or full standard error never fails a command.

use std::fmt::Display;
use std::io::Write;

use crate::render::text::inert;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Note,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

pub fn emit(err: &mut dyn Write, level: Level, message: impl Display) {
    let message = inert(&message.to_string());
    let _ = writeln!(err, "distml-search: {}: {message}", level.as_str());
}

pub fn error(err: &mut dyn Write, message: impl Display) {
    emit(err, Level::Error, message);
}

pub fn warning(err: &mut dyn Write, message: impl Display) {
    emit(err, Level::Warning, message);
}

pub fn note(err: &mut dyn Write, message: impl Display) {
    emit(err, Level::Note, message);
}

/// A line of a command's report on standard error (what was searched, how
/// many results were left out), written as the command formatted it.
pub fn line(err: &mut dyn Write, text: impl Display) {
    let _ = writeln!(err, "{text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_inert_line() {
        let mut err = Vec::new();
        warning(&mut err, "bad file \u{1b}]0;title\u{7}x.toml:\nline two");
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "distml-search: warning: bad file \u{FFFD}]0;title\u{FFFD}x.toml: line two\n"
        );
    }

    #[test]
    fn a_closed_stderr_is_not_an_error() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        note(&mut Closed, "nobody reads this");
    }
}
