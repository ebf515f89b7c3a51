//! The worker-facing side of a build: registration, memory-aware leases
//! that expire without heartbeats, shards out, verified results in.

use std::time::Instant;

use egdb_proto::stored::read_shard;
use egdb_proto::v1::{CheckReport, LeaseReply, Shard, SliceResult, StatusReply};
use egdb_proto::{Coordinator, LinkError, LinkKind, Registration, WorkerInfo};

use super::{Build, Lease, WorkerState};

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
        let mut guard = self.lock();
        let state = &mut *guard;
        let lease_length = self.lease_length();
        // A worker joining again (after a network cut, or restarted) keeps
        // its tallies; another process under a name still heard from is
        // refused, so that two workers are never taken for one.
        let record = state
            .workers
            .entry(worker.name.clone())
            .or_insert_with(|| WorkerState::new(worker.instance, worker.threads, worker.memory));
        if record.instance != worker.instance {
            let silent = record.last_seen.elapsed();
            if silent < lease_length {
                tracing::warn!(worker = %worker.name, "a second worker process under this name refused");
                return Err(LinkError::new(
                    LinkKind::Duplicate,
                    format!(
                        "another worker named {} is in this build (heard from {:.0} s ago): \
                         give each worker its own --name; if it was this worker's earlier run, \
                         it is forgotten after {:.0} s of silence",
                        worker.name,
                        silent.as_secs_f64(),
                        lease_length.as_secs_f64()
                    ),
                ));
            }
            // The earlier process is gone: so is the work it held.
            record.instance = worker.instance;
            state.leased.retain(|_, lease| lease.worker != worker.name);
        }
        record.threads = worker.threads;
        record.memory = worker.memory;
        record.told_stop = false;
        record.last_seen = Instant::now();
        drop(guard);
        tracing::info!(worker = %worker.name, threads = worker.threads, memory = worker.memory, "worker registered");
        Ok(Registration {
            game: game.clone(),
            lease_seconds: self.options.lease_seconds,
        })
    }

    fn lease(&self, worker: &str) -> Result<LeaseReply, LinkError> {
        let mut state = self.lock();
        let finished = state.halted || state.done.len() == self.plan.len();
        let Some(record) = state.seen(worker) else {
            // After a restart of the coordinator: the worker registers again.
            return Err(LinkError::new(
                LinkKind::NotFound,
                format!("worker {worker} has not registered"),
            ));
        };
        if finished {
            record.told_stop = true;
            return Ok(LeaseReply {
                task: None,
                stop: true,
            });
        }
        let memory = record.memory;
        let now = Instant::now();
        state.leased.retain(|slice, lease| {
            let alive = lease.until > now;
            if !alive {
                tracing::warn!(slice, worker = %lease.worker, "lease expired without a heartbeat; the slice is ready again");
            }
            alive
        });
        // A check reads finished slices only: any slice may go.
        let verifying = self.verifying.is_some();
        let ready = self.plan.iter().zip(&self.needs).find(|(s, &need)| {
            let id = s.id.as_str();
            need <= memory
                && !state.done.contains(id)
                && !state.leased.contains_key(id)
                && (verifying
                    || s.dependencies
                        .iter()
                        .all(|d| state.done.contains(d.as_str())))
        });
        let task = ready.map(|(slice, _)| {
            let lease = Lease {
                worker: worker.to_string(),
                since: now,
                until: now + self.lease_length(),
            };
            state.leased.insert(slice.id.to_string(), lease);
            self.task(slice)
        });
        Ok(LeaseReply { task, stop: false })
    }

    fn heartbeat(&self, worker: &str, slice_id: &str) -> Result<bool, LinkError> {
        let until = Instant::now() + self.lease_length();
        let mut state = self.lock();
        state.seen(worker);
        match state.leased.get_mut(slice_id) {
            Some(lease) if lease.worker == worker => {
                lease.until = until;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn fetch_shard(&self, worker: &str, slice_id: &str) -> Result<Shard, LinkError> {
        // A block damaged on this disk is an error here, never sent as good.
        let shard = read_shard(&self.store, slice_id)
            .map_err(|e| match e {
                egdb_db_format::FormatError::Corrupt { .. }
                | egdb_db_format::FormatError::Damaged(_) => {
                    LinkError::new(LinkKind::DataLoss, e.to_string())
                }
                e => LinkError::internal(e.to_string()),
            })?
            .ok_or_else(|| {
                LinkError::new(LinkKind::NotFound, format!("slice {slice_id} is not done"))
            })?;
        if let Some(record) = self.lock().seen(worker) {
            record.bytes_sent += shard
                .blocks
                .iter()
                .map(|b| b.record.len() as u64)
                .sum::<u64>();
        }
        Ok(shard)
    }

    fn admit_result(&self, worker: &str, header: &Shard) -> Result<(), LinkError> {
        if self.verifying.is_some() {
            return Err(LinkError::refused(
                "this coordinator verifies a finished store; it takes no results",
            ));
        }
        {
            let state = self.lock();
            // A result sent again after its answer was lost is harmless.
            let holder = state
                .leased
                .get(&header.slice_id)
                .is_some_and(|l| l.worker == worker);
            if !holder && !state.done.contains(&header.slice_id) {
                return Err(not_leased(&header.slice_id, worker));
            }
        }
        self.check_header(header)
            .map(|_| ())
            .map_err(|e| LinkError::refused(e.to_string()))
    }

    fn complete(&self, worker: &str, result: SliceResult) -> Result<(), LinkError> {
        if self.verifying.is_some() {
            return Err(LinkError::refused(
                "this coordinator verifies a finished store; it takes no results",
            ));
        }
        let bytes: u64 = result
            .shard
            .iter()
            .flat_map(|s| &s.blocks)
            .map(|b| b.record.len() as u64)
            .sum();
        if let Some(record) = self.lock().seen(worker) {
            record.bytes_received += bytes;
        }
        let record = match self.check(&result) {
            Ok(checked) => checked,
            Err(e) => {
                if let Some(shard) = &result.shard {
                    let mut state = self.lock();
                    if state
                        .leased
                        .get(&shard.slice_id)
                        .is_some_and(|l| l.worker == worker)
                    {
                        state.leased.remove(&shard.slice_id);
                    }
                }
                tracing::warn!(worker, error = %e, "result refused; the slice will be solved again");
                return Err(LinkError::refused(e.to_string()));
            }
        };
        {
            let mut state = self.lock();
            if state.done.contains(&record.slice) {
                // A result sent again (its answer was lost) or solved twice
                // (an expired lease): stored once already.
                if state
                    .leased
                    .get(&record.slice)
                    .is_some_and(|l| l.worker == worker)
                {
                    state.leased.remove(&record.slice);
                }
                tracing::debug!(slice = %record.slice, worker, "slice already done");
                return Ok(());
            }
            // Only the lease holder's result is stored: a slice is leased
            // once its dependencies are done, so nobody else can put a
            // table in before what it was solved from.
            if state
                .leased
                .get(&record.slice)
                .is_none_or(|l| l.worker != worker)
            {
                return Err(not_leased(&record.slice, worker));
            }
        }
        let blocks: Vec<&[u8]> = result
            .shard
            .iter()
            .flat_map(|s| &s.blocks)
            .map(|b| b.record.as_slice())
            .collect();
        self.store
            .put_slice(&record, &blocks)
            .map_err(|e| LinkError::internal(e.to_string()))?;
        let (done, halted) = {
            let mut state = self.lock();
            state.leased.remove(&record.slice);
            if state.done.insert(record.slice.clone()) {
                state.newly_done += 1;
                state.entries_done_now += self.entries_of(&record.slice);
                if let Some(me) = state.seen(worker) {
                    me.slices_done += 1;
                    me.positions_done += record.counts.positions;
                }
            }
            if self
                .options
                .max_slices
                .is_some_and(|max| state.newly_done >= max)
            {
                state.halted = true;
            }
            (state.done.len(), state.halted)
        };
        tracing::info!(
            slice = %record.slice,
            worker,
            seconds = record.seconds,
            positions = record.counts.positions,
            stored_bytes = record.stored_bytes,
            "slice done"
        );
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

    fn fail(&self, worker: &str, slice_id: &str, reason: &str) -> Result<(), LinkError> {
        let mut state = self.lock();
        state.seen(worker);
        if state
            .leased
            .get(slice_id)
            .is_some_and(|l| l.worker == worker)
        {
            state.leased.remove(slice_id);
        }
        drop(state);
        tracing::warn!(worker, slice = slice_id, reason, "lease given back");
        Ok(())
    }

    fn status(&self) -> Result<StatusReply, LinkError> {
        Ok(self.status_now())
    }

    fn checked(&self, worker: &str, report: CheckReport) -> Result<(), LinkError> {
        self.take_check(worker, report)
    }
}

/// A result from a worker that does not hold the slice's lease.
fn not_leased(slice: &str, worker: &str) -> LinkError {
    tracing::warn!(
        slice,
        worker,
        "result for a slice not leased to its sender refused"
    );
    LinkError::refused(format!("slice {slice} is not leased to worker {worker:?}"))
}
