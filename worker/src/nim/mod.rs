//! Engines for take-away games: the bit-parallel value engine, the depth
//! engine, and the per-position scan they are measured against.

pub mod depth;
pub mod kept;
pub mod moves;
pub mod planes;
mod rows;
pub mod scan;
pub mod symmetric;
pub mod task;
pub mod values;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use egdb_db_format::encoding::{unpack_value_depth8, MAX_DEPTH8};
use egdb_db_format::{CellEncoding, SliceCounts, ValueCode};
use egdb_games::nim::{slice_id, NimGame};

use crate::shard::encode_shard_with;
use crate::solver::{shard_of, ShardOptions};
use crate::table::{zeroed_table, SliceTable};
use crate::WorkerError;
use moves::MoveGroups;
use planes::Planes;
use symmetric::{FixedPoints, Kept, StoredDepths};

/// A game prepared for solving: its moves grouped, its fixed points listed.
#[derive(Debug)]
pub struct NimEngine {
    game: NimGame,
    moves: MoveGroups,
    fixed: Option<FixedPoints>,
    /// Depth tables keep one row of each orbit where symmetries allow.
    kept: Option<Kept>,
}

impl NimEngine {
    pub fn new(game: NimGame) -> NimEngine {
        NimEngine {
            moves: MoveGroups::new(&game),
            fixed: FixedPoints::new(&game),
            kept: Kept::new(&game),
            game,
        }
    }

    pub fn game(&self) -> &NimGame {
        &self.game
    }

    pub fn moves(&self) -> &MoveGroups {
        &self.moves
    }

    /// Solves slice `h` from the tables of the slices it depends on.
    ///
    /// # Errors
    /// [`WorkerError::MissingDependency`], [`WorkerError::Cancelled`].
    pub fn solve(
        &self,
        h: u32,
        depth: bool,
        dependencies: &HashMap<u32, Arc<SliceTable>>,
        cancel: &AtomicBool,
    ) -> Result<SliceTable, WorkerError> {
        if depth {
            let lookup = |s: u32| match dependencies.get(&s).map(|t| t.as_ref()) {
                Some(SliceTable::Depths(planes)) => Some(planes.as_slice()),
                _ => None,
            };
            match &self.kept {
                Some(k) => kept::solve_depths_kept(&self.game, &self.moves, k, h, &lookup, cancel),
                None => depth::solve_depths(&self.game, &self.moves, h, &lookup, cancel),
            }
            .map(SliceTable::Depths)
        } else {
            let lookup = |s: u32| match dependencies.get(&s).map(|t| t.as_ref()) {
                Some(SliceTable::Bits(words)) => Some(words.as_slice()),
                _ => None,
            };
            values::solve_values(&self.game, &self.moves, h, &lookup, cancel).map(SliceTable::Bits)
        }
    }

    /// The counts `egdb stats` prints for slice `h`.
    ///
    /// # Errors
    /// [`WorkerError::SymmetryInconsistent`] when the class counts of
    /// Burnside's lemma do not come out whole: a table or symmetry is wrong.
    pub fn counts(&self, h: u32, table: &SliceTable) -> Result<SliceCounts, WorkerError> {
        let slots = 1usize << self.moves.word_bits;
        let code_at = |word: u64, bit: u8| -> ValueCode {
            match table {
                SliceTable::Bits(words) => {
                    if words[word as usize] >> bit & 1 == 1 {
                        ValueCode::Win
                    } else {
                        ValueCode::Loss
                    }
                }
                SliceTable::Depths(planes) => {
                    let (word, lane) = self.depth_slot(h, word, bit as u32);
                    unpack_value_depth8(planes[word].byte(lane)).0
                }
            }
        };
        let mut counts = SliceCounts::default();
        match table {
            SliceTable::Bits(words) => {
                counts.positions = words.len() as u64 * slots as u64;
                counts.win = words.iter().map(|w| w.count_ones() as u64).sum();
                counts.loss = counts.positions - counts.win;
            }
            SliceTable::Depths(planes) => {
                let valid = self.moves.valid;
                let mut max_depth = 0u8;
                let mut add = |words: &[Planes], weight: u64| {
                    for word in words {
                        counts.win += weight * (word.wins() & valid).count_ones() as u64;
                        counts.loss += weight * (word.losses() & valid).count_ones() as u64;
                        max_depth = max_depth.max(word.max_depth(valid));
                    }
                };
                match &self.kept {
                    None => add(planes, 1),
                    Some(kept) => {
                        for row in &kept.kept.slice(h).rows {
                            let first = row.first_word as usize;
                            add(
                                &planes[first..first + row.len as usize],
                                kept.weight(row.high),
                            );
                        }
                    }
                }
                counts.positions = self.game.layout().words(h) * slots as u64;
                counts.draw = counts.positions - counts.win - counts.loss;
                counts.max_depth = Some(max_depth as u32);
            }
        }
        if let Some(fixed) = &self.fixed {
            let (mut positions, mut win, mut loss, mut draw) =
                (counts.positions, counts.win, counts.loss, counts.draw);
            for &(word, bit) in fixed.in_slice(h) {
                positions += 1;
                match code_at(word, bit) {
                    ValueCode::Win => win += 1,
                    ValueCode::Loss => loss += 1,
                    _ => draw += 1,
                }
            }
            let g = fixed.group_size();
            if [positions, win, loss, draw].iter().any(|n| n % g != 0) {
                return Err(WorkerError::SymmetryInconsistent {
                    slice: slice_id(h).to_string(),
                    detail: format!(
                        "orbit sums {positions}/{win}/{loss}/{draw} are not multiples of {g}"
                    ),
                });
            }
            counts.canonical_positions = Some(positions / g);
            counts.canonical_win = Some(win / g);
            counts.canonical_loss = Some(loss / g);
            counts.canonical_draw = Some(draw / g);
        }
        Ok(counts)
    }

    /// The bytes stored for a slice: depth tables keep each symmetry class once.
    pub fn stored_bytes<'t>(&self, h: u32, table: &'t SliceTable) -> (CellEncoding, Cow<'t, [u8]>) {
        match table {
            SliceTable::Bits(words) => (
                CellEncoding::WinBits,
                Cow::Borrowed(bytemuck::cast_slice(words)),
            ),
            SliceTable::Depths(planes) => (
                CellEncoding::ValueDepth8,
                Cow::Owned(StoredDepths::new(&self.game, h, planes, self.kept.as_ref()).to_vec()),
            ),
        }
    }

    /// Where a depth table in RAM holds word `word`, lane `lane` of slice
    /// `h`'s full layout.
    fn depth_slot(&self, h: u32, word: u64, lane: u32) -> (usize, u32) {
        match &self.kept {
            None => (word as usize, lane),
            Some(kept) => {
                let position = self.game.layout().position(h, word, lane);
                kept.slot(&self.game, h, position)
            }
        }
    }

    /// The shard of a solved slice. Depth tables are stored whole (each
    /// class once) and made block by block: with kept rows, the stored
    /// form is several times the table in RAM.
    ///
    /// # Errors
    /// Only if compression fails.
    pub fn shard(
        &self,
        h: u32,
        table: &SliceTable,
        options: ShardOptions,
    ) -> Result<egdb_proto::Shard, WorkerError> {
        let id = slice_id(h);
        match table {
            SliceTable::Bits(words) => shard_of(
                &id,
                CellEncoding::WinBits,
                bytemuck::cast_slice(words),
                options,
            ),
            SliceTable::Depths(planes) => {
                let stored = StoredDepths::new(&self.game, h, planes, self.kept.as_ref());
                Ok(encode_shard_with(
                    &id,
                    CellEncoding::ValueDepth8,
                    stored.len(),
                    options.block_bytes,
                    options.packing,
                    |at, block| stored.fill(at, block),
                )?)
            }
        }
    }

    /// The table the engine reads, from a slice's stored bytes.
    ///
    /// # Errors
    /// [`WorkerError::BadShard`] when the bytes do not fit the slice.
    pub fn table_from_stored(
        &self,
        h: u32,
        encoding: CellEncoding,
        raw: Vec<u8>,
    ) -> Result<SliceTable, WorkerError> {
        let words = self.game.layout().words(h) as usize;
        let bad = |reason: String| WorkerError::BadShard {
            slice: slice_id(h).to_string(),
            reason,
        };
        match encoding {
            CellEncoding::WinBits => {
                if raw.len() != words * 8 {
                    return Err(bad(format!("{} bytes for {words} words", raw.len())));
                }
                let mut table = zeroed_table::<u64>(words);
                bytemuck::cast_slice_mut(&mut table).copy_from_slice(&raw);
                Ok(SliceTable::Bits(table))
            }
            CellEncoding::ValueDepth8 => {
                if raw.len() != words * planes::BYTES_PER_WORD {
                    return Err(bad(format!("{} bytes for {words} words", raw.len())));
                }
                // A position one move before the deepest depth a cell holds
                // could not be stored: no game of at most 63 cells goes
                // that deep.
                let deepest = |&b: &u8| {
                    let (code, depth) = unpack_value_depth8(b);
                    matches!(code, ValueCode::Win | ValueCode::Loss) && depth == MAX_DEPTH8
                };
                if raw.iter().any(deepest) {
                    return Err(bad(format!(
                        "a position at depth {MAX_DEPTH8}, the deepest a cell holds"
                    )));
                }
                let (table, unfilled) =
                    symmetric::restore_symmetric(&self.game, h, &raw, self.kept.as_ref());
                if unfilled > 0 {
                    return Err(bad(format!(
                        "{unfilled} positions have no stored canonical image"
                    )));
                }
                Ok(SliceTable::Depths(table))
            }
            CellEncoding::ValueDepth16 => Err(bad(
                "16-bit Morris cells in a take-away game's slice".to_string(),
            )),
        }
    }
}

/// Solves every slice of a game in RAM, keeping all tables (benchmarks and
/// tests; builds go slice by slice through a coordinator instead).
///
/// # Errors
/// [`WorkerError::Cancelled`].
pub fn solve_all(
    engine: &NimEngine,
    depth: bool,
    cancel: &AtomicBool,
) -> Result<Vec<Arc<SliceTable>>, WorkerError> {
    let mut tables: HashMap<u32, Arc<SliceTable>> = HashMap::new();
    for h in 0..engine.game().layout().slice_count() {
        let table = engine.solve(h, depth, &tables, cancel)?;
        tables.insert(h, Arc::new(table));
    }
    Ok((0..tables.len() as u32)
        .filter_map(|h| tables.remove(&h))
        .collect())
}

/// The value of one position in tables from [`solve_all`].
pub fn value_in(
    engine: &NimEngine,
    tables: &[Arc<SliceTable>],
    position: u64,
) -> (ValueCode, Option<u8>) {
    let slot = engine.game().layout().locate(position);
    match tables[slot.slice as usize].as_ref() {
        SliceTable::Bits(words) => {
            let win = words[slot.word as usize] >> slot.bit & 1 == 1;
            (if win { ValueCode::Win } else { ValueCode::Loss }, None)
        }
        SliceTable::Depths(planes) => {
            let (word, lane) = engine.depth_slot(slot.slice, slot.word, slot.bit);
            let (code, d) = unpack_value_depth8(planes[word].byte(lane));
            (code, Some(d))
        }
    }
}
