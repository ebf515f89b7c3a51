//! What the build relies on beneath it, apart from the engines: what a
//! slice must hold, checked against the rules; what identifies a store;
//! the plain memory primitives the engines share with the checker. The
//! build crates (`egdb-worker`, `egdb-coordinator`) use it, and so does
//! `egdb-tablebase`, which reads and serves finished stores above it.
//!
//! What a stored position must hold, given the positions its moves lead to:
//!
//! * a position with no move has the rules' value and depth 0;
//! * one with a move to a lost position is won, in one more than the
//!   shortest such loss;
//! * one whose moves all lead to won positions is lost, in one more than
//!   the longest;
//! * any other is drawn.
//!
//! [`morris`] and [`nim`] check a slice from its decoded tables and those
//! its moves lead into, [`cells`] any other family's; a [`Checker`]
//! fetches, decodes and keeps them for a run of checks ([`loaded`]).
//! [`verify`] checks a store slice by slice, with a journal so that an
//! interrupted verify goes on.
//!
//! * [`cpu`] — CPU time of a thread or the process, for costs measured
//!   beside other work.
//! * [`identity`] — a store's identity and the game it names.
//! * [`memory`] — huge-page advice and prefetching for tables read at
//!   random (shared with the engines).
//! * [`stored`] — a Morris slice's stored bytes decoded into its tables
//!   (shared with the engines).

pub mod cells;
mod checker;
pub mod cpu;
pub mod identity;
mod loaded;
pub mod memory;
pub mod morris;
pub mod nim;
pub mod stored;
pub mod verify;

pub use checker::{Checker, Fetched};
pub use egdb_games::checked::{Mismatch, Probe, SliceCheck, EXAMPLES};

use egdb_db_format::ValueCode;
use egdb_games::Value;

/// A stored value code and depth as a probe (draws have no depth); `None`
/// for "don't care".
pub fn probe_of_code(code: ValueCode, depth: u32) -> Option<Probe> {
    let value = match code {
        ValueCode::Win => Value::Win,
        ValueCode::Loss => Value::Loss,
        ValueCode::Draw => Value::Draw,
        ValueCode::DontCare => return None,
    };
    Some(Probe {
        value,
        depth: (value != Value::Draw).then_some(depth),
    })
}

/// The probe a position must have, given its moves' probes (each from the
/// next mover's view); `terminal` is the rules' value when it has no move.
pub fn expected(successors: &[Probe], terminal: Option<Value>, with_depth: bool) -> Probe {
    let depth = |d: u32| with_depth.then_some(d);
    if let Some(value) = terminal.filter(|_| successors.is_empty()) {
        return Probe {
            value,
            depth: depth(0),
        };
    }
    let shortest_loss = successors
        .iter()
        .filter(|p| p.value == Value::Loss)
        .map(|p| p.depth.unwrap_or(0))
        .min();
    if let Some(d) = shortest_loss {
        return Probe {
            value: Value::Win,
            depth: depth(d + 1),
        };
    }
    if successors.iter().all(|p| p.value == Value::Win) {
        let longest = successors.iter().map(|p| p.depth.unwrap_or(0)).max();
        return Probe {
            value: Value::Loss,
            depth: depth(longest.unwrap_or(0) + 1),
        };
    }
    Probe {
        value: Value::Draw,
        depth: None,
    }
}

/// Folds successors' probes one at a time into what [`expected`] says of
/// them all, without keeping them.
#[derive(Debug, Clone, Copy)]
pub struct Expectation {
    moves: u32,
    /// `u32::MAX` while no move loses: one branch less per successor
    /// than an `Option` (depths stay far below).
    shortest_loss: u32,
    draw: bool,
    longest_win: u32,
}

impl Default for Expectation {
    fn default() -> Expectation {
        Expectation {
            moves: 0,
            shortest_loss: u32::MAX,
            draw: false,
            longest_win: 0,
        }
    }
}

impl Expectation {
    /// Adds a successor's value and depth (from the next mover's view).
    #[inline]
    pub fn add(&mut self, value: Value, depth: u32) {
        self.moves += 1;
        match value {
            Value::Loss => self.shortest_loss = self.shortest_loss.min(depth),
            Value::Draw => self.draw = true,
            Value::Win => self.longest_win = self.longest_win.max(depth),
        }
    }

    /// The expected probe; `terminal` when there was no move.
    pub fn probe(&self, terminal: Value) -> Probe {
        let (value, depth) = if self.moves == 0 {
            (terminal, 0)
        } else if self.shortest_loss != u32::MAX {
            (Value::Win, self.shortest_loss + 1)
        } else if self.draw {
            (Value::Draw, 0)
        } else {
            (Value::Loss, self.longest_win + 1)
        };
        Probe {
            value,
            // Draws keep no depth, drawn ends (a blocked side under a
            // stalemate rule) among them.
            depth: (value != Value::Draw).then_some(depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn probes() -> impl Strategy<Value = Vec<(Value, u32)>> {
        proptest::collection::vec(
            (
                prop_oneof![Just(Value::Win), Just(Value::Loss), Just(Value::Draw)],
                0u32..50,
            ),
            0..8,
        )
    }

    proptest! {
        /// The running fold says what the list rule says.
        #[test]
        fn the_fold_agrees_with_the_rule(successors in probes()) {
            let listed: Vec<Probe> = successors
                .iter()
                .map(|&(value, depth)| Probe {
                    value,
                    depth: (value != Value::Draw).then_some(depth),
                })
                .collect();
            let mut folded = Expectation::default();
            for &(value, depth) in &successors {
                folded.add(value, depth);
            }
            prop_assert_eq!(
                folded.probe(Value::Loss),
                expected(&listed, Some(Value::Loss), true)
            );
        }
    }
}
