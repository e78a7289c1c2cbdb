//! What a value completes to, drawn from the catalog: entry ids, tags and
//! section names. The command line's definitions (`cli.rs`) name these;
//! nothing here reads them back.

use std::ffi::OsStr;
use std::sync::OnceLock;

use clap_complete::CompletionCandidate;

use crate::catalog::Catalog;
use crate::environment;
use crate::inert::inert;
use crate::inert::is_bidi_control;
use crate::locations::Locations;

/// Candidates drawn from the catalog the command line would read when no
/// `--catalog` is typed; none when it cannot be read.
fn from_catalog(
    candidates: impl Fn(&Catalog) -> Vec<CompletionCandidate>,
) -> Vec<CompletionCandidate> {
    let dir = std::env::var_os(environment::CATALOG).map(Into::into);
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

/// Set when bash asks: the word being completed as the command line holds
/// it (see `completion::Bash`).
static BASH_WORD: OnceLock<String> = OnceLock::new();

/// Says that bash asks, for the word `typed` as the command line holds it.
pub(super) fn asked_by_bash(typed: String) {
    let _ = BASH_WORD.set(typed);
}

/// Section names that start with what is typed. Bash puts a candidate on
/// the command line as it is, so for bash a name with a space or another
/// character the shell reads comes with backslashes (`Pipeline\ Parallelism`),
/// unless the word opened a quote, which bash closes after the name. The
/// other shells quote what they insert themselves.
pub fn sections(current: &OsStr) -> Vec<CompletionCandidate> {
    let current = current.to_string_lossy();
    let escape = BASH_WORD
        .get()
        .is_some_and(|typed| !typed.starts_with(['\'', '"']));
    let prefix = if escape {
        unescape(&current)
    } else {
        current.to_string()
    };
    from_catalog(|catalog| {
        (catalog.section_names().into_iter())
            .filter(|name| name.starts_with(&prefix))
            .filter_map(|name| {
                let value = if escape { escape_for_bash(&name) } else { name };
                candidate(&value, None)
            })
            .collect()
    })
}

/// A word being typed, its backslashes read as bash reads them.
fn unescape(word: &str) -> String {
    let mut text = String::with_capacity(word.len());
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => text.extend(chars.next()),
            c => text.push(c),
        }
    }
    text
}

/// `name` as one word of a bash command line, with backslashes.
fn escape_for_bash(name: &str) -> String {
    let mut word = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        if !(c.is_alphanumeric() || "-_.,:/+@%=".contains(c)) {
            word.push('\\');
        }
        word.push(c);
    }
    word
}

#[cfg(test)]
mod tests {
    use super::{escape_for_bash, unescape};

    #[test]
    fn names_are_escaped_as_bash_reads_them_back() {
        let name = "Mixture-of-Experts (MoE) Bob's Systems";
        let escaped = escape_for_bash(name);
        assert_eq!(
            escaped,
            "Mixture-of-Experts\\ \\(MoE\\)\\ Bob\\'s\\ Systems"
        );
        assert_eq!(unescape(&escaped), name);
        assert_eq!(unescape("Pipeline\\ Pa"), "Pipeline Pa");
    }
}
