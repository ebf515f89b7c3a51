//! Ranking late. Ranked blocks are a third smaller than zstd's, but decode
//! about ten times slower, and a build reads most tables several times
//! over (each slice that depends on one, and the checks). So workers write
//! zstd, and a slice is re-encoded ranked here once no unfinished job reads
//! it: one decode and one encode per block, instead of a slow decode per
//! read.
//!
//! A slice waiting for that carries `rank_pending` in its manifest record,
//! so a resumed build goes on with it. Its blocks are rewritten in batches
//! and the record (flag cleared, new size) is synced last: a crash leaves
//! blocks of either codec, which decode to the same bytes.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use egdb_check::cpu::thread_cpu_seconds;
use egdb_db_format::{rank_block, FormatError, SliceRecord};
use egdb_games::{SliceId, SliceInfo};
use rayon::prelude::*;

use super::Build;
use crate::schedule::Scheduler;
use crate::CoordinatorError;
use egdb_proto::JobId;

/// Blocks re-encoded side by side and written together (4 MiB of cells
/// at the default block size).
const BATCH_BLOCKS: u32 = 64;

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

    fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_all();
    }

    /// The next slice to rank; `None` once closed and none is ready, or
    /// when `stop` is set.
    fn next(&self, stop: &AtomicBool) -> Option<usize> {
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

impl Build {
    /// Ranks slices as they become ready, until [`Build::close_ranking`]
    /// has been called and none is ready, or `stop` is set (the slice in
    /// hand is left part-ranked, to be finished by the next run).
    ///
    /// # Errors
    /// A block that fails its checks, or store I/O: the slice stays
    /// waiting (its blocks decode as they are).
    pub fn rank_late(&self, stop: &AtomicBool) -> Result<Ranked, CoordinatorError> {
        let mut ranked = Ranked::default();
        let Some(ranking) = &self.ranking else {
            return Ok(ranked);
        };
        while let Some(slice) = ranking.next(stop) {
            let id = self.plan[slice].id.as_str();
            let Some(record) = self.store.slice(id)? else {
                continue;
            };
            let started = Instant::now();
            let before = record.stored_bytes;
            let Some(record) = self.rank_slice(record, stop)? else {
                break;
            };
            let seconds = started.elapsed().as_secs_f64();
            let (after, cpu) = (record.stored_bytes, record.rank_seconds);
            tracing::info!(slice = id, before, after, seconds, cpu, "slice ranked");
            ranked.slices += 1;
            ranked.bytes_before += before;
            ranked.bytes_after += after;
            ranked.seconds += seconds;
            ranked.cpu_seconds += cpu;
        }
        Ok(ranked)
    }

    /// No job finishes any more in this run (its workers are gone):
    /// [`Build::rank_late`] ranks what is ready and returns.
    pub fn close_ranking(&self) {
        if let Some(ranking) = &self.ranking {
            ranking.close();
        }
    }

    /// Tells ranking that `job` finished; `stored`: a solve whose slice
    /// was stored zstd only. Called under the state lock, after the
    /// schedule marked it.
    pub(super) fn ranking_after(&self, schedule: &Scheduler<JobId>, job: &JobId, stored: bool) {
        let (Some(ranking), Some(position)) = (&self.ranking, schedule.position(job)) else {
            return;
        };
        if stored {
            ranking.stored(position, schedule);
        }
        ranking.finished(position, schedule);
    }

    /// Slices stored zstd only that nothing unfinished reads any more:
    /// what [`Build::rank_late`] ranks once closed.
    pub fn ranks_ready(&self) -> usize {
        self.ranking.as_ref().map_or(0, Ranking::ready)
    }

    /// Rewrites a slice's zstd blocks ranked, then its record: the record
    /// written, or `None` if `stop` came first.
    fn rank_slice(
        &self,
        record: SliceRecord,
        stop: &AtomicBool,
    ) -> Result<Option<SliceRecord>, CoordinatorError> {
        record.check_layout()?;
        let (mut stored, mut cpu) = (0, 0.0);
        for first in (0..record.blocks).step_by(BATCH_BLOCKS as usize) {
            if stop.load(Ordering::SeqCst) {
                return Ok(None);
            }
            let last = record.blocks.min(first + BATCH_BLOCKS);
            let coded = (first..last)
                .into_par_iter()
                .map(|index| {
                    let started = thread_cpu_seconds();
                    let bytes = self.store.block_record(&record.slice, index)?;
                    let ranked = rank_block(&record.slice, index, record.block_len(index), &bytes)?;
                    Ok((index, bytes.len(), ranked, thread_cpu_seconds() - started))
                })
                .collect::<Result<Vec<_>, FormatError>>()?;
            let mut rewritten = Vec::new();
            for (index, kept, ranked, seconds) in coded {
                cpu += seconds;
                match ranked {
                    Some(ranked) => {
                        stored += ranked.len() as u64;
                        rewritten.push((index, ranked));
                    }
                    None => stored += kept as u64,
                }
            }
            self.store.put_blocks(&record.slice, &rewritten)?;
        }
        let record = SliceRecord {
            stored_bytes: stored,
            rank_pending: false,
            rank_seconds: cpu,
            ..record
        };
        self.store.put_record(&record)?;
        Ok(Some(record))
    }
}
