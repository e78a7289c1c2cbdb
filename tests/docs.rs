//! The pages show only what exists: every `distml-search` command line in
//! a code block of README.md or docs/ names a subcommand the binary has,
//! with flags its `--help` lists.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use common::BIN;

/// `distml-search ARGS --help`, or `None` when that is no command.
fn help(words: &[&str]) -> Option<String> {
    let output = Command::new(BIN)
        .args(words)
        .arg("--help")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Each command line shown in a fenced code block of `text`: the words
/// after `distml-search`, up to a pipe, a redirection, `;`, `&&` or a
/// comment.
fn command_lines(text: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            continue;
        }
        for (at, _) in line.match_indices("distml-search ") {
            // A path or a name that only contains it (`~/.../distml-search`).
            if at > 0 && !line[..at].ends_with([' ', '(', '$']) {
                continue;
            }
            let rest = &line[at + "distml-search ".len()..];
            let words: Vec<String> = rest
                .split_whitespace()
                .take_while(|w| !["|", ">", ">>", ";", "&&", "#", "2>&1"].contains(w))
                .map(str::to_string)
                .collect();
            found.push(words);
        }
    }
    found
}

#[test]
fn every_command_line_the_pages_show_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);

    let top = help(&[]).expect("distml-search --help");
    let mut helps: BTreeMap<Vec<String>, Option<String>> = BTreeMap::new();
    let mut problems = BTreeSet::new();
    let mut lines = 0;
    for page in &pages {
        let name = page.strip_prefix(root).unwrap().display().to_string();
        for words in command_lines(&std::fs::read_to_string(page).unwrap()) {
            // The command: its first word that is no flag nor a flag's
            // value, and the next word when that names a subcommand of it.
            let Some(first) = words.iter().position(|w| !w.starts_with('-')) else {
                continue;
            };
            lines += 1;
            let mut path = vec![words[first].clone()];
            let mut lookup = |path: &Vec<String>| {
                (helps.entry(path.clone()))
                    .or_insert_with(|| help(&path.iter().map(String::as_str).collect::<Vec<_>>()))
                    .clone()
            };
            let Some(mut text) = lookup(&path) else {
                problems.insert(format!("{name}: no command `{}`", path[0]));
                continue;
            };
            if let Some(next) = words.get(first + 1).filter(|w| !w.starts_with('-')) {
                let deeper = vec![path[0].clone(), next.clone()];
                if text.contains(&format!("\n  {next} "))
                    && let Some(found) = lookup(&deeper)
                {
                    (path, text) = (deeper, found);
                }
            }
            for flag in words.iter().filter(|w| w.starts_with("--")) {
                let flag = flag.split('=').next().unwrap();
                if !text.contains(flag) && !top.contains(flag) {
                    problems.insert(format!(
                        "{name}: `distml-search {}` has no {flag}",
                        path.join(" ")
                    ));
                }
            }
        }
    }
    assert!(lines > 50, "{lines} command lines found");
    assert!(
        problems.is_empty(),
        "{}",
        problems.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The table of ranking signals in docs/searching.md, made from the one
/// declaration of them (`search::signals::SIGNALS`).
fn signals_table() -> String {
    let mut table = String::from(
        "| `ranking.toml` key | default | reads | `--explain` shows | what it does |\n\
         |---|---|---|---|---|\n",
    );
    for signal in distml_search::search::signals::SIGNALS {
        let how: Vec<&str> = signal.how.lines().map(str::trim).collect();
        let shown = if signal.shown.is_empty() {
            "(scales other parts)".to_string()
        } else {
            format!("`{}`", signal.shown.replace("{}", "…"))
        };
        table.push_str(&format!(
            "| `{}` | {} | {} | {shown} | {} |\n",
            signal.key,
            signal.default,
            signal.reads,
            how.join(" ")
        ));
    }
    table
}

#[test]
fn the_guide_lists_every_ranking_signal_as_declared() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/searching.md");
    let guide = std::fs::read_to_string(&path).unwrap();
    let table = signals_table();
    assert!(
        guide.contains(&table),
        "docs/searching.md's table of ranking signals differs from src/search/signals.rs; \
         it should read:\n{table}"
    );
}
