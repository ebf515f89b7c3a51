//! Placement rounds: no cycles, every move leads to the next round, so one
//! pass over the entries settles them all.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use egdb_db_format::encoding::{pack_value_depth16, ValueCode};
use egdb_games::morris::index::{MoverClass, TableIndex};
use egdb_games::morris::moves::for_each_move;
use egdb_games::morris::symmetry::BOARD_SYMMETRIES;
use egdb_games::morris::{MorrisRules, MorrisSlice};
use egdb_games::Value;

use crate::table::zeroed_table;

use super::{Best, Dependencies, Located, SolvedTable, Successors, Target};
use crate::table::prefetch;

/// Entries whose successors are located before any is read.
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
    let index = TableIndex::new(key);
    let mut cells = zeroed_table::<u16>(index.len() as usize);
    let runs: Vec<(usize, &mut [u16])> = split_by_rep(&index, &mut cells);
    let successors = Successors::new(rules, deps, ply + 1, (key.mover + 1, key.opponent), false);
    let uncaptured = successors.uncaptured();
    runs.into_par_iter()
        .for_each_init(Placing::default, |placing, (id, run)| {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let start = index.rep_range(id).start;
            index.for_each_entry_of_rep(id, |i, entry| {
                if !entry.canonical {
                    return;
                }
                // Moves that capture nothing leave the other side, who moves
                // next, as it was: one class lookup per table serves them
                // all, and the position is seen from the class's
                // representative (the rules are the same in every image),
                // so that they are ranked without mapping each.
                let mut classes = [None, None];
                for odd in 0..2 {
                    if let Target::Table(table) = uncaptured[odd] {
                        classes[odd] = match (odd, uncaptured[0]) {
                            // Before the last round both parities are one table.
                            (1, Target::Table(first)) if std::ptr::eq(first, table) => classes[0],
                            _ => Some(table.index.mover_class(entry.opponent)),
                        };
                    }
                }
                // The symmetry depends on the set alone, not on the table.
                let frame = classes.iter().flatten().next().map_or(0, |c| c.symmetry());
                let classes = classes.map(|c| c.map(MoverClass::at_representative));
                let (mover, opponent) = (
                    BOARD_SYMMETRIES.apply(frame, entry.mover),
                    BOARD_SYMMETRIES.apply(frame, entry.opponent),
                );
                let nearby = [0, 1].map(|odd| match (&classes[odd], uncaptured[odd]) {
                    (Some(class), Target::Table(table)) => table.index.nearby(class, mover),
                    _ => None,
                });
                let first = placing.located.len();
                for_each_move(rules, true, mover, opponent, |s| {
                    let removed = s.mv.removed.len();
                    let odd = (s.opponent.odd_count() + s.mover.odd_count()) as usize % 2;
                    // Located (and prefetched) now, read with the batch.
                    placing
                        .located
                        .push(match (&nearby[odd], &classes[odd], uncaptured[odd]) {
                            (Some(near), _, Target::Table(table)) if removed == 0 => {
                                let i = near.with(s.mv.to) as usize;
                                prefetch(&table.cells, i);
                                Located::Cell(&table.cells, i)
                            }
                            (None, Some(class), Target::Table(table)) if removed == 0 => {
                                let i = table.index.index_in(class, s.mover) as usize;
                                prefetch(&table.cells, i);
                                Located::Cell(&table.cells, i)
                            }
                            _ => successors.locate(removed, s.opponent, s.mover),
                        });
                });
                let moves = first..placing.located.len();
                placing.entries.push(((i - start) as usize, moves));
                if placing.entries.len() == BATCH {
                    placing.settle(run);
                }
            });
            placing.settle(run);
        });
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    Some(vec![SolvedTable { index, cells }])
}

/// Entries whose successors are located (and prefetched): their cells are
/// read, and the entries' values set, a batch at a time, so that the cache
/// misses of many entries overlap.
#[derive(Default)]
struct Placing<'a> {
    /// Entry within its run, and its successors.
    entries: Vec<(usize, std::ops::Range<usize>)>,
    located: Vec<Located<'a>>,
}

impl Placing<'_> {
    fn settle(&mut self, run: &mut [u16]) {
        for (at, moves) in self.entries.drain(..) {
            let mut best = Best::default();
            for place in &self.located[moves] {
                best.add(place.outcome());
            }
            let (value, depth) = best.outcome().expect("a placement always has a move");
            let code = match value {
                Value::Win => ValueCode::Win,
                Value::Draw => ValueCode::Draw,
                Value::Loss => ValueCode::Loss,
            };
            run[at] = pack_value_depth16(code, depth);
        }
        self.located.clear();
    }
}

/// The table's cells cut at representative boundaries.
pub(super) fn split_by_rep<'a, T>(
    index: &TableIndex,
    mut cells: &'a mut [T],
) -> Vec<(usize, &'a mut [T])> {
    let mut runs = Vec::with_capacity(index.rep_count());
    for id in 0..index.rep_count() {
        let len = (index.rep_range(id).end - index.rep_range(id).start) as usize;
        let (run, rest) = cells.split_at_mut(len);
        runs.push((id, run));
        cells = rest;
    }
    runs
}
