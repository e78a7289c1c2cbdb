//! Messages to the user, on the standard error the command was given, in one
//! format: `distml-search: LEVEL: message`, on one line, with control
//! characters made inert (a message may quote a hostile file name or id).
//! A closed or full standard error never fails a command.

use std::fmt::Display;
use std::io::Write;

use crate::inert::inert;

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
/// many results were left out), as the command formatted it but inert
/// (it may quote a catalog's names or a server's words), its indentation
/// kept.
pub fn line(err: &mut dyn Write, text: impl Display) {
    let text = text.to_string();
    let body = text.trim_start_matches(' ');
    let indent = &text[..text.len() - body.len()];
    let _ = writeln!(err, "{indent}{}", inert(body));
}

/// A line painted by the command (colour codes around its own words and
/// counts, made inert before painting), written as it is.
pub fn painted_line(err: &mut dyn Write, text: impl Display) {
    let _ = writeln!(err, "{text}");
}

/// The one wording of an id that names no entry (`show`, `similar`), with
/// the closest of `known` ids when some are close.
pub fn unknown_id<'a>(id: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let close = closest_ids(id, known);
    let hint = match close.as_slice() {
        [] => format!("find ids with `distml-search search {id}` or `distml-search list`"),
        [one] => format!("did you mean `{one}`?"),
        many => format!(
            "did you mean one of {}?",
            many.iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!("no entry with id `{id}`: {hint}")
}

/// Up to three ids: those that start with `id` (shortest first, as "gpipe"
/// names "gpipe-2019"), then those a few edits away (nearest first).
fn closest_ids<'a>(id: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    const SHOWN: usize = 3;
    let typed = id.trim().to_lowercase();
    if typed.is_empty() {
        return Vec::new();
    }
    // Edits allowed grow with the length, as in typo repair: "zero-ofload"
    // is one, but a short id two edits from another is another word.
    let allowed = (typed.chars().count() / 4).clamp(1, 3);
    let mut ranked: Vec<(usize, usize, &str)> = known
        .into_iter()
        .filter_map(|candidate| {
            if candidate.starts_with(&typed) {
                return Some((0, candidate.len(), candidate));
            }
            let distance = strsim::levenshtein(&typed, candidate);
            (distance <= allowed).then_some((1, distance, candidate))
        })
        .collect();
    ranked.sort();
    ranked.dedup_by(|a, b| a.2 == b.2);
    ranked.into_iter().take(SHOWN).map(|(_, _, c)| c).collect()
}

/// The message of the last panic, recorded by [`install_panic_hook`]
/// instead of printed, so that a caught panic becomes one diagnostic line.
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Panics are recorded, not printed: the program reports them itself, on one
/// line, through the writer it was given (and never on a closed stderr).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let mut last = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner());
        *last = Some(format!("{message}{place}"));
    }));
}

/// Runs `f`; a panic inside it is returned as its message.
pub fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| {
        let mut last = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner());
        last.take().unwrap_or_else(|| "a panic".to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_ids_suggest_the_closest_ids() {
        let known = [
            "gpipe-2019",
            "zero-offload-2021",
            "zero-bubble-2024",
            "alpa",
        ];
        assert_eq!(
            unknown_id("gpipe", known),
            "no entry with id `gpipe`: did you mean `gpipe-2019`?"
        );
        assert_eq!(
            unknown_id("zero-ofload-2021", known),
            "no entry with id `zero-ofload-2021`: did you mean `zero-offload-2021`?"
        );
        assert_eq!(
            unknown_id("zero", known),
            "no entry with id `zero`: did you mean one of `zero-bubble-2024`, `zero-offload-2021`?"
        );
        assert_eq!(
            unknown_id("quantum", known),
            "no entry with id `quantum`: find ids with `distml-search search quantum` or `distml-search list`"
        );
    }

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

    #[test]
    fn report_lines_are_inert_and_keep_their_indentation() {
        let mut err = Vec::new();
        line(&mut err, "  failed x: \u{1b}[2J\u{202E}gone\nnext");
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "  failed x: \u{FFFD}[2J\u{FFFD}gone next\n"
        );
    }
}
