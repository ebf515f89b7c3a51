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

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use egdb_check::cpu::thread_cpu_seconds;
use egdb_db_format::{rank_block, FormatError, SliceRecord};
use rayon::prelude::*;

use super::rank_queue::{Ranked, Ranking};
use super::Build;
use crate::schedule::Scheduler;
use crate::CoordinatorError;
use egdb_proto::JobId;

/// Blocks re-encoded side by side and written together (4 MiB of cells
/// at the default block size).
const BATCH_BLOCKS: u32 = 64;

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
