//! The worker: pulls slices from a coordinator, solves them in RAM and hands
//! back their shards. The same code serves the embedded build and remote
//! workers; only the [`Coordinator`] behind it differs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use egdb_games::nim::NimGame;
use egdb_games::{GameSpec, SliceId};
use egdb_proto::v1::{SliceCounts as WireCounts, SliceResult, SliceTask};
use egdb_proto::Coordinator;

use crate::nim::NimEngine;
use crate::shard::{decode_shard, encode_shard};
use crate::table::SliceTable;
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
    engines: HashMap<String, Arc<NimEngine>>,
    /// Tables of slices solved or fetched, kept while later tasks read them.
    cache: HashMap<(String, u32), Arc<SliceTable>>,
}

impl<'a> Worker<'a> {
    pub fn new(config: WorkerConfig, link: &'a dyn Coordinator) -> Worker<'a> {
        Worker {
            config,
            link,
            engines: HashMap::new(),
            cache: HashMap::new(),
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

    fn engine(&mut self, task: &SliceTask) -> Result<Arc<NimEngine>, WorkerError> {
        if let Some(engine) = self.engines.get(&task.game) {
            return Ok(engine.clone());
        }
        let spec: GameSpec = task
            .game
            .parse()
            .map_err(|e: egdb_games::GameError| WorkerError::BadTask(e.to_string()))?;
        let definition =
            (!task.game_definition.is_empty()).then_some(task.game_definition.as_str());
        let game = NimGame::from_spec_with_definition(&spec, definition)
            .map_err(|e| WorkerError::BadTask(e.to_string()))?;
        let engine = Arc::new(NimEngine::new(game));
        self.engines.insert(task.game.clone(), engine.clone());
        Ok(engine)
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
        let engine = self.engine(task)?;
        let slice_number = |id: &str| {
            engine
                .game()
                .slice_number(&SliceId::new(id))
                .ok_or_else(|| {
                    WorkerError::BadTask(format!("{id} is not a slice of {}", task.game))
                })
        };
        let h = slice_number(&task.slice_id)?;
        let needed = task
            .dependencies
            .iter()
            .map(|d| slice_number(d))
            .collect::<Result<Vec<_>, _>>()?;
        self.cache
            .retain(|(game, s), _| *game == task.game && needed.contains(s));
        let mut tables = HashMap::new();
        for (id, &s) in task.dependencies.iter().zip(&needed) {
            let key = (task.game.clone(), s);
            let table = match self.cache.get(&key) {
                Some(table) => table.clone(),
                None => {
                    let shard = self.link.fetch_shard(id)?;
                    let (encoding, raw) = decode_shard(&shard)?;
                    let table = Arc::new(engine.table_from_stored(s, encoding, raw)?);
                    self.cache.insert(key, table.clone());
                    table
                }
            };
            tables.insert(s, table);
        }
        let started = Instant::now();
        let table = engine.solve(h, task.depth, &tables, cancel)?;
        let solved = started.elapsed().as_secs_f64();
        let counts = engine.counts(h, &table)?;
        let counted = started.elapsed().as_secs_f64();
        let (encoding, bytes) = engine.stored_bytes(h, &table);
        let shard = encode_shard(
            &task.slice_id,
            encoding,
            &bytes,
            self.config.block_bytes,
            self.config.zstd_level,
        )?;
        let seconds = started.elapsed().as_secs_f64();
        tracing::debug!(slice = %task.slice_id, solved, counted, seconds, positions = counts.positions, "solved");
        self.cache.insert((task.game.clone(), h), Arc::new(table));
        Ok(SliceResult {
            shard: Some(shard),
            counts: Some(WireCounts::from(&counts)),
            solve_seconds: seconds,
        })
    }
}
