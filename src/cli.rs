//! Command-line definitions (clap derive). Each flag is defined once here; the
//! same definitions feed parsing, `--help`, the man page and completions.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Catalog folder [default: ./catalog if present, else the built-in catalog]
    #[arg(long, global = true, env = "DISTML_CATALOG", value_name = "DIR")]
    pub catalog: Option<PathBuf>,
    /// Index folder [default: ./index beside ./catalog, else in the user cache]
    #[arg(long, global = true, env = "DISTML_INDEX", value_name = "DIR")]
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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate the catalog and report every problem with file:line:column
    Check,
    /// Merge an awesome-list Markdown file into the catalog
    Import(ImportArgs),
    /// Write the catalog in another format
    Export(ExportArgs),
    /// Print a shell completion script
    Completions {
        /// The shell to complete for
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff)
    Man,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Markdown file in the awesome-list style ("-" for standard input)
    pub file: PathBuf,
    /// Print what would change without writing anything
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = ExportFormat::Markdown)]
    pub format: ExportFormat,
    /// Title of the exported list
    #[arg(long, default_value = "Awesome Distributed Machine Learning System")]
    pub title: String,
    /// Write to this file instead of standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Markdown,
}
