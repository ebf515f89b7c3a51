//! The worker: pulls slices from a coordinator, solves them in RAM and hands
//! back their shards. The same code serves the embedded build and remote
//! workers; only the [`Coordinator`] behind it differs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use egdb_games::{Game, GameSpec};
use egdb_proto::v1::{SliceCounts as WireCounts, SliceResult, SliceTask};
use egdb_proto::Coordinator;

use crate::morris::task::MorrisTasks;
use crate::nim::task::NimTasks;
use crate::solver::{ShardOptions, SliceSolver};
use crate::WorkerError;

/// How a worker stores what it solves.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub name: String,
    pub block_bytes: usize,
    pub zstd_level: i32,
    /// Pause between asks when no slice is ready.
    pub poll: Duration,
}

impl WorkerConfig {
    pub fn named(name: impl Into<String>) -> WorkerConfig {
        WorkerConfig {
            name: name.into(),
            block_bytes: egdb_db_format::DEFAULT_BLOCK_BYTES,
            zstd_level: 1,
            poll: Duration::from_millis(20),
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

pub struct Worker<'a> {
    config: WorkerConfig,
    link: &'a dyn Coordinator,
    /// The engine of the game last leased, with the tables it keeps.
    solver: Option<(String, Box<dyn SliceSolver + 'a>)>,
}

impl<'a> Worker<'a> {
    pub fn new(config: WorkerConfig, link: &'a dyn Coordinator) -> Worker<'a> {
        Worker {
            config,
            link,
            solver: None,
        }
    }

    /// Solves slices until the coordinator says stop or `cancel` is set; a slice
    /// in progress when cancelled is given back.
    ///
    /// # Errors
    /// A failed solve (after giving the lease back) or a coordinator error.
    pub fn run(&mut self, cancel: &AtomicBool) -> Result<WorkerReport, WorkerError> {
        let started = Instant::now();
        let mut report = WorkerReport::default();
        let name = self.config.name.clone();
        while !cancel.load(Ordering::Relaxed) {
            let reply = self.link.lease(&name)?;
            let Some(task) = reply.task else {
                if reply.stop {
                    break;
                }
                std::thread::sleep(self.config.poll);
                continue;
            };
            match self.solve(&task, cancel) {
                Ok(result) => {
                    report.slices += 1;
                    report.positions += result.counts.as_ref().map_or(0, |c| c.positions);
                    self.link.complete(&name, result)?;
                }
                Err(WorkerError::Cancelled) => {
                    self.link.fail(&name, &task.slice_id, "interrupted")?;
                    break;
                }
                Err(e) => {
                    self.link.fail(&name, &task.slice_id, &e.to_string())?;
                    return Err(e);
                }
            }
        }
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// The solver of the task's game, made anew when the game changes.
    fn solver(&mut self, task: &SliceTask) -> Result<&mut Box<dyn SliceSolver + 'a>, WorkerError> {
        if self
            .solver
            .as_ref()
            .is_none_or(|(game, _)| *game != task.game)
        {
            let bad = |e: egdb_games::GameError| WorkerError::BadTask(e.to_string());
            let spec: GameSpec = task.game.parse().map_err(bad)?;
            let definition =
                (!task.game_definition.is_empty()).then_some(task.game_definition.as_str());
            let solver: Box<dyn SliceSolver> =
                match Game::from_spec_with_definition(&spec, definition).map_err(bad)? {
                    Game::Nim(game) => Box::new(NimTasks::new(game)),
                    Game::Morris(game) => Box::new(MorrisTasks::new(game)),
                };
            // Drop the old game's tables before the new one fills memory.
            self.solver = None;
            self.solver = Some((task.game.clone(), solver));
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
    pub fn solve(
        &mut self,
        task: &SliceTask,
        cancel: &AtomicBool,
    ) -> Result<SliceResult, WorkerError> {
        let options = ShardOptions {
            block_bytes: self.config.block_bytes,
            zstd_level: self.config.zstd_level,
        };
        let link = self.link;
        let started = Instant::now();
        let solved = self.solver(task)?.solve(task, link, options, cancel)?;
        Ok(SliceResult {
            shard: Some(solved.shard),
            counts: Some(WireCounts::from(&solved.counts)),
            solve_seconds: started.elapsed().as_secs_f64(),
        })
    }
}
