//! The engines' layout and the stored one.
//!
//! Both engines solve a table with its sides swapped (the *engine layout*:
//! runs by the class of the side that moved last, `TableKey::swapped`), so
//! that the positions one move apart from a position share a run of the
//! table they lie in. Stores keep runs by the class of the side to move;
//! a solved table is written in that layout once, one index computation
//! per entry.

use rayon::prelude::*;

use egdb_games::morris::index::{MoverClass, TableIndex};
use egdb_games::morris::PointSet;

use super::solved::SolvedTable;
use crate::table::zeroed_table;

/// Class entries whose engine classes are looked up, and whose engine
/// cells are located (and prefetched), before any is read.
const BATCH: usize = 64;

/// Class entries of a run waiting for their engine cells: where each goes
/// in the run, and its sides in the engine layout.
#[derive(Default)]
struct Waiting {
    at: Vec<usize>,
    movers: Vec<PointSet>,
    opponents: Vec<PointSet>,
    classes: Vec<MoverClass>,
    cells: Vec<usize>,
}

impl Waiting {
    fn push(&mut self, at: usize, (mover, opponent): (PointSet, PointSet)) {
        self.at.push(at);
        self.movers.push(mover);
        self.opponents.push(opponent);
    }

    /// Writes each waiting entry's cell into `run`.
    fn flush(
        &mut self,
        engine: &TableIndex,
        run: &mut [u16],
        prefetch: &impl Fn(usize),
        cell: &impl Fn(usize) -> u16,
    ) {
        self.classes
            .resize(self.movers.len(), MoverClass::default());
        engine.mover_classes(&self.movers, &mut self.classes);
        self.cells.clear();
        for (class, &opponent) in self.classes.iter().zip(&self.opponents) {
            let e = engine.index_in(class, opponent) as usize;
            prefetch(e);
            self.cells.push(e);
        }
        for (&at, &e) in self.at.iter().zip(&self.cells) {
            run[at] = cell(e);
        }
        self.at.clear();
        self.movers.clear();
        self.opponents.clear();
    }
}

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
        .for_each_init(Waiting::default, |waiting, (id, run)| {
            let start = stored.rep_range(id).start;
            stored.for_each_entry_of_rep(id, |i, entry| {
                if entry.canonical {
                    // Engine layout: the sides swapped.
                    waiting.push((i - start) as usize, (entry.opponent, entry.mover));
                    if waiting.at.len() == BATCH {
                        waiting.flush(engine, run, &prefetch, &cell);
                    }
                }
            });
            waiting.flush(engine, run, &prefetch, &cell);
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
