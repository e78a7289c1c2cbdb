//! Progress: indicatif bars on a terminal, plain lines elsewhere.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

pub struct Phase {
    bar: Option<ProgressBar>,
    name: &'static str,
}

impl Phase {
    /// A phase of `total` steps; silent when there is nothing to do.
    pub fn start(name: &'static str, total: usize) -> Phase {
        if total == 0 {
            return Phase { bar: None, name };
        }
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total as u64);
            let style = ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(name);
            Phase {
                bar: Some(bar),
                name,
            }
        } else {
            eprintln!("{name}: {total} to do");
            Phase { bar: None, name }
        }
    }

    pub fn step(&self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.to_string());
            bar.inc(1);
        }
    }

    pub fn finish(self, summary: &str) {
        match self.bar {
            Some(bar) => bar.finish_with_message(summary.to_string()),
            None if !summary.is_empty() => eprintln!("{}: {summary}", self.name),
            None => {}
        }
    }
}
