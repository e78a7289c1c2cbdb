//! Command-line definitions (clap derive). Each flag is defined once here; the
//! same definitions feed parsing, `--help`, the man page and completions.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::{ArgValueCandidates, ArgValueCompleter};

use crate::completion::candidates as completion;
use crate::environment;
use crate::model::{Collection, Kind};
use crate::render::Citations;
use crate::search::YearRange;

/// Search the literature of distributed machine learning: papers and projects
/// on pipeline, tensor, sequence and expert parallelism, ZeRO and offloading,
/// rematerialization, collectives, fault tolerance and serving.
#[derive(Debug, Parser)]
#[command(name = "distml-search", version, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every subcommand takes, listed after the subcommand's own.
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Catalog folder [default: ./catalog if present, else the built-in catalog]
    #[arg(long, global = true, env = environment::CATALOG, value_name = "DIR")]
    pub catalog: Option<PathBuf>,
    /// Index folder [default: ./index beside ./catalog, else in the user cache]
    #[arg(long, global = true, env = environment::INDEX, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// When to use colour
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Each subcommand's arguments are made only when it is the one given
/// (clap's `defer`): a one-off search makes one subcommand's arguments, not
/// all of them (bench/RESULTS.md). The groups flattened into them carry
/// plain comments, not doc comments: applied after the subcommand's own
/// text, a group's doc comment would replace it in `--help`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Rebuild the index from the catalog and the metadata cache
    Index(IndexArgs),
    /// Search papers and projects, best first
    Search(SearchArgs),
    /// Show one entry whole, with where each field came from
    Show(ShowArgs),
    /// Entries most like one entry (itself excluded)
    Similar(SimilarArgs),
    /// List entries, optionally filtered
    List(ListArgs),
    /// Counts by section, tag, year and venue, and metadata coverage
    Stats(StatsArgs),
    /// Validate the catalog and report every problem with file:line:column
    Check(CheckArgs),
    /// Merge an awesome-list Markdown file into the catalog
    Import(ImportArgs),
    /// Write the catalog in another format
    Export(ExportArgs),
    /// Add new arXiv records of the field to the arxiv collection (OAI-PMH)
    Harvest(HarvestArgs),
    /// Serve a search page and a JSON API to this machine's browser
    Serve(ServeArgs),
    /// arXiv records not in the catalog, best candidates for the list first;
    /// accept or reject them
    Inbox(InboxArgs),
    /// Serve search, show, similar, list and inbox as tools for agents
    /// (Model Context Protocol on standard input and output)
    Mcp,
    /// Saved searches: what is new for each since it was last read
    Watch(WatchArgs),
    /// Print a shell completion script
    Completions {
        /// The shell to complete for
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), or write every page into a folder
    Man {
        /// Write distml-search.1 and a page per subcommand into DIR
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

impl Command {
    /// Whether the command builds indexes or serves, where the allocator's
    /// throughput counts more than its start (see `allocator`).
    pub fn wants_throughput(&self) -> bool {
        matches!(
            self,
            Command::Index(_)
                | Command::Import(_)
                | Command::Harvest(_)
                | Command::Serve(_)
                | Command::Mcp
        )
    }
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Also check on the network: dead links, permanent redirects, preprints
    /// since published, and the same work listed twice
    #[arg(long)]
    pub online: bool,
    /// With --online: one JSON object per problem (JSON Lines)
    #[arg(long, requires = "online")]
    pub json: bool,
    /// With --online: write the proposals (published venue, year and URL;
    /// where a link moved) into the catalog's files, under the catalog's
    /// lock; a link that is no http(s) page or is another entry's, or a
    /// year out of range, is reported, never written
    #[arg(long, visible_alias = "fix", requires = "online")]
    pub apply: bool,
    /// With --online: log every HTTP request
    #[arg(long, short, requires = "online")]
    pub verbose: bool,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Do not fetch metadata; index the catalog and the cache as they are
    #[arg(long, env = environment::OFFLINE, value_parser = clap::builder::FalseyValueParser::new())]
    pub offline: bool,
    /// Fetch metadata again even for entries already in the cache
    #[arg(long, conflicts_with = "offline")]
    pub refresh: bool,
    /// Log every HTTP request
    #[arg(short, long)]
    pub verbose: bool,
}

// Filters shared by `search` and `list`.
#[derive(Debug, Args, Default)]
pub struct FilterArgs {
    /// Only entries with this tag (id, label or alias), as what they are
    /// about or as a technique they use; repeat for all of several
    #[arg(long, value_name = "TAG", add = ArgValueCandidates::new(completion::tags))]
    pub tag: Vec<String>,
    /// Only entries about this tag: their primary tags (or, for imported
    /// records, predicted tags) hold it, not only their `uses`; repeat for
    /// all of several
    #[arg(long, value_name = "TAG", add = ArgValueCandidates::new(completion::tags))]
    pub about: Vec<String>,
    /// Only entries of this section (name, or the start of it)
    #[arg(long, value_name = "SECTION", add = ArgValueCompleter::new(completion::sections))]
    pub section: Option<String>,
    /// Only papers or only projects
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Only these years: 2021, 2020..2023, ..2019 or 2022..
    #[arg(long, value_name = "YEARS")]
    pub year: Option<YearRange>,
    /// Only this venue (words of its name)
    #[arg(long, value_name = "VENUE")]
    pub venue: Option<String>,
    /// Only works by this author (words of the name)
    #[arg(long, value_name = "NAME")]
    pub author: Option<String>,
    /// Which collection to search: the curated catalog, imported arXiv records, or all
    #[arg(long, value_enum, default_value_t = CollectionArg::All)]
    pub collection: CollectionArg,
}

/// `--collection`: one collection, or all of them (no filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum CollectionArg {
    Catalog,
    Arxiv,
    #[default]
    All,
}

impl CollectionArg {
    /// The collection to keep, if only one.
    pub fn only(self) -> Option<Collection> {
        match self {
            CollectionArg::Catalog => Some(Collection::Catalog),
            CollectionArg::Arxiv => Some(Collection::Arxiv),
            CollectionArg::All => None,
        }
    }
}

/// `--kind paper|project`: the model's kinds, spelt as the catalog spells them.
impl ValueEnum for Kind {
    fn value_variants<'a>() -> &'a [Self] {
        &Kind::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The view for the terminal (search: compact and ranked; show: the whole entry)
    Table,
    /// JSON Lines, one object per hit (show: one object)
    Json,
    /// BibTeX entries (biblatex, BibTeX, Zotero, papis)
    Bibtex,
    /// One JSON array of CSL items (pandoc --citeproc, Zotero, papis)
    CslJson,
    /// RIS records (Zotero, EndNote, Mendeley)
    Ris,
}

impl Format {
    /// The citation format this is, if it is one.
    pub fn citations(self) -> Option<Citations> {
        match self {
            Format::Bibtex => Some(Citations::Bibtex),
            Format::CslJson => Some(Citations::CslJson),
            Format::Ris => Some(Citations::Ris),
            Format::Table | Format::Json => None,
        }
    }
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words, "quoted phrases", AND/OR/NOT, -word, field:value (tag, about,
    /// section, author, venue, kind, year, title, id, arxiv, doi,
    /// collection); may be left out when a filter flag lists what to show
    #[arg(
        num_args = 1..,
        value_name = "QUERY",
        required_unless_present_any = crate::search::understand::fields::FLAGS
    )]
    pub query: Vec<String>,
    #[command(flatten)]
    pub output: HitsOutput,
    /// Show the parsed query, its expansions and what each hit scored on
    /// (fields, terms, weights); --explain=raw prints the whole score tree
    #[arg(long, value_enum, value_name = "HOW", num_args = 0..=1, require_equals = true, default_missing_value = "readable")]
    pub explain: Option<ExplainArg>,
    /// On a large index, score every match exactly instead of ranking the
    /// best candidates of a faster first pass (slower; rarely different)
    #[arg(long)]
    pub exhaustive: bool,
    /// Rank by the query's words, by its meaning, or both fused.
    #[arg(long, value_enum, value_name = "HOW", env = environment::MODE, default_value_t = ModeArg::Keyword)]
    pub mode: ModeArg,
    #[command(flatten)]
    pub filters: FilterArgs,
}

/// `--explain` or `--explain=raw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExplainArg {
    /// The clauses that scored, a line each
    Readable,
    /// tantivy's score tree, a line a node
    Raw,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The entry's id (as printed by search and list), or arxiv:ID, doi:DOI
    #[arg(add = ArgValueCandidates::new(completion::entry_ids))]
    pub id: String,
    /// Print JSON (same as --format json)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format: the entry whole, as JSON, or as a citation
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

impl ShowArgs {
    /// The format asked for, `--json` included.
    pub fn format(&self) -> Format {
        if self.json { Format::Json } else { self.format }
    }
}

/// How results are ranked (`search::Mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// By the query's words, techniques and names.
    Keyword,
    /// By meaning alone (a sentence embedding of the query and each work).
    Semantic,
    /// Both, fused by rank.
    Hybrid,
}

impl From<ModeArg> for crate::search::Mode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Keyword => crate::search::Mode::Keyword,
            ModeArg::Semantic => crate::search::Mode::Semantic,
            ModeArg::Hybrid => crate::search::Mode::Hybrid,
        }
    }
}

#[derive(Debug, Args)]
pub struct SimilarArgs {
    /// The entry's id, or arxiv:ID, doi:DOI
    #[arg(add = ArgValueCandidates::new(completion::entry_ids))]
    pub id: String,
    /// By shared distinctive words, by meaning, or both fused [default:
    /// keyword for a curated work, semantic for a record without tags]
    #[arg(long, value_enum, value_name = "HOW")]
    pub mode: Option<ModeArg>,
    #[command(flatten)]
    pub output: HitsOutput,
}

// How many hits, and how they are printed (`search`, `similar`, `list`).
#[derive(Debug, Args)]
pub struct HitsOutput {
    /// How many results to show, 1 to 10000 [default: 10; list: every entry]
    // A range, so that 0 is refused rather than answered with nothing, and
    // a huge number cannot overflow or reserve memory for that many hits.
    #[arg(short = 'n', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_LIMIT))]
    pub limit: Option<u64>,
    /// Print JSON Lines (same as --format json)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// The most results `--limit` takes.
pub const MAX_LIMIT: u64 = 10_000;

impl HitsOutput {
    /// `--limit`, else `default`.
    pub fn limit_or(&self, default: usize) -> usize {
        // At most MAX_LIMIT, so it fits.
        self.limit.map_or(default, |n| n as usize)
    }

    /// The format asked for, `--json` included.
    pub fn format(&self) -> Format {
        if self.json { Format::Json } else { self.format }
    }
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filters: FilterArgs,
    #[command(flatten)]
    pub output: HitsOutput,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Print the counts as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Markdown file in the awesome-list style ("-" for standard input)
    #[arg(
        required_unless_present = "arxiv_snapshot",
        conflicts_with = "arxiv_snapshot"
    )]
    pub file: Option<PathBuf>,
    /// Print what would change without writing anything
    #[arg(long)]
    pub dry_run: bool,
    /// One JSON object per list item with a link: line, outcome, reason, title, url, id
    /// (with --sync, one per change: line, change, id, old, new)
    #[arg(long, conflicts_with = "arxiv_snapshot")]
    pub json: bool,
    /// FILE is a newer version of the list the catalog was imported from:
    /// print what changed upstream (new, removed and retitled entries, new
    /// links, authors, venues and years); nothing is written without --apply
    #[arg(long, conflicts_with = "arxiv_snapshot")]
    pub sync: bool,
    /// With --sync: make the changes, keeping every curated field; a change
    /// `check` would refuse (a link that is no http(s) page or another
    /// entry's, a year out of range) is a warning, not a write
    #[arg(long, requires = "sync", conflicts_with = "dry_run")]
    pub apply: bool,
    /// With --sync --apply: also apply changes that empty a field (authors,
    /// venue, year); a curated paper still keeps the ones `check` requires
    #[arg(long, requires = "apply")]
    pub allow_emptied: bool,
    /// Index arXiv's metadata snapshot (JSON Lines, .gz, or "-") as the arxiv collection
    #[arg(long, value_name = "FILE")]
    pub arxiv_snapshot: Option<PathBuf>,
    /// Only snapshot records in these categories (comma-separated, e.g. cs.DC,cs.LG)
    #[arg(long, value_delimiter = ',', requires = "arxiv_snapshot")]
    pub categories: Vec<String>,
    /// Only snapshot records first submitted in this year or later
    #[arg(long, value_name = "YEAR", requires = "arxiv_snapshot")]
    pub since: Option<i64>,
    /// Replace the imported records even when the snapshot yields none
    /// (an empty or wholly malformed file is refused otherwise)
    #[arg(long, requires = "arxiv_snapshot")]
    pub allow_empty: bool,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = ExportFormat::Markdown)]
    pub format: ExportFormat,
    /// Title of the exported list (a list the catalog was imported from keeps its own)
    #[arg(long)]
    pub title: Option<String>,
    /// Write each entry's note and tags below it
    #[arg(long)]
    pub notes: bool,
    /// Write to this file instead of standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// An awesome-list README of the catalog
    Markdown,
    /// Every indexed document (catalog and imported arXiv records) as JSON Lines
    Ndjson,
    /// The catalog's entries as BibTeX, in list order (as `list --format bibtex`)
    Bibtex,
    /// The catalog's entries as one CSL-JSON array, in list order
    CslJson,
    /// The catalog's entries as RIS, in list order
    Ris,
}

impl ExportFormat {
    /// The citation format this is, if it is one.
    pub fn citations(self) -> Option<Citations> {
        match self {
            ExportFormat::Bibtex => Some(Citations::Bibtex),
            ExportFormat::CslJson => Some(Citations::CslJson),
            ExportFormat::Ris => Some(Citations::Ris),
            ExportFormat::Markdown | ExportFormat::Ndjson => None,
        }
    }
}

#[derive(Debug, Args)]
pub struct HarvestArgs {
    /// Records changed on this day or later (YYYY-MM-DD) [default: the latest
    /// day already harvested, else the set's first record]
    #[arg(long, value_name = "DATE", value_parser = parse_day)]
    pub from: Option<String>,
    /// Records changed on this day or earlier (YYYY-MM-DD)
    #[arg(long, value_name = "DATE", value_parser = parse_day)]
    pub until: Option<String>,
    /// Keep records in any of these categories or archives (comma-separated)
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = parse_category,
        default_values = crate::harvest::DEFAULT_CATEGORIES
    )]
    pub categories: Vec<String>,
}

/// A day as OAI-PMH writes it.
pub fn parse_day(text: &str) -> Result<String, String> {
    let format = time::format_description::parse_borrowed::<2>("[year]-[month]-[day]")
        .map_err(|e| e.to_string())?;
    time::Date::parse(text, &format)
        .map(|_| text.to_string())
        .map_err(|_| "expected a day such as 2024-03-31 (YYYY-MM-DD)".to_string())
}

/// `cs.DC`, `stat.ML`, `hep-th` or a whole archive (`cs`).
fn parse_category(text: &str) -> Result<String, String> {
    let text = text.trim();
    let (archive, sub) = text.split_once('.').unwrap_or((text, "x"));
    let archive_ok =
        !archive.is_empty() && archive.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
    let sub_ok = !sub.is_empty() && sub.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-');
    if archive_ok && sub_ok {
        Ok(text.to_string())
    } else {
        Err("expected arXiv categories such as cs.DC,cs.LG (or an archive: cs)".to_string())
    }
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on; 0 picks a free one
    #[arg(long, default_value_t = 8765, value_name = "N")]
    pub port: u16,
    /// Address to listen on; any but a loopback address lets other
    /// machines search this catalog
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub bind: std::net::IpAddr,
    /// Most connections open at once (at most half the file descriptors
    /// the process may open); past it the oldest is closed
    #[arg(long, env = environment::SERVE_MAX_CONNECTIONS, default_value_t = 256, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Most requests answered at once; more are answered 503 at once, with
    /// Retry-After
    #[arg(long, env = environment::SERVE_MAX_REQUESTS, default_value_t = 64, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_requests: u64,
    /// Most hits or candidates in one answer: a larger `limit` gets this many
    #[arg(long, env = environment::SERVE_MAX_LIMIT, default_value_t = 1000, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=MAX_LIMIT))]
    pub max_limit: u64,
    /// Milliseconds a connection may take to send a request's headers, wait
    /// between requests or leave an answer unread; then it is closed
    #[arg(long, env = environment::SERVE_IDLE_TIMEOUT_MS, default_value_t = 10_000, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(100..=3_600_000))]
    pub idle_timeout_ms: u64,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct InboxArgs {
    #[command(subcommand)]
    pub action: Option<InboxAction>,
    /// Only records first submitted (else last changed) on this day or later (YYYY-MM-DD)
    #[arg(long, value_name = "DATE", value_parser = parse_day)]
    pub since: Option<String>,
    /// How many candidates to show, 1 to 10000 [default: 20]
    #[arg(short = 'n', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_LIMIT))]
    pub limit: Option<u64>,
    /// One JSON object per candidate (JSON Lines): rank, arxiv, title,
    /// authors, year, score, section, tags, why
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum InboxAction {
    /// Write a record into the catalog as an entry of its section
    Accept(AcceptArgs),
    /// Never propose this record again (remembered in the catalog's inbox.toml)
    Reject(RejectArgs),
}

#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// The record's arXiv id (as `inbox` prints it)
    #[arg(value_name = "ARXIV_ID")]
    pub arxiv: String,
    /// One sentence of your own on what the work contributes
    #[arg(long, value_name = "TEXT")]
    pub note: String,
    /// The section to write it in, instead of the proposed one
    #[arg(long, value_name = "NAME", add = ArgValueCompleter::new(completion::sections))]
    pub section: Option<String>,
    /// Its tags, instead of the proposed ones (comma-separated ids or names)
    #[arg(long, value_name = "T,...", value_delimiter = ',', add = ArgValueCandidates::new(completion::tags))]
    pub tags: Option<Vec<String>>,
}

#[derive(Debug, Args)]
pub struct RejectArgs {
    /// The record's arXiv id (as `inbox` prints it)
    #[arg(value_name = "ARXIV_ID")]
    pub arxiv: String,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WatchArgs {
    #[command(subcommand)]
    pub action: Option<WatchAction>,
    #[command(flatten)]
    pub shown: WatchShown,
}

#[derive(Debug, Subcommand)]
pub enum WatchAction {
    /// Save a search (QUERY and filters), or works to follow (--like ID...)
    Add(WatchAddArgs),
    /// Every watch, with how many new matches it has
    List(WatchListArgs),
    /// One watch's new matches
    Show(WatchShowArgs),
    /// Forget a watch
    Remove(WatchRemoveArgs),
}

// How new matches are shown (`watch`, `watch show`).
#[derive(Debug, Args)]
pub struct WatchShown {
    /// How many new matches to show of each watch, 1 to 10000 [default: 20]
    #[arg(short = 'n', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_LIMIT))]
    pub limit: Option<u64>,
    /// One JSON object per new match (JSON Lines): `search --json`'s
    /// fields, and `watch` (its name) and `added` (when it entered the index)
    #[arg(long)]
    pub json: bool,
    /// Then mark the watches shown as read: what they match now is not new
    /// again (those past --limit included)
    #[arg(long)]
    pub mark_read: bool,
}

#[derive(Debug, Args)]
pub struct WatchAddArgs {
    /// Its name: letters, digits, '.', '_' and '-' (its feed is
    /// /feed/watch/NAME.atom)
    #[arg(value_name = "NAME", value_parser = parse_watch_name)]
    pub name: String,
    /// The search, as `search` takes it; may be left out when a filter
    /// flag says what to watch
    #[arg(value_name = "QUERY", conflicts_with = "like")]
    pub query: Vec<String>,
    /// Follow these works (ids as `similar` takes them): new records close
    /// to any of them in meaning match, most similar first
    #[arg(long, num_args = 1.., value_name = "ID", add = ArgValueCandidates::new(completion::entry_ids))]
    pub like: Vec<String>,
    /// With --like: the least similarity (a cosine, 0 to 1) a match has
    /// with one of the works [default: 0.65]
    #[arg(long, requires = "like", value_name = "X", value_parser = parse_similarity)]
    pub min_similarity: Option<f64>,
    #[command(flatten)]
    pub filters: FilterArgs,
}

#[derive(Debug, Args)]
pub struct WatchListArgs {
    /// One JSON object per watch (JSON Lines): name, query, filters, like,
    /// min_similarity, created, read_at, new
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WatchShowArgs {
    /// The watch's name
    #[arg(value_name = "NAME")]
    pub name: String,
    #[command(flatten)]
    pub shown: WatchShown,
}

#[derive(Debug, Args)]
pub struct WatchRemoveArgs {
    /// The watch's name
    #[arg(value_name = "NAME")]
    pub name: String,
}

fn parse_watch_name(text: &str) -> Result<String, String> {
    crate::watch::check_name(text).map(|()| text.to_string())
}

fn parse_similarity(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err("expected a similarity from 0 to 1, such as 0.65".to_string()),
    }
}
