//! Placement rounds: no cycles, every move leads to the next round, so one
//! pass over the entries settles them all.
//!
//! The pass walks the table in the engine layout (runs by the class of the
//! side that moved last, see [`layout`](super::layout)). A placement that
//! captures nothing leaves that side's set as it was, and that side moves
//! next: every such successor of a run lies in one run of the next round's
//! table (one per parity), already seen from its representative. That run
//! stays in the cache while the whole run here is solved, and each
//! successor is ranked from its neighbour with two table lookups. Only the
//! captures, a few in ten placements, read cells all over other tables;
//! they are located and prefetched a batch of entries at a time.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use egdb_db_format::encoding::{pack_value_depth16, ValueCode, MAX_DEPTH16};
use egdb_games::morris::index::{Added, Additions, MoverClass, TableIndex, TakenClasses};
use egdb_games::morris::placements::PlacementsAgainst;
use egdb_games::morris::{MorrisRules, MorrisSlice, Point, PointSet};

use crate::table::{prefetch, zeroed_table};

use super::layout::{self, split_by_rep};
use super::solved::{encode, Dependencies, Located, SolvedTable, Successors, Target};

/// Entries whose captures are located before any is read.
const BATCH: usize = 16;

/// The slice's table, or `None` when `cancel` was set (checked per
/// representative's run).
pub fn solve(
    rules: &MorrisRules,
    slice: MorrisSlice,
    deps: &Dependencies,
    cancel: &AtomicBool,
) -> Option<Vec<SolvedTable>> {
    let MorrisSlice::Placement { ply, .. } = slice else {
        unreachable!("placement::solve is given placement slices");
    };
    let key = slice.tables()[0];
    let engine = TableIndex::new(key.swapped());
    let mut cells = zeroed_table::<u16>(engine.len() as usize);
    let successors = Successors::new(rules, deps, ply + 1, (key.mover + 1, key.opponent), false);
    let uncaptured = successors.uncaptured();
    split_by_rep(&engine, &mut cells)
        .into_par_iter()
        .for_each_init(Placing::default, |placing, (id, run)| {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let start = engine.rep_range(id).start;
            // The run's representative is the side that moves next; a
            // placement that captures nothing keeps it, so its successors
            // share its class in the next round's table (per parity).
            let other = engine.representative(id);
            let quiet = uncaptured.map(|target| Quiet::new(target, other));
            let placements = PlacementsAgainst::new(rules, other);
            placing.run_captures.start(other);
            engine.for_each_entry_of_rep(id, |i, swapped| {
                if !swapped.canonical {
                    return;
                }
                let (mover, opponent) = (swapped.opponent, swapped.mover);
                // (Spelt out: `each_ref().map` was left a call per parity.)
                let added = [quiet[0].added(mover), quiet[1].added(mover)];
                // Pieces on odd points after a placement on an even point;
                // one on an odd point changes the parity.
                let parity = (mover.odd_count() + opponent.odd_count()) as usize % 2;
                // Below every worth: a placement always has a move.
                let mut best = 0;
                let first = placing.located.len();
                placements.for_each(
                    mover,
                    // In the run that stays in the cache: read at once.
                    |to| {
                        let odd = parity ^ usize::from(to.is_odd());
                        let cell = quiet[odd].placed_cell(added[odd].as_ref(), mover, to);
                        best = best.max(worth(cell));
                    },
                    |s| {
                        let run_captures = &mut placing.run_captures;
                        let at = successors.locate_capture(
                            run_captures,
                            s.mv.removed,
                            s.opponent,
                            s.mover,
                        );
                        placing.located.push(at);
                    },
                );
                let captures = first..placing.located.len();
                placing.entries.push(((i - start) as usize, best, captures));
                if placing.entries.len() == BATCH {
                    placing.settle(run);
                }
            });
            placing.settle(run);
        });
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let stored = TableIndex::new(key);
    let table = layout::into_stored(stored, &engine, |e| prefetch(&cells, e), |e| cells[e]);
    Some(vec![table])
}

/// Where the successors of a run's placements that capture nothing lie,
/// for one parity: a run of a table of the next round, or an end of the
/// game known from the counts.
pub(super) enum Quiet<'a> {
    Over(u16),
    Table {
        cells: &'a [u16],
        index: &'a TableIndex,
        class: MoverClass,
        additions: Option<Additions<'a>>,
    },
}

impl<'a> Quiet<'a> {
    pub(super) fn new(target: Target<'a>, other: PointSet) -> Quiet<'a> {
        match target {
            Target::Over(outcome) => Quiet::Over(encode(outcome)),
            Target::Table(table) => {
                let class = table.index.mover_class(other).at_representative();
                Quiet::Table {
                    cells: &table.cells,
                    index: &table.index,
                    class,
                    additions: table.index.additions(&class),
                }
            }
        }
    }

    /// The entries of `mover`'s placements, where the run allows ranking
    /// them from `mover`.
    #[inline]
    pub(super) fn added(&self, mover: PointSet) -> Option<Added<'_>> {
        match self {
            Quiet::Table {
                additions: Some(additions),
                ..
            } => Some(additions.of(mover)),
            _ => None,
        }
    }

    /// The cell of `mover`'s placement on `to` (which leads here: its
    /// parity's target), `added` its placements ranked ([`Quiet::added`]).
    #[inline(always)]
    pub(super) fn placed_cell(&self, added: Option<&Added>, mover: PointSet, to: Point) -> u16 {
        match (self, added) {
            (Quiet::Over(cell), _) => *cell,
            (Quiet::Table { cells, .. }, Some(added)) => cells[added.with(to) as usize],
            (
                Quiet::Table {
                    cells,
                    index,
                    class,
                    ..
                },
                None,
            ) => cells[index.index_in(class, mover.with(to)) as usize],
        }
    }
}

/// What a successor's cell is worth to the side that moved there: the
/// larger the better (one lost for its side to move in fewer plies, then a
/// draw, then one won in more plies), so that an entry's value is the
/// maximum over its moves, taken without a branch. Win `d` is worth `d`, a
/// draw `0x4000`, loss `d` `0xBFFF - d`.
#[inline]
fn worth(cell: u16) -> u16 {
    const FLIP: [u16; 4] = [0, MAX_DEPTH16, 0, 0];
    const SHIFT: [u16; 4] = [0, 0x4000, 0xC000, 0x4000];
    let code = usize::from(cell >> 14);
    (cell ^ FLIP[code]).wrapping_add(SHIFT[code])
}

/// The cell of an entry whose best move is worth `best`: one ply more.
#[inline]
fn from_worth(best: u16) -> u16 {
    if best >= 0x8000 {
        pack_value_depth16(ValueCode::Win, MAX_DEPTH16 - (best & MAX_DEPTH16) + 1)
    } else if best == 0x4000 {
        pack_value_depth16(ValueCode::Draw, 0)
    } else {
        pack_value_depth16(ValueCode::Loss, best + 1)
    }
}

/// Entries whose quiet placements are read and whose captures are located
/// (and prefetched): the captures' cells are read, and the entries' values
/// set, a batch at a time, so that the cache misses of many entries
/// overlap.
#[derive(Default)]
struct Placing<'a> {
    /// Entry within its run, the worth of its best quiet placement, its
    /// captures.
    entries: Vec<(usize, u16, std::ops::Range<usize>)>,
    located: Vec<Located<'a>>,
    run_captures: TakenClasses,
}

impl Placing<'_> {
    fn settle(&mut self, run: &mut [u16]) {
        for (at, mut best, captures) in self.entries.drain(..) {
            for place in &self.located[captures] {
                best = best.max(worth(place.cell()));
            }
            run[at] = from_worth(best);
        }
        self.located.clear();
    }
}

#[cfg(test)]
mod tests {
    use egdb_games::Value;

    use super::super::solved::Best;
    use super::*;

    /// The maximum worth gives what [`Best`] gives, over every small mix
    /// of successors.
    #[test]
    fn worth_orders_successors_as_best_does() {
        let outcomes: Vec<(Value, u16)> = [0u16, 1, 2, 7, 40, MAX_DEPTH16 - 1]
            .into_iter()
            .flat_map(|d| [(Value::Win, d), (Value::Loss, d)])
            .chain([(Value::Draw, 0)])
            .collect();
        for a in &outcomes {
            for b in &outcomes {
                for c in &outcomes {
                    let mut best = Best::default();
                    let mut most = 0;
                    for &o in [a, b, c] {
                        best.add(o);
                        most = most.max(worth(encode(o)));
                    }
                    let expected = best.outcome().unwrap();
                    assert_eq!(from_worth(most), encode(expected), "{a:?} {b:?} {c:?}");
                }
            }
        }
    }
}
