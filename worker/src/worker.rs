//! The worker: pulls slices from a coordinator, solves them in RAM and hands
//! back their shards. The same code serves the embedded build and remote
//! workers; only the [`Coordinator`] behind it differs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use egdb_check::{Checker, Fetched};
use egdb_db_format::Packing;
use egdb_games::{with_game, Game, GameSpec, SliceId};
use egdb_proto::{CheckReport, Coordinator, Lease, LinkKind, SliceResult, Task, WorkerInfo};

use crate::cache::ShardCache;
use crate::morris::task::MorrisTasks;
use crate::nim::task::NimTasks;
use crate::plain::PlainTasks;
use crate::solver::{Keeping, ShardOptions, SliceSolver, SolveContext};
use crate::sound::SoundShards;
use crate::source::ShardSource;
use crate::WorkerError;

/// Who a worker is and how it stores what it solves.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub name: String,
    /// Engine threads, as told to the coordinator.
    pub threads: u32,
    /// Bytes the worker may use for one slice: it is leased nothing larger.
    pub memory: u64,
    /// Refuse to work for a coordinator that builds another game.
    pub game: Option<String>,
    pub block_bytes: usize,
    pub zstd_level: i32,
    /// Pause between asks when no slice is ready.
    pub poll: Duration,
    /// Keep tables later tasks read in the memory beyond each task's need
    /// (a worker process of its own: its memory is its alone; workers of
    /// one `egdb build` share one budget's machine, and keep only what the
    /// task reads).
    pub keep_for_later: bool,
}

impl WorkerConfig {
    pub fn named(name: impl Into<String>, memory: u64) -> WorkerConfig {
        WorkerConfig {
            name: name.into(),
            threads: rayon::current_num_threads() as u32,
            memory,
            game: None,
            block_bytes: egdb_db_format::DEFAULT_BLOCK_BYTES,
            zstd_level: 1,
            poll: Duration::from_millis(20),
            keep_for_later: false,
        }
    }
}

/// What a worker did before it stopped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkerReport {
    pub slices: u64,
    pub positions: u64,
    pub seconds: f64,
}

/// Which game a kept engine or checker plays: the spec and, for game
/// files, the definition, which a coordinator started again may have
/// changed under the same path.
struct GameKey {
    spec: String,
    definition: Option<String>,
}

impl GameKey {
    fn of(task: &Task) -> GameKey {
        GameKey {
            spec: task.game.clone(),
            definition: task.game_definition.clone(),
        }
    }

    fn is_of(&self, task: &Task) -> bool {
        self.spec == task.game && self.definition == task.game_definition
    }
}

pub struct Worker<'a> {
    config: WorkerConfig,
    link: &'a dyn Coordinator,
    /// The engine of the game last leased, with the tables it keeps.
    solver: Option<(GameKey, Box<dyn SliceSolver + 'a>)>,
    /// The checker of the game last leased for verification, with the
    /// decoded slices it keeps.
    checker: Option<(GameKey, Checker)>,
    /// Shards kept on disk across restarts, if the worker has a cache.
    cache: Option<ShardCache>,
    /// Dependencies found sound, across solvers: a check drops the solver.
    sound: Arc<SoundShards>,
    /// Tells this process from another under the same name.
    instance: u64,
    /// The earlier process under this name, known gone (the cache says).
    replaces: Option<u64>,
    /// Of the slices held at the last lease, those still read, soonest
    /// first (`None`: the coordinator did not say).
    still_read: Option<Vec<SliceId>>,
}

impl<'a> Worker<'a> {
    pub fn new(config: WorkerConfig, link: &'a dyn Coordinator) -> Worker<'a> {
        Worker {
            config,
            link,
            solver: None,
            checker: None,
            cache: None,
            sound: Arc::default(),
            instance: WorkerInfo::new_instance(),
            replaces: None,
            still_read: None,
        }
    }

    /// Reads dependencies from `cache` where it has them, and keeps every
    /// shard fetched or solved there. A cached shard larger than the
    /// worker's memory is refused (and fetched instead), like a fetched one.
    /// The process that last joined a build with this cache is gone (this
    /// one holds its lock): the worker says it replaces that one.
    pub fn with_cache(mut self, cache: ShardCache) -> Worker<'a> {
        self.replaces = cache.previous_instance();
        self.cache = Some(cache.with_max_shard_bytes(self.config.memory));
        self
    }

    /// Registers, then solves slices until the coordinator says stop or
    /// `cancel` is set; a slice in progress when cancelled is given back, one
    /// whose lease is lost (no heartbeat got through in time) is dropped.
    ///
    /// # Errors
    /// A refused registration, a failed solve (after giving the lease
    /// back) or a coordinator error.
    pub fn run(&mut self, cancel: &AtomicBool) -> Result<WorkerReport, WorkerError> {
        let started = Instant::now();
        let mut report = WorkerReport::default();
        let name = self.config.name.clone();
        let info = WorkerInfo {
            name: name.clone(),
            threads: self.config.threads,
            memory: self.config.memory,
            game: self.config.game.clone(),
            instance: self.instance,
            replaces: self.replaces,
        };
        let registration = self.link.register(&info)?;
        if let Some(cache) = &self.cache {
            // Costs only the next process's wait for the name if it fails.
            if let Err(e) = cache.record_instance(self.instance) {
                tracing::warn!(worker = %name, error = %e, "cannot write the instance into the cache");
            }
        }
        // From the coordinator: bounded before a duration is made of it
        // (NaN and infinity would panic), a beat at least every 10 minutes.
        let third = registration.lease_seconds / 3.0;
        let beat = Duration::from_secs_f64(if third.is_finite() {
            third.clamp(0.05, 600.0)
        } else {
            600.0
        });
        tracing::info!(worker = %name, game = %registration.game, "registered");
        while !cancel.load(Ordering::Relaxed) {
            let held = self.held();
            let leased = match self.link.lease_holding(&name, &held) {
                Ok(leased) => leased,
                // A coordinator restarted since: join it again.
                Err(e) if e.kind == LinkKind::NotFound => {
                    tracing::info!(worker = %name, "registering again");
                    self.link.register(&info)?;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if let (Some(cache), Some(still_read)) = (&self.cache, &leased.still_read) {
                cache.still_read(still_read);
            }
            self.still_read = leased.still_read;
            let task = match leased.lease {
                Lease::Task(task) => task,
                Lease::Stop => break,
                Lease::Wait => {
                    std::thread::sleep(self.config.poll);
                    continue;
                }
            };
            let lease = LeaseFlags::default();
            let outcome = std::thread::scope(|scope| {
                let (link, lease) = (self.link, &lease);
                let (name, slice) = (name.as_str(), &task.slice_id);
                let keeper =
                    scope.spawn(move || keep_lease(link, name, slice, beat, cancel, lease));
                let outcome = if task.verify {
                    self.verify(&task, &lease.stop).map(Outcome::Checked)
                } else {
                    self.solve(&task, &lease.stop).map(Outcome::Solved)
                };
                lease.finished.store(true, Ordering::Relaxed);
                // Wake it from its pause: the next lease need not wait.
                keeper.thread().unpark();
                outcome
            });
            let outcome = match outcome {
                Ok(Outcome::Checked(found)) => {
                    let positions = found.check.positions;
                    match self.link.checked(&name, found) {
                        Ok(()) => {
                            report.slices += 1;
                            report.positions += positions;
                        }
                        // The lease ran out meanwhile: the slice is checked again.
                        Err(e) if e.kind == LinkKind::Refused => {
                            tracing::warn!(worker = %name, slice = %task.slice_id, error = %e, "check refused");
                        }
                        Err(e) => return Err(e.into()),
                    }
                    continue;
                }
                Ok(Outcome::Solved(result)) => Ok(result),
                Err(e) => Err(e),
            };
            match outcome {
                Ok(result) => {
                    let positions = result.counts.positions;
                    match self.link.complete(&name, result) {
                        Ok(()) => {
                            report.slices += 1;
                            report.positions += positions;
                        }
                        // Damaged on the way, say: the slice is leased again.
                        Err(e) if e.kind == LinkKind::Refused => {
                            tracing::warn!(worker = %name, slice = %task.slice_id, error = %e, "result refused");
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
                Err(WorkerError::Cancelled) if lease.lost.load(Ordering::Relaxed) => {
                    tracing::warn!(worker = %name, slice = %task.slice_id, "lease lost; dropping the slice");
                }
                Err(WorkerError::Cancelled) => {
                    self.give_back(&name, &task.slice_id, "interrupted");
                    break;
                }
                Err(e) => {
                    self.give_back(&name, &task.slice_id, &e.to_string());
                    return Err(e);
                }
            }
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// What `task` may keep for the tasks after it: the memory the worker
    /// has beyond the task's need, for the slices still read (nothing
    /// when the coordinator says neither, or the worker shares its memory).
    fn keeping(&self, task: &Task) -> Keeping {
        match &self.still_read {
            Some(still_read) if task.memory > 0 && self.config.keep_for_later => {
                Keeping::new(self.config.memory.saturating_sub(task.memory), still_read)
            }
            _ => Keeping::default(),
        }
    }

    /// The slices whose tables this worker has without fetching them: kept
    /// in memory by its engine or checker, or in its cache.
    fn held(&self) -> Vec<SliceId> {
        let mut held = self
            .cache
            .as_ref()
            .map(ShardCache::held)
            .unwrap_or_default();
        if let Some((_, solver)) = &self.solver {
            held.extend(solver.kept());
        }
        if let Some((_, checker)) = &self.checker {
            held.extend(checker.kept_slices());
        }
        held.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
        held.dedup();
        held
    }

    /// Gives a slice's lease back; a coordinator that refuses (the lease
    /// ran out and went elsewhere) or cannot be reached only gets the slice
    /// back when the lease expires, which is said in the log.
    fn give_back(&self, name: &str, slice: &SliceId, reason: &str) {
        if let Err(e) = self.link.fail(name, slice, reason) {
            tracing::warn!(worker = %name, slice = slice.as_str(), error = %e, "lease not given back");
        }
    }

    /// The solver of the task's game, made anew when the game changes.
    fn solver(&mut self, task: &Task) -> Result<&mut Box<dyn SliceSolver + 'a>, WorkerError> {
        if self
            .solver
            .as_ref()
            .is_none_or(|(game, _)| !game.is_of(task))
        {
            let solver: Box<dyn SliceSolver> = match game_of(task)? {
                Game::Nim(game) => Box::new(NimTasks::new(game)),
                Game::Morris(game) => Box::new(MorrisTasks::new(game)),
                other => with_game!(&other, g => {
                    Box::new(PlainTasks::new(g.clone())) as Box<dyn SliceSolver>
                }),
            };
            // Drop the old game's tables before the new one fills memory.
            self.solver = None;
            self.solver = Some((GameKey::of(task), solver));
        }
        match &mut self.solver {
            Some((_, solver)) => Ok(solver),
            None => unreachable!("set above"),
        }
    }

    /// Solves one task: fetches what it depends on, solves, encodes.
    ///
    /// # Errors
    /// [`WorkerError::BadTask`] for a task that names no slice of its game;
    /// shard, engine and coordinator errors.
    pub fn solve(&mut self, task: &Task, cancel: &AtomicBool) -> Result<SliceResult, WorkerError> {
        // Slices kept decoded for checks would sit beside the solve's own.
        self.checker = None;
        let options = ShardOptions {
            block_bytes: self.config.block_bytes,
            packing: if task.zstd_only {
                Packing::Quick(self.config.zstd_level)
            } else {
                Packing::Small(self.config.zstd_level)
            },
        };
        let link = self.link;
        let started = Instant::now();
        // Taken out while the solver borrows the worker; put back after.
        let cache = self.cache.take();
        let name = self.config.name.clone();
        let source = ShardSource::new(link, &name, task, cache.as_ref());
        let sound = Arc::clone(&self.sound);
        let keeping = self.keeping(task);
        let solved = self.solver(task).and_then(|solver| {
            let context = SolveContext {
                source: &source,
                options,
                cancel,
                sound: &sound,
                keeping: &keeping,
            };
            solver.solve(task, context)
        });
        if let Ok(solved) = &solved {
            // Later slices read this one: after a restart, from disk.
            source.keep(&solved.shard);
        }
        let fetching = source.fetch_time().as_secs_f64();
        let split = source.fetch_split();
        self.cache = cache;
        let solved = solved?;
        // Where a task's time goes: fetching its dependencies (split), the
        // rest; keeping the solved shard counts as a cache write.
        tracing::info!(slice = %task.slice_id, seconds = started.elapsed().as_secs_f64(), fetching, wire = split.wire, decode = split.decode, cache_read = split.cache_read, cache_write = split.cache_write, bytes_fetched = split.bytes_fetched, bytes_from_cache = split.bytes_from_cache, "slice solved");
        Ok(SliceResult {
            shard: solved.shard,
            counts: solved.counts,
            solve_time: started.elapsed(),
        })
    }
}

/// What came of a leased task.
enum Outcome {
    Solved(SliceResult),
    Checked(CheckReport),
}

impl Worker<'_> {
    /// Checks a finished slice against its moves (a coordinator verifying
    /// a store): the slice and those it reads are fetched and checked like
    /// dependencies; a damaged one fails the check rather than the worker.
    ///
    /// # Errors
    /// [`WorkerError::BadTask`] for a game this egdb does not know;
    /// [`WorkerError::Cancelled`]; coordinator errors.
    pub fn verify(&mut self, task: &Task, cancel: &AtomicBool) -> Result<CheckReport, WorkerError> {
        let started = Instant::now();
        // The engine's kept tables would sit beside the check's slices,
        // past the worker's memory (P = 12: 12.5 GiB under a 9 GiB budget).
        self.solver = None;
        if self
            .checker
            .as_ref()
            .is_none_or(|(game, _)| !game.is_of(task))
        {
            let game = game_of(task)?;
            self.checker = None;
            self.checker = Some((GameKey::of(task), Checker::new(game, self.config.memory)));
        }
        let Some((_, checker)) = &mut self.checker else {
            unreachable!("set above");
        };
        let cache = self.cache.take();
        let name = self.config.name.clone();
        let source = ShardSource::new(self.link, &name, task, cache.as_ref());
        let mut crc = 0;
        let checked = checker.check(&task.slice_id, cancel, |id| {
            let fetched = source.fetch(id);
            if *id == task.slice_id {
                if let Ok((_, raw)) = &fetched {
                    crc = crc32fast::hash(raw);
                }
            }
            match fetched {
                Ok((encoding, raw)) => Ok(Fetched::Slice(encoding, raw)),
                Err(WorkerError::Format(e @ egdb_db_format::FormatError::Corrupt { .. })) => {
                    Ok(Fetched::Corrupt(e.to_string()))
                }
                Err(WorkerError::Link(e)) if e.kind == LinkKind::DataLoss => {
                    Ok(Fetched::Corrupt(e.message))
                }
                Err(WorkerError::Link(e)) if e.kind == LinkKind::NotFound => Ok(Fetched::Missing),
                Err(e) => Err(e),
            }
        });
        let fetching = source.fetch_time().as_secs_f64();
        let split = source.fetch_split();
        self.cache = cache;
        let check = checked?.ok_or(WorkerError::Cancelled)?;
        tracing::info!(slice = %task.slice_id, passed = check.passed(), seconds = started.elapsed().as_secs_f64(), fetching, wire = split.wire, decode = split.decode, cache_read = split.cache_read, cache_write = split.cache_write, bytes_fetched = split.bytes_fetched, bytes_from_cache = split.bytes_from_cache, "slice checked");
        Ok(CheckReport {
            check,
            raw_crc32: crc,
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// Longest game spec a task may name: a file's path (as Linux bounds it)
/// and the family's words around it.
const MAX_TASK_SPEC_BYTES: usize = 4096 + 64;

/// The game a task names. A game file's definition comes with the task:
/// the worker never reads a path the coordinator names on this machine.
fn game_of(task: &Task) -> Result<Game, WorkerError> {
    if task.game.len() > MAX_TASK_SPEC_BYTES {
        return Err(WorkerError::BadTask(format!(
            "the task's game spec holds {} bytes; at most {MAX_TASK_SPEC_BYTES}",
            task.game.len()
        )));
    }
    let bad = |e: egdb_games::GameError| WorkerError::BadTask(e.to_string());
    let spec: GameSpec = task.game.parse().map_err(bad)?;
    let from_file = matches!(spec, GameSpec::NimFile { .. } | GameSpec::MorrisFile { .. });
    if from_file && task.game_definition.is_none() {
        return Err(WorkerError::BadTask(format!(
            "the task names the game file `{}` without its definition",
            egdb_games::printable(&task.game)
        )));
    }
    Game::from_spec_with_definition(&spec, task.game_definition.as_deref()).map_err(bad)
}

/// Between the solve of one leased slice and the thread that keeps its lease.
#[derive(Default)]
struct LeaseFlags {
    /// Stop solving: the worker is cancelled or the lease is lost.
    stop: AtomicBool,
    lost: AtomicBool,
    /// The solve is over, one way or another.
    finished: AtomicBool,
}

impl LeaseFlags {
    fn lose(&self) {
        self.lost.store(true, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// While a slice is solved: renews its lease every `beat`, and stops the
/// solve when the worker is cancelled or the lease is lost.
fn keep_lease(
    link: &dyn Coordinator,
    worker: &str,
    slice: &SliceId,
    beat: Duration,
    cancel: &AtomicBool,
    lease: &LeaseFlags,
) {
    let tick = Duration::from_millis(50).min(beat);
    let mut last = Instant::now();
    while !lease.finished.load(Ordering::Relaxed) {
        std::thread::park_timeout(tick);
        if lease.finished.load(Ordering::Relaxed) {
            break;
        }
        if cancel.load(Ordering::Relaxed) {
            lease.stop.store(true, Ordering::Relaxed);
        }
        if last.elapsed() >= beat {
            last = Instant::now();
            match link.heartbeat(worker, slice) {
                Ok(true) => {}
                Ok(false) => lease.lose(),
                // Unreachable for longer than the client waits: the lease
                // has run out by now.
                Err(e) => {
                    tracing::warn!(worker, slice = slice.as_str(), error = %e, "heartbeat failed");
                    lease.lose();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(game: &str, definition: Option<&str>) -> Task {
        Task {
            game: game.to_string(),
            game_definition: definition.map(str::to_string),
            slice_id: SliceId::new("stones-3"),
            depth: true,
            dependencies: Vec::new(),
            verify: false,
            zstd_only: false,
            memory: 0,
        }
    }

    #[test]
    fn a_kept_engine_is_of_the_same_spec_and_definition() {
        let kept = GameKey::of(&task("nim:file:g.toml", Some("cells = 3")));
        assert!(kept.is_of(&task("nim:file:g.toml", Some("cells = 3"))));
        // The file edited under the same path, the coordinator started again.
        assert!(!kept.is_of(&task("nim:file:g.toml", Some("cells = 4"))));
        assert!(!kept.is_of(&task("nim:file:h.toml", Some("cells = 3"))));
    }

    #[test]
    fn a_task_names_no_file_for_the_worker_to_read() {
        // The file exists here: still refused, as it came without its text.
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), "cells = 3\nmoves = [[0], [1], [2]]\n").unwrap();
        for family in ["nim", "morris"] {
            let game = format!("{family}:file:{}", file.path().display());
            match game_of(&task(&game, None)) {
                Err(WorkerError::BadTask(reason)) => {
                    assert!(reason.contains("without its definition"), "{reason}")
                }
                other => panic!("{game}: {:?}", other.err()),
            }
        }
        let long = format!("nim:file:/{}", "x".repeat(MAX_TASK_SPEC_BYTES));
        match game_of(&task(&long, Some("cells = 3"))) {
            Err(WorkerError::BadTask(reason)) => assert!(reason.contains("at most"), "{reason}"),
            other => panic!("{:?}", other.err()),
        }
        assert!(game_of(&task("nim:triangle:3:normal", None)).is_ok());
    }
}
