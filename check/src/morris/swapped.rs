//! The check of a placement table, walked as the placement engine walks
//! it: by the class of the side that moves next (the other side), the
//! table's index with the sides swapped. A placement that captures nothing
//! keeps the other side, so its successor lies in one run of the next
//! round's table, which stays in the cache: it is read and folded at once.
//! A capture takes one of the run's other side's pieces, so the class of
//! what is left is looked up once per run and piece taken. Only the
//! entry's own cell and its captures are read at random, in batches.
//!
//! The moves are the rules' reference generator ([`for_each_move`]), the
//! indices [`TableIndex`]'s: nothing here is the engine's. (The engine
//! generates placements with `PlacementsAgainst`, proven equal to it by
//! proptest; checking with it too was 15 % faster on taiwan:6, but a
//! fault the two shared would then pass unseen.)

use egdb_games::morris::index::{Additions, MoverClass, TableIndex, TakenClasses};
use egdb_games::morris::moves::{for_each_move, Successor};
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::{MorrisRules, MorrisSlice, PointSet};
use egdb_games::Value;

use super::{add_cell, successor_read, Batch, CellTable, Context, Pending, Read, Target};
use crate::memory::prefetch;
use crate::{Expectation, SliceCheck};

/// Checks the class entries of a placement table whose other side is in
/// the class of `engine`'s representative `id` (`engine` is the table's
/// index with the sides swapped). Each class is checked once, as the
/// engine layout's own entry of it; `Err` names a slice that a move leads
/// into but was not given.
pub(super) fn check_placing_run(
    rules: &MorrisRules,
    context: &Context,
    table: &CellTable,
    engine: &TableIndex,
    targets: &[[Target; 2]; MAX_REMOVED as usize + 1],
    id: usize,
) -> Result<SliceCheck<()>, MorrisSlice> {
    let mut batch = Batch::default();
    let mut missing = None;
    let other = engine.representative(id);
    let quiet = targets[0].map(|target| Quiet::new(target, other));
    let mut taken = TakenClasses::default();
    taken.start(other);
    engine.for_each_entry_of_rep(id, |_, swapped| {
        if !swapped.canonical {
            return;
        }
        let (mover, opponent) = (swapped.opponent, swapped.mover);
        let own = table.index.index(mover, opponent) as usize;
        prefetch(&table.cells, own);
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
        for_each_move(rules, true, mover, opponent, |s| {
            if !s.mv.removed.is_empty() {
                match capture_read(&mut taken, targets, &s) {
                    Ok(read) => batch.reads.push(read),
                    Err(slice) => missing = Some(slice),
                }
                return;
            }
            let odd = parity ^ usize::from(s.mv.to.is_odd());
            match &quiet[odd] {
                Quiet::Over(value) => folded.add(*value, 0),
                Quiet::Missing(slice) => missing = Some(*slice),
                Quiet::Table {
                    cells,
                    index,
                    class,
                    ..
                } => {
                    let i = match &added[odd] {
                        Some(added) => added.with(s.mv.to),
                        None => index.index_in(class, s.mover),
                    };
                    add_cell(&mut folded, cells[i as usize]);
                }
            }
        });
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
        batch.push(pending, rules, context, &table.cells);
    });
    batch.finish(missing, rules, context, &table.cells)
}

/// The entries of representative `id`'s run that only repeat a class yet
/// hold a value (the placement walk visits each class once, not these).
pub(super) fn duplicates_with_values(table: &CellTable, id: usize) -> SliceCheck<()> {
    let mut check = SliceCheck::<()>::default();
    table.index.for_each_entry_of_rep(id, |i, entry| {
        if !entry.canonical {
            check.duplicates_with_values += u64::from(table.cells[i as usize] != 0);
        }
    });
    check
}

/// Where a run's placements that capture nothing lead, for one parity.
enum Quiet<'a> {
    Over(Value),
    /// In a slice that was not given.
    Missing(MorrisSlice),
    Table {
        cells: &'a [u16],
        index: &'a TableIndex,
        /// The run's other side's class, seen from its representative
        /// (the run's other side is that representative).
        class: MoverClass,
        /// The mover's set plus one point, ranked from the set's own rank;
        /// `None` where the class has symmetries of its own.
        additions: Option<Additions<'a>>,
    },
}

impl<'a> Quiet<'a> {
    fn new(target: Target<'a>, other: PointSet) -> Quiet<'a> {
        match target {
            Target::Over(value) => Quiet::Over(value),
            Target::Missing(slice) => Quiet::Missing(slice),
            Target::Table(next) => {
                let class = next.index.mover_class(other).at_representative();
                Quiet::Table {
                    cells: &next.cells,
                    index: &next.index,
                    additions: next.index.additions(&class),
                    class,
                }
            }
        }
    }
}

/// Where capture `s` of the run whose classes `taken` holds leads, its
/// cell prefetched.
fn capture_read<'a>(
    taken: &mut TakenClasses,
    targets: &[[Target<'a>; 2]; MAX_REMOVED as usize + 1],
    s: &Successor,
) -> Result<Read<'a>, MorrisSlice> {
    let removed = s.mv.removed;
    let odd = (s.mover.odd_count() + s.opponent.odd_count()) as usize % 2;
    match (targets[removed.len() as usize][odd], removed.first()) {
        (Target::Table(table), Some(point)) if removed.len() == 1 => {
            let class = taken.class(&table.index, point, odd);
            let i = table.index.index_in(class, s.mover) as usize;
            prefetch(&table.cells, i);
            Ok(Read::Cell(&table.cells, i))
        }
        // Several pieces taken (rare), or no table: as any successor.
        _ => successor_read(targets, s, |_, index| index.index(s.opponent, s.mover)),
    }
}
