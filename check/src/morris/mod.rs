//! Every entry of a Morris slice against its moves, from decoded tables in
//! memory: the slice's own and those of the slices its moves lead into.
//!
//! For each class entry the legal moves are generated forward (the rules
//! of `egdb-games`), each successor is found by its table's index, and the
//! stored value and depth must be what the successors say; entries that
//! only repeat a class must hold no value. Tables are walked by the class
//! of the side that moves next ([`swapped`]; [`placing`], [`moving`]): successors that keep that
//! side's set lie in one run of their table, and are ranked from the
//! entry's own set.

use egdb_db_format::encoding::{unpack_value_depth16, MAX_DEPTH16};
use egdb_db_format::ValueCode;
use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::{terminal_by_counts, Counts, Successor};
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::slices::table_of;
use egdb_games::morris::{Color, MorrisRules, MorrisSlice, PointSet, Position};
use egdb_games::Value;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

mod hands;
mod moving;
mod placing;
mod swapped;

use moving::check_moving_run;
use placing::check_placing_run;
use swapped::duplicates_with_values;

use super::{Expectation, Probe, SliceCheck};
use crate::memory::prefetch;
use crate::stored::{morris_tables, WrongSize};

/// Why a slice cannot be checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MorrisCheckError {
    #[error("slice {slice} holds {bytes} bytes; its tables have {entries} 16-bit cells")]
    WrongSize {
        slice: String,
        bytes: u64,
        entries: u64,
    },
    #[error("slice {slice} reads slice {needed}, which was not given")]
    Missing { slice: String, needed: String },
    #[error("slice {slice} is no slice this checker knows")]
    Unsupported { slice: String },
}

/// One decoded table.
#[derive(Debug)]
pub struct CellTable {
    pub index: TableIndex,
    pub cells: Vec<u16>,
}

/// A slice's tables, decoded from its stored bytes.
#[derive(Debug)]
pub struct MorrisTables {
    pub slice: MorrisSlice,
    pub tables: Vec<CellTable>,
}

impl MorrisTables {
    /// # Errors
    /// [`MorrisCheckError::WrongSize`] when the bytes are not the slice's
    /// cells.
    pub fn from_bytes(slice: MorrisSlice, raw: &[u8]) -> Result<MorrisTables, MorrisCheckError> {
        let tables = morris_tables(&slice, raw)
            .map_err(|WrongSize { bytes, entries }| MorrisCheckError::WrongSize {
                slice: slice.to_string(),
                bytes,
                entries,
            })?
            .into_iter()
            .map(|(index, cells)| CellTable { index, cells })
            .collect();
        Ok(MorrisTables { slice, tables })
    }

    /// Bytes of memory the cells take.
    pub fn bytes(&self) -> u64 {
        self.tables.iter().map(|t| 2 * t.cells.len() as u64).sum()
    }
}

/// Where positions after a move lie: over by their counts, or in a table.
#[derive(Clone, Copy)]
enum Target<'a> {
    Over(Value),
    Table(&'a CellTable),
    /// In a slice that was not given: an error if a move leads there.
    Missing(MorrisSlice),
}

/// The position context of one table: who is to move, what is in hand.
struct Context {
    placing: bool,
    ply: u32,
    to_move: Color,
    hand: [u8; 2],
}

impl Context {
    fn of(rules: &MorrisRules, slice: MorrisSlice) -> Context {
        let pieces = u32::from(rules.pieces);
        match slice {
            MorrisSlice::Movement { .. } | MorrisSlice::Hand { .. } => Context {
                placing: false,
                ply: 2 * pieces,
                to_move: Color::First,
                hand: [0, 0],
            },
            MorrisSlice::Placement { ply, .. } => Context {
                placing: true,
                ply,
                to_move: if ply % 2 == 0 {
                    Color::First
                } else {
                    Color::Second
                },
                // The first player has placed ⌈ply / 2⌉ pieces, the second ⌊ply / 2⌋.
                hand: [pieces - ply.div_ceil(2), pieces - ply / 2].map(|h| h as u8),
            },
        }
    }
}

/// Checks every entry of `own`; `tables_of` gives the other slices its
/// moves lead into. Stops early, with a partial count, when `cancel` is
/// set.
///
/// # Errors
/// [`MorrisCheckError::Missing`] when a move leads into a slice that is
/// not given.
pub fn check_morris<'a>(
    rules: &MorrisRules,
    own: &'a MorrisTables,
    cancel: &AtomicBool,
    tables_of: impl Fn(MorrisSlice) -> Option<&'a MorrisTables>,
) -> Result<SliceCheck, MorrisCheckError> {
    if matches!(own.slice, MorrisSlice::Hand { .. }) {
        return hands::check_hand_slice(rules, own, cancel, tables_of);
    }
    let context = Context::of(rules, own.slice);
    let mut total = SliceCheck::new(own.slice.id());
    for table in &own.tables {
        let key = table.index.key();
        let mover_after = key.mover + u32::from(context.placing);
        let next_ply = context.ply + u32::from(context.placing);
        // targets[removed][parity of pieces on odd points]
        let mut targets = [[Target::Over(Value::Draw); 2]; MAX_REMOVED as usize + 1];
        for (removed, by_parity) in targets.iter_mut().enumerate() {
            let Some(left) = key.opponent.checked_sub(removed as u32) else {
                continue;
            };
            for (odd, target) in by_parity.iter_mut().enumerate() {
                *target = locate(rules, own, &tables_of, next_ply, (left, mover_after), odd);
            }
        }
        // Walked by the class of the side that moves next; duplicates in
        // the stored layout.
        let engine = TableIndex::new(key.swapped());
        let classes = (0..engine.rep_count())
            .into_par_iter()
            // Given up half-way: the caller looks at `cancel`.
            .filter(|_| !cancel.load(Ordering::Relaxed))
            .map(|id| {
                if context.placing {
                    check_placing_run(rules, &context, table, &engine, &targets, id)
                } else {
                    check_moving_run(rules, &context, table, &engine, &targets, id)
                }
            });
        total.add(with_duplicates(own.slice, table, classes, cancel)?);
    }
    Ok(total)
}

/// A table's check: its classes' (`classes`, one item per run) and its
/// duplicate entries' that hold a value.
fn with_duplicates(
    slice: MorrisSlice,
    table: &CellTable,
    classes: impl ParallelIterator<Item = Result<SliceCheck<()>, MorrisSlice>>,
    cancel: &AtomicBool,
) -> Result<SliceCheck<()>, MorrisCheckError> {
    let duplicates = (0..table.index.rep_count())
        .into_par_iter()
        .filter(|&id| !table.index.rep_is_asymmetric(id))
        .filter(|_| !cancel.load(Ordering::Relaxed))
        .map(|id| Ok(duplicates_with_values(table, id)));
    classes
        .chain(duplicates)
        .try_reduce(SliceCheck::<()>::default, |mut a, b| {
            a.add(b);
            Ok(a)
        })
        .map_err(|needed| MorrisCheckError::Missing {
            slice: slice.to_string(),
            needed: needed.to_string(),
        })
}

/// The target of positions after `ply` placements with these counts
/// (side to move, other side) and parity.
fn locate<'a>(
    rules: &MorrisRules,
    own: &'a MorrisTables,
    tables_of: &impl Fn(MorrisSlice) -> Option<&'a MorrisTables>,
    ply: u32,
    (mover, opponent): (u32, u32),
    odd: usize,
) -> Target<'a> {
    let counts = Counts {
        board: [mover, opponent],
        hand: rules.hands_after(ply),
    };
    if let Some(value) = terminal_by_counts(rules, counts) {
        return Target::Over(value);
    }
    let Some((slice, table)) = table_of(rules, ply, mover, opponent, odd as u32) else {
        unreachable!("positions not over by their counts lie in a table");
    };
    target_in(own, tables_of, slice, table)
}

/// Table `table` of `slice`: the slice checked, or one `tables_of` gives.
fn target_in<'a>(
    own: &'a MorrisTables,
    tables_of: &impl Fn(MorrisSlice) -> Option<&'a MorrisTables>,
    slice: MorrisSlice,
    table: usize,
) -> Target<'a> {
    let tables = if slice == own.slice {
        Some(own)
    } else {
        tables_of(slice)
    };
    match tables {
        Some(tables) => Target::Table(&tables.tables[table]),
        None => Target::Missing(slice),
    }
}

/// Entries whose successors' cells are being fetched: gathered (and
/// prefetched) first, read once a batch is full, so that the cache misses
/// of many entries overlap.
#[derive(Default)]
struct Batch<'a> {
    entries: Vec<Pending>,
    reads: Vec<Read<'a>>,
    check: SliceCheck<()>,
}

/// Entries gathered before their successors are read.
const BATCH: usize = 16;

/// A class entry waiting for its successors' cells.
struct Pending {
    /// Its cell in the slice's own table.
    own: usize,
    sides: (PointSet, PointSet),
    reads: std::ops::Range<usize>,
    /// The successors already read (the placement walk folds those in
    /// its cached run at once).
    folded: Expectation,
    full_board: bool,
}

/// Where one successor's outcome is.
#[derive(Clone, Copy)]
enum Read<'a> {
    Over(Value),
    Cell(&'a [u16], usize),
}

impl Batch<'_> {
    /// Adds an entry whose successors are gathered; a full batch is
    /// settled.
    fn push(&mut self, pending: Pending, rules: &MorrisRules, context: &Context, own: &[u16]) {
        self.entries.push(pending);
        if self.entries.len() == BATCH {
            self.settle(rules, context, own);
        }
    }

    /// Settles what is left; `Err` names a slice a move led into that was
    /// not given.
    fn finish(
        mut self,
        missing: Option<MorrisSlice>,
        rules: &MorrisRules,
        context: &Context,
        own: &[u16],
    ) -> Result<SliceCheck<()>, MorrisSlice> {
        self.settle(rules, context, own);
        match missing {
            Some(slice) => Err(slice),
            None => Ok(self.check),
        }
    }

    /// Reads the gathered successors and checks each entry (its cell in
    /// `own`) against them.
    fn settle(&mut self, rules: &MorrisRules, context: &Context, own: &[u16]) {
        for pending in &self.entries {
            let (mover, opponent) = pending.sides;
            let position = || {
                let (first, second) = match context.to_move {
                    Color::First => (mover, opponent),
                    Color::Second => (opponent, mover),
                };
                Position::new(rules, first, second, context.to_move, context.hand)
                    .map_or_else(|e| format!("({e})"), |p| p.to_string())
            };
            let expected = if pending.full_board {
                Probe {
                    value: Value::Draw,
                    depth: None,
                }
            } else {
                let mut expectation = pending.folded;
                for read in &self.reads[pending.reads.clone()] {
                    match *read {
                        Read::Over(value) => expectation.add(value, 0),
                        Read::Cell(cells, i) => add_cell(&mut expectation, cells[i]),
                    }
                }
                // No move: the side to move has lost, or drawn.
                expectation.probe(rules.blocked.value())
            };
            self.check
                .record(position, decode(own[pending.own]), expected);
        }
        self.entries.clear();
        self.reads.clear();
    }
}

/// Where successor `s` lies, its cell prefetched; `quiet(parity, index)`
/// ranks a successor that captured nothing in its table's `index`. `Err`
/// names a slice the move leads into that was not given.
#[inline]
fn successor_read<'a>(
    targets: &[[Target<'a>; 2]; MAX_REMOVED as usize + 1],
    s: &Successor,
    quiet: impl FnOnce(usize, &TableIndex) -> u64,
) -> Result<Read<'a>, MorrisSlice> {
    let removed = s.mv.removed.len() as usize;
    let odd = (s.mover.odd_count() + s.opponent.odd_count()) as usize % 2;
    match targets[removed][odd] {
        Target::Over(value) => Ok(Read::Over(value)),
        Target::Missing(slice) => Err(slice),
        Target::Table(table) => {
            let i = if removed > 0 {
                table.index.index(s.opponent, s.mover)
            } else {
                quiet(odd, &table.index)
            } as usize;
            prefetch(&table.cells, i);
            Ok(Read::Cell(&table.cells, i))
        }
    }
}

/// Adds a successor's stored cell to `expectation`. This runs for every
/// move of every entry, and successors' values follow no pattern a branch
/// predictor learns: the fold is written to need no branch (a `match` on
/// the code compiled to an indirect jump per cell; without it placement
/// checks took 8 % less time).
#[inline]
fn add_cell(expectation: &mut Expectation, cell: u16) {
    let code = cell >> 14;
    let depth = u32::from(cell & MAX_DEPTH16);
    let loss = code == ValueCode::Loss as u16;
    let win = code == ValueCode::Win as u16;
    expectation.moves += 1;
    expectation.shortest_loss = expectation
        .shortest_loss
        .min(if loss { depth } else { u32::MAX });
    expectation.longest_win = expectation.longest_win.max(if win { depth } else { 0 });
    // A successor without a value (don't care) is its own slice's
    // mismatch; here it counts as a draw.
    expectation.draw |= !loss && !win;
}

/// A stored cell as a probe; `None` for "don't care".
fn decode(cell: u16) -> Option<Probe> {
    let (code, depth) = unpack_value_depth16(cell);
    crate::probe_of_code(code, u32::from(depth))
}

#[cfg(test)]
mod tests {
    use super::*;
    use egdb_db_format::encoding::pack_value_depth16;

    /// The branch-free fold of stored cells says what folding their
    /// decoded probes says, for every mix of up to three cells of each
    /// code, "don't care" among them, and for no cell at all.
    #[test]
    fn cells_fold_as_their_probes_do() {
        let cells: Vec<u16> = [
            ValueCode::DontCare,
            ValueCode::Loss,
            ValueCode::Draw,
            ValueCode::Win,
        ]
        .into_iter()
        .flat_map(|code| [0, 1, 2, 9, MAX_DEPTH16].map(|d| pack_value_depth16(code, d)))
        .collect();
        let mut mixes: Vec<Vec<u16>> = vec![Vec::new()];
        let mut level = mixes.clone();
        for _ in 0..3 {
            level = level
                .iter()
                .flat_map(|m| cells.iter().map(move |&c| [m.as_slice(), &[c]].concat()))
                .collect();
            mixes.extend(level.iter().cloned());
        }
        assert_eq!(mixes.len(), 1 + 20 + 400 + 8000);
        for mix in &mixes {
            let (mut by_bits, mut by_probes) = (Expectation::default(), Expectation::default());
            for &cell in mix {
                add_cell(&mut by_bits, cell);
                match decode(cell) {
                    Some(p) => by_probes.add(p.value, p.depth.unwrap_or(0)),
                    None => by_probes.add(Value::Draw, 0),
                }
            }
            for terminal in [Value::Loss, Value::Draw] {
                assert_eq!(
                    by_bits.probe(terminal),
                    by_probes.probe(terminal),
                    "{mix:?}"
                );
            }
        }
    }
}
