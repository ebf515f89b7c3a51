//! Which slices wait to be ranked and which jobs they wait for: a slice
//! is ranked once no unfinished job reads it.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use egdb_games::{SliceId, SliceInfo};
use egdb_proto::JobId;

use crate::schedule::Scheduler;

/// Which slices wait to be ranked, and which jobs they wait for.
pub(super) struct Ranking {
    /// Per job (scheduler position), the plan slices it reads.
    reads: Vec<Vec<usize>>,
    /// Per plan slice, the jobs that read it.
    readers: Vec<Vec<usize>>,
    queue: Mutex<Queue>,
    wake: Condvar,
}

#[derive(Default)]
struct Queue {
    /// Stored zstd only, some reader unfinished.
    waiting: BTreeSet<usize>,
    /// No unfinished job reads these: ranked next, in this order.
    ready: VecDeque<usize>,
    /// No job finishes any more in this run: rank what is ready, then stop.
    closed: bool,
}

/// What ranking did in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Ranked {
    pub slices: usize,
    /// Stored bytes of those slices before and after.
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Wall time, and the CPU time of its blocks' coding.
    pub seconds: f64,
    pub cpu_seconds: f64,
}

impl Ranking {
    /// The readers of `plan`'s slices among its jobs: the solves (jobs
    /// `0..n`), and with `checks` the checks after them (job `n + i` reads
    /// slice `i` and what slice `i` reads).
    pub(super) fn new(plan: &[SliceInfo], checks: bool) -> Ranking {
        let index: HashMap<&SliceId, usize> =
            plan.iter().enumerate().map(|(i, s)| (&s.id, i)).collect();
        let deps = |s: &SliceInfo| -> Vec<usize> {
            s.dependencies
                .iter()
                .filter_map(|d| index.get(d).copied())
                .collect()
        };
        let mut reads: Vec<Vec<usize>> = plan.iter().map(deps).collect();
        if checks {
            reads.extend(plan.iter().enumerate().map(|(i, s)| {
                let mut read = deps(s);
                read.push(i);
                read
            }));
        }
        let mut readers = vec![Vec::new(); plan.len()];
        for (job, slices) in reads.iter().enumerate() {
            for &slice in slices {
                readers[slice].push(job);
            }
        }
        Ranking {
            reads,
            readers,
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // Every update is one insert or removal: nothing is left half done.
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Slice `slice` is stored zstd only.
    pub(super) fn stored(&self, slice: usize, schedule: &Scheduler<JobId>) {
        self.lock().waiting.insert(slice);
        self.consider(slice, schedule);
    }

    /// Job `job` finished: the slices it read (a solve: its own too) may
    /// have no unfinished reader left.
    pub(super) fn finished(&self, job: usize, schedule: &Scheduler<JobId>) {
        let own = (job < self.readers.len()).then_some(job);
        let Some(read) = self.reads.get(job) else {
            return;
        };
        for &slice in read.iter().chain(&own) {
            self.consider(slice, schedule);
        }
    }

    fn consider(&self, slice: usize, schedule: &Scheduler<JobId>) {
        let unread = self.readers[slice].iter().all(|&j| schedule.is_done_at(j));
        let mut queue = self.lock();
        if unread && queue.waiting.remove(&slice) {
            queue.ready.push_back(slice);
            self.wake.notify_all();
        }
    }

    /// Slices no unfinished job reads, not ranked yet.
    pub(super) fn ready(&self) -> usize {
        self.lock().ready.len()
    }

    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_all();
    }

    /// The next slice to rank; `None` once closed and none is ready, or
    /// when `stop` is set.
    pub(super) fn next(&self, stop: &AtomicBool) -> Option<usize> {
        let mut queue = self.lock();
        loop {
            if stop.load(Ordering::SeqCst) {
                return None;
            }
            if let Some(slice) = queue.ready.pop_front() {
                return Some(slice);
            }
            if queue.closed {
                return None;
            }
            // Woken by a slice made ready or by closing; the timeout
            // notices `stop`.
            queue = self
                .wake
                .wait_timeout(queue, Duration::from_millis(200))
                .map_or_else(|poisoned| poisoned.into_inner().0, |(q, _)| q);
        }
    }
}
