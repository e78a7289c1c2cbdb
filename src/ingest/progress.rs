//! Progress per lane: indicatif bars on a terminal, else a few plain lines
//! on the writer the command passes. A closed stderr costs the messages,
//! never the run.

use std::cell::RefCell;
use std::io::{IsTerminal, Write};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use super::lanes::Lane;

pub(super) struct Progress<'w> {
    out: RefCell<&'w mut dyn Write>,
    /// On a terminal, the bars of the lanes that got work.
    bars: Option<MultiProgress>,
    lanes: RefCell<[LaneCount; 3]>,
}

#[derive(Default)]
struct LaneCount {
    bar: Option<ProgressBar>,
    queued: u64,
    /// What was queued when the run started: a paper another lookup did not
    /// find is queued later, as its next step.
    planned: u64,
    done: u64,
}

impl<'w> Progress<'w> {
    pub(super) fn new(out: &'w mut dyn Write) -> Self {
        let bars = std::io::stderr().is_terminal().then(MultiProgress::new);
        Progress {
            out: RefCell::new(out),
            bars,
            lanes: RefCell::default(),
        }
    }

    /// `papers` more papers to look up in `lane`.
    pub(super) fn queued(&self, lane: Lane, papers: usize) {
        let mut lanes = self.lanes.borrow_mut();
        let count = &mut lanes[lane.index()];
        count.queued += papers as u64;
        if let Some(bars) = &self.bars {
            let bar = count
                .bar
                .get_or_insert_with(|| bars.add(new_bar(lane.name())));
            bar.set_length(count.queued);
        }
    }

    /// Plain output: what each lane starts with.
    pub(super) fn start(&self) {
        if self.bars.is_none() {
            for lane in Lane::ALL {
                let queued = {
                    let mut lanes = self.lanes.borrow_mut();
                    let count = &mut lanes[lane.index()];
                    count.planned = count.queued;
                    count.queued
                };
                if queued > 0 {
                    self.line(&format!("{}: {queued} to do", lane.name()));
                }
            }
        }
    }

    /// One paper of `lane` done.
    pub(super) fn step(&self, lane: Lane, message: &str) {
        let mut lanes = self.lanes.borrow_mut();
        let count = &mut lanes[lane.index()];
        count.done += 1;
        if let Some(bar) = &count.bar {
            bar.set_message(message.to_owned());
            bar.inc(1);
        }
    }

    /// Closes the bars; plain output says what each lane did.
    pub(super) fn finish(&self) {
        for lane in Lane::ALL {
            let (bar, done, later) = {
                let mut lanes = self.lanes.borrow_mut();
                let count = &mut lanes[lane.index()];
                (count.bar.take(), count.done, count.queued - count.planned)
            };
            let name = lane.name();
            match bar {
                Some(bar) => bar.finish_with_message(""),
                None if done > 0 && later > 0 => self.line(&format!(
                    "{name}: {done} done ({later} of them the next step of a paper not found elsewhere)"
                )),
                None if done > 0 => self.line(&format!("{name}: {done} done")),
                None => {}
            }
        }
    }

    /// A line of the verbose log, above the bars on a terminal.
    pub(super) fn log(&self, text: &str) {
        match &self.bars {
            Some(bars) => drop(bars.println(text)),
            None => self.line(text),
        }
    }

    fn line(&self, text: &str) {
        // Progress is a courtesy: a full or closed stderr must not end the run.
        let _ = writeln!(self.out.borrow_mut(), "{text}");
    }
}

fn new_bar(name: &'static str) -> ProgressBar {
    let bar = ProgressBar::new(0);
    let style = ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(name);
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that always fails, as stderr does on a full disk.
    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from(std::io::ErrorKind::StorageFull))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn plain_lines_go_to_the_writer_given() {
        let mut out = Vec::new();
        let progress = Progress {
            out: RefCell::new(&mut out),
            bars: None,
            lanes: RefCell::default(),
        };
        progress.queued(Lane::Arxiv, 2);
        progress.queued(Lane::Crossref, 1);
        progress.start();
        progress.queued(Lane::Crossref, 1);
        for _ in 0..2 {
            progress.step(Lane::Crossref, "x");
        }
        progress.finish();
        drop(progress);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "arXiv: 2 to do\nCrossref: 1 to do\nCrossref: 2 done (1 of them the next step of a paper not found elsewhere)\n"
        );
    }

    #[test]
    fn a_failing_writer_is_ignored() {
        let mut full = Full;
        let progress = Progress {
            out: RefCell::new(&mut full),
            bars: None,
            lanes: RefCell::default(),
        };
        progress.queued(Lane::Openalex, 1);
        progress.start();
        progress.step(Lane::Openalex, "x");
        progress.finish();
    }
}
