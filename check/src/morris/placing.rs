//! The check of a placement table, walked by the class of the side that
//! moves next ([`super::swapped`]): a placement that captures nothing
//! keeps that side, so its successor lies in one run of the next round's
//! table, ranked from the entry's own set
//! ([`egdb_games::morris::index::TableIndex::additions`]).
//!
//! The placements are the rules' `quiet_placements`: `for_each_move`'s
//! placements, split into the set of points that capture nothing and the
//! captures, and proven equal to them by proptest
//! (`games/tests/morris_rules.rs`). The quiet points of one parity are
//! ranked together (`Added::for_each_with`), with no call or match per
//! point. (The engine generates placements with `PlacementsAgainst`,
//! proven equal too; checking with it as well was 15 % faster on
//! taiwan:6, but a fault the two shared would then pass unseen.)

use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::quiet_placements;
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
        let (taken, batch, missing) = (&mut self.taken, &mut self.batch, &mut self.missing);
        let targets = self.targets;
        let first = batch.reads.len();
        let mut folded = Expectation::default();
        let Some(captures) = &self.placement_captures else {
            unreachable!("a placement walk knows its run's captures");
        };
        debug_assert_eq!(captures.opponent(), opponent);
        let quiet_points = quiet_placements(mover, captures, |s| {
            match capture_read(taken, targets, &s) {
                Ok(read) => read.take(&mut folded, &mut batch.reads),
                Err(slice) => *missing = Some(slice),
            }
        });
        // Pieces on odd points after a placement on an even point; one on
        // an odd point changes the parity.
        let parity = (mover.odd_count() + opponent.odd_count()) as usize % 2;
        for (points, odd) in [
            (quiet_points.minus(PointSet::ODD), parity),
            (quiet_points.intersection(PointSet::ODD), parity ^ 1),
        ] {
            if let Err(slice) = self.quiet[odd].read_placements(mover, points, &mut folded) {
                *missing = Some(slice);
            }
        }
        let batch = &mut self.batch;
        if self.missing.is_some() {
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

impl Quiet<'_> {
    /// Folds into `folded` the cells of `mover`'s placements on `points`,
    /// all of which lead here (one parity); `Err` names the slice they
    /// lead into when it was not given.
    #[inline]
    pub(super) fn read_placements(
        &self,
        mover: PointSet,
        points: PointSet,
        folded: &mut Expectation,
    ) -> Result<(), MorrisSlice> {
        if points.is_empty() {
            return Ok(());
        }
        match self {
            Quiet::Over(value) => {
                for _ in points.iter() {
                    folded.add(*value, 0);
                }
            }
            Quiet::Missing(slice) => return Err(*slice),
            Quiet::Table {
                cells,
                additions: Some(additions),
                ..
            } => additions
                .of(mover)
                .for_each_with(points, |i| add_cell(folded, cells[i as usize])),
            Quiet::Table {
                cells,
                index,
                class,
                additions: None,
            } => {
                for to in points.iter() {
                    add_cell(
                        folded,
                        cells[index.index_in(class, mover.with(to)) as usize],
                    );
                }
            }
        }
        Ok(())
    }
}
