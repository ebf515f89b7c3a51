//! The state of a position while its movement slice is being solved, in one
//! atomic 16-bit cell: a tag in the top two bits, a depth in the low 14.
//!
//! * `Open(x)`: not known yet; `x` = 1 + the deepest win among its
//!   successors in other slices (0: none). If every successor turns out a
//!   win, the position is lost in max(level + 1, x) plies.
//! * `PendingWin(d)`: a successor in another slice is lost in d - 1 plies;
//!   won in d unless a successor in this slice gives a faster win.
//! * `Win(d)`, `Loss(d)`: final.
//!
//! Whatever is still open or pending when no level is left is a draw.

use std::sync::atomic::{AtomicU16, Ordering};

use egdb_db_format::encoding::{pack_value_depth16, ValueCode};

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

#[inline]
pub fn load(cell: &AtomicU16) -> State {
    State::decode(cell.load(Ordering::Relaxed))
}

/// Makes an open or slower pending position a win in `depth`; false when it
/// was already settled otherwise.
pub fn offer_win(cell: &AtomicU16, depth: u16) -> bool {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let replace = match State::decode(current) {
            State::Open { .. } => true,
            State::PendingWin(d) => d > depth,
            State::Win(_) | State::Loss(_) => false,
        };
        if !replace {
            return false;
        }
        match cell.compare_exchange_weak(
            current,
            State::Win(depth).encode(),
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => return true,
            Err(now) => current = now,
        }
    }
}

/// Makes an open position a loss in max(`depth`, its floor); returns the
/// depth, or `None` when it was settled otherwise.
pub fn settle_loss(cell: &AtomicU16, depth: u16) -> Option<u16> {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let State::Open { loss_floor } = State::decode(current) else {
            return None;
        };
        let d = depth.max(loss_floor);
        match cell.compare_exchange_weak(
            current,
            State::Loss(d).encode(),
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => return Some(d),
            Err(now) => current = now,
        }
    }
}
