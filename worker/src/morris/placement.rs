//! Placement rounds: no cycles, every move leads to the next round, so one
//! pass over the entries settles them all.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use egdb_db_format::encoding::{pack_value_depth16, ValueCode};
use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::for_each_move;
use egdb_games::morris::{MorrisRules, MorrisSlice};
use egdb_games::Value;

use super::{decode, Best, Dependencies, SolvedTable, Successors, Target};

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
    runs.into_par_iter().for_each(|(id, run)| {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let start = index.rep_range(id).start;
        index.for_each_entry_of_rep(id, |i, entry| {
            if !entry.canonical {
                return;
            }
            // Moves that capture nothing leave the other side, who moves
            // next, as it was: one class lookup per table serves them all.
            let classes = uncaptured.map(|t| match t {
                Target::Table(table) => Some(table.index.mover_class(entry.opponent)),
                Target::Over(_) => None,
            });
            let mut best = Best::default();
            for_each_move(rules, true, entry.mover, entry.opponent, |s| {
                let removed = s.mv.removed.len();
                let odd = (s.opponent.odd_count() + s.mover.odd_count()) as usize % 2;
                let outcome = match (&classes[odd], uncaptured[odd]) {
                    (Some(class), Target::Table(table)) if removed == 0 => {
                        decode(table.cells[table.index.index_in(class, s.mover) as usize])
                    }
                    _ => successors.outcome(removed, s.opponent, s.mover),
                };
                best.add(outcome);
            });
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
