//! The check of a placement table, walked by the class of the side that
//! moves next ([`super::swapped`]): a placement that captures nothing
//! keeps that side, so its successor lies in one run of the next round's
//! table, ranked from the entry's own set
//! ([`egdb_games::morris::index::TableIndex::additions`]).
//!
//! The placements are the rules' `for_each_placement`: `for_each_move`'s
//! placements, split into those that capture nothing (a point, no list
//! made) and captures, and proven equal to them by proptest
//! (`games/tests/morris_rules.rs`); with it the check took 0.91 of the
//! time it took with `for_each_move`. (The engine generates placements
//! with `PlacementsAgainst`, proven equal too; checking with it as well
//! was 15 % faster on taiwan:6, but a fault the two shared would then pass
//! unseen.)

use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::for_each_placement;
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::{MorrisRules, MorrisSlice, PointSet};

use super::reads::{add_cell, Context, Pending, Target};
use super::swapped::{capture_read, check_run, Quiet, RunWalk};
use super::tables::CellTable;
use crate::{Expectation, SliceCheck};

/// Checks the class entries of a placement table whose other side is in
/// the class of `engine`'s representative `id` ([`check_run`]).
pub(super) fn check_placing_run(
    rules: &MorrisRules,
    context: &Context,
    table: &CellTable,
    engine: &TableIndex,
    targets: &[[Target; 2]; MAX_REMOVED as usize + 1],
    id: usize,
) -> Result<SliceCheck<()>, MorrisSlice> {
    check_run(
        rules,
        context,
        table,
        engine,
        targets,
        id,
        RunWalk::placement,
    )
}

impl RunWalk<'_, '_> {
    /// Reads a class entry's placements: those that capture nothing at
    /// once, captures and the entry's own cell (at `own`) in the batch.
    fn placement(&mut self, mover: PointSet, opponent: PointSet, own: usize) {
        let (quiet, taken, batch, missing) = (
            &self.quiet,
            &mut self.taken,
            &mut self.batch,
            &mut self.missing,
        );
        let targets = self.targets;
        let added = [0, 1].map(|odd| match &quiet[odd] {
            Quiet::Table {
                additions: Some(additions),
                ..
            } => Some(additions.of(mover)),
            _ => None,
        });
        // Pieces on odd points after a placement on an even point; one on
        // an odd point changes the parity.
        let parity = (mover.odd_count() + opponent.odd_count()) as usize % 2;
        let mut folded = Expectation::default();
        let first = batch.reads.len();
        // Two closures, each with its own note of a missing slice.
        let mut quiet_missing = None;
        for_each_placement(
            self.rules,
            mover,
            opponent,
            |to| {
                let odd = parity ^ usize::from(to.is_odd());
                match &quiet[odd] {
                    Quiet::Over(value) => folded.add(*value, 0),
                    Quiet::Missing(slice) => quiet_missing = Some(*slice),
                    Quiet::Table {
                        cells,
                        index,
                        class,
                        ..
                    } => {
                        let i = match &added[odd] {
                            Some(added) => added.with(to),
                            None => index.index_in(class, mover.with(to)),
                        };
                        add_cell(&mut folded, cells[i as usize]);
                    }
                }
            },
            |s| match capture_read(taken, targets, &s) {
                Ok(read) => batch.reads.push(read),
                Err(slice) => *missing = Some(slice),
            },
        );
        if quiet_missing.is_some() {
            *missing = quiet_missing;
        }
        if missing.is_some() {
            batch.reads.truncate(first);
            return;
        }
        let pending = Pending {
            own,
            sides: (mover, opponent),
            reads: first..batch.reads.len(),
            folded,
            full_board: false,
        };
        batch.push(pending, self.rules, self.context, &self.table.cells);
    }
}
