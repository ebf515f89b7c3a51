//! A build over a store: the manifest (which slices are done) lives in the
//! store itself, so a build reopened on the same store resumes.
//!
//! Which slice goes to which worker is [`crate::schedule`]'s; a build adds
//! the store: a result is checked (every block's checksum, the announced
//! sizes) and written, its manifest record last, before its slice is
//! finished in the schedule. The worker-facing side is in [`link`].

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use egdb_db_format::{
    block_len, check_block, decode_block, layout_fault, CellEncoding, SliceRecord, Store,
};
use egdb_games::{Game, SliceId, SliceInfo};
use egdb_proto::stored::record_of;
use egdb_proto::{JobId, Task};
use egdb_proto::{Shard, SliceResult};

use crate::schedule::{Job, JobKind, Scheduler};
use crate::CoordinatorError;
use egdb_check::identity::{cell_encoding, identity};

mod backing_up;
pub mod checksum_list;
mod link;
mod rank_queue;
mod ranking;
mod reuse;
mod status;
mod verify_state;
mod verifying;
mod vouched;

pub use backing_up::{BackedUp, BackupPlan};
pub use rank_queue::Ranked;
pub use reuse::{ReuseSource, Reused};
pub use vouched::VerifiedList;

/// How a build runs.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Store depths as well as values.
    pub depth: bool,
    /// Bytes of memory a worker may use for one slice.
    pub memory_budget: u64,
    /// Stop after this many slices are newly solved (the rest on a re-run).
    pub max_slices: Option<u64>,
    /// Decompress every block of an incoming shard and check the slice
    /// checksum too: set when the workers are across a network (the
    /// slices' records then say so, `SolvedBy::Network`).
    pub deep_verify: bool,
    /// A lease not renewed by a heartbeat for this long is given to another
    /// worker.
    pub lease_seconds: f64,
    /// Check every slice against its moves once it is stored, solve none
    /// from a slice that has not passed, and stop at the first that fails.
    pub verify_as_built: bool,
    /// With `verify_as_built`: the checksum list of a store of the same
    /// movement rules verified in full; a movement slice taken from
    /// another store with the bytes it lists counts as passed.
    pub verified_list: Option<std::sync::Arc<VerifiedList>>,
}

/// Told of a build's progress.
pub trait BuildProgress: Send + Sync {
    /// A slice was solved and stored.
    fn slice_done(&self, record: &SliceRecord, done: usize, total: usize);
}

/// A build of one game over one store.
pub struct Build {
    store: Store,
    plan: Vec<SliceInfo>,
    /// How the game's cells are stored under these options.
    encoding: CellEncoding,
    options: BuildOptions,
    state: Mutex<State>,
    progress: Option<Box<dyn BuildProgress>>,
    /// When this run of the build began (for rates and the ETA).
    started: Instant,
    /// Checks taken of workers: a store verified instead of solved, or
    /// a build that checks its slices as they are stored.
    verifying: Option<verify_state::Verifying>,
    /// Whether slices are solved (false: a finished store is verified).
    solving: bool,
    /// Slices written zstd only, ranked once nothing unfinished reads them
    /// (builds of two-byte cells).
    ranking: Option<rank_queue::Ranking>,
}

/// What changes while a build runs, under one lock.
struct State {
    schedule: Scheduler<JobId>,
    newly_done: u64,
    /// Entries of the jobs finished in this run: each slice solved, and
    /// each slice checked (a check reads as many entries as the solve
    /// wrote, in about as long: the time left counts both).
    entries_done_now: u64,
    /// Jobs said to fit no worker (said once each).
    said_stranded: std::collections::HashSet<JobId>,
}

impl State {
    fn new(schedule: Scheduler<JobId>) -> State {
        State {
            schedule,
            newly_done: 0,
            entries_done_now: 0,
            said_stranded: std::collections::HashSet::new(),
        }
    }
}

/// The scheduler's id of the check of `slice` in a build that verifies as
/// it goes (the jobs after the solves in the job list).
fn check_id(slice: &SliceId) -> JobId {
    JobId::Check(slice.clone())
}

/// The scheduler's id of the slice's own job.
fn slice_job(slice: &SliceId) -> JobId {
    JobId::Slice(slice.clone())
}

/// The scheduler's view of a plan: each slice with the memory it needs;
/// with `checks` (memory each), then a check of each slice, ready once the
/// slice is stored, and no slice is solved before the slices it reads
/// have passed theirs: nothing is built on a bad table.
fn jobs(plan: &[SliceInfo], needs: &[u64], checks: Option<&[u64]>) -> Vec<Job<JobId>> {
    let solves = plan.iter().zip(needs).map(|(slice, &memory)| {
        let reads = slice.dependencies.iter().map(slice_job);
        let checked = slice.dependencies.iter().map(check_id);
        Job {
            id: slice_job(&slice.id),
            dependencies: match checks {
                Some(_) => reads.clone().chain(checked).collect(),
                None => reads.clone().collect(),
            },
            memory,
            kind: JobKind::Solve,
            reads: reads.collect(),
        }
    });
    let checks = checks.into_iter().flat_map(|checks| {
        plan.iter().zip(checks).map(|(slice, &memory)| Job {
            id: check_id(&slice.id),
            dependencies: vec![slice_job(&slice.id)],
            memory,
            kind: JobKind::Check,
            // The slice and every slice its moves lead into.
            reads: std::iter::once(&slice.id)
                .chain(&slice.dependencies)
                .map(slice_job)
                .collect(),
        })
    });
    solves.chain(checks).collect()
}

/// Tells `schedule` the stored bytes of each slice `records` holds: what
/// sending its shard to a worker costs.
fn shard_bytes_of<'a>(
    schedule: &mut Scheduler<JobId>,
    records: impl IntoIterator<Item = &'a SliceRecord>,
) {
    for record in records {
        let job = slice_job(&SliceId::new(record.slice.clone()));
        schedule.set_shard_bytes(&job, record.stored_bytes);
    }
}

impl Build {
    /// Opens (or creates) the store for a build of `game`, and reads which
    /// slices are done already.
    ///
    /// # Errors
    /// [`CoordinatorError::Format`] when the store holds another game or
    /// cannot be opened; [`CoordinatorError::OverBudget`] when a slice could
    /// not be solved within the memory budget (nothing is written then).
    pub fn open(
        path: &Path,
        game: &Game,
        options: BuildOptions,
    ) -> Result<Build, CoordinatorError> {
        let plan = game.slices();
        let encoding = cell_encoding(game, options.depth);
        let needs: Vec<u64> = plan
            .iter()
            .map(|slice| memory_need(&plan, slice, encoding))
            .collect();
        for (slice, &need) in plan.iter().zip(&needs) {
            if need > options.memory_budget {
                return Err(CoordinatorError::OverBudget {
                    slice: slice.id.to_string(),
                    need,
                    budget: options.memory_budget,
                });
            }
        }
        let store = Store::create_or_open(path, &identity(game, options.depth))?;
        if let Some(older) = store.upgraded_from() {
            tracing::warn!(
                store = %path.display(),
                "a store of format {older} is carried on in format {}: its blocks stay readable, binaries of format {older} refuse it from now on",
                egdb_db_format::FORMAT_VERSION
            );
        }
        let records = store.slices()?;
        let stored = |r: &SliceRecord| SliceId::new(r.slice.clone());
        let mut done: Vec<JobId> = records.iter().map(|r| slice_job(&stored(r))).collect();
        let (checks, verifying) = if options.verify_as_built {
            let checking = verify_state::Verifying::of_build(path, game, &records);
            // A store finished by a binary that removed its journal at the
            // end: its records say which slices passed as they were stored.
            let finished = store.is_complete()?;
            // Slices that passed before, with the bytes the store holds, or
            // whose bytes a verified store's list gives.
            done.extend(
                records
                    .iter()
                    .filter(|r| {
                        checking.passed(&stored(r), r.raw_crc32)
                            || options.vouch_for(r)
                            || (finished && r.check_seconds > 0.0)
                    })
                    .map(|r| check_id(&stored(r))),
            );
            (
                Some(verify_state::check_needs(&plan, encoding)),
                Some(checking),
            )
        } else {
            (None, None)
        };
        let jobs = jobs(&plan, &needs, checks.as_deref());
        let mut schedule = Scheduler::new(jobs, &done, lease_length(&options), false);
        // Workers across a network keep shards of both kinds in their caches.
        schedule.mix_kinds(options.deep_verify);
        shard_bytes_of(&mut schedule, &records);
        let ranking = (encoding == CellEncoding::ValueDepth16)
            .then(|| rank_queue::Ranking::new(&plan, options.verify_as_built));
        if let Some(ranking) = &ranking {
            // Left waiting by an earlier run.
            for record in records.iter().filter(|r| r.rank_pending) {
                if let Some(i) = plan.iter().position(|s| s.id.as_str() == record.slice) {
                    ranking.stored(i, &schedule);
                }
            }
        }
        Ok(Build {
            ranking,
            ..Build::assemble(store, plan, schedule, encoding, options, verifying, true)
        })
    }

    /// A build over an opened store, its jobs scheduled by `schedule`.
    fn assemble(
        store: Store,
        plan: Vec<SliceInfo>,
        schedule: Scheduler<JobId>,
        encoding: CellEncoding,
        options: BuildOptions,
        verifying: Option<verify_state::Verifying>,
        solving: bool,
    ) -> Build {
        Build {
            store,
            plan,
            encoding,
            options,
            state: Mutex::new(State::new(schedule)),
            progress: None,
            started: Instant::now(),
            verifying,
            solving,
            ranking: None,
        }
    }

    pub fn with_progress(mut self, progress: Box<dyn BuildProgress>) -> Build {
        self.progress = Some(progress);
        self
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn plan(&self) -> &[SliceInfo] {
        &self.plan
    }

    /// Slices done so far: stored, or (verifying a store) checked.
    pub fn done(&self) -> usize {
        self.solved(&self.lock())
    }

    /// The plan's slices done: the first jobs (checks, in a build that
    /// verifies as it goes, come after them).
    fn solved(&self, state: &State) -> usize {
        state.schedule.done_in(0..self.plan.len())
    }

    /// The slice of the scheduler's job `i`, and whether the job is its
    /// check (the jobs after the slices, in a build that verifies as it
    /// goes).
    fn job_slice(&self, i: usize) -> (&SliceInfo, bool) {
        match i.checked_sub(self.plan.len()) {
            None => (&self.plan[i], false),
            Some(check) => (&self.plan[check], true),
        }
    }

    /// The scheduler's id of the job of `slice` that `worker` holds: its
    /// check, in a build that verifies as it goes and leased it that.
    fn held_job(&self, state: &State, worker: &str, slice: &SliceId) -> JobId {
        if self.verifies_as_built() {
            let check = check_id(slice);
            if state.schedule.holds(worker, &check) {
                return check;
            }
        }
        slice_job(slice)
    }

    /// Every job done, or the build halted (asked to stop after so many
    /// slices, or a slice failed its check).
    pub fn is_finished(&self) -> bool {
        self.lock().schedule.is_finished()
    }

    /// Whether every worker that registered has been told to stop (a build
    /// without workers counts as told).
    pub fn workers_told_to_stop(&self) -> bool {
        self.lock().schedule.workers_told_to_stop()
    }

    /// Whether every slice is in the store; marks the store complete if so.
    ///
    /// # Errors
    /// Store I/O errors.
    pub fn is_complete(&self) -> Result<bool, CoordinatorError> {
        let complete = self.lock().schedule.is_complete();
        if complete && self.solving && !self.store.is_complete()? {
            self.store.set_complete()?;
        }
        Ok(complete)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A worker thread that panicked cannot leave the sets half-updated:
        // every update is a single insert or remove.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether a solve's blocks are written zstd only and ranked once no
    /// job reads them (zstd decodes quicker for the jobs that do). Workers
    /// across a network rank their own instead: the bytes a shard crosses
    /// with are its stored bytes, about two thirds of zstd's, and shard
    /// caches hold half as much again (the Taiwan P = 12 replay with 3 GiB
    /// caches, `examples/shard_model.rs`: 4.20 × the store sent fell to
    /// 1.76 ×). Ranking costs the worker about 9 CPU seconds per stored
    /// GiB, and tabled blocks decode slower than zstd for the jobs that
    /// read them.
    fn ranks_late(&self, verify: bool) -> bool {
        !verify && self.ranking.is_some() && !self.options.deep_verify
    }

    fn task(&self, slice: &SliceInfo, verify: bool, memory: u64) -> Task {
        let identity = self.store.identity();
        Task {
            game: identity.game.clone(),
            game_definition: identity.definition.clone(),
            slice_id: slice.id.clone(),
            depth: self.store.identity().depth,
            dependencies: slice.dependencies.clone(),
            verify,
            zstd_only: self.ranks_late(verify),
            memory,
        }
    }

    /// Checks what a shard's header says (its blocks aside): a slice of
    /// this build, in its encoding, of the slice's length, in blocks of a
    /// size the format allows. Enough to refuse a result before receiving
    /// its blocks.
    pub(crate) fn check_header(
        &self,
        shard: &Shard,
    ) -> Result<(&SliceInfo, CellEncoding), CoordinatorError> {
        let refuse = |reason: String| CoordinatorError::ShardRefused {
            slice: shard.slice_id.to_string(),
            reason,
        };
        let info = self
            .plan
            .iter()
            .find(|s| s.id == shard.slice_id)
            .ok_or_else(|| refuse("not a slice of this build".to_string()))?;
        let encoding = shard.encoding;
        let expected = self.encoding;
        if encoding != expected {
            return Err(refuse(format!(
                "encoding {encoding:?}, the build stores {expected:?}"
            )));
        }
        let expected_len = self.encoding.table_bytes(info.entries);
        if shard.raw_len != expected_len {
            return Err(refuse(format!(
                "{} raw bytes, the slice has {expected_len}",
                shard.raw_len
            )));
        }
        let blocks = shard.raw_len.div_ceil(shard.block_bytes.max(1));
        if let Some(reason) = layout_fault(shard.raw_len, shard.block_bytes, blocks) {
            return Err(refuse(reason));
        }
        Ok((info, encoding))
    }

    /// Checks a result and turns it into its manifest record.
    fn check(&self, result: &SliceResult) -> Result<SliceRecord, CoordinatorError> {
        let shard = &result.shard;
        let refuse = |reason: String| CoordinatorError::ShardRefused {
            slice: shard.slice_id.to_string(),
            reason,
        };
        let (info, encoding) = self.check_header(shard)?;
        if let Some(reason) =
            layout_fault(shard.raw_len, shard.block_bytes, shard.blocks.len() as u64)
        {
            return Err(refuse(reason));
        }
        let mut raw = self.options.deep_verify.then(Vec::new);
        for (index, record) in (0u32..).zip(&shard.blocks) {
            let len = block_len(shard.raw_len, shard.block_bytes, index);
            let found = if let Some(raw) = raw.as_mut() {
                let decoded = decode_block(shard.slice_id.as_str(), index, len, record)?;
                raw.extend_from_slice(&decoded.raw);
                decoded.encoding
            } else {
                check_block(shard.slice_id.as_str(), index, len, record)?.0
            };
            if found != encoding {
                return Err(refuse(format!(
                    "block {index} holds {found:?}, the shard {encoding:?}"
                )));
            }
        }
        if let Some(raw) = raw {
            if crc32fast::hash(&raw) != shard.raw_crc32 {
                return Err(refuse("slice checksum mismatch".to_string()));
            }
        }
        let record = SliceRecord {
            stones: info.stones,
            seconds: result.solve_time.as_secs_f64(),
            ..record_of(shard, result.counts.clone())
        };
        if record.counts.positions != info.positions {
            return Err(refuse(format!(
                "counts cover {} positions of {}",
                record.counts.positions, info.positions
            )));
        }
        Ok(record)
    }
}

/// Bytes a worker holds while solving `slice`: the tables it reads, and
/// three times its own table (Nim: the table, the stored copy and the
/// shard; Morris: 5 bytes per cell while solving, then cells, stored copy
/// and shard). Nim depth tables in RAM keep one row of each symmetry orbit
/// (`kept_entries`) and are stored block by block, whole but with five in
/// six entries zero: their shard is counted as a quarter of the raw size
/// (measured: a thirteenth).
pub fn memory_need(plan: &[SliceInfo], slice: &SliceInfo, encoding: CellEncoding) -> u64 {
    let depth_rows = encoding == CellEncoding::ValueDepth8;
    let held = |s: &SliceInfo| {
        encoding.table_bytes(if depth_rows {
            s.kept_entries
        } else {
            s.entries
        })
    };
    let dependencies: u64 = plan
        .iter()
        .filter(|s| slice.dependencies.contains(&s.id))
        .map(held)
        .sum();
    let own = if depth_rows {
        held(slice) + encoding.table_bytes(slice.entries) / 4
    } else {
        3 * held(slice)
    };
    dependencies + own
}

/// How long a lease lives without a heartbeat.
fn lease_length(options: &BuildOptions) -> Duration {
    Duration::from_secs_f64(options.lease_seconds.max(0.1))
}
