//! The check of a table walked as the engines walk it: by the class of the
//! side that moves next (the other side), the table's index with the sides
//! swapped. A move that captures nothing, a placement or a step, keeps the
//! other side, so its successor lies in one run of the table it leads
//! into, which stays in the cache: it is read and folded at once. A
//! capture takes one of the run's other side's pieces, so the class of
//! what is left is looked up once per run and piece taken. Only the
//! entry's own cell and its captures are read at random, in batches.
//! (Walked in the stored layout, by the class of the side to move, every
//! successor of every entry was a read at random: movement checks took
//! about as long as the engines' solve.)
//!
//! The moves are the rules' reference generator ([`for_each_move`]), the
//! indices [`TableIndex`]'s: nothing here is the engine's. (The engine
//! generates placements with `PlacementsAgainst`, proven equal to it by
//! proptest; checking with it too was 15 % faster on taiwan:6, but a
//! fault the two shared would then pass unseen.)

use egdb_games::morris::index::{Added, Additions, MoverClass, Nearby, TableIndex, TakenClasses};
use egdb_games::morris::moves::{for_each_move, Successor};
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::{MorrisRules, MorrisSlice, PointSet};
use egdb_games::Value;

use super::{add_cell, successor_read, Batch, CellTable, Context, Pending, Read, Target, BATCH};
use crate::memory::prefetch;
use crate::{Expectation, SliceCheck};

/// Checks the class entries of a table whose other side is in the class
/// of `engine`'s representative `id` (`engine` is the table's index with
/// the sides swapped). Each class is checked once, as the engine layout's
/// own entry of it; `Err` names a slice that a move leads into but was
/// not given.
pub(super) fn check_swapped_run(
    rules: &MorrisRules,
    context: &Context,
    table: &CellTable,
    engine: &TableIndex,
    targets: &[[Target; 2]; MAX_REMOVED as usize + 1],
    id: usize,
) -> Result<SliceCheck<()>, MorrisSlice> {
    let other = engine.representative(id);
    let mut taken = TakenClasses::default();
    taken.start(other);
    let key = engine.key();
    let mut walk = Walk {
        rules,
        context,
        table,
        targets,
        quiet: targets[0].map(|target| Quiet::new(target, other)),
        taken,
        // A full board in the movement phase is a draw: no move is read,
        // and the draw is expected.
        full_board: !context.placing && key.mover + key.opponent == 24,
        waiting: Vec::with_capacity(BATCH),
        classes: [MoverClass::default(); BATCH],
        batch: Batch::default(),
        missing: None,
    };
    engine.for_each_entry_of_rep(id, |_, swapped| {
        if swapped.canonical {
            walk.waiting.push((swapped.opponent, swapped.mover));
            if walk.waiting.len() == BATCH {
                walk.flush();
            }
        }
    });
    walk.flush();
    walk.batch
        .finish(walk.missing, rules, context, &table.cells)
}

/// One run's walk: class entries wait until a batch of them is found, so
/// that the classes of their own sets are looked up together.
struct Walk<'a, 'b> {
    rules: &'b MorrisRules,
    context: &'b Context,
    table: &'a CellTable,
    targets: &'b [[Target<'a>; 2]; MAX_REMOVED as usize + 1],
    quiet: [Quiet<'a>; 2],
    taken: TakenClasses,
    full_board: bool,
    /// Class entries found: the mover's set, the other side's.
    waiting: Vec<(PointSet, PointSet)>,
    classes: [MoverClass; BATCH],
    batch: Batch<'a>,
    missing: Option<MorrisSlice>,
}

impl Walk<'_, '_> {
    /// Reads the waiting entries' moves: those that capture nothing at
    /// once, captures and the entries' own cells in the batch.
    fn flush(&mut self) {
        let mut movers = [PointSet::default(); BATCH];
        for (set, &(mover, _)) in movers.iter_mut().zip(&self.waiting) {
            *set = mover;
        }
        let n = self.waiting.len();
        let index = &self.table.index;
        index.mover_classes(&movers[..n], &mut self.classes[..n]);
        for j in 0..n {
            let (mover, opponent) = self.waiting[j];
            let own = index.index_in(&self.classes[j], opponent) as usize;
            prefetch(&self.table.cells, own);
            let mut folded = Expectation::default();
            let first = self.batch.reads.len();
            if !self.full_board {
                self.read_moves(mover, opponent, &mut folded);
            }
            if self.missing.is_some() {
                self.batch.reads.truncate(first);
                continue;
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
        self.waiting.clear();
    }

    /// Folds the successors that capture nothing into `folded`, and puts
    /// the captures in the batch's reads.
    fn read_moves(&mut self, mover: PointSet, opponent: PointSet, folded: &mut Expectation) {
        let (quiet, taken, batch, missing) = (
            &self.quiet,
            &mut self.taken,
            &mut self.batch,
            &mut self.missing,
        );
        let targets = self.targets;
        let ranked = [0, 1].map(|odd| quiet[odd].rank(mover));
        // Pieces on odd points: a piece put or moved onto an odd point
        // changes their parity, one moved off an odd point too.
        let parity = (mover.odd_count() + opponent.odd_count()) as usize % 2;
        for_each_move(self.rules, self.context.placing, mover, opponent, |s| {
            if !s.mv.removed.is_empty() {
                match capture_read(taken, targets, &s) {
                    Ok(read) => batch.reads.push(read),
                    Err(slice) => *missing = Some(slice),
                }
                return;
            }
            let from_odd = s.mv.from.is_some_and(|from| from.is_odd());
            let odd = parity ^ usize::from(s.mv.to.is_odd() != from_odd);
            match &quiet[odd] {
                Quiet::Over(value) => folded.add(*value, 0),
                Quiet::Missing(slice) => *missing = Some(*slice),
                Quiet::Table {
                    cells,
                    index,
                    class,
                    ..
                } => {
                    let i = ranked[odd].entry(&s, || index.index_in(class, s.mover));
                    add_cell(folded, cells[i as usize]);
                }
            }
        });
    }
}

/// The entries of representative `id`'s run that only repeat a class yet
/// hold a value (the walk visits each class once, not these).
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

    /// The mover's set `mover` ranked once in this run, for the entries of
    /// its successors.
    fn rank(&self, mover: PointSet) -> Ranked<'_> {
        match self {
            Quiet::Table {
                additions: Some(additions),
                ..
            } => Ranked::Added(additions.of(mover)),
            Quiet::Table { index, class, .. } => match index.nearby(class, mover) {
                Some(near) => Ranked::Nearby(near),
                None => Ranked::Unranked,
            },
            Quiet::Over(_) | Quiet::Missing(_) => Ranked::Unranked,
        }
    }
}

/// A mover's set ranked in a run of the table its moves lead into.
enum Ranked<'a> {
    /// Placements: the set's entries with a point added.
    Added(Added<'a>),
    /// Steps (and placements where additions are not kept): sets one
    /// point away, ranked from this one.
    Nearby(Nearby<'a>),
    /// The run's class has symmetries of its own: each successor is
    /// indexed in full.
    Unranked,
}

impl Ranked<'_> {
    /// The entry of successor `s` (one that captured nothing); `full`
    /// indexes it where the set is not ranked.
    #[inline]
    fn entry(&self, s: &Successor, full: impl FnOnce() -> u64) -> u64 {
        match (self, s.mv.from) {
            (Ranked::Added(added), None) => added.with(s.mv.to),
            (Ranked::Nearby(near), Some(from)) => near.moved(from, s.mv.to),
            (Ranked::Nearby(near), None) => near.with(s.mv.to),
            _ => full(),
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
