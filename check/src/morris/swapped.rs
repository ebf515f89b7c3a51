//! What the checks of both phases share: a table is walked as the engines
//! walk it, by the class of the side that moves next (the other side),
//! the table's index with the sides swapped. A move that captures
//! nothing, a placement or a step, keeps the other side, so its successor
//! lies in one run of the table it leads into, which stays in the cache:
//! it is read and folded at once ([`Quiet`]). A capture takes one of the
//! run's other side's pieces, so the class of what is left is looked up
//! once per run and piece taken ([`capture_read`]). Only the entry's own
//! cell and its captures are read at random, in batches. The loops are
//! per phase, each run's walk too: [`super::placing`],
//! [`super::moving`]. (One walk for both, given each phase's move loop,
//! measured 6 to 9 % slower on placement checks: the compiler laid the
//! hot loop out otherwise.)
//!
//! The moves are the rules' reference generator (`for_each_move`), the
//! indices [`TableIndex`]'s: nothing here is the engine's.

use egdb_games::morris::index::{Additions, MoverClass, Nearby, TableIndex, TakenClasses};
use egdb_games::morris::moves::{PlacementCaptures, Successor};
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::{MorrisRules, MorrisSlice, Point, PointSet};
use egdb_games::Value;

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

use super::reads::{add_cell, successor_read, Batch, Context, Read, Target, BATCH};
use super::tables::{CellTable, MorrisCheckError};
use crate::memory::prefetch;
use crate::{Expectation, SliceCheck};

/// The entries of representative `id`'s run that only repeat a class yet
/// hold a value (the walks visit each class once, not these).
pub(super) fn duplicates_with_values(table: &CellTable, id: usize) -> SliceCheck<()> {
    let mut check = SliceCheck::<()>::default();
    table.index.for_each_entry_of_rep(id, |i, entry| {
        if !entry.canonical {
            check.duplicates_with_values += u64::from(table.cells[i as usize] != 0);
        }
    });
    check
}

/// Where a run's moves that capture nothing lead, for one parity.
pub(super) enum Quiet<'a> {
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
        /// `None` for steps, and where the class has symmetries of its own.
        additions: Option<Additions<'a>>,
    },
}

impl<'a> Quiet<'a> {
    /// `placing`: whether the moves are placements, which read
    /// [`Additions`] (steps rank from [`Quiet::nearby`] instead).
    pub(super) fn new(target: Target<'a>, other: PointSet, placing: bool) -> Quiet<'a> {
        match target {
            Target::Over(value) => Quiet::Over(value),
            Target::Missing(slice) => Quiet::Missing(slice),
            Target::Table(next) => {
                let class = next.index.mover_class(other).at_representative();
                Quiet::Table {
                    cells: &next.cells,
                    index: &next.index,
                    additions: placing.then(|| next.index.additions(&class)).flatten(),
                    class,
                }
            }
        }
    }

    /// The mover's set ranked once in this run, for the entries of its
    /// steps; `None` where the run's class has symmetries of its own.
    #[inline]
    pub(super) fn nearby(&self, mover: PointSet) -> Option<Nearby<'_>> {
        match self {
            Quiet::Table { index, class, .. } => index.nearby(class, mover),
            Quiet::Over(_) | Quiet::Missing(_) => None,
        }
    }
}

/// Folds into `folded` the successor of `mover`'s step from `from` to `to`
/// that captures nothing, from `quiet`, the targets of an entry whose
/// pieces on odd points have parity `parity`, by the parity after the move
/// (a piece moved between an odd and an even point changes it); `nearby`
/// the mover's set ranked in each ([`Quiet::nearby`]). `Err` names the
/// slice it leads into when that was not given.
#[inline(always)]
pub(super) fn fold_step(
    quiet: &[Quiet; 2],
    nearby: &[Option<Nearby>; 2],
    parity: usize,
    mover: PointSet,
    (from, to): (Point, Point),
    folded: &mut Expectation,
) -> Result<(), MorrisSlice> {
    let odd = parity ^ usize::from(to.is_odd() != from.is_odd());
    quiet[odd].fold_step_here(nearby[odd].as_ref(), mover, (from, to), folded)
}

impl Quiet<'_> {
    /// [`fold_step`] for a step whose target this is, `near` the mover's
    /// set ranked in it.
    #[inline(always)]
    fn fold_step_here(
        &self,
        near: Option<&Nearby>,
        mover: PointSet,
        (from, to): (Point, Point),
        folded: &mut Expectation,
    ) -> Result<(), MorrisSlice> {
        match self {
            Quiet::Over(value) => folded.add(*value, 0),
            Quiet::Missing(slice) => return Err(*slice),
            Quiet::Table {
                cells,
                index,
                class,
                ..
            } => {
                let i = match near {
                    Some(near) => near.moved(from, to),
                    None => index.index_in(class, mover.without(from).with(to)),
                };
                add_cell(folded, cells[i as usize]);
            }
        }
        Ok(())
    }
}

/// Where capture `s` of the run whose classes `taken` holds leads, its
/// cell prefetched.
#[inline(always)]
pub(super) fn capture_read<'a>(
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
            Ok(Read::Cell(&table.cells[i]))
        }
        // Several pieces taken (rare), or no table: as any successor.
        _ => successor_read(targets, s, |_, index| index.index(s.opponent, s.mover)),
    }
}

/// Class entries of a run whose own cells are still to be found. Finding
/// one takes the class of its own mover's set, two lookups in tables of
/// megabytes; made a batch at a time they wait for memory together (made
/// one per entry, placement checks spent a tenth of their time there).
pub(super) struct OwnCells {
    /// The waiting entries' own sets (movers) and other sides, the first
    /// `len` of each.
    movers: [PointSet; BATCH],
    opponents: [PointSet; BATCH],
    len: usize,
    classes: [MoverClass; BATCH],
    cells: [usize; BATCH],
}

impl Default for OwnCells {
    fn default() -> OwnCells {
        OwnCells {
            movers: [PointSet::default(); BATCH],
            opponents: [PointSet::default(); BATCH],
            len: 0,
            classes: [MoverClass::default(); BATCH],
            cells: [0; BATCH],
        }
    }
}

/// One run's walk, in either phase: the table, where moves lead, the
/// quiet successors' runs, and the batch being gathered.
pub(super) struct RunWalk<'a, 'b> {
    pub(super) rules: &'b MorrisRules,
    pub(super) context: &'b Context,
    pub(super) table: &'a CellTable,
    pub(super) targets: &'b [[Target<'a>; 2]; MAX_REMOVED as usize + 1],
    pub(super) quiet: [Quiet<'a>; 2],
    pub(super) taken: TakenClasses,
    /// Where placements against the run's other side open captures, and
    /// what they take (`None` for steps).
    pub(super) placement_captures: Option<PlacementCaptures>,
    /// A full board is a draw: no move is read, and the draw is expected.
    pub(super) full_board: bool,
    pub(super) batch: Batch<'a>,
    pub(super) missing: Option<MorrisSlice>,
    /// An entry's captures, gathered while its other moves are read.
    pub(super) captures: Vec<Successor>,
}

/// Checks the class entries of a table whose other side is in the class
/// of `engine`'s representative `id` (`engine` is the table's index with
/// the sides swapped), each by `visit` (a placement's or a step's walk).
/// Each class is checked once, as the engine layout's own entry of it;
/// `Err` names a slice that a move leads into but was not given.
pub(super) fn check_run<'a, 'b>(
    rules: &'b MorrisRules,
    context: &'b Context,
    table: &'a CellTable,
    engine: &TableIndex,
    targets: &'b [[Target<'a>; 2]; MAX_REMOVED as usize + 1],
    id: usize,
    mut visit: impl FnMut(&mut RunWalk<'a, 'b>, PointSet, PointSet, usize),
) -> Result<SliceCheck<()>, MorrisSlice> {
    let other = engine.representative(id);
    let mut taken = TakenClasses::default();
    taken.start(other);
    let placing = context.placing;
    let mut walk = RunWalk {
        rules,
        context,
        table,
        targets,
        quiet: targets[0].map(|target| Quiet::new(target, other, placing)),
        taken,
        placement_captures: placing.then(|| PlacementCaptures::new(rules, other)),
        full_board: !placing && engine.key().mover + engine.key().opponent == 24,
        batch: Batch::default(),
        missing: None,
        captures: Vec::new(),
    };
    for_each_own_cell(engine, id, table, |mover, opponent, own| {
        visit(&mut walk, mover, opponent, own)
    });
    walk.batch
        .finish(walk.missing, rules, context, &table.cells)
}

/// Visits the canonical class entries of the run of `engine`'s
/// representative `id` (`engine` indexes the table with the sides
/// swapped), a batch at a time: the side that moves next's own set, the
/// other side, and the entry's own cell's place in `table`.
pub(super) fn for_each_own_cell(
    engine: &TableIndex,
    id: usize,
    table: &CellTable,
    mut visit: impl FnMut(PointSet, PointSet, usize),
) {
    let mut own_cells = OwnCells::default();
    engine.for_each_entry_of_rep(id, |_, swapped| {
        if swapped.canonical && own_cells.push(swapped.opponent, swapped.mover) {
            own_cells.flush(table, &mut visit);
        }
    });
    own_cells.flush(table, visit);
}

impl OwnCells {
    /// Adds a class entry; `true` when the batch is full (then
    /// [`OwnCells::flush`] it).
    #[inline]
    pub(super) fn push(&mut self, mover: PointSet, opponent: PointSet) -> bool {
        self.movers[self.len] = mover;
        self.opponents[self.len] = opponent;
        self.len += 1;
        self.len == BATCH
    }

    /// Visits the waiting entries in the order they came, each with its
    /// own cell's place in `table` (the cells prefetched), and empties
    /// the batch.
    pub(super) fn flush(
        &mut self,
        table: &CellTable,
        mut visit: impl FnMut(PointSet, PointSet, usize),
    ) {
        let n = std::mem::take(&mut self.len);
        let (movers, opponents) = (&self.movers[..n], &self.opponents[..n]);
        let index = &table.index;
        index.mover_classes(movers, &mut self.classes[..n]);
        for ((cell, class), &opponent) in self.cells.iter_mut().zip(&self.classes).zip(opponents) {
            *cell = index.index_in(class, opponent) as usize;
            prefetch(&table.cells, *cell);
        }
        for ((&mover, &opponent), &own) in movers.iter().zip(opponents).zip(&self.cells) {
            visit(mover, opponent, own);
        }
    }
}

/// A table's check: its classes' (`classes`, one item per run) and its
/// duplicate entries' that hold a value.
pub(super) fn with_duplicates(
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
