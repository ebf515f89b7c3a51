//! Step 1 of movement and hand slices, which both solve by retrograde
//! analysis with cycles ([`super::movement`]): the tables being solved,
//! and the walk that counts each entry's successors inside the slice and
//! folds in those outside it (captures; placements in hand slices, whose
//! moves [`super::hands`] reads).

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU8, Ordering};

use rayon::prelude::*;

use egdb_games::morris::index::{TableIndex, TableKey};
use egdb_games::morris::rules::Blocked;
use egdb_games::morris::{MorrisRules, PointSet};

use super::layout;
use super::solved::{Best, Located, SolvedTable};
use super::state::{State, States};
use crate::table::zeroed_atomics;

/// Entries whose captures are read together.
const BATCH: usize = 16;

/// Sorts `items` and moves each value's first copy to the front; returns
/// how many values there are.
pub(super) fn dedup_sorted(items: &mut [u64]) -> usize {
    items.sort_unstable();
    let mut unique = 0;
    for k in 0..items.len() {
        if k == 0 || items[k] != items[k - 1] {
            items[unique] = items[k];
            unique += 1;
        }
    }
    unique
}

/// One table of the slice while it is solved.
///
/// Its cells are in the engine layout: the entry of a position (mover's
/// set `M`, other side's `O`) is `engine.index(O, M)`, the index of the
/// table with the sides swapped. Runs are then by the class of `O`, and
/// the predecessors of a position of the other table, which keep its
/// mover's set as their `O`, share one run.
pub(super) struct Table {
    /// The table as stored (runs by the class of the side to move).
    pub(super) stored: TableIndex,
    /// The same positions with the sides swapped.
    pub(super) engine: TableIndex,
    pub(super) states: States,
    pub(super) counters: Vec<AtomicU8>,
    /// Pieces in hand of the side to move and of the other side: none in
    /// a movement slice.
    pub(super) hands: [u32; 2],
}

impl Table {
    pub(super) fn new(key: TableKey, hands: [u32; 2]) -> Table {
        let engine = TableIndex::new(key.swapped());
        let len = engine.len() as usize;
        Table {
            stored: TableIndex::new(key),
            engine,
            states: States::new(len),
            counters: zeroed_atomics::<u8, AtomicU8>(len),
            hands,
        }
    }

    /// The cells in the stored layout: each class entry the state of its
    /// class, duplicates 0 ("don't care").
    pub(super) fn into_stored(self) -> SolvedTable {
        let states = &self.states;
        layout::into_stored(
            self.stored,
            &self.engine,
            |e| states.prefetch(e),
            |e| states.load(e).stored(),
        )
    }
}

/// Step 1's walk of a table: each class entry of its engine layout, whose
/// steps inside the slice `count` counts (its other successors it locates
/// into `counting.captured`), given what `run` works out once per run from
/// the run's other side, and told whether the entry's run has a
/// representative without symmetries of its own: then distinct steps give
/// distinct sets of the side that moved, and so distinct classes (their
/// successors could share a class only through a symmetry that fixes the
/// other side's set, the run's representative).
pub(super) fn count_entries<'a, R>(
    rules: &MorrisRules,
    table: &Table,
    deepest: &AtomicU16,
    cancel: &AtomicBool,
    run: impl Fn(PointSet) -> R + Sync,
    count: impl Fn(&mut Counting<'a>, &mut R, bool, PointSet, PointSet) -> u8 + Sync,
) {
    let index = &table.engine;
    (0..index.rep_count())
        .into_par_iter()
        .for_each_init(Counting::default, |counting, id| {
            // Left half-done: the level loop gives up before reading it.
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let distinct = index.rep_is_asymmetric(id);
            // What the run's entries share: their other side.
            let mut run = run(index.representative(id));
            index.for_each_entry_of_rep(id, |i, swapped| {
                if !swapped.canonical {
                    return;
                }
                // Engine layout: the run's representative is the other side.
                let (mover, opponent) = (swapped.opponent, swapped.mover);
                if mover.union(opponent) == PointSet::FULL {
                    // A full board is a draw; no move leaves or enters it.
                    table.counters[i as usize].store(1, Ordering::Relaxed);
                    return;
                }
                let first = counting.captured.len();
                let steps = count(counting, &mut run, distinct, mover, opponent);
                counting.push(i as usize, steps, first, table, rules.blocked);
            });
            counting.settle(table, rules.blocked);
            // Published once per run: a shared maximum updated by every
            // entry would bounce between the cores.
            deepest.fetch_max(std::mem::take(&mut counting.deepest), Ordering::Relaxed);
        });
}

/// Entries whose steps are counted and whose captures are located: the
/// captures' cells are read, and the entries' states set, a batch at a
/// time, so that the cache misses of many entries overlap.
#[derive(Default)]
pub(super) struct Counting<'a> {
    /// Entry, whether it has a move, its distinct steps, its captures.
    entries: Vec<(usize, bool, u8, std::ops::Range<usize>)>,
    pub(super) captured: Vec<Located<'a>>,
    /// A hand entry's placements that capture nothing, gathered apart
    /// from its captures, then moved to `captured`.
    pub(super) placed: Vec<Located<'a>>,
    /// The steps' entries, where they must be told apart.
    pub(super) inside: Vec<u64>,
    deepest: u16,
}

impl Counting<'_> {
    /// Adds entry `i` with `count` steps inside the slice and the captures
    /// located since `first`; settles a full batch.
    fn push(&mut self, i: usize, count: u8, first: usize, table: &Table, blocked: Blocked) {
        let captures = first..self.captured.len();
        let any = count > 0 || !captures.is_empty();
        self.entries.push((i, any, count, captures));
        if self.entries.len() == BATCH {
            self.settle(table, blocked);
        }
    }

    /// `blocked`: what an entry without a move is.
    fn settle(&mut self, table: &Table, blocked: Blocked) {
        for (i, any, count, captured) in self.entries.drain(..) {
            let mut captures = Best::default();
            for located in &self.captured[captured] {
                captures.add(located.outcome());
            }
            let (new, count) = if !any {
                match blocked {
                    Blocked::Loses => (State::Loss(0), 0),
                    // A draw: no successor can bring its counter to zero.
                    Blocked::Draws => (State::Open { loss_floor: 0 }, 1),
                }
            } else if let Some(d) = captures.fastest_win {
                // Never lost: the counter cannot reach zero.
                (State::PendingWin(d), count + 1)
            } else if count == 0 && !captures.draw {
                (State::Loss(captures.slowest_loss.unwrap_or(0)), 0)
            } else {
                let floor = captures.slowest_loss.unwrap_or(0);
                (
                    State::Open { loss_floor: floor },
                    count + u8::from(captures.draw),
                )
            };
            if let State::Loss(d) | State::PendingWin(d) = new {
                self.deepest = self.deepest.max(d);
            }
            table.states.store(i, new);
            table.counters[i].store(count, Ordering::Relaxed);
        }
        self.captured.clear();
    }
}
