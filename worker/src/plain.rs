//! A plain retrograde solver for families without an engine of their own:
//! it walks the positions a slice's cells name and their moves through the
//! [`Family`] trait, round by round. Fine for small games (the test-only
//! rotor game); the Nim and Morris engines are what big builds run.
//!
//! Counts take each cell's position as one arrangement: a family whose
//! cells stand for symmetry classes needs its own engine (as Nim and
//! Morris have) for counts of every arrangement.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use egdb_check::identity::cell_encoding_of;
use egdb_db_format::encoding::{
    pack_value_depth16, pack_value_depth8, unpack_value_depth16, unpack_value_depth8, MAX_DEPTH16,
    MAX_DEPTH8,
};
use egdb_db_format::{CellEncoding, SliceCounts, ValueCode};
use egdb_games::{Cell, Family, SliceId, Value};
use egdb_proto::Task;

use crate::solver::{keep_dependencies, shard_of, SliceSolver, SolveContext, Solved, TableBytes};
use crate::WorkerError;

/// A solved slice's cells: value and depth, `None` where no position is.
type Cells = Vec<Option<(Value, u32)>>;

/// The plain solver of one game and the slices later tasks will read.
pub struct PlainTasks<F: Family> {
    game: F,
    /// Each slice id's place in the plan, cells and dependencies.
    plan: HashMap<SliceId, (u32, u64, Vec<SliceId>)>,
    loaded: HashMap<u32, Arc<Cells>>,
}

/// Where a move leads, for the rounds.
enum Next {
    Known(Value, u32),
    Inside(usize),
}

impl<F: Family> PlainTasks<F> {
    pub fn new(game: F) -> PlainTasks<F> {
        let plan = game
            .slices()
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s.id, (i as u32, s.entries, s.dependencies)))
            .collect();
        PlainTasks {
            game,
            plan,
            loaded: HashMap::new(),
        }
    }

    fn place(&self, task: &Task, id: &SliceId) -> Result<u32, WorkerError> {
        self.plan
            .get(id)
            .map(|s| s.0)
            .ok_or_else(|| WorkerError::BadTask(format!("{id} is not a slice of {}", task.game)))
    }

    /// The values and depths of slice `place`'s `entries` cells.
    fn rounds(&self, place: u32, entries: u64, cancel: &AtomicBool) -> Result<Cells, WorkerError> {
        let game = &self.game;
        let cell = |entry| Cell {
            slice: place,
            entry,
        };
        // A cell is a position's own when locating the position finds it.
        let positions: Vec<Option<F::Position>> = (0..entries)
            .map(|e| {
                game.position_at(cell(e))
                    .filter(|p| game.locate(p) == Some(cell(e)))
            })
            .collect();
        let mut moves = Vec::with_capacity(positions.len());
        for position in &positions {
            let mut next = Vec::new();
            for (_, p) in position.iter().flat_map(|p| game.moves(p)) {
                next.push(match game.locate(&p) {
                    None => Next::Known(over(game, &p)?, 0),
                    Some(c) if c.slice == place && c.entry < entries => {
                        Next::Inside(c.entry as usize)
                    }
                    Some(c) => {
                        let (value, depth) = self
                            .loaded
                            .get(&c.slice)
                            .and_then(|t| t.get(c.entry as usize).copied().flatten())
                            .ok_or_else(|| bad_cell(game, c))?;
                        Next::Known(value, depth)
                    }
                });
            }
            moves.push(next);
        }
        let mut cells: Cells = Vec::with_capacity(positions.len());
        for (position, next) in positions.iter().zip(&moves) {
            cells.push(match position {
                Some(p) if next.is_empty() => Some((over(game, p)?, 0)),
                _ => None,
            });
        }
        // Round k settles the wins and losses of depth k.
        let deepest_known = |cells: &Cells| {
            let inside = cells.iter().flatten().map(|c| c.1).max().unwrap_or(0);
            let outside = moves.iter().flatten().filter_map(|n| match n {
                Next::Known(_, d) => Some(*d),
                Next::Inside(_) => None,
            });
            outside.max().unwrap_or(0).max(inside)
        };
        let mut k = 1;
        while k <= deepest_known(&cells) + 1 {
            if cancel.load(Ordering::Relaxed) {
                return Err(WorkerError::Cancelled);
            }
            let look = |n: &Next| match *n {
                Next::Known(v, d) => Some((v, d)),
                Next::Inside(e) => cells[e],
            };
            let settled: Vec<(usize, (Value, u32))> = (0..cells.len())
                .filter(|&e| cells[e].is_none() && positions[e].is_some())
                .filter_map(|e| {
                    let next: Vec<Option<(Value, u32)>> = moves[e].iter().map(look).collect();
                    if next.contains(&Some((Value::Loss, k - 1))) {
                        return Some((e, (Value::Win, k)));
                    }
                    let all_won = next.iter().all(|n| matches!(n, Some((Value::Win, _))));
                    let longest = next.iter().flatten().map(|n| n.1).max();
                    (all_won && longest == Some(k - 1)).then_some((e, (Value::Loss, k)))
                })
                .collect();
            for (e, value) in settled {
                cells[e] = Some(value);
            }
            k += 1;
        }
        for (e, cell) in cells.iter_mut().enumerate() {
            if cell.is_none() && positions[e].is_some() {
                *cell = Some((Value::Draw, 0));
            }
        }
        Ok(cells)
    }
}

/// The value of a position that has no cell or no move: the game is over,
/// or the family breaks its contract.
fn over<F: Family>(game: &F, position: &F::Position) -> Result<Value, WorkerError> {
    game.terminal(position).ok_or_else(|| {
        let text = game.format_position(position);
        WorkerError::BadTask(format!("{text} has no cell or no move, yet is not over"))
    })
}

/// A move into a dependency's cell that holds nothing.
fn bad_cell<F: Family>(game: &F, cell: Cell) -> WorkerError {
    let slices = game.slices();
    let slice = slices
        .get(cell.slice as usize)
        .map_or_else(|| cell.slice.to_string(), |s| s.id.to_string());
    WorkerError::BadShard {
        slice,
        reason: format!("a move leads to cell {}, which holds no value", cell.entry),
    }
}

impl<F: Family> SliceSolver for PlainTasks<F> {
    fn solve(&mut self, task: &Task, context: SolveContext<'_>) -> Result<Solved, WorkerError> {
        let (source, options, cancel) = context.parts();
        let place = self.place(task, &task.slice_id)?;
        let (_, entries, deps) = self.plan[&task.slice_id].clone();
        if let Some(missing) = deps.iter().find(|d| !task.dependencies.contains(d)) {
            return Err(WorkerError::BadTask(format!(
                "{} reads {missing}, which the task does not list",
                task.slice_id
            )));
        }
        let places = task
            .dependencies
            .iter()
            .map(|d| self.place(task, d))
            .collect::<Result<Vec<_>, _>>()?;
        let sizes: HashMap<u32, u64> = self.plan.values().map(|s| (s.0, s.1)).collect();
        let ids: HashMap<u32, SliceId> = self
            .plan
            .iter()
            .map(|(id, (place, _, _))| (*place, id.clone()))
            .collect();
        keep_dependencies(
            &mut self.loaded,
            (&task.dependencies, &places),
            source,
            (context.keeping, |place: u32| ids[&place].clone()),
            |p, encoding, raw| decode(task.slice_id.as_str(), encoding, &raw, sizes[&p]),
        )?;
        let cells = self.rounds(place, entries, cancel)?;
        let encoding = cell_encoding_of(&self.game, task.depth);
        let raw = encode(task.slice_id.as_str(), encoding, &cells)?;
        let shard = shard_of(&task.slice_id, encoding, &raw, options)?;
        let counts = counts(&cells, encoding);
        self.loaded.insert(place, Arc::new(cells));
        Ok(Solved { shard, counts })
    }

    fn kept(&self) -> Vec<SliceId> {
        self.plan
            .iter()
            .filter(|(_, (place, _, _))| self.loaded.contains_key(place))
            .map(|(id, _)| id.clone())
            .collect()
    }
}

impl TableBytes for Cells {
    fn table_bytes(&self) -> u64 {
        std::mem::size_of_val(self.as_slice()) as u64
    }
}

/// A dependency's cells from its stored bytes.
fn decode(
    slice: &str,
    encoding: CellEncoding,
    raw: &[u8],
    entries: u64,
) -> Result<Cells, WorkerError> {
    let bad = |reason: String| WorkerError::BadShard {
        slice: slice.to_string(),
        reason,
    };
    if raw.len() as u64 != encoding.table_bytes(entries) {
        return Err(bad(format!(
            "{} bytes for {entries} {encoding:?} cells",
            raw.len()
        )));
    }
    let known = |code: ValueCode, depth: u32| match code {
        ValueCode::Win => Some((Value::Win, depth)),
        ValueCode::Loss => Some((Value::Loss, depth)),
        ValueCode::Draw => Some((Value::Draw, 0)),
        ValueCode::DontCare => None,
    };
    Ok((0..entries as usize)
        .map(|e| match encoding {
            CellEncoding::WinBits => {
                let win = raw[e / 8] >> (e % 8) & 1 == 1;
                Some((if win { Value::Win } else { Value::Loss }, 0))
            }
            CellEncoding::ValueDepth8 => {
                let (code, depth) = unpack_value_depth8(raw[e]);
                known(code, u32::from(depth))
            }
            CellEncoding::ValueDepth16 => {
                let (code, depth) =
                    unpack_value_depth16(u16::from_le_bytes([raw[2 * e], raw[2 * e + 1]]));
                known(code, u32::from(depth))
            }
        })
        .collect())
}

/// A solved slice's stored bytes.
fn encode(slice: &str, encoding: CellEncoding, cells: &Cells) -> Result<Vec<u8>, WorkerError> {
    let code = |value: Value| match value {
        Value::Win => ValueCode::Win,
        Value::Loss => ValueCode::Loss,
        Value::Draw => ValueCode::Draw,
    };
    let mut raw = vec![0u8; encoding.table_bytes(cells.len() as u64) as usize];
    for (e, cell) in cells.iter().enumerate() {
        let (code, depth) = cell.map_or((ValueCode::DontCare, 0), |(v, d)| (code(v), d));
        let fitting = |most: u32| {
            (depth <= most).then_some(depth).ok_or_else(|| {
                WorkerError::BadTask(format!("{slice}: depth {depth} does not fit its cells"))
            })
        };
        match encoding {
            CellEncoding::WinBits if code == ValueCode::Draw => {
                return Err(WorkerError::BadTask(format!(
                    "{slice}: a draw in a table of win bits"
                )))
            }
            CellEncoding::WinBits => raw[e / 8] |= u8::from(code == ValueCode::Win) << (e % 8),
            CellEncoding::ValueDepth8 => {
                raw[e] = pack_value_depth8(code, fitting(u32::from(MAX_DEPTH8))? as u8);
            }
            CellEncoding::ValueDepth16 => {
                let packed = pack_value_depth16(code, fitting(u32::from(MAX_DEPTH16))? as u16);
                raw[2 * e..2 * e + 2].copy_from_slice(&packed.to_le_bytes());
            }
        }
    }
    Ok(raw)
}

/// Each position once, its own cell standing for it.
fn counts(cells: &Cells, encoding: CellEncoding) -> SliceCounts {
    let mut counts = SliceCounts::default();
    for (value, depth) in cells.iter().flatten() {
        counts.positions += 1;
        match value {
            Value::Win => counts.win += 1,
            Value::Loss => counts.loss += 1,
            Value::Draw => counts.draw += 1,
        }
        if encoding != CellEncoding::WinBits && *value != Value::Draw {
            counts.max_depth = Some(counts.max_depth.unwrap_or(0).max(*depth));
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One-bit cells of a slice whose count is no multiple of 8: the last
    /// byte padded, every cell read back.
    #[test]
    fn win_bits_of_any_count_round_trip() {
        for n in [1usize, 7, 8, 9, 13, 64, 65] {
            let cells: Cells = (0..n)
                .map(|e| Some((if e % 3 == 0 { Value::Win } else { Value::Loss }, 0)))
                .collect();
            let raw = encode("s", CellEncoding::WinBits, &cells).unwrap();
            assert_eq!(raw.len(), n.div_ceil(8));
            let back = decode("s", CellEncoding::WinBits, &raw, n as u64).unwrap();
            assert_eq!(back, cells, "{n} cells");
        }
    }
}
