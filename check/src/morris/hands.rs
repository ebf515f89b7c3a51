//! The check of a hand slice (placing and moving mixed, RULES.md §3a):
//! every class entry of each table against its moves, each successor's
//! table found from the counts the move leaves (`side_place`), whether it
//! stays in the slice (a move on the board that takes nothing) or leaves
//! it (a placement, a capture). Tables are walked as the two-phase checks
//! walk them ([`super::swapped`]), by the class of the side that moves
//! next: placements and steps that capture nothing keep that side, so
//! their successors lie in one run of their table and are ranked from the
//! entry's own set. (Walked in the stored layout, each successor looked up
//! in full, a lasker:6 build's hand checks took 0.91 of its solve; walked
//! by runs, 0.73.)
//!
//! The moves are the rules' generator (`for_each_move_with_hands`), the
//! indices [`TableIndex`]'s: nothing here is the engine's.

use egdb_games::morris::index::{Nearby, TableIndex, TakenClasses};
use egdb_games::morris::moves::{
    for_each_move_with_hands, for_each_step_split_with_hands, quiet_placements, PlacementCaptures,
    Successor,
};
use egdb_games::morris::position::colours_of;
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::slices::{side_place, Side};
use egdb_games::morris::{MorrisRules, MorrisSlice, PointSet};
use egdb_games::Value;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

use super::reads::{target_in, Batch, Context, Pending, Target};
use super::swapped::{capture_read, fold_step, for_each_own_cell, with_duplicates, Quiet};
use super::tables::{CellTable, MorrisCheckError, MorrisTables};
use crate::{Expectation, SliceCheck};

/// Where a table's successors lie: `[placed][removed][parity]`.
type Targets<'a> = [[[Target<'a>; 2]; MAX_REMOVED as usize + 1]; 2];

/// Checks every entry of the hand slice `own`; `tables_of` gives the slices
/// its placements and captures lead into.
pub(super) fn check_hand_slice<'a>(
    rules: &MorrisRules,
    own: &'a MorrisTables,
    cancel: &AtomicBool,
    tables_of: impl Fn(MorrisSlice) -> Option<&'a MorrisTables>,
) -> Result<SliceCheck, MorrisCheckError> {
    let hands = own
        .slice
        .hands()
        .ok_or_else(|| MorrisCheckError::Unsupported {
            slice: own.slice.to_string(),
        })?;
    let mut total = SliceCheck::new(own.slice.id());
    for (table, [mover_hand, other_hand]) in own.tables.iter().zip(hands) {
        let key = table.index.key();
        let (mover, opponent) = (
            Side::new(mover_hand, key.mover),
            Side::new(other_hand, key.opponent),
        );
        let targets = targets(rules, own, &tables_of, mover, opponent);
        let context = context(rules, mover, opponent);
        // Walked by the class of the side that moves next; duplicates in
        // the stored layout.
        let engine = TableIndex::new(key.swapped());
        let classes = (0..engine.rep_count())
            .into_par_iter()
            .filter(|_| !cancel.load(Ordering::Relaxed))
            .map(|id| {
                check_run(
                    rules,
                    &context,
                    table,
                    &engine,
                    &targets,
                    [mover_hand, other_hand],
                    id,
                )
            });
        total.add(with_duplicates(own.slice, table, classes, cancel)?);
    }
    Ok(total)
}

/// Who moves and what each colour holds in hand, for naming positions in
/// mismatches.
fn context(rules: &MorrisRules, mover: Side, opponent: Side) -> Context {
    let hands = [mover.hand, opponent.hand].map(|h| h as u8);
    let (to_move, hand) = colours_of(rules, [mover.pieces(), opponent.pieces()], hands);
    Context {
        placing: false,
        ply: 0,
        to_move,
        hand,
    }
}

/// The targets of every kind of move from positions with these sides.
fn targets<'a>(
    rules: &MorrisRules,
    own: &'a MorrisTables,
    tables_of: &impl Fn(MorrisSlice) -> Option<&'a MorrisTables>,
    mover: Side,
    opponent: Side,
) -> Targets<'a> {
    let mut targets = [[[Target::Over(Value::Draw); 2]; MAX_REMOVED as usize + 1]; 2];
    for (placed, by_removed) in targets.iter_mut().enumerate() {
        let Some(after) = (match placed {
            1 => mover
                .hand
                .checked_sub(1)
                .map(|h| Side::new(h, mover.board + 1)),
            _ => Some(mover),
        }) else {
            continue;
        };
        for (removed, by_parity) in by_removed.iter_mut().enumerate() {
            let Some(left) = opponent.board.checked_sub(removed as u32) else {
                continue;
            };
            let next = Side::new(opponent.hand, left);
            for (odd, target) in by_parity.iter_mut().enumerate() {
                *target = locate(rules, own, tables_of, next, after, odd as u32);
            }
        }
    }
    targets
}

/// The target of positions with these sides (side to move, other side)
/// and parity.
fn locate<'a>(
    rules: &MorrisRules,
    own: &'a MorrisTables,
    tables_of: &impl Fn(MorrisSlice) -> Option<&'a MorrisTables>,
    mover: Side,
    opponent: Side,
    odd: u32,
) -> Target<'a> {
    match side_place(rules, mover, opponent, odd) {
        Err(value) => Target::Over(value),
        Ok((slice, table)) => target_in(own, tables_of, slice, table),
    }
}

/// Checks the class entries of hand table `table` whose other side is in
/// the class of `engine`'s representative `id` (`engine` is the table's
/// index with the sides swapped): a move that captures nothing, a
/// placement or a step, keeps the other side, so its successor lies in
/// one run of its table and is ranked from the entry's own set.
fn check_run<'a>(
    rules: &MorrisRules,
    context: &Context,
    table: &'a CellTable,
    engine: &TableIndex,
    targets: &Targets<'a>,
    hands: [u32; 2],
    id: usize,
) -> Result<SliceCheck<()>, MorrisSlice> {
    let other = engine.representative(id);
    let walk = HandWalk {
        rules,
        targets,
        steps: targets[0][0].map(|t| Quiet::new(t, other, false)),
        placements: targets[1][0].map(|t| Quiet::new(t, other, true)),
        // Against an empty board a mill is no move where hands mix, which
        // the splits of the moves do not know: there the rules' generator
        // gives them one by one.
        by_generator: other.is_empty(),
        placement_captures: (hands[0] > 0 && !other.is_empty())
            .then(|| PlacementCaptures::new(rules, other)),
        hands,
    };
    let mut reads = Reads {
        taken: [other, other].map(|side| {
            let mut taken = TakenClasses::default();
            taken.start(side);
            taken
        }),
        batch: Batch::default(),
        missing: None,
        captures: Vec::new(),
    };
    for_each_own_cell(engine, id, table, |mover, opponent, own| {
        debug_assert_eq!(opponent, other, "an entry of another run");
        let first = reads.batch.reads.len();
        let folded = walk.read_moves(&mut reads, mover, opponent);
        if reads.missing.is_some() {
            reads.batch.reads.truncate(first);
            return;
        }
        let pending = Pending {
            own,
            sides: (mover, opponent),
            reads: first..reads.batch.reads.len(),
            folded,
            full_board: false,
        };
        reads.batch.push(pending, rules, context, &table.cells);
    });
    reads
        .batch
        .finish(reads.missing, rules, context, &table.cells)
}

/// What one run's walk of a hand table knows before its first entry.
struct HandWalk<'a, 'b> {
    rules: &'b MorrisRules,
    targets: &'b Targets<'a>,
    /// Where steps and placements that capture nothing lead, by parity.
    steps: [Quiet<'a>; 2],
    placements: [Quiet<'a>; 2],
    /// Whether the run's other side has nothing on the board: then every
    /// move comes from the rules' generator.
    by_generator: bool,
    /// The run's placements split into those that capture nothing and
    /// captures; `None` where the side to move has nothing in hand, or
    /// the run's other side nothing on the board.
    placement_captures: Option<PlacementCaptures>,
    hands: [u32; 2],
}

/// What one run's walk gathers: the captures' classes, the entries
/// waiting for their cells, and a slice found missing.
struct Reads<'a> {
    /// The classes of the run's other side less a piece, by whether the
    /// capture came with a placement (the two lead into other tables).
    taken: [TakenClasses; 2],
    batch: Batch<'a>,
    missing: Option<MorrisSlice>,
    /// An entry's steps that capture, gathered while its other steps are
    /// read.
    captures: Vec<Successor>,
}

impl<'a> HandWalk<'a, '_> {
    /// Folds an entry's moves that capture nothing, and puts its captures
    /// in the batch's reads.
    fn read_moves(
        &self,
        reads: &mut Reads<'a>,
        mover: PointSet,
        opponent: PointSet,
    ) -> Expectation {
        let mut folded = Expectation::default();
        // Pieces on odd points: a piece placed on, or moved between, an
        // odd and an even point changes their parity.
        let parity = (mover.odd_count() + opponent.odd_count()) as usize % 2;
        let step_nearby = self.steps.each_ref().map(|q| q.nearby(mover));
        if self.by_generator {
            for_each_move_with_hands(self.rules, mover, opponent, self.hands, |s, placed| {
                let quiet = if placed {
                    &self.placements
                } else {
                    &self.steps
                };
                let (targets, near) = (self.targets, &step_nearby);
                reads.read_move(targets, (mover, &s), parity, quiet, near, &mut folded);
            });
            return folded;
        }
        if let Some(captures) = &self.placement_captures {
            let quiet_points = quiet_placements(mover, captures, |s| {
                reads.read_capture(self.targets, &s, true, &mut folded);
            });
            for (points, odd) in [
                (quiet_points.minus(PointSet::ODD), parity),
                (quiet_points.intersection(PointSet::ODD), parity ^ 1),
            ] {
                if let Err(slice) = self.placements[odd].read_placements(mover, points, &mut folded)
                {
                    reads.missing = Some(slice);
                }
            }
        }
        let captures = &mut reads.captures;
        captures.clear();
        let mut missing = None;
        for_each_step_split_with_hands(
            self.rules,
            mover,
            opponent,
            self.hands,
            |from, to| {
                let step = (from, to);
                if let Err(slice) =
                    fold_step(&self.steps, &step_nearby, parity, mover, step, &mut folded)
                {
                    missing = Some(slice);
                }
            },
            |s| captures.push(s),
        );
        // Taken out and put back, to keep its allocation.
        let captures = std::mem::take(&mut reads.captures);
        for s in &captures {
            reads.read_capture(self.targets, s, false, &mut folded);
        }
        reads.captures = captures;
        if missing.is_some() {
            reads.missing = missing;
        }
        folded
    }
}

impl<'a> Reads<'a> {
    /// Reads the successor of move `s` from `mover`: a capture into the
    /// batch, else folded at once from `quiet` (the move's targets by
    /// parity; `step_nearby` the mover's set ranked in a step's).
    #[inline(always)]
    fn read_move(
        &mut self,
        targets: &Targets<'a>,
        (mover, s): (PointSet, &Successor),
        parity: usize,
        quiet: &[Quiet; 2],
        step_nearby: &[Option<Nearby>; 2],
        folded: &mut Expectation,
    ) {
        if !s.mv.removed.is_empty() {
            // A placement is the move that comes from no point.
            self.read_capture(targets, s, s.mv.from.is_none(), folded);
            return;
        }
        let read = match s.mv.from {
            Some(from) => fold_step(quiet, step_nearby, parity, mover, (from, s.mv.to), folded),
            // A piece placed on an odd point changes the parity.
            None => quiet[parity ^ usize::from(s.mv.to.is_odd())].read_placements(
                mover,
                s.mv.to.set(),
                folded,
            ),
        };
        if let Err(slice) = read {
            self.missing = Some(slice);
        }
    }

    /// Puts capture `s`'s successor in the batch's reads (or folds it, if
    /// over by its counts).
    #[inline(always)]
    fn read_capture(
        &mut self,
        targets: &Targets<'a>,
        s: &Successor,
        placed: bool,
        folded: &mut Expectation,
    ) {
        let placed = usize::from(placed);
        match capture_read(&mut self.taken[placed], &targets[placed], s) {
            Ok(read) => read.take(folded, &mut self.batch.reads),
            Err(slice) => self.missing = Some(slice),
        }
    }
}
