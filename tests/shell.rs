//! Shell integration as a user meets it: completion in a real bash, and
//! the man pages.

mod common;

use std::path::Path;
use std::process::Command;

use common::{BIN, Fixture};

/// What bash offers after `line` (the cursor at its end), with the
/// registration script `completions bash` prints sourced, the binary on
/// PATH and the fixture's folder as the working directory. As bash does,
/// the function's word (`$2`) is the last word without a quote it opened.
fn bash_completes(fixture: &Fixture, line: &str) -> Vec<String> {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let script = r#"
source <(distml-search completions bash)
read -ra COMP_WORDS <<< "$LINE"
[[ "$LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
word="${COMP_WORDS[COMP_CWORD]}"
[[ "$word" == [\"\']* ]] && word="${word:1}"
_clap_complete_distml_search distml-search "$word" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let output = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(fixture.dir.path())
        .env("PATH", path)
        .env("LINE", line)
        .env_remove("DISTML_CATALOG")
        .env_remove("COMPLETE")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "bash failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim_end().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn a_subcommands_flags_complete() {
    let fixture = Fixture::new();
    assert_eq!(
        bash_completes(&fixture, "distml-search search --fo"),
        ["--format"]
    );
    assert_eq!(
        bash_completes(&fixture, "distml-search index --re"),
        ["--refresh"]
    );
}

#[test]
fn a_flags_values_complete() {
    let fixture = Fixture::new();
    assert_eq!(
        bash_completes(&fixture, "distml-search search --format "),
        ["table", "json", "bibtex", "csl-json", "ris"]
    );
    assert_eq!(
        bash_completes(&fixture, "distml-search list --kind p"),
        ["paper", "project"]
    );
}

#[test]
fn entry_ids_tags_and_sections_complete_from_the_catalog_in_use() {
    let fixture = Fixture::new();
    assert_eq!(
        bash_completes(&fixture, "distml-search show gp"),
        ["gpipe-2019"]
    );
    assert_eq!(
        bash_completes(&fixture, "distml-search similar zero-b"),
        ["zero-bubble-2024"]
    );
    assert_eq!(
        bash_completes(&fixture, "distml-search search x --tag pipe"),
        ["pipeline-parallelism"]
    );
}

/// A section's name holds spaces: bash gets it as one word, with
/// backslashes, or as it is inside a quote the word opened (which bash
/// closes after it).
#[test]
fn section_names_with_spaces_complete_quoted_for_bash() {
    let fixture = Fixture::new();
    assert_eq!(
        bash_completes(&fixture, "distml-search list --section Pipe"),
        ["Pipeline\\ Parallelism"]
    );
    assert_eq!(
        bash_completes(&fixture, "distml-search list --section 'Mixture"),
        ["Mixture-of-Experts System"]
    );
    assert_eq!(
        bash_completes(&fixture, "distml-search search x --section \"Open"),
        ["Open Source Projects"]
    );
    // What bash makes of the completed line is the section's name.
    let line = format!(
        "\"$0\" list --section {} --json",
        bash_completes(&fixture, "distml-search list --section Pipe")[0]
    );
    let run = common::Cmd::program(&fixture, "bash")
        .args(["-c", &line, BIN])
        .run()
        .success();
    assert!(!run.stdout().is_empty());
    for entry in run.json_lines() {
        assert_eq!(entry["section"], "Pipeline Parallelism");
    }
}

/// A subcommand's own options come first in its help, the global ones
/// after them.
#[test]
fn a_subcommands_help_lists_its_own_options_before_the_global_ones() {
    let run = Fixture::new().run(["search", "--help"]).success();
    let help = run.stdout();
    let own = help.find("--limit").expect("--limit in search's help");
    let global = help
        .find("Global options:")
        .expect("a heading for global options");
    let catalog = help.find("--catalog").expect("--catalog in search's help");
    assert!(own < global && global < catalog, "{help}");
}

/// A subcommand's help opens with what the list of commands says of it:
/// its arguments, made only when it is given, never replace that text.
#[test]
fn each_subcommands_help_opens_with_what_the_command_list_says_of_it() {
    let fixture = Fixture::new();
    let run = fixture.run(["--help"]).success();
    let listed: Vec<(&str, &str)> = (run.stdout().lines())
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        // A description's further lines are indented past the names.
        .filter_map(|line| line.strip_prefix("  ")?.split_once(' '))
        .filter(|(name, _)| !name.is_empty() && *name != "help")
        .map(|(name, about)| (name, about.trim()))
        .collect();
    assert!(listed.len() > 10, "{}", run.stdout());
    for (name, about) in listed {
        let sub = fixture.run([name, "--help"]).success();
        let opening: Vec<&str> = (sub.stdout().lines())
            .take_while(|line| !line.is_empty())
            .collect();
        let opening = opening.join(" ");
        assert!(
            opening.starts_with(about),
            "{name}: {opening:?} against {about:?}"
        );
    }
}

#[test]
fn search_help_names_every_query_field() {
    let run = Fixture::new().run(["search", "--help"]).success();
    let help = run.stdout();
    let names = distml_search::search::understand::fields::FIELD_NAMES;
    assert_eq!(common::fields_listed(help), names, "{help}");
}

#[test]
fn subcommand_names_complete() {
    let fixture = Fixture::new();
    assert_eq!(bash_completes(&fixture, "distml-search si"), ["similar"]);
}

#[test]
fn the_man_page_has_the_syntax_statuses_environment_and_examples() {
    let run = Fixture::new().run(["man"]).success();
    let page = run.stdout();
    assert!(page.contains("\n.TH distml-search 1 "), "{page:.200}");
    for heading in [
        ".SH SUBCOMMANDS",
        ".SH \"QUERY SYNTAX\"",
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
        ".SH FILES",
        ".SH EXAMPLES",
    ] {
        assert!(page.contains(heading), "no {heading} in the man page");
    }
    let read = variables_the_code_reads();
    assert!(read.len() >= 15, "{read:?}");
    for variable in read {
        assert!(page.contains(&variable), "{variable} is not documented");
    }
    // Where the catalog's writers say what they may write.
    assert!(
        page.contains("CATALOG/.lock"),
        "no catalog files in the man page"
    );
}

#[test]
fn every_page_the_main_page_names_is_written() {
    let fixture = Fixture::new();
    let main = fixture.run(["man"]).success().stdout().to_string();
    let dir = fixture.dir.path().join("man1");
    let run = fixture.run(["man", "--dir", "man1"]).success();
    let named: Vec<String> = main
        .lines()
        .filter_map(|l| l.strip_suffix("(1)"))
        .map(|l| l.replace("\\-", "-"))
        .filter(|l| l.starts_with("distml-search-"))
        .collect();
    assert!(named.len() >= 10, "subcommands named: {named:?}");
    for name in &named {
        let page = std::fs::read_to_string(dir.join(format!("{name}.1")))
            .unwrap_or_else(|e| panic!("{name}.1: {e}"));
        assert!(
            page.contains(&format!("\n.TH {name} 1 ")),
            "{name}.1: {page:.100}"
        );
    }
    let search = std::fs::read_to_string(dir.join("distml-search-search.1")).unwrap();
    assert!(
        search.contains("\\-\\-format"),
        "search's page lacks its flags"
    );
    run.stdout_is(&format!("{} pages written to man1\n", named.len() + 1));
}

/// Every `"DISTML_…"` string of the sources: the environment variables
/// the program reads (a name ending in `_` is a prefix, not a variable).
fn variables_the_code_reads() -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    let mut folders = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (at, _) in text.match_indices("\"DISTML_") {
                    let name: String = text[at + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                        .collect();
                    if !name.ends_with('_') && text[at + 1 + name.len()..].starts_with('"') {
                        found.insert(name);
                    }
                }
            }
        }
    }
    found
}
