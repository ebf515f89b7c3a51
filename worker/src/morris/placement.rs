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

use super::{prefetch, Best, Dependencies, Located, SolvedTable, Successors, Target};

/// Placements (with their capture choices) from one position, at most.
const MAX_PLACEMENTS: usize = 64;

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
    let mut cells = vec![0u16; index.len() as usize];
    let runs: Vec<(usize, &mut [u16])> = split_by_rep(&index, &mut cells);
    let successors = Successors::new(rules, deps, ply + 1, (key.mover + 1, key.opponent), false);
    let uncaptured = successors.uncaptured();
    let buffer = || Vec::with_capacity(MAX_PLACEMENTS);
    runs.into_par_iter()
        .for_each_init(buffer, |located: &mut Vec<Located>, (id, run)| {
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
                let classes = uncaptured.map(|t| match t {
                    Target::Table(table) => Some(table.index.mover_class(entry.opponent)),
                    Target::Over(_) => None,
                });
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
                located.clear();
                for_each_move(rules, true, mover, opponent, |s| {
                    let removed = s.mv.removed.len();
                    let odd = (s.opponent.odd_count() + s.mover.odd_count()) as usize % 2;
                    // Located (and prefetched) now, read once all are.
                    located.push(match (&nearby[odd], &classes[odd], uncaptured[odd]) {
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
                let mut best = Best::default();
                for place in located.iter() {
                    best.add(place.outcome());
                }
                let (value, depth) = best.outcome().expect("a placement always has a move");
                let code = match value {
                    Value::Win => ValueCode::Win,
                    Value::Draw => ValueCode::Draw,
                    Value::Loss => ValueCode::Loss,
                };
                run[(i - start) as usize] = pack_value_depth16(code, depth);
            });
        });
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    Some(vec![SolvedTable { index, cells }])
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
