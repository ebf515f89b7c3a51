//! Movement slices: retrograde analysis with cycles.
//!
//! 1. Forward, once per entry: count the distinct classes reachable by a
//!    step that captures nothing (they lie in this slice), and fold the
//!    captures (other slices, already solved) into the entry's state.
//! 2. Backward, level by level (level = depth): every entry settled at
//!    level L visits its predecessors by un-moves. A loss makes each
//!    predecessor a win at L + 1; a win counts one of its successors down,
//!    and a predecessor whose count reaches zero is lost at L + 1 (or later,
//!    if a capture leads to a slower win for the other side). Taking levels
//!    in order gives the fastest wins and the slowest losses.
//! 3. What is left open is a draw.

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU8, Ordering};

use rayon::prelude::*;

use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::{for_each_move, for_each_unmove};
use egdb_games::morris::{MorrisRules, MorrisSlice, PointSet};

use super::state::{load, offer_win, settle_loss, State};
use super::{Best, Dependencies, SolvedTable, Successors};

/// Counter of an entry that only duplicates a class.
const DONT_CARE: u8 = u8::MAX;

/// Entries per rayon task in the level scans.
const SCAN_CHUNK: usize = 1 << 14;

/// Up to this many moves or un-moves from one position (3 flying pieces
/// onto at most 21 points, or 12 pieces with 4 neighbours each).
const MAX_MOVES: usize = 72;

/// Distinct entry numbers gathered from one position's moves.
struct Entries {
    items: [u64; MAX_MOVES],
    len: usize,
}

impl Entries {
    fn new() -> Entries {
        Entries {
            items: [0; MAX_MOVES],
            len: 0,
        }
    }

    fn push(&mut self, i: u64) {
        self.items[self.len] = i;
        self.len += 1;
    }

    fn distinct(&mut self) -> &[u64] {
        let items = &mut self.items[..self.len];
        items.sort_unstable();
        let mut kept = 0;
        for k in 0..items.len() {
            if k == 0 || items[k] != items[k - 1] {
                items[kept] = items[k];
                kept += 1;
            }
        }
        &self.items[..kept]
    }
}

struct Table {
    index: TableIndex,
    states: Vec<AtomicU16>,
    counters: Vec<AtomicU8>,
}

/// The slice's tables, or `None` when `cancel` was set (checked per
/// representative's run and between levels).
pub fn solve(
    rules: &MorrisRules,
    slice: MorrisSlice,
    deps: &Dependencies,
    cancel: &AtomicBool,
) -> Option<Vec<SolvedTable>> {
    let tables: Vec<Table> = slice
        .tables()
        .into_iter()
        .map(|key| {
            let index = TableIndex::new(key);
            let len = index.len() as usize;
            Table {
                index,
                states: (0..len).map(|_| AtomicU16::new(0)).collect(),
                counters: (0..len).map(|_| AtomicU8::new(0)).collect(),
            }
        })
        .collect();
    // Steps swap the orientation of the side to move.
    let other = |t: usize| if tables.len() == 1 { 0 } else { 1 - t };
    let deepest = AtomicU16::new(0);
    for (t, table) in tables.iter().enumerate() {
        let target = &tables[other(t)].index;
        initialise(rules, table, target, deps, &deepest, cancel);
    }
    let mut level = 0u16;
    while level <= deepest.load(Ordering::Relaxed) {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        for (t, table) in tables.iter().enumerate() {
            let before = &tables[other(t)];
            settle_level(rules, level, table, before, &deepest);
        }
        level += 1;
    }
    let solved = tables
        .into_iter()
        .map(|table| {
            let cells = table
                .states
                .iter()
                .zip(&table.counters)
                .map(|(state, counter)| {
                    if counter.load(Ordering::Relaxed) == DONT_CARE {
                        0
                    } else {
                        load(state).stored()
                    }
                })
                .collect();
            SolvedTable {
                index: table.index,
                cells,
            }
        })
        .collect();
    Some(solved)
}

/// Step 1: counts of successors in the slice, captures folded in.
fn initialise(
    rules: &MorrisRules,
    table: &Table,
    target: &TableIndex,
    deps: &Dependencies,
    deepest: &AtomicU16,
    cancel: &AtomicBool,
) {
    let index = &table.index;
    let key = index.key();
    let successors = Successors::new(
        rules,
        deps,
        2 * u32::from(rules.pieces),
        (key.mover, key.opponent),
        true,
    );
    (0..index.rep_count()).into_par_iter().for_each(|id| {
        // Left half-done: the level loop gives up before reading it.
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        index.for_each_entry_of_rep(id, |i, entry| {
            let (state, counter) = (&table.states[i as usize], &table.counters[i as usize]);
            if !entry.canonical {
                counter.store(DONT_CARE, Ordering::Relaxed);
                return;
            }
            if entry.mover.union(entry.opponent) == PointSet::FULL {
                // A full board is a draw; no move leaves or enters it.
                counter.store(1, Ordering::Relaxed);
                return;
            }
            let mut inside = Entries::new();
            let mut captures = Best::default();
            let mut any = false;
            // A step that captures nothing leaves the other side as it was.
            let class = target.mover_class(entry.opponent);
            for_each_move(rules, false, entry.mover, entry.opponent, |s| {
                any = true;
                if s.mv.removed.is_empty() {
                    inside.push(target.index_in(&class, s.mover));
                } else {
                    captures.add(successors.outcome(s.mv.removed.len(), s.opponent, s.mover));
                }
            });
            let count = inside.distinct().len() as u8;
            let (new, count) = if !any {
                (State::Loss(0), 0)
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
                deepest.fetch_max(d, Ordering::Relaxed);
            }
            state.store(new.encode(), Ordering::Relaxed);
            counter.store(count, Ordering::Relaxed);
        });
    });
}

/// Step 2 for one level and one table: settle predecessors in `before`.
fn settle_level(
    rules: &MorrisRules,
    level: u16,
    table: &Table,
    before: &Table,
    deepest: &AtomicU16,
) {
    let next = level + 1;
    table
        .states
        .par_chunks(SCAN_CHUNK)
        .enumerate()
        .for_each(|(chunk, states)| {
            for (k, cell) in states.iter().enumerate() {
                let lost = match load(cell) {
                    State::Loss(d) if d == level => true,
                    State::Win(d) if d == level => false,
                    State::PendingWin(d) if d == level => {
                        cell.store(State::Win(d).encode(), Ordering::Relaxed);
                        false
                    }
                    _ => continue,
                };
                let i = (chunk * SCAN_CHUNK + k) as u64;
                let entry = table.index.entry(i);
                let mut preds = Entries::new();
                for_each_unmove(rules, entry.mover, entry.opponent, |m, o| {
                    preds.push(before.index.index(m, o));
                });
                for &p in preds.distinct() {
                    let p = p as usize;
                    let state = &before.states[p];
                    if lost {
                        if offer_win(state, next) {
                            deepest.fetch_max(next, Ordering::Relaxed);
                        }
                    } else if matches!(load(state), State::Open { .. })
                        && before.counters[p].fetch_sub(1, Ordering::Relaxed) == 1
                    {
                        if let Some(d) = settle_loss(state, next) {
                            deepest.fetch_max(d, Ordering::Relaxed);
                        }
                    }
                }
            }
        });
}
