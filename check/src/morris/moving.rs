//! The check of a movement table, walked by the class of the side that
//! moves next ([`super::swapped`]): a step that captures nothing keeps
//! that side, so its successor lies in one run of the table it leads
//! into, ranked from the entry's own set. The entries' own cells are
//! found a batch at a time ([`super::swapped::OwnCells`]). (Walked in
//! the stored layout, by the class of the side to move, every successor
//! of every entry was a read at random: movement checks took about as
//! long as the engines' solve.)

use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::for_each_step_split;
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::{MorrisRules, MorrisSlice, PointSet};

use super::reads::{Context, Pending, Target};
use super::swapped::{capture_read, check_run, fold_step, RunWalk};
use super::tables::CellTable;
use crate::{Expectation, SliceCheck};

/// Checks the class entries of a movement table whose other side is in
/// the class of `engine`'s representative `id` ([`check_run`]).
pub(super) fn check_moving_run(
    rules: &MorrisRules,
    context: &Context,
    table: &CellTable,
    engine: &TableIndex,
    targets: &[[Target; 2]; MAX_REMOVED as usize + 1],
    id: usize,
) -> Result<SliceCheck<()>, MorrisSlice> {
    check_run(rules, context, table, engine, targets, id, RunWalk::step)
}

impl RunWalk<'_, '_> {
    /// Reads a class entry's steps: those that capture nothing at once,
    /// captures and the entry's own cell (at `own`) in the batch.
    fn step(&mut self, mover: PointSet, opponent: PointSet, own: usize) {
        let mut folded = Expectation::default();
        let first = self.batch.reads.len();
        if !self.full_board {
            self.read_steps(mover, opponent, &mut folded);
        }
        if self.missing.is_some() {
            self.batch.reads.truncate(first);
            return;
        }
        let pending = Pending {
            own,
            sides: (mover, opponent),
            reads: first..self.batch.reads.len(),
            folded,
            full_board: self.full_board,
        };
        self.batch
            .push(pending, self.rules, self.context, &self.table.cells);
    }

    /// Folds the steps that capture nothing into `folded`, and puts the
    /// captures in the batch's reads.
    fn read_steps(&mut self, mover: PointSet, opponent: PointSet, folded: &mut Expectation) {
        let quiet = &self.quiet;
        let nearby = [0, 1].map(|odd| quiet[odd].nearby(mover));
        // Pieces on odd points: a piece moved between an odd and an even
        // point changes their parity.
        let parity = (mover.odd_count() + opponent.odd_count()) as usize % 2;
        let captures = &mut self.captures;
        captures.clear();
        let mut missing = None;
        for_each_step_split(
            self.rules,
            mover,
            opponent,
            |from, to| {
                if let Err(slice) = fold_step(quiet, &nearby, parity, mover, (from, to), folded) {
                    missing = Some(slice);
                }
            },
            |s| captures.push(s),
        );
        for s in &self.captures {
            match capture_read(&mut self.taken, self.targets, s) {
                Ok(read) => read.take(folded, &mut self.batch.reads),
                Err(slice) => missing = Some(slice),
            }
        }
        if missing.is_some() {
            self.missing = missing;
        }
    }
}
