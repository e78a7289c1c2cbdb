//! Work queues, one per source, so that each service is asked at its own
//! pace while the others go on: a lookup waiting out arXiv's spacing does not
//! hold up Crossref. Every worker is a future of one task (joined, not
//! spawned), so plain cells are enough.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use tokio::sync::Notify;

/// A queue of lookups for one source, worked by its own workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lane {
    Arxiv,
    Crossref,
    Openalex,
}

impl Lane {
    pub(super) const ALL: [Lane; 3] = [Lane::Arxiv, Lane::Crossref, Lane::Openalex];

    pub(super) fn name(self) -> &'static str {
        match self {
            Lane::Arxiv => "arXiv",
            Lane::Crossref => "Crossref",
            Lane::Openalex => "OpenAlex",
        }
    }

    pub(super) fn index(self) -> usize {
        self as usize
    }
}

/// Something queued in a lane.
pub(super) trait Job {
    fn lane(&self) -> Lane;
}

/// The jobs waiting in each lane, and how many are being worked on anywhere
/// (a job in progress may queue follow-ups in any lane).
pub(super) struct Queues<J> {
    waiting: RefCell<[VecDeque<J>; 3]>,
    busy: Cell<usize>,
    wake: Notify,
}

impl<J: Job> Queues<J> {
    pub(super) fn new() -> Self {
        Queues {
            waiting: RefCell::new(Default::default()),
            busy: Cell::new(0),
            wake: Notify::new(),
        }
    }

    pub(super) fn push(&self, job: J) {
        self.waiting.borrow_mut()[job.lane().index()].push_back(job);
        self.wake.notify_waiters();
    }

    /// The next job of `lane`, waiting while other lanes may still queue
    /// one; `None` once every lane is empty and nothing is in progress.
    /// Each job taken must be handed back with [`Queues::done`].
    pub(super) async fn next(&self, lane: Lane) -> Option<J> {
        loop {
            // Registered before looking, so a push in between is not missed.
            let woken = self.wake.notified();
            if let Some(job) = self.take(lane) {
                return job;
            }
            woken.await;
        }
    }

    /// `Some(job)` to work on, `Some(None)` when all is done, `None` to wait.
    fn take(&self, lane: Lane) -> Option<Option<J>> {
        let mut waiting = self.waiting.borrow_mut();
        if let Some(job) = waiting[lane.index()].pop_front() {
            self.busy.set(self.busy.get() + 1);
            return Some(Some(job));
        }
        let all_done = self.busy.get() == 0 && waiting.iter().all(VecDeque::is_empty);
        all_done.then_some(None)
    }

    pub(super) fn done(&self) {
        self.busy.set(self.busy.get() - 1);
        // Idle workers look again: to finish, or for a follow-up.
        self.wake.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Step(Lane, u32);

    impl Job for Step {
        fn lane(&self) -> Lane {
            self.0
        }
    }

    /// Takes jobs of `lane`; a job `n > 0` queues `n - 1` in the other lane.
    async fn worker(queues: &Queues<Step>, lane: Lane, log: &RefCell<Vec<(Lane, u32)>>) {
        while let Some(Step(at, n)) = queues.next(lane).await {
            log.borrow_mut().push((at, n));
            tokio::task::yield_now().await;
            if n > 0 {
                let other = if at == Lane::Arxiv {
                    Lane::Crossref
                } else {
                    Lane::Arxiv
                };
                queues.push(Step(other, n - 1));
            }
            queues.done();
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn follow_ups_are_worked_and_workers_end_when_all_is_done() {
        let queues = Queues::new();
        queues.push(Step(Lane::Arxiv, 3));
        let log = RefCell::new(Vec::new());
        tokio::join!(
            worker(&queues, Lane::Arxiv, &log),
            worker(&queues, Lane::Crossref, &log),
            worker(&queues, Lane::Openalex, &log),
        );
        assert_eq!(
            log.into_inner(),
            [
                (Lane::Arxiv, 3),
                (Lane::Crossref, 2),
                (Lane::Arxiv, 1),
                (Lane::Crossref, 0)
            ]
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn with_nothing_queued_workers_end_at_once() {
        let queues: Queues<Step> = Queues::new();
        let log = RefCell::new(Vec::new());
        tokio::join!(
            worker(&queues, Lane::Arxiv, &log),
            worker(&queues, Lane::Crossref, &log)
        );
        assert!(log.into_inner().is_empty());
    }
}
