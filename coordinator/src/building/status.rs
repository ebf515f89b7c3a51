//! What `egdb status` shows of a running build: slices by state, who holds
//! what, bytes moved and the time left.

use std::time::{Duration, Instant};

use egdb_proto::{BuildStatus, SliceId, WorkerStatus};

use super::Build;

impl Build {
    /// Entries (cells) of a slice of the plan; 0 for an unknown id.
    pub(super) fn entries_of(&self, slice: &SliceId) -> u64 {
        self.plan
            .iter()
            .find(|s| s.id == *slice)
            .map_or(0, |s| s.entries)
    }

    /// The build as it stands. The time left is the entries still to solve
    /// or check at the rate (entries per second of wall time) of this run
    /// so far, solves and checks counted alike.
    pub fn status_now(&self) -> BuildStatus {
        let now = Instant::now();
        let state = self.lock();
        let schedule = &state.schedule;
        // The slices' solves; a build that verifies as it goes has their
        // checks after them.
        let (running, ready, waiting) = schedule.counts_of(0..self.plan.len());
        let (mut positions_done, mut entries_left) = (0, 0);
        let checks = self.verifies_as_built();
        for slice in &self.plan {
            if schedule.is_done(&super::slice_job(&slice.id)) {
                positions_done += slice.positions;
            } else {
                entries_left += slice.entries;
            }
            if checks && !schedule.is_done(&super::check_id(&slice.id)) {
                entries_left += slice.entries;
            }
        }
        let elapsed = now.duration_since(self.started);
        let eta = (state.entries_done_now > 0)
            .then(|| {
                let rate = elapsed.as_secs_f64() / state.entries_done_now as f64;
                Duration::try_from_secs_f64(entries_left as f64 * rate).ok()
            })
            .flatten();
        let mut workers: Vec<WorkerStatus> = schedule
            .workers()
            .iter()
            .map(|(name, w)| {
                let held = schedule.leases().find(|(_, l)| l.worker == *name);
                WorkerStatus {
                    name: name.clone(),
                    threads: w.threads,
                    memory: w.memory,
                    holds: held.map(|(i, l)| {
                        // A check is named as the scheduler names it.
                        let job = match self.job_slice(i) {
                            (slice, false) => super::slice_job(&slice.id),
                            (slice, true) => super::check_id(&slice.id),
                        };
                        (job, now.duration_since(l.since))
                    }),
                    slices_done: w.slices_done,
                    positions_done: w.positions_done,
                    bytes_sent: w.bytes_sent,
                    bytes_received: w.bytes_received,
                    last_seen: now.duration_since(w.last_seen),
                }
            })
            .collect();
        workers.sort_by(|a, b| a.name.cmp(&b.name));
        BuildStatus {
            game: self.store.identity().game.clone(),
            slices_total: self.plan.len() as u32,
            slices_done: self.solved(&state) as u32,
            slices_running: running as u32,
            slices_ready: ready as u32,
            slices_waiting: waiting as u32,
            positions_total: self.plan.iter().map(|s| s.positions).sum(),
            positions_done,
            // Counted from what peers sent: summed without overflow.
            bytes_sent: workers
                .iter()
                .fold(0, |n, w| n.saturating_add(w.bytes_sent)),
            bytes_received: workers
                .iter()
                .fold(0, |n, w| n.saturating_add(w.bytes_received)),
            elapsed,
            eta,
            complete: schedule.is_complete(),
            workers,
        }
    }
}
