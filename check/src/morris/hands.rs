//! The check of a hand slice (placing and moving mixed, RULES.md §3a):
//! every class entry of each table against its moves, walked in the stored
//! layout, each successor found by its table's index from the counts the
//! move leaves (`side_table`), whether it stays in the slice (a move on the
//! board that takes nothing) or leaves it (a placement, a capture). The
//! moves are the rules' generator (`for_each_move_with_hands`), the
//! indices [`TableIndex`]'s: nothing here is the engine's. Plain rather
//! than fast: the swapped walks of the two-phase checks are not carried
//! over yet.

use egdb_games::morris::moves::for_each_move_with_hands;
use egdb_games::morris::position::colours_of;
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::slices::{side_place, Side};
use egdb_games::morris::{MorrisRules, MorrisSlice};
use egdb_games::Value;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

use super::reads::{target_in, Batch, Context, Pending, Target};
use super::swapped::with_duplicates;
use super::tables::{CellTable, MorrisCheckError, MorrisTables};
use crate::memory::prefetch;
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
        let index = &table.index;
        let classes = (0..index.rep_count())
            .into_par_iter()
            .filter(|_| !cancel.load(Ordering::Relaxed))
            .map(|id| {
                check_run(
                    rules,
                    &context,
                    table,
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

/// Checks the class entries of representative `id`'s run of `table`.
fn check_run<'a>(
    rules: &MorrisRules,
    context: &Context,
    table: &'a CellTable,
    targets: &Targets<'a>,
    hands: [u32; 2],
    id: usize,
) -> Result<SliceCheck<()>, MorrisSlice> {
    let mut batch = Batch::default();
    let mut missing = None;
    table.index.for_each_entry_of_rep(id, |i, entry| {
        if !entry.canonical || missing.is_some() {
            return;
        }
        let (mover, opponent) = (entry.mover, entry.opponent);
        let first = batch.reads.len();
        let mut folded = Expectation::default();
        for_each_move_with_hands(rules, mover, opponent, hands, |s, placed| {
            let removed = s.mv.removed.len() as usize;
            let odd = (s.mover.odd_count() + s.opponent.odd_count()) as usize % 2;
            match targets[usize::from(placed)][removed][odd] {
                Target::Over(value) => folded.add(value, 0),
                Target::Missing(slice) => missing = Some(slice),
                Target::Table(target) => {
                    let at = target.index.index(s.opponent, s.mover) as usize;
                    prefetch(&target.cells, at);
                    batch.reads.push(&target.cells[at]);
                }
            }
        });
        let pending = Pending {
            own: i as usize,
            sides: (mover, opponent),
            reads: first..batch.reads.len(),
            folded,
            full_board: false,
        };
        batch.push(pending, rules, context, &table.cells);
    });
    batch.finish(missing, rules, context, &table.cells)
}
