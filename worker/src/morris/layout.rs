//! The engines' layout and the stored one.
//!
//! Both engines solve a table with its sides swapped (the *engine layout*:
//! runs by the class of the side that moved last, `TableKey::swapped`), so
//! that the positions one move apart from a position share a run of the
//! table they lie in. Stores keep runs by the class of the side to move;
//! a solved table is written in that layout once, one index computation
//! per entry.

use rayon::prelude::*;

use egdb_games::morris::index::TableIndex;

use super::SolvedTable;
use crate::table::zeroed_table;

/// Class entries whose engine cells are located (and prefetched) before
/// any is read.
const BATCH: usize = 64;

/// The table `stored` indexes, from its cells in the layout `engine`
/// indexes (the same positions with the sides swapped): each class entry
/// gets the cell of its class (`cell`, after `prefetch` of the same
/// engine entry), duplicates 0 ("don't care").
pub(super) fn into_stored(
    stored: TableIndex,
    engine: &TableIndex,
    prefetch: impl Fn(usize) + Sync,
    cell: impl Fn(usize) -> u16 + Sync,
) -> SolvedTable {
    let mut cells = zeroed_table::<u16>(stored.len() as usize);
    let runs = split_by_rep(&stored, &mut cells);
    runs.into_par_iter()
        .for_each_init(Vec::new, |batch: &mut Vec<(usize, usize)>, (id, run)| {
            let start = stored.rep_range(id).start;
            let mut flush = |batch: &mut Vec<(usize, usize)>| {
                for (at, e) in batch.drain(..) {
                    run[at] = cell(e);
                }
            };
            stored.for_each_entry_of_rep(id, |i, entry| {
                if entry.canonical {
                    let e = engine.index(entry.opponent, entry.mover) as usize;
                    prefetch(e);
                    batch.push(((i - start) as usize, e));
                    if batch.len() == BATCH {
                        flush(batch);
                    }
                }
            });
            flush(batch);
        });
    SolvedTable {
        index: stored,
        cells,
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
