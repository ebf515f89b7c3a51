//! The state of a position while its movement slice is being solved, in
//! 16 bits: a tag in the top two bits, a depth in the low 14.
//!
//! * `Open(x)`: not known yet; `x` = 1 + the deepest win among its
//!   successors in other slices (0: none). If every successor turns out a
//!   win, the position is lost in max(level + 1, x) plies.
//! * `PendingWin(d)`: a successor in another slice is lost in d - 1 plies;
//!   won in d unless a successor in this slice gives a faster win.
//! * `Win(d)`, `Loss(d)`: final.
//!
//! Whatever is still open or pending when no level is left is a draw.
//!
//! [`States`] keeps four states to an atomic 64-bit word, so that a level
//! scan tests four at once for the level's depth.

use std::sync::atomic::{AtomicU64, Ordering};

use egdb_db_format::encoding::{pack_value_depth16, ValueCode};

use crate::table::prefetch;
use crate::table::zeroed_atomics;

const OPEN: u16 = 0;
const PENDING_WIN: u16 = 1 << 14;
const WIN: u16 = 2 << 14;
const LOSS: u16 = 3 << 14;
const TAG: u16 = 3 << 14;
const DEPTH: u16 = !TAG;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Open { loss_floor: u16 },
    PendingWin(u16),
    Win(u16),
    Loss(u16),
}

impl State {
    pub fn encode(self) -> u16 {
        match self {
            State::Open { loss_floor } => OPEN | loss_floor,
            State::PendingWin(d) => PENDING_WIN | d,
            State::Win(d) => WIN | d,
            State::Loss(d) => LOSS | d,
        }
    }

    pub fn decode(cell: u16) -> State {
        let depth = cell & DEPTH;
        match cell & TAG {
            OPEN => State::Open { loss_floor: depth },
            PENDING_WIN => State::PendingWin(depth),
            WIN => State::Win(depth),
            _ => State::Loss(depth),
        }
    }

    /// The stored cell once solving is over.
    pub fn stored(self) -> u16 {
        match self {
            State::Open { .. } | State::PendingWin(_) => pack_value_depth16(ValueCode::Draw, 0),
            State::Win(d) => pack_value_depth16(ValueCode::Win, d),
            State::Loss(d) => pack_value_depth16(ValueCode::Loss, d),
        }
    }
}

/// What a level scan found in a cell whose depth is the level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    Won,
    Lost,
}

/// States per word.
const LANES: usize = 4;
/// The low bit of each lane.
const LOW_BITS: u64 = 0x0001_0001_0001_0001;
/// The top bit of each lane.
const HIGH_BITS: u64 = 0x8000_8000_8000_8000;

/// The states of one table, all `Open { loss_floor: 0 }` at first.
pub struct States {
    words: Vec<AtomicU64>,
    len: usize,
}

impl States {
    pub fn new(len: usize) -> States {
        States {
            words: zeroed_atomics::<u64, AtomicU64>(len.div_ceil(LANES)),
            len,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn word(&self, i: usize) -> (&AtomicU64, u32) {
        (&self.words[i / LANES], 16 * (i % LANES) as u32)
    }

    #[inline]
    pub fn load(&self, i: usize) -> State {
        let (word, shift) = self.word(i);
        State::decode((word.load(Ordering::Relaxed) >> shift) as u16)
    }

    /// Replaces the state of `i` by `change(state)` unless that is `None`;
    /// returns the state replaced.
    #[inline]
    fn update(&self, i: usize, change: impl Fn(State) -> Option<State>) -> Option<State> {
        let (word, shift) = self.word(i);
        let mut current = word.load(Ordering::Relaxed);
        loop {
            let old = State::decode((current >> shift) as u16);
            let new = change(old)?;
            let replaced = current & !(0xffff << shift) | u64::from(new.encode()) << shift;
            match word.compare_exchange_weak(
                current,
                replaced,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(old),
                Err(now) => current = now,
            }
        }
    }

    pub fn store(&self, i: usize, state: State) {
        self.update(i, |_| Some(state));
    }

    /// Makes an open or slower pending position a win in `depth`; false
    /// when it was already settled otherwise.
    pub fn offer_win(&self, i: usize, depth: u16) -> bool {
        self.update(i, |old| {
            let replace = match old {
                State::Open { .. } => true,
                State::PendingWin(d) => d > depth,
                State::Win(_) | State::Loss(_) => false,
            };
            replace.then_some(State::Win(depth))
        })
        .is_some()
    }

    /// Makes an open position a loss in max(`depth`, its floor); returns
    /// the depth, or `None` when it was settled otherwise.
    pub fn settle_loss(&self, i: usize, depth: u16) -> Option<u16> {
        let old = self.update(i, |old| match old {
            State::Open { loss_floor } => Some(State::Loss(depth.max(loss_floor))),
            _ => None,
        })?;
        let State::Open { loss_floor } = old else {
            unreachable!("only open positions are settled as losses");
        };
        Some(depth.max(loss_floor))
    }

    #[inline]
    pub fn prefetch(&self, i: usize) {
        prefetch(&self.words, i / LANES);
    }

    /// Calls `visit(i, settled)` for every position of `range` (which
    /// starts at a multiple of four) won or lost at `level`; pending wins
    /// of that depth become wins first.
    pub fn scan(
        &self,
        range: std::ops::Range<usize>,
        level: u16,
        mut visit: impl FnMut(usize, Settled),
    ) {
        debug_assert_eq!(range.start % LANES, 0);
        let depths = u64::from(DEPTH) * LOW_BITS;
        let wanted = u64::from(level) * LOW_BITS;
        let end = range.end.min(self.len);
        for w in range.start / LANES..end.div_ceil(LANES) {
            let word = self.words[w].load(Ordering::Relaxed);
            // A lane of `x` is zero where the depth is the level: find
            // such lanes four at a time (an open lane whose floor is the
            // level is told apart below).
            let x = (word & depths) ^ wanted;
            if (x.wrapping_sub(LOW_BITS) & !x & HIGH_BITS) == 0 {
                continue;
            }
            for lane in 0..LANES {
                let i = w * LANES + lane;
                if i >= end {
                    break;
                }
                let cell = (word >> (16 * lane)) as u16;
                if cell & DEPTH != level {
                    continue;
                }
                match State::decode(cell) {
                    State::Loss(_) => visit(i, Settled::Lost),
                    State::Win(_) => visit(i, Settled::Won),
                    State::PendingWin(d) => {
                        self.store(i, State::Win(d));
                        visit(i, Settled::Won);
                    }
                    State::Open { .. } => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_keep_their_states_apart() {
        let states = States::new(9);
        states.store(1, State::Loss(3));
        states.store(2, State::PendingWin(3));
        states.store(5, State::Open { loss_floor: 3 });
        states.store(8, State::Win(3));
        states.store(4, State::Win(2));
        assert!(states.offer_win(0, 4));
        assert!(!states.offer_win(1, 4));
        assert_eq!(states.settle_loss(5, 2), Some(3));
        assert_eq!(states.settle_loss(6, 7), Some(7));
        assert_eq!(states.load(6), State::Loss(7));
        let mut seen = Vec::new();
        states.scan(0..9, 3, |i, s| seen.push((i, s)));
        assert_eq!(
            seen,
            [
                (1, Settled::Lost),
                (2, Settled::Won),
                (5, Settled::Lost),
                (8, Settled::Won)
            ]
        );
        assert_eq!(states.load(2), State::Win(3));
        assert_eq!(states.load(0), State::Win(4));
        assert_eq!(states.load(3), State::Open { loss_floor: 0 });
    }
}
