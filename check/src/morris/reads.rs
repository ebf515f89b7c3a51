//! What a walk of a Morris table reads: where each move's successors lie
//! (a table, or over by their counts), and entries gathered a batch at a
//! time so that the cache misses of their successors' cells overlap.

use egdb_db_format::encoding::{unpack_value_depth16, MAX_DEPTH16};
use egdb_db_format::ValueCode;
use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::Successor;
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::{Color, MorrisRules, MorrisSlice, PointSet, Position};
use egdb_games::Value;

use super::tables::{CellTable, MorrisTables};
use crate::memory::prefetch;
use crate::{Expectation, Probe, SliceCheck};

/// Where positions after a move lie: over by their counts, or in a table.
#[derive(Clone, Copy)]
pub(super) enum Target<'a> {
    Over(Value),
    Table(&'a CellTable),
    /// In a slice that was not given: an error if a move leads there.
    Missing(MorrisSlice),
}

/// The position context of one table: who is to move, what is in hand.
pub(super) struct Context {
    pub(super) placing: bool,
    pub(super) ply: u32,
    pub(super) to_move: Color,
    pub(super) hand: [u8; 2],
}

impl Context {
    pub(super) fn of(rules: &MorrisRules, slice: MorrisSlice) -> Context {
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

/// Table `table` of `slice`: the slice checked, or one `tables_of` gives.
pub(super) fn target_in<'a>(
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
pub(super) struct Batch<'a> {
    pub(super) entries: Vec<Pending>,
    /// The successors' cells still to be read (prefetched), in place:
    /// successors over by their counts are folded at once instead.
    pub(super) reads: Vec<&'a u16>,
    pub(super) check: SliceCheck<()>,
}

/// Entries gathered before their successors are read.
pub(super) const BATCH: usize = 16;

/// A class entry waiting for its successors' cells.
pub(super) struct Pending {
    /// Its cell in the slice's own table.
    pub(super) own: usize,
    pub(super) sides: (PointSet, PointSet),
    pub(super) reads: std::ops::Range<usize>,
    /// The successors already read (the placement walk folds those in
    /// its cached run at once).
    pub(super) folded: Expectation,
    pub(super) full_board: bool,
}

/// Where one successor's outcome is.
#[derive(Clone, Copy)]
pub(super) enum Read<'a> {
    Over(Value),
    Cell(&'a u16),
}

impl<'a> Read<'a> {
    /// Folds an outcome known already into `folded`, or puts a cell to
    /// read in `reads`.
    #[inline(always)]
    pub(super) fn take(self, folded: &mut Expectation, reads: &mut Vec<&'a u16>) {
        match self {
            Read::Over(value) => folded.add(value, 0),
            Read::Cell(cell) => reads.push(cell),
        }
    }
}

impl Batch<'_> {
    /// Adds an entry whose successors are gathered; a full batch is
    /// settled.
    pub(super) fn push(
        &mut self,
        pending: Pending,
        rules: &MorrisRules,
        context: &Context,
        own: &[u16],
    ) {
        self.entries.push(pending);
        if self.entries.len() == BATCH {
            self.settle(rules, context, own);
        }
    }

    /// Settles what is left; `Err` names a slice a move led into that was
    /// not given.
    pub(super) fn finish(
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
                for &cell in &self.reads[pending.reads.clone()] {
                    add_cell(&mut expectation, *cell);
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
#[inline(always)]
pub(super) fn successor_read<'a>(
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
            Ok(Read::Cell(&table.cells[i]))
        }
    }
}

/// Adds a successor's stored cell to `expectation`. This runs for every
/// move of every entry, and successors' values follow no pattern a branch
/// predictor learns: the fold is written to need no branch (a `match` on
/// the code compiled to an indirect jump per cell; without it placement
/// checks took 8 % less time).
#[inline]
pub(super) fn add_cell(expectation: &mut Expectation, cell: u16) {
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
pub(super) fn decode(cell: u16) -> Option<Probe> {
    let (code, depth) = unpack_value_depth16(cell);
    crate::probe_of_code(code, u32::from(depth))
}
