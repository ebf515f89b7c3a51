//! The worker-facing side of a build: registration, memory-aware leases
//! that expire without heartbeats, shards out, verified results in.

use std::time::Instant;

use egdb_db_format::FormatError;
use egdb_db_format::{SliceRecord, SolvedBy};
use egdb_proto::stored::{read_shard, read_shard_pieces};
use egdb_proto::{
    BuildStatus, CheckReport, Coordinator, JobId, Lease, Leased, LinkError, LinkKind, Registration,
    Shard, ShardPiece, SliceId, SliceResult, WorkerInfo,
};

use super::{lease_length, Build};
use crate::schedule::{Offer, Process, Refusal};

impl Build {
    /// The next job for `worker`, told first what its cache holds, if it
    /// says (then the answer says which of those are still read).
    fn offer(&self, worker: &str, held: Option<&[SliceId]>) -> Result<Leased, LinkError> {
        let now = Instant::now();
        let mut state = self.lock();
        if let Some(held) = held {
            let jobs: Vec<JobId> = held.iter().map(super::slice_job).collect();
            state.schedule.hold(worker, &jobs);
        }
        let (offer, expired) = state.schedule.lease(worker, now).map_err(|_| {
            // After a restart of the coordinator: the worker registers again.
            LinkError::new(
                LinkKind::NotFound,
                format!("worker {worker} has not registered"),
            )
        })?;
        for (job, holder) in expired {
            tracing::warn!(slice = %job, worker = %holder, "lease expired without a heartbeat; the slice is ready again");
        }
        if matches!(offer, Offer::Wait) {
            // Otherwise the build waits without a word for a worker that
            // may never come.
            for (job, need, most) in state.schedule.stranded(now) {
                if state.said_stranded.insert(job.clone()) {
                    tracing::warn!(
                        slice = %job,
                        need,
                        most,
                        "no worker has the memory for this slice: it and every slice that reads it wait for a worker started with a larger --memory"
                    );
                }
            }
        }
        let memory = match offer {
            Offer::Slice(i) => state.schedule.jobs()[i].memory,
            Offer::Wait | Offer::Stop => 0,
        };
        let still_read = held.map(|_| {
            let still = state.schedule.still_read(worker).into_iter();
            // Checks are read by no job; slices alone are held.
            still
                .filter_map(|job| match job {
                    JobId::Slice(slice) => Some(slice),
                    JobId::Check(_) => None,
                })
                .collect()
        });
        drop(state);
        let lease = match offer {
            Offer::Slice(i) => {
                let (slice, check) = self.job_slice(i);
                Lease::Task(self.task(slice, check || !self.solving, memory))
            }
            Offer::Wait => Lease::Wait,
            Offer::Stop => Lease::Stop,
        };
        Ok(Leased { lease, still_read })
    }
}

impl Coordinator for Build {
    fn register(&self, worker: &WorkerInfo) -> Result<Registration, LinkError> {
        let game = &self.store.identity().game;
        if let Some(wanted) = worker.game.as_ref().filter(|w| *w != game) {
            return Err(LinkError::new(
                LinkKind::Mismatch,
                format!(
                    "worker {} was started for {wanted}; this coordinator builds {game}",
                    worker.name
                ),
            ));
        }
        let registered = self.lock().schedule.register(
            &worker.name,
            Process {
                instance: worker.instance,
                replaces: worker.replaces,
            },
            worker.threads,
            worker.memory,
            Instant::now(),
        );
        if let Err(Refusal::Duplicate { silent }) = registered {
            tracing::warn!(worker = %worker.name, "a second worker process under this name refused");
            return Err(LinkError::new(
                LinkKind::Duplicate,
                format!(
                    "another worker named {} is in this build (heard from {:.0} s ago): \
                     give each worker its own --name; if it was this worker's earlier run, \
                     it is forgotten after {:.0} s of silence (at once when it is started \
                     again with the same --cache)",
                    worker.name,
                    silent.as_secs_f64(),
                    lease_length(&self.options).as_secs_f64()
                ),
            ));
        }
        if let Ok(released) = &registered {
            for job in released {
                tracing::warn!(worker = %worker.name, slice = %job, "a new process under this name: the slice its earlier one held is ready again");
            }
        }
        tracing::info!(worker = %worker.name, threads = worker.threads, memory = worker.memory, "worker registered");
        Ok(Registration {
            game: game.clone(),
            lease_seconds: self.options.lease_seconds,
        })
    }

    fn lease(&self, worker: &str) -> Result<Lease, LinkError> {
        self.offer(worker, None).map(|leased| leased.lease)
    }

    fn lease_holding(&self, worker: &str, held: &[SliceId]) -> Result<Leased, LinkError> {
        self.offer(worker, Some(held))
    }

    fn heartbeat(&self, worker: &str, slice_id: &SliceId) -> Result<bool, LinkError> {
        let mut state = self.lock();
        let job = self.held_job(&state, worker, slice_id);
        Ok(state.schedule.heartbeat(worker, &job, Instant::now()))
    }

    fn fetch_shard(&self, worker: &str, slice_id: &SliceId) -> Result<Shard, LinkError> {
        // A block damaged on this disk is an error here, never sent as good.
        let shard = read_shard(&self.store, slice_id)
            .map_err(stored_fault)?
            .ok_or_else(|| not_done(slice_id))?;
        self.count_sent(worker, shard.stored_bytes());
        Ok(shard)
    }

    fn fetch_shard_pieces(
        &self,
        worker: &str,
        slice_id: &SliceId,
        piece: &mut dyn FnMut(ShardPiece) -> bool,
    ) -> Result<(), LinkError> {
        let given = read_shard_pieces(&self.store, slice_id, piece)
            .map_err(stored_fault)?
            .ok_or_else(|| not_done(slice_id))?;
        self.count_sent(worker, given);
        Ok(())
    }

    fn admit_result(&self, worker: &str, header: &Shard) -> Result<(), LinkError> {
        if !self.solving {
            return Err(LinkError::refused(
                "this coordinator verifies a finished store; it takes no results",
            ));
        }
        {
            let state = self.lock();
            // A result sent again after its answer was lost is harmless.
            let job = super::slice_job(&header.slice_id);
            if !state.schedule.holds(worker, &job) && !state.schedule.is_done(&job) {
                return Err(not_leased(&header.slice_id, worker));
            }
        }
        self.check_header(header)
            .map(|_| ())
            .map_err(|e| LinkError::refused(e.to_string()))
    }

    fn complete(&self, worker: &str, result: SliceResult) -> Result<(), LinkError> {
        if !self.solving {
            return Err(LinkError::refused(
                "this coordinator verifies a finished store; it takes no results",
            ));
        }
        if let Some(record) = self.lock().schedule.seen(worker, Instant::now()) {
            record.bytes_received = record
                .bytes_received
                .saturating_add(result.shard.stored_bytes());
        }
        let record = match self.check(&result) {
            Ok(checked) => checked,
            Err(e) => {
                self.lock()
                    .schedule
                    .release(worker, &super::slice_job(&result.shard.slice_id));
                tracing::warn!(worker, error = %e, "result refused; the slice will be solved again");
                return Err(LinkError::refused(e.to_string()));
            }
        };
        let slice = &result.shard.slice_id;
        let job = super::slice_job(slice);
        {
            let state = self.lock();
            if state.schedule.is_done(&job) {
                // A result sent again (its answer was lost) or solved twice
                // (an expired lease): stored once already.
                tracing::debug!(slice = %record.slice, worker, "slice already done");
                return Ok(());
            }
            // Only the lease holder's result is stored: a slice is leased
            // once its dependencies are done, so nobody else can put a
            // table in before what it was solved from.
            if !state.schedule.holds(worker, &job) {
                return Err(not_leased(slice, worker));
            }
        }
        let worker_name = worker.to_string();
        let record = SliceRecord {
            rank_pending: self.ranks_late(false),
            solved_by: Some(if self.options.deep_verify {
                SolvedBy::Network {
                    worker: worker_name,
                }
            } else {
                SolvedBy::Process {
                    worker: worker_name,
                }
            }),
            ..record
        };
        let blocks: Vec<&[u8]> = result.shard.blocks.iter().map(Vec::as_slice).collect();
        self.store
            .put_slice(&record, &blocks)
            .map_err(|e| LinkError::internal(e.to_string()))?;
        // Before the slice is done: its check may be leased at once.
        self.stored_crc(slice, record.raw_crc32);
        let (done, halted) = {
            let mut state = self.lock();
            if state.schedule.finish(&job) {
                state.schedule.set_shard_bytes(&job, record.stored_bytes);
                self.ranking_after(&state.schedule, &job, record.rank_pending);
                if self.verifies_as_built() && self.options.deep_verify {
                    // From a network: checked by another worker, where
                    // one is alive (it may wait for one to be free), as a
                    // worker that lies would pass its own table. Local
                    // workers are this process.
                    state.schedule.avoid(&super::check_id(slice), worker);
                }
                state.newly_done += 1;
                state.entries_done_now += self.entries_of(slice);
                if let Some(me) = state.schedule.seen(worker, Instant::now()) {
                    me.slices_done += 1;
                    me.positions_done = me.positions_done.saturating_add(record.counts.positions);
                }
            }
            if self
                .options
                .max_slices
                .is_some_and(|max| state.newly_done >= max)
            {
                state.schedule.halt();
            }
            let done = self.solved(&state);
            // Said under the lock: no later line of the log (the slice's
            // check, a slice that reads it) can come before this one.
            tracing::info!(
                slice = %record.slice,
                worker,
                seconds = record.seconds,
                positions = record.counts.positions,
                stored_bytes = record.stored_bytes,
                done,
                of = self.plan.len(),
                "slice done"
            );
            (done, state.schedule.is_halted())
        };
        if let Some(progress) = &self.progress {
            progress.slice_done(&record, done, self.plan.len());
        }
        if done == self.plan.len() {
            self.store
                .set_complete()
                .map_err(|e| LinkError::internal(e.to_string()))?;
        } else if halted {
            tracing::info!(
                done,
                total = self.plan.len(),
                "halting after the requested number of slices"
            );
        }
        Ok(())
    }

    fn fail(&self, worker: &str, slice_id: &SliceId, reason: &str) -> Result<(), LinkError> {
        let released = {
            let mut state = self.lock();
            state.schedule.seen(worker, Instant::now());
            let job = self.held_job(&state, worker, slice_id);
            state.schedule.release(worker, &job)
        };
        if !released {
            return Err(LinkError::refused(format!(
                "worker {worker:?} holds no lease on slice {slice_id}: nothing to give back"
            )));
        }
        tracing::warn!(
            worker,
            slice = slice_id.as_str(),
            reason,
            "lease given back"
        );
        Ok(())
    }

    fn status(&self) -> Result<BuildStatus, LinkError> {
        Ok(self.status_now())
    }

    fn checked(&self, worker: &str, report: CheckReport) -> Result<(), LinkError> {
        self.take_check(worker, report)
    }
}

impl Build {
    /// Adds shard bytes read for `worker` to what it was sent.
    fn count_sent(&self, worker: &str, bytes: u64) {
        if let Some(record) = self.lock().schedule.seen(worker, Instant::now()) {
            record.bytes_sent += bytes;
        }
    }
}

/// A store fault met while serving a shard: a block damaged on this disk
/// is lost data, never sent as good.
fn stored_fault(e: FormatError) -> LinkError {
    match e {
        FormatError::Corrupt { .. } | FormatError::Damaged(_) => {
            LinkError::new(LinkKind::DataLoss, e.to_string())
        }
        e => LinkError::internal(e.to_string()),
    }
}

fn not_done(slice_id: &SliceId) -> LinkError {
    LinkError::new(LinkKind::NotFound, format!("slice {slice_id} is not done"))
}

/// A result from a worker that does not hold the slice's lease.
fn not_leased(slice: &SliceId, worker: &str) -> LinkError {
    tracing::warn!(
        slice = slice.as_str(),
        worker,
        "result for a slice not leased to its sender refused"
    );
    LinkError::refused(format!("slice {slice} is not leased to worker {worker:?}"))
}
