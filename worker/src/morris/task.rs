//! Leased Morris slices: fetch, solve, count (checked against Burnside),
//! encode.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use egdb_check::stored::{morris_tables, WrongSize};
use egdb_db_format::encoding::{unpack_value_depth16, MAX_DEPTH16};
use egdb_db_format::{CellEncoding, SliceCounts, ValueCode};
use egdb_games::morris::burnside::class_count;
use egdb_games::morris::{MorrisGame, MorrisSlice};
use egdb_proto::{SliceId, Task};
use rayon::prelude::*;

use super::solved::{Dependencies, SolvedSlice, SolvedTable};
use super::MorrisEngine;
use crate::solver::{keep_dependencies, shard_of, SliceSolver, SolveContext, Solved, TableBytes};
use crate::WorkerError;

/// The Morris engine of one game and the slices later tasks will read.
pub struct MorrisTasks {
    engine: MorrisEngine,
    /// Every slice of the game with the slices it reads.
    plan: HashMap<MorrisSlice, Vec<MorrisSlice>>,
    loaded: Dependencies,
}

impl MorrisTasks {
    pub fn new(game: MorrisGame) -> MorrisTasks {
        MorrisTasks {
            plan: game.plan().into_iter().collect(),
            engine: MorrisEngine::new(game),
            loaded: Dependencies::new(),
        }
    }

    fn slice(&self, task: &Task, id: &SliceId) -> Result<MorrisSlice, WorkerError> {
        MorrisSlice::parse(id.as_str())
            .filter(|s| self.plan.contains_key(s))
            .ok_or_else(|| WorkerError::BadTask(format!("{id} is not a slice of {}", task.game)))
    }
}

impl SliceSolver for MorrisTasks {
    fn solve(&mut self, task: &Task, context: SolveContext<'_>) -> Result<Solved, WorkerError> {
        let (source, options, cancel) = context.parts();
        let slice = self.slice(task, &task.slice_id)?;
        let needed = task
            .dependencies
            .iter()
            .map(|d| self.slice(task, d))
            .collect::<Result<Vec<_>, _>>()?;
        // The engines read every slice of the plan's list; a task that lists
        // fewer is refused rather than left to fail half-way.
        if let Some(missing) = self.plan[&slice].iter().find(|d| !needed.contains(d)) {
            return Err(WorkerError::BadTask(format!(
                "{slice} reads {missing}, which the task does not list"
            )));
        }
        keep_dependencies(
            &mut self.loaded,
            (&task.dependencies, &needed),
            source,
            (context.keeping, |s: MorrisSlice| {
                SliceId::new(s.to_string())
            }),
            |s, encoding, raw| {
                let solved = tables_from_stored(s, encoding, &raw)?;
                context
                    .sound
                    .check_once(&s.to_string(), &raw, || check_stored(&solved))?;
                Ok(solved)
            },
        )?;
        let started = Instant::now();
        let solved = self.engine.solve(slice, &self.loaded, cancel)?;
        let seconds = started.elapsed().as_secs_f64();
        let counts = counts(&solved)?;
        let raw = stored_bytes(&solved);
        let shard = shard_of(&task.slice_id, CellEncoding::ValueDepth16, &raw, options)?;
        drop(raw);
        tracing::debug!(%slice, seconds, total = started.elapsed().as_secs_f64(), "solved");
        self.loaded.insert(slice, Arc::new(solved));
        Ok(Solved { shard, counts })
    }

    fn kept(&self) -> Vec<SliceId> {
        self.loaded
            .keys()
            .map(|slice| SliceId::new(slice.to_string()))
            .collect()
    }
}

impl TableBytes for SolvedSlice {
    fn table_bytes(&self) -> u64 {
        self.tables.iter().map(|t| 2 * t.cells.len() as u64).sum()
    }
}

/// A slice's stored bytes: its tables one after the other, 16-bit cells
/// little-endian.
pub fn stored_bytes(solved: &SolvedSlice) -> Vec<u8> {
    let cells: usize = solved.tables.iter().map(|t| t.cells.len()).sum();
    let mut raw = Vec::with_capacity(2 * cells);
    for table in &solved.tables {
        raw.extend(table.cells.iter().flat_map(|c| c.to_le_bytes()));
    }
    raw
}

/// A solved slice from its stored bytes, checked as [`counts`] checks a
/// solved one.
///
/// # Errors
/// [`WorkerError::BadShard`] when the bytes do not fit the slice, or a
/// class entry holds no value, or a duplicate one.
pub fn from_stored(
    slice: MorrisSlice,
    encoding: CellEncoding,
    raw: &[u8],
) -> Result<SolvedSlice, WorkerError> {
    let solved = tables_from_stored(slice, encoding, raw)?;
    check_stored(&solved)?;
    Ok(solved)
}

/// A slice's tables from its stored bytes, of the right size and kind but
/// not yet [`check_stored`].
///
/// # Errors
/// [`WorkerError::BadShard`] when the bytes do not fit the slice.
pub fn tables_from_stored(
    slice: MorrisSlice,
    encoding: CellEncoding,
    raw: &[u8],
) -> Result<SolvedSlice, WorkerError> {
    if encoding != CellEncoding::ValueDepth16 {
        return Err(bad_shard(
            slice,
            format!("{encoding:?} cells in a Morris slice"),
        ));
    }
    let tables = morris_tables(&slice, raw)
        .map_err(|WrongSize { bytes, entries }| {
            bad_shard(slice, format!("{bytes} bytes for {entries} cells"))
        })?
        .into_iter()
        .map(|(index, cells)| SolvedTable { index, cells })
        .collect();
    Ok(SolvedSlice { slice, tables })
}

/// The engines read class entries only and take them to hold a value: a
/// shard that passed its checksums but breaks that (a peer's bug) is
/// refused here rather than misread.
///
/// # Errors
/// [`WorkerError::BadShard`] when a class entry holds no value, or a
/// duplicate one, or a depth no game reaches.
pub fn check_stored(solved: &SolvedSlice) -> Result<(), WorkerError> {
    let bad = |reason: String| bad_shard(solved.slice, reason);
    let counts = counts(solved).map_err(|e| bad(e.to_string()))?;
    // A position one ply before the deepest depth a cell holds could not
    // be stored: no game goes that deep.
    if counts.max_depth == Some(u32::from(MAX_DEPTH16)) {
        return Err(bad(format!(
            "a position at depth {MAX_DEPTH16}, the deepest a cell holds"
        )));
    }
    Ok(())
}

fn bad_shard(slice: MorrisSlice, reason: String) -> WorkerError {
    WorkerError::BadShard {
        slice: slice.to_string(),
        reason,
    }
}

/// Counts of one table or slice, both per arrangement and per class.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    positions: u64,
    win: u64,
    loss: u64,
    draw: u64,
    classes: u64,
    class_win: u64,
    class_loss: u64,
    class_draw: u64,
    max_depth: u16,
    /// Class entries without a value, or duplicates with one.
    misplaced: u64,
}

impl Tally {
    #[inline]
    fn add(&mut self, cell: u16, canonical: bool, class_size: u64) {
        let (code, depth) = unpack_value_depth16(cell);
        if !canonical {
            self.misplaced += u64::from(code != ValueCode::DontCare);
            return;
        }
        self.positions += class_size;
        self.classes += 1;
        match code {
            ValueCode::Win => (self.win += class_size, self.class_win += 1),
            ValueCode::Loss => (self.loss += class_size, self.class_loss += 1),
            ValueCode::Draw => (self.draw += class_size, self.class_draw += 1),
            ValueCode::DontCare => (self.misplaced += 1, ()),
        };
        self.max_depth = self.max_depth.max(depth);
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.positions += other.positions;
        self.win += other.win;
        self.loss += other.loss;
        self.draw += other.draw;
        self.classes += other.classes;
        self.class_win += other.class_win;
        self.class_loss += other.class_loss;
        self.class_draw += other.class_draw;
        self.max_depth = self.max_depth.max(other.max_depth);
        self.misplaced += other.misplaced;
        self
    }
}

fn tally(table: &SolvedTable) -> Tally {
    let index = &table.index;
    (0..index.rep_count())
        .into_par_iter()
        .fold(Tally::default, |mut tally, id| {
            if index.rep_is_asymmetric(id) {
                let range = index.rep_range(id);
                for &cell in &table.cells[range.start as usize..range.end as usize] {
                    tally.add(cell, true, 16);
                }
            } else {
                index.for_each_entry_of_rep(id, |i, entry| {
                    let cell = table.cells[i as usize];
                    tally.add(cell, entry.canonical, u64::from(entry.class_size));
                });
            }
            tally
        })
        .reduce(Tally::default, Tally::merge)
}

/// The counts `egdb stats` prints, after checking each table against
/// Burnside's count of its arrangements and classes.
///
/// # Errors
/// [`WorkerError::SymmetryInconsistent`] when they disagree, or a class
/// entry has no value: the index, the symmetries or the engine is wrong.
pub fn counts(solved: &SolvedSlice) -> Result<SliceCounts, WorkerError> {
    let mut total = Tally::default();
    for table in &solved.tables {
        let key = table.index.key();
        let tally = tally(table);
        let inconsistent = |detail: String| WorkerError::SymmetryInconsistent {
            slice: solved.slice.to_string(),
            detail,
        };
        if tally.misplaced > 0 {
            return Err(inconsistent(format!(
                "{} entries of table {key:?} are misplaced (a class without a value, or a duplicate with one)",
                tally.misplaced
            )));
        }
        let burnside = class_count(key);
        if burnside != Some((tally.positions, tally.classes)) {
            return Err(inconsistent(format!(
                "table {key:?} has {} arrangements in {} classes, Burnside says {burnside:?}",
                tally.positions, tally.classes
            )));
        }
        total = total.merge(tally);
    }
    Ok(SliceCounts {
        positions: total.positions,
        win: total.win,
        loss: total.loss,
        draw: total.draw,
        canonical_positions: Some(total.classes),
        canonical_win: Some(total.class_win),
        canonical_loss: Some(total.class_loss),
        canonical_draw: Some(total.class_draw),
        max_depth: Some(u32::from(total.max_depth)),
    })
}

#[cfg(test)]
mod tests {
    use egdb_db_format::encoding::pack_value_depth16;
    use egdb_games::morris::Variant;

    use super::*;
    use crate::sound::SoundShards;

    #[test]
    fn stored_slices_with_misplaced_cells_are_refused() {
        let game = MorrisGame::new(Variant::Taiwan, 3);
        let solved = MorrisEngine::new(game.clone()).solve_all();
        let (&slice, table) = solved
            .iter()
            .max_by_key(|(_, s)| s.tables.iter().map(|t| t.cells.len()).sum::<usize>())
            .unwrap();
        let raw = stored_bytes(table);
        let back = from_stored(slice, CellEncoding::ValueDepth16, &raw).unwrap();
        assert_eq!(stored_bytes(&back), raw);

        let cells: Vec<u16> = raw
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        let is_empty = |c: &u16| unpack_value_depth16(*c).0 == ValueCode::DontCare;
        let class = cells.iter().position(|c| !is_empty(c)).unwrap();
        let duplicate = cells.iter().position(is_empty).unwrap();
        for (at, cell) in [
            (class, pack_value_depth16(ValueCode::DontCare, 0)),
            (duplicate, pack_value_depth16(ValueCode::Win, 1)),
        ] {
            let mut damaged = raw.clone();
            damaged[2 * at..2 * at + 2].copy_from_slice(&cell.to_le_bytes());
            let refused = from_stored(slice, CellEncoding::ValueDepth16, &damaged);
            assert!(
                matches!(refused, Err(WorkerError::BadShard { .. })),
                "cell {at}: {refused:?}"
            );
        }
        let short = from_stored(slice, CellEncoding::ValueDepth16, &raw[2..]);
        assert!(matches!(short, Err(WorkerError::BadShard { .. })));

        // Found sound once, the same bytes are not checked again; damaged
        // ones are other bytes, and are.
        let sound = SoundShards::new();
        let load = |raw: &[u8]| {
            let solved = tables_from_stored(slice, CellEncoding::ValueDepth16, raw)?;
            sound.check_once(&slice.to_string(), raw, || check_stored(&solved))
        };
        load(&raw).unwrap();
        load(&raw).unwrap();
        let mut damaged = raw.clone();
        damaged[2 * class..2 * class + 2]
            .copy_from_slice(&pack_value_depth16(ValueCode::DontCare, 0).to_le_bytes());
        assert!(matches!(load(&damaged), Err(WorkerError::BadShard { .. })));
    }
}
