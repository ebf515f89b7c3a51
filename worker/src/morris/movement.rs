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
//!
//! Hand slices (placing and moving mixed, RULES.md §3a) are solved the same
//! way: their moves on the board that take nothing stay in the slice, and
//! their placements leave it, as captures do, for slices already solved
//! (step 1 for them is [`super::hands`]'s).
//!
//! While solving, a table is laid out with its sides swapped (the *engine
//! layout*: runs by the class of the side that moved last, see
//! [`Table`]): the predecessors of an entry all share its mover's set as
//! their other side's, so they lie in one run and are ranked without a
//! class lookup each. The solved table is then written in the stored
//! layout, one lookup per entry.

use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};

use egdb_db_format::encoding::MAX_DEPTH16;
use rayon::prelude::*;

use egdb_games::morris::index::{MoverClass, TableIndex};
use egdb_games::morris::moves::{
    count_quiet_steps, for_each_move, for_each_unmove_with_hands, Unmove,
};
use egdb_games::morris::symmetry::BOARD_SYMMETRIES;
use egdb_games::morris::{MorrisRules, MorrisSlice, PointSet};

use super::counting::{count_entries, dedup_sorted, Table};
use super::hands::initialise_with_hands;
use super::solved::{Dependencies, SolvedTable, Successors};
use super::state::{Settled, State};
use crate::table::prefetch;
use crate::WorkerError;

/// Entries per rayon task in the level scans.
const SCAN_CHUNK: usize = 1 << 14;

/// Up to this many moves or un-moves from one position (3 flying pieces
/// onto at most 21 points, or 12 pieces with 4 neighbours each).
const MAX_MOVES: usize = 72;

/// The slice's tables.
///
/// # Errors
/// [`WorkerError::Cancelled`] when `cancel` was set (checked per
/// representative's run and between levels); [`WorkerError::TooDeep`]
/// when a level would pass the deepest depth a cell holds.
pub fn solve(
    rules: &MorrisRules,
    slice: MorrisSlice,
    deps: &Dependencies,
    cancel: &AtomicBool,
) -> Result<Vec<SolvedTable>, WorkerError> {
    let hands = slice
        .hands()
        .ok_or_else(|| WorkerError::BadTask(format!("{slice} is no movement or hand slice")))?;
    let tables: Vec<Table> = slice
        .tables()
        .into_iter()
        .zip(hands)
        .map(|(key, hands)| Table::new(key, hands))
        .collect();
    // Steps swap the orientation of the side to move.
    let other = |t: usize| if tables.len() == 1 { 0 } else { 1 - t };
    let deepest = AtomicU16::new(0);
    let started = std::time::Instant::now();
    for (t, table) in tables.iter().enumerate() {
        let target = &tables[other(t)].engine;
        if table.hands == [0, 0] {
            initialise(rules, table, target, deps, &deepest, cancel);
        } else {
            initialise_with_hands(rules, table, target, deps, &deepest, cancel);
        }
    }
    let t1 = started.elapsed().as_secs_f64();
    let mut level = 0u16;
    while level <= deepest.load(Ordering::Relaxed) {
        if cancel.load(Ordering::Relaxed) {
            return Err(WorkerError::Cancelled);
        }
        // Settling this level would store the next one, which no cell holds.
        if level == MAX_DEPTH16 {
            return Err(WorkerError::TooDeep {
                slice: slice.to_string(),
                depth: u32::from(level),
            });
        }
        for (t, table) in tables.iter().enumerate() {
            let before = &tables[other(t)];
            settle_level(rules, level, table, before, &deepest);
        }
        level += 1;
    }
    let t2 = started.elapsed().as_secs_f64();
    let solved = tables.into_iter().map(Table::into_stored).collect();
    tracing::debug!(
        %slice,
        levels = level,
        init_seconds = t1,
        levels_seconds = t2 - t1,
        layout_seconds = started.elapsed().as_secs_f64() - t2,
        "movement slice solved"
    );
    Ok(solved)
}

/// Step 1: counts of successors in the slice, captures folded in.
/// `target` is the engine layout of the table the steps lead to.
fn initialise(
    rules: &MorrisRules,
    table: &Table,
    target: &TableIndex,
    deps: &Dependencies,
    deepest: &AtomicU16,
    cancel: &AtomicBool,
) {
    let key = table.stored.key();
    let successors = Successors::new(
        rules,
        deps,
        2 * u32::from(rules.pieces),
        (key.mover, key.opponent),
        true,
    );
    count_entries(
        rules,
        table,
        deepest,
        cancel,
        |_| (),
        |counting, (), distinct, mover, opponent| {
            // Captures are located (and prefetched) now, read with the batch.
            if distinct {
                return count_quiet_steps(rules, mover, opponent, |s| {
                    let located = successors.locate(s.mv.removed.len(), s.opponent, s.mover);
                    counting.captured.push(located);
                }) as u8;
            }
            counting.inside.clear();
            for_each_move(rules, false, mover, opponent, |s| {
                if s.mv.removed.is_empty() {
                    counting.inside.push(target.index(s.mover, opponent));
                } else {
                    let located = successors.locate(s.mv.removed.len(), s.opponent, s.mover);
                    counting.captured.push(located);
                }
            });
            dedup_sorted(&mut counting.inside) as u8
        },
    );
}

/// Entries settled at one level whose predecessors are being gathered: the
/// classes of a batch's sets are looked up together, their predecessors'
/// cells prefetched as they are found, and visited once the batch is
/// gathered, so that one entry's cache misses overlap with the others'.
struct Batch {
    /// Per entry waiting for its class: whether it is lost, and its sides
    /// (mover, other side).
    waiting: Vec<(bool, PointSet, PointSet)>,
    movers: Vec<PointSet>,
    classes: Vec<MoverClass>,
    /// Per entry: whether it is lost, and where its predecessors end.
    settled: Vec<(bool, usize)>,
    predecessors: Vec<u64>,
    /// The deepest state set so far, published once per chunk.
    deepest: u16,
    /// Pieces in hand of the settled entries' side to move and other side.
    hands: [u32; 2],
}

/// Settled entries gathered before their predecessors are visited.
const BATCH: usize = 16;

impl Batch {
    fn new(hands: [u32; 2]) -> Batch {
        Batch {
            hands,
            waiting: Vec::with_capacity(BATCH),
            movers: Vec::with_capacity(BATCH),
            classes: vec![MoverClass::default(); BATCH],
            settled: Vec::with_capacity(BATCH),
            predecessors: Vec::with_capacity(BATCH * MAX_MOVES),
            deepest: 0,
        }
    }

    /// Adds a position settled at this level (its mover's set, the other
    /// side's); settles the batch when it is full.
    fn add(
        &mut self,
        rules: &MorrisRules,
        lost: bool,
        (mover, opponent): (PointSet, PointSet),
        before: &Table,
        next: u16,
    ) {
        self.waiting.push((lost, mover, opponent));
        if self.waiting.len() == BATCH {
            self.settle(rules, before, next);
        }
    }

    /// Gathers the predecessors of the waiting entries and visits them.
    fn settle(&mut self, rules: &MorrisRules, before: &Table, next: u16) {
        // Every predecessor has the entry's `mover` as its other side:
        // one class lookup per entry, and the position seen from the
        // class's representative (the rules are the same in every
        // image), so that each predecessor is ranked within the run
        // without mapping it.
        self.movers.clear();
        self.movers
            .extend(self.waiting.iter().map(|&(_, mover, _)| mover));
        let classes = &mut self.classes[..self.movers.len()];
        before.engine.mover_classes(&self.movers, classes);
        for (&(lost, mover, opponent), &class) in self.waiting.iter().zip(classes.iter()) {
            let s = class.symmetry();
            let (mover, opponent) = (
                BOARD_SYMMETRIES.apply(s, mover),
                BOARD_SYMMETRIES.apply(s, opponent),
            );
            let class = class.at_representative();
            let nearby = before.engine.nearby(&class, opponent);
            let first = self.predecessors.len();
            let visit = |u: Unmove| {
                let p = match &nearby {
                    Some(near) => near.moved(u.to, u.from),
                    None => before.engine.index_in(&class, u.mover),
                };
                before.states.prefetch(p as usize);
                if !lost {
                    prefetch(&before.counters, p as usize);
                }
                self.predecessors.push(p);
            };
            // With no pieces in hand, the movement phase's un-moves.
            for_each_unmove_with_hands(rules, mover, opponent, self.hands, visit);
            // Distinct un-moves give distinct sets; they share a class only
            // through a symmetry that fixes `mover`.
            if !class.is_asymmetric() {
                let unique = dedup_sorted(&mut self.predecessors[first..]);
                self.predecessors.truncate(first + unique);
            }
            self.settled.push((lost, self.predecessors.len()));
        }
        self.waiting.clear();
        self.visit(before, next);
    }

    /// Settles what the gathered entries say of their predecessors: a loss
    /// makes each a win at `next`, a win counts each down, and one whose
    /// count reaches zero is lost at `next` (or its floor).
    fn visit(&mut self, before: &Table, next: u16) {
        let mut start = 0;
        for &(lost, end) in &self.settled {
            for &p in &self.predecessors[start..end] {
                let p = p as usize;
                if lost {
                    if before.states.offer_win(p, next) {
                        self.deepest = self.deepest.max(next);
                    }
                } else if matches!(before.states.load(p), State::Open { .. })
                    && before.counters[p].fetch_sub(1, Ordering::Relaxed) == 1
                {
                    if let Some(d) = before.states.settle_loss(p, next) {
                        self.deepest = self.deepest.max(d);
                    }
                }
            }
            start = end;
        }
        self.settled.clear();
        self.predecessors.clear();
    }
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
    let index = &table.engine;
    let cells = table.states.len();
    (0..cells.div_ceil(SCAN_CHUNK))
        .into_par_iter()
        .for_each_init(
            || Batch::new(table.hands),
            |batch, chunk| {
                let start = chunk * SCAN_CHUNK;
                // The representative whose run holds the entry last settled.
                let mut rep = None;
                table
                    .states
                    .scan(start..start + SCAN_CHUNK, level, |i, settled| {
                        let i = i as u64;
                        let mut id = rep.unwrap_or_else(|| index.rep_of(i));
                        while index.rep_range(id).end <= i {
                            id += 1;
                        }
                        rep = Some(id);
                        // Engine layout: the representative is the other side.
                        let (opponent, mover) = index.sides_in_rep(id, i);
                        let lost = settled == Settled::Lost;
                        batch.add(rules, lost, (mover, opponent), before, next);
                    });
                batch.settle(rules, before, next);
                deepest.fetch_max(std::mem::take(&mut batch.deepest), Ordering::Relaxed);
            },
        );
}
