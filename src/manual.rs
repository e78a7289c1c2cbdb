//! Man pages: `distml-search(1)` with the query syntax, exit status,
//! environment and examples that `--help` leaves out, and one page per
//! subcommand (`distml-search-search(1)`, ...), which the main page names.

use std::io::Write;
use std::path::Path;

use clap::CommandFactory;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use crate::cli::Cli;
use crate::environment;
use crate::error::Error;

const QUERY_SYNTAX: &[(&str, &str)] = &[
    (
        "words",
        "ranked by BM25 over titles, abstracts, notes, tags, authors and venues; more matched words rank higher",
    ),
    ("\"a phrase\"", "the words next to each other"),
    ("AND, OR, NOT, -word, +word, ( )", "boolean structure"),
    (
        "tag:, about:, section:, author:, venue:, kind:, title:, id:, arxiv:, doi:, collection:",
        "filters, also given as flags (--tag, --section, ...); tag: also keeps the works that only use the tag, about: only those about it",
    ),
    (
        "year:2021, year:2020..2023, year:..2019, year:2022..",
        "years; a year written as a word (\"OSDI 2023\") favours that year's works",
    ),
];

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "something was found (or the command succeeded)"),
    ("1", "search, similar, list, inbox or watch found nothing"),
    ("2", "an error, reported on one line of standard error"),
];

/// What the program reads of the environment besides its own variables
/// (`environment::VARIABLES`).
const OTHER_ENVIRONMENT: &[(&str, &str)] = &[
    ("NO_COLOR", "no colour unless --color always"),
    (
        "COMPLETE",
        "set to a shell's name, prints or answers shell completion",
    ),
];

const EXAMPLES: &[(&str, &str)] = &[
    (
        "distml-search search \"expert parallelism\"",
        "the best ten works",
    ),
    (
        "distml-search search zero offload --year 2021.. --json",
        "JSON Lines, one object per hit",
    ),
    (
        "distml-search search --tag pipeline-parallelism",
        "every work with a tag, newest first",
    ),
    (
        "distml-search show gpipe",
        "one entry whole, with where each field came from",
    ),
    (
        "distml-search search gpipe -n 1 --format bibtex",
        "the best hit as a BibTeX entry",
    ),
    (
        "distml-search export --format csl-json -o distml.json",
        "the catalog for pandoc --citeproc (also ris, bibtex; search, list and show take them)",
    ),
    ("distml-search similar gpipe", "the works most like it"),
    (
        "distml-search mcp",
        "search, show, similar, list and inbox as tools for an agent's MCP client",
    ),
    (
        "distml-search watch add moe \"expert parallelism\"",
        "a saved search: `watch` shows what entered the index since it was last read",
    ),
    (
        "source <(distml-search completions bash)",
        "completion of flags, entry ids, tags and sections",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "CATALOG/*.toml",
        "one file per section, and tags.toml, the tag vocabulary",
    ),
    (
        "CATALOG/list.toml, removed.toml, inbox.toml, ranking.toml",
        "the imported list's text, entries a sync removed, inbox rejections, ranking weights: never sections (an imported section named \"Tags\" or \"Inbox\" gets a file of its own, tags-section.toml)",
    ),
    (
        "CATALOG/metadata.json, health.json",
        "fetched metadata, and what check --online learned",
    ),
    (
        "CATALOG/watches.json, .watches.lock",
        "the watches (saved searches) and their lock; for the built-in catalog, in the user's data folder",
    ),
    (
        "CATALOG/.lock",
        "taken by every writer (import, import --sync --apply, check --online --apply, inbox accept and reject): writers run one after the other, and none writes a catalog check would refuse (a list's or a server's link that is no http(s) page or is another entry's, a year out of range, a field emptied without import --sync --allow-emptied: each a warning)",
    ),
];

/// The main page, on `out`.
pub fn write_main_page(out: &mut dyn Write) -> Result<(), Error> {
    let cmd = command();
    let man = Man::new(cmd);
    let mut page = Vec::new();
    man.render_title(&mut page).map_err(Error::output)?;
    man.render_name_section(&mut page).map_err(Error::output)?;
    man.render_synopsis_section(&mut page)
        .map_err(Error::output)?;
    man.render_description_section(&mut page)
        .map_err(Error::output)?;
    man.render_options_section(&mut page)
        .map_err(Error::output)?;
    man.render_subcommands_section(&mut page)
        .map_err(Error::output)?;
    let mut roff = Roff::default();
    section(&mut roff, "QUERY SYNTAX", QUERY_SYNTAX);
    section(&mut roff, "EXIT STATUS", EXIT_STATUS);
    let environment: Vec<(&str, &str)> = (environment::VARIABLES.iter())
        .chain(OTHER_ENVIRONMENT)
        .copied()
        .collect();
    section(&mut roff, "ENVIRONMENT", &environment);
    section(&mut roff, "FILES", FILES);
    section(&mut roff, "EXAMPLES", EXAMPLES);
    roff.to_writer(&mut page).map_err(Error::output)?;
    man.render_version_section(&mut page)
        .map_err(Error::output)?;
    out.write_all(&page).map_err(Error::output)
}

/// Writes `distml-search.1` and a page per subcommand into `dir`; returns
/// how many.
pub fn write_pages(dir: &Path) -> Result<usize, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut main = Vec::new();
    write_main_page(&mut main)?;
    let main_path = dir.join("distml-search.1");
    crate::fsutil::write_atomic(&main_path, &main)?;
    let mut written = 1;
    // Built, each subcommand is named distml-search-NAME, as the main
    // page's list of subcommands calls it.
    for sub in command().get_subcommands().filter(|s| !s.is_hide_set()) {
        let man = Man::new(sub.clone());
        let mut page = Vec::new();
        man.render(&mut page).map_err(Error::output)?;
        crate::fsutil::write_atomic(&dir.join(man.get_filename()), &page)?;
        written += 1;
    }
    Ok(written)
}

fn command() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// A section of tagged paragraphs: each term in bold, then what it means.
fn section(roff: &mut Roff, heading: &str, items: &[(&str, &str)]) {
    roff.control("SH", [heading]);
    for (term, meaning) in items {
        roff.control("TP", []);
        roff.text([bold(*term)]);
        roff.text([roman(*meaning)]);
    }
}
