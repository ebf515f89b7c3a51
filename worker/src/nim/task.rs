//! Leased Nim slices: fetch, solve, count, encode.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use egdb_games::nim::NimGame;
use egdb_games::SliceId;
use egdb_proto::Task;

use super::NimEngine;
use crate::solver::{keep_dependencies, SliceSolver, SolveContext, Solved, TableBytes};
use crate::table::SliceTable;
use crate::WorkerError;

/// The Nim engine of one game and the tables later tasks will read.
pub struct NimTasks {
    engine: NimEngine,
    loaded: HashMap<u32, Arc<SliceTable>>,
}

impl NimTasks {
    pub fn new(game: NimGame) -> NimTasks {
        NimTasks {
            engine: NimEngine::new(game),
            loaded: HashMap::new(),
        }
    }

    fn slice_number(&self, task: &Task, id: &SliceId) -> Result<u32, WorkerError> {
        self.engine
            .game()
            .slice_number(id)
            .ok_or_else(|| WorkerError::BadTask(format!("{id} is not a slice of {}", task.game)))
    }
}

impl SliceSolver for NimTasks {
    fn solve(&mut self, task: &Task, context: SolveContext<'_>) -> Result<Solved, WorkerError> {
        let (source, options, cancel) = context.parts();
        let h = self.slice_number(task, &task.slice_id)?;
        let needed = task
            .dependencies
            .iter()
            .map(|d| self.slice_number(task, d))
            .collect::<Result<Vec<_>, _>>()?;
        let engine = &self.engine;
        keep_dependencies(
            &mut self.loaded,
            (&task.dependencies, &needed),
            source,
            (context.keeping, egdb_games::nim::slice_id),
            |s, encoding, raw| engine.table_from_stored(s, encoding, raw),
        )?;
        let started = Instant::now();
        let table = self.engine.solve(h, task.depth, &self.loaded, cancel)?;
        let solved = started.elapsed().as_secs_f64();
        let counts = self.engine.counts(h, &table)?;
        let shard = self.engine.shard(h, &table, options)?;
        tracing::debug!(slice = %task.slice_id, solved, seconds = started.elapsed().as_secs_f64(), "solved");
        self.loaded.insert(h, Arc::new(table));
        Ok(Solved { shard, counts })
    }

    fn kept(&self) -> Vec<SliceId> {
        self.loaded
            .keys()
            .map(|&h| egdb_games::nim::slice_id(h))
            .collect()
    }
}

impl TableBytes for SliceTable {
    fn table_bytes(&self) -> u64 {
        match self {
            SliceTable::Bits(words) => std::mem::size_of_val(words.as_slice()) as u64,
            SliceTable::Depths(planes) => std::mem::size_of_val(planes.as_slice()) as u64,
        }
    }
}
