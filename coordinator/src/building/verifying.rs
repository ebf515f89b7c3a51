//! A build that verifies a finished store instead of solving it: every
//! slice is leased to workers as a check (`SliceTask.verify`), workers
//! fetch the slice and the slices its moves lead into, check every stored
//! position against its moves, and report (`Checked`). Passes go to the
//! store's verify journal, so a coordinator started again goes on where it
//! stopped; failures are kept for the report at the end.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use egdb_check::SliceCheck;
use egdb_db_format::{FormatError, SliceRecord, Store};
use egdb_games::{Game, SliceId};
use egdb_proto::CheckReport;
use egdb_proto::LinkError;

use super::verify_state::{check_needs, lock, Verifying};
use super::{Build, BuildOptions};
use crate::schedule::Scheduler;
use crate::CoordinatorError;
use egdb_check::identity::{cell_encoding, from_identity};
use egdb_check::verify::Journal;

impl Build {
    /// A verification of the complete store at `path`, which must hold
    /// `game`; slices that passed in an earlier, interrupted verification
    /// (the store's journal) are not checked again.
    ///
    /// # Errors
    /// [`CoordinatorError::Format`] when the store cannot be opened or
    /// holds another game; [`CoordinatorError::Unverifiable`] when it is
    /// not complete.
    pub fn open_verify(
        path: &Path,
        game: &Game,
        options: BuildOptions,
    ) -> Result<Build, CoordinatorError> {
        let store = Store::open_read_only(path)?;
        let stored = from_identity(store.identity())?;
        if stored.spec() != game.spec() || stored.fingerprint() != game.fingerprint() {
            return Err(FormatError::other_game(
                path.display().to_string(),
                &store.identity().game,
                &game.spec().to_string(),
            )
            .into());
        }
        if !store.is_complete()? {
            return Err(CoordinatorError::Unverifiable {
                slice: "(all)".to_string(),
                reason: format!("{} is not a complete tablebase", path.display()),
            });
        }
        let plan = stored.slices();
        let encoding = cell_encoding(&stored, store.identity().depth);
        let needs = check_needs(&plan, encoding);
        let records: HashMap<SliceId, SliceRecord> = store
            .slices()?
            .into_iter()
            .map(|r| (SliceId::new(r.slice.clone()), r))
            .collect();
        let crcs: HashMap<SliceId, u32> = records
            .iter()
            .map(|(id, r)| (id.clone(), r.raw_crc32))
            .collect();
        let journal = Journal::open(path, &stored, false);
        let mut done = Vec::new();
        let mut failures = Vec::new();
        for slice in &plan {
            let id = &slice.id;
            match crcs.get(id) {
                // Passed before: counted so once its bytes, read again,
                // still give that checksum (a damaged block leaves the
                // record as it was).
                Some(&crc) if journal.passed(id, crc) && reread(&store, &records, id) => {
                    done.push(super::slice_job(id))
                }
                Some(_) => {}
                None => {
                    failures.push(SliceCheck::corrupt(
                        id.clone(),
                        "the store is marked complete, but this slice is missing",
                    ));
                    done.push(super::slice_job(id));
                }
            }
        }
        let verifying = Verifying {
            journal: Mutex::new(Some(journal)),
            crcs: Mutex::new(crcs),
            failures: Mutex::new(failures),
        };
        // A check reads its own slice's shard as well.
        let jobs = super::jobs(&plan, &needs, None)
            .into_iter()
            .map(|mut job| {
                job.reads.insert(0, job.id.clone());
                job
            })
            .collect();
        // Checking reads finished slices only: any order will do.
        let mut schedule = Scheduler::new(jobs, &done, super::lease_length(&options), true);
        super::shard_bytes_of(&mut schedule, records.values());
        Ok(Build::assemble(
            store,
            plan,
            schedule,
            encoding,
            options,
            Some(verifying),
            false,
        ))
    }

    /// Whether this build verifies a store rather than solving it.
    pub fn is_verifying(&self) -> bool {
        !self.solving
    }

    /// Whether this build checks its slices as it stores them.
    pub fn verifies_as_built(&self) -> bool {
        self.solving && self.verifying.is_some()
    }

    /// Keeps a stored slice's checksum for its check to come.
    pub(super) fn stored_crc(&self, slice: &SliceId, crc: u32) {
        if let Some(v) = &self.verifying {
            lock(&v.crcs).insert(slice.clone(), crc);
        }
    }

    /// The slices that failed their check so far (a verifying build).
    pub fn failures(&self) -> Vec<SliceCheck> {
        self.verifying
            .as_ref()
            .map(|v| lock(&v.failures).clone())
            .unwrap_or_default()
    }

    /// Once every slice passed: a verify removes its journal; a build
    /// keeps its passes for the same command run again (which then checks
    /// nothing), where `egdb verify` does not take them.
    pub fn finish_verify(&self) {
        if let Some(v) = &self.verifying {
            if lock(&v.failures).is_empty() {
                if let Some(journal) = lock(&v.journal).take() {
                    if self.solving {
                        journal.keep_as_built();
                    } else {
                        journal.finish();
                    }
                }
            }
        }
    }

    /// Writes how long a slice's check took into its record, for `egdb
    /// stats` and `egdb plan --rates-from`; a record that cannot be
    /// rewritten only loses the time.
    fn record_check_time(&self, slice: &SliceId, seconds: f64) {
        if !(seconds.is_finite() && seconds > 0.0) {
            return;
        }
        let written = self
            .store
            .slice(slice.as_str())
            .and_then(|record| match record {
                Some(record) => self.store.put_record(&SliceRecord {
                    check_seconds: seconds,
                    ..record
                }),
                None => Ok(()),
            });
        if let Err(e) = written {
            tracing::warn!(slice = slice.as_str(), error = %e, "the check's time is not recorded");
        }
    }

    /// Takes a worker's report of a slice it checked.
    pub(super) fn take_check(&self, worker: &str, report: CheckReport) -> Result<(), LinkError> {
        let Some(verifying) = &self.verifying else {
            return Err(LinkError::refused(
                "this coordinator builds; it verifies nothing",
            ));
        };
        let CheckReport {
            mut check,
            raw_crc32,
            seconds,
        } = report;
        let slice = check.slice.clone();
        let job = if self.solving {
            super::check_id(&slice)
        } else {
            super::slice_job(&slice)
        };
        // One lock over the outcome: in a build that verifies as it goes,
        // finishing the check lets slices that read this one be solved, so
        // it is decided (and a failure halts the build) before that.
        let mut state = self.lock();
        if !state.schedule.holds(worker, &job) {
            return Err(LinkError::refused(format!(
                "worker {worker} does not hold the lease of the check of slice {slice}"
            )));
        }
        let stored_crc = lock(&verifying.crcs).get(&slice).copied();
        if let Some(crc) = stored_crc.filter(|&crc| crc != raw_crc32) {
            // The worker checked other bytes than this store holds.
            check.corrupt.get_or_insert_with(|| {
                format!(
                    "the worker checked bytes of CRC {raw_crc32:08x}; the store's are {crc:08x}"
                )
            });
        }
        let positions = check.positions;
        if check.passed() {
            if let (Some(crc), Some(journal)) = (stored_crc, lock(&verifying.journal).as_mut()) {
                journal.record(&slice, crc);
            }
            if self.solving {
                // Before the check is finished: ranking rewrites the record
                // only once no job reads the slice, its check included.
                self.record_check_time(&slice, seconds);
            }
            tracing::info!(
                slice = slice.as_str(),
                worker,
                positions,
                seconds,
                "slice verified"
            );
        } else {
            tracing::warn!(slice = slice.as_str(), worker, mismatches = check.mismatches, corrupt = ?check.corrupt, "slice FAILED its check");
            lock(&verifying.failures).push(check);
            if self.solving {
                // Nothing more is built on it; the slices in flight end.
                tracing::warn!(
                    slice = slice.as_str(),
                    "halting the build: a stored slice failed its check"
                );
                state.schedule.halt();
            }
        }
        if state.schedule.finish(&job) {
            self.ranking_after(&state.schedule, &job, false);
            state.entries_done_now += self.entries_of(&slice);
        }
        if let Some(me) = state.schedule.seen(worker, Instant::now()) {
            me.slices_done += 1;
            me.positions_done = me.positions_done.saturating_add(positions);
        }
        Ok(())
    }
}

/// Whether the slice `id`'s blocks, read again, give its record's checksum.
fn reread(store: &Store, records: &HashMap<SliceId, SliceRecord>, id: &SliceId) -> bool {
    records
        .get(id)
        .is_some_and(|record| store.check_bytes(record).is_ok())
}
