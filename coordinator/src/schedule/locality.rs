//! Shards that stay where they are used. Workers say which slices' tables
//! they hold, in memory or in their caches, when they ask for work
//! ([`Scheduler::hold`]); a worker is then leased, of the ready jobs near
//! the front of the plan, the one that leaves the least to send it, so that
//! the jobs that read the same shards go to the worker that holds them. It
//! is never left idle for long: a job waits for another worker only
//! [`RESERVE`], and only while that one is between tasks. The answer also
//! tells each worker which of its tables jobs not done still read, soonest
//! first ([`Scheduler::still_read`]): its memory keeps those it has room
//! for, and its cache drops the others first.

use std::hash::Hash;
use std::time::{Duration, Instant};

use super::job::JobKind;
use super::Scheduler;

/// Ready jobs, from the front of the plan, a lease chooses among: far
/// enough to find one whose shards the worker holds, near enough to keep
/// to the plan's order (it frees the slices that later ones wait for). In
/// the Taiwan P = 12 replay 16 sent 5 % more than 32; more changed nothing.
pub const WINDOW: usize = 32;

/// How long a job that has just become ready waits for a worker between
/// tasks (it sent a result and asks next) that holds more of its shards
/// than the worker asking: the last slice's solver is the next's, instead
/// of a worker that polled first and would fetch all it read. Only a
/// worker that would otherwise take nothing waits, and only this long,
/// should the one expected not come.
pub const RESERVE: Duration = Duration::from_secs(5);

impl<Id: Clone + Eq + Hash> Scheduler<Id> {
    /// The shards `worker`'s cache holds now (what it said last is
    /// forgotten); ids not in the plan are ignored.
    pub fn hold<'a, Q: Hash + Eq + ?Sized + 'a>(
        &mut self,
        worker: &str,
        held: impl IntoIterator<Item = &'a Q>,
    ) where
        Id: std::borrow::Borrow<Q>,
    {
        let held = held
            .into_iter()
            .filter_map(|id| self.position(id))
            .collect();
        self.shards.held.insert(worker.to_string(), held);
    }

    /// The stored bytes of `job`'s shard, now that it is done (0: unknown,
    /// as if it cost nothing to send).
    pub fn set_shard_bytes<Q: Hash + Eq + ?Sized>(&mut self, job: &Q, bytes: u64)
    where
        Id: std::borrow::Borrow<Q>,
    {
        if let Some(i) = self.position(job) {
            self.shards.bytes[i] = bytes;
        }
    }

    /// Leases choose between solves and checks by the bytes a worker
    /// lacks alone (the same kind as its last job where they tie), not
    /// the last kind first: for workers across a network, whose shard
    /// caches keep what either kind read. (Workers without caches drop
    /// one kind's tables when they turn to the other, so the default
    /// keeps kinds together.) In the Taiwan P = 12 replay
    /// (`examples/shard_model.rs`, shards at their stored size, 3 GiB
    /// caches, format-4 sizes) this sent 1.82 times the store's bytes,
    /// where kinds kept together sent 2.73.
    pub fn mix_kinds(&mut self, mixed: bool) {
        self.mixed_kinds = mixed;
    }

    /// Of the shards `worker` said it holds, those that jobs not done
    /// still read there, the soonest read first: those of jobs leased or
    /// ready first, then by the plan's order of their slices. A job kept
    /// from this worker ([`Scheduler::avoid`]: the check of a slice it
    /// solved) does not read there. The rest it may drop first.
    pub fn still_read(&self, worker: &str) -> Vec<Id> {
        let Some(held) = self.shards.held.get(worker) else {
            return Vec::new();
        };
        let mut soonest: Vec<((bool, usize), usize)> = held
            .iter()
            .filter_map(|&shard| {
                self.shards.readers[shard]
                    .iter()
                    .filter(|&&reader| !self.done[reader])
                    .filter(|&&reader| self.avoid.get(&reader).is_none_or(|w| w != worker))
                    .map(|&reader| (self.urgency(reader), shard))
                    .min()
            })
            .collect();
        soonest.sort_unstable();
        soonest
            .into_iter()
            .map(|(_, shard)| self.jobs[shard].id.clone())
            .collect()
    }

    /// How soon a job not done runs: leased or ready (false) before
    /// waiting, then by [`Scheduler::plan_position`].
    fn urgency(&self, job: usize) -> (bool, usize) {
        let waiting = !self.ready.contains(&job) && !self.leases.contains_key(&job);
        (waiting, self.plan_position(job))
    }

    /// Where a job runs in the plan: a solve at its place, a check at its
    /// slice's (checks come after every solve in the job list).
    fn plan_position(&self, job: usize) -> usize {
        match self.jobs[job].kind {
            JobKind::Check => self.shards.reads[job].first().copied().unwrap_or(job),
            JobKind::Solve => job,
        }
    }

    /// Whether ready job `i` waits, for [`RESERVE`] from when it was first
    /// seen ready, for another worker alive that holds no lease (it is
    /// between tasks), may take it, and holds more of its shards than
    /// `worker`.
    pub(super) fn reserved(&self, i: usize, worker: &str, now: Instant) -> bool {
        let fresh = self
            .shards
            .ready_since
            .get(&i)
            .is_some_and(|&since| now.saturating_duration_since(since) < RESERVE);
        if !fresh {
            return false;
        }
        let mine = self.shards.missing(worker, i);
        self.workers.iter().any(|(other, w)| {
            other != worker
                && !w.told_stop
                && w.memory >= self.jobs[i].memory
                && now.saturating_duration_since(w.last_seen) < self.lease_length
                && !self.leases.values().any(|lease| lease.worker == *other)
                && self.shards.missing(other, i) < mine
                && self.may_take(i, other, now)
        })
    }

    /// Of `candidates` (in plan order), among the first [`WINDOW`], the
    /// one that leaves the least to send `worker`; the first of equals. A
    /// worker that never said what it holds takes the first. (In the
    /// Taiwan P = 12 replay, `examples/shard_model.rs`, weighing what it
    /// lacks against what the other workers lack sent 13 % more, and
    /// taking the job it holds the most bytes of 44 % more.)
    pub(super) fn nearest(
        &self,
        worker: &str,
        mut candidates: impl Iterator<Item = usize>,
    ) -> Option<usize> {
        if !self.shards.held.contains_key(worker) {
            return candidates.next();
        }
        candidates
            .take(WINDOW)
            .min_by_key(|&i| self.shards.missing(worker, i))
    }

    /// [`Scheduler::nearest`] over ready jobs of both kinds, `candidates`
    /// taken in the order they run in the plan (a check where its slice
    /// is), so that neither kind crowds the other out of the window; of
    /// equals, one of kind `last`, then the first.
    pub(super) fn nearest_of_any_kind(
        &self,
        worker: &str,
        mut candidates: Vec<usize>,
        last: JobKind,
    ) -> Option<usize> {
        candidates.sort_by_key(|&i| self.plan_position(i));
        if !self.shards.held.contains_key(worker) {
            return candidates.first().copied();
        }
        candidates
            .into_iter()
            .take(WINDOW)
            .min_by_key(|&i| (self.shards.missing(worker, i), self.jobs[i].kind != last))
    }
}
