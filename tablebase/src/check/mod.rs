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

pub mod cells;
mod checker;
mod loaded;
pub mod morris;
pub mod nim;
pub mod wire;

pub use checker::{Checker, Fetched};

use egdb_games::Value;

/// Mismatches kept as examples per slice.
pub const EXAMPLES: usize = 10;

/// What the table says of one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub value: Value,
    /// Plies to the end under perfect play, where the table has depths.
    pub depth: Option<u32>,
}

impl Probe {
    /// A probe as a message carries it: a value tag and a depth.
    ///
    /// # Errors
    /// The reason, for a tag that names no value.
    pub fn from_wire(tag: i32, depth: Option<u32>) -> Result<Probe, String> {
        Ok(Probe {
            value: egdb_proto::values::value_of(tag)?,
            depth,
        })
    }

    /// A stored value code and depth as a probe (draws have no depth);
    /// `None` for "don't care".
    pub fn of_code(code: egdb_db_format::ValueCode, depth: u32) -> Option<Probe> {
        use egdb_db_format::ValueCode;
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
}

/// A position whose stored probe is not what its moves say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The position in the game's notation.
    pub position: String,
    /// `None`: the position's cell holds no value ("don't care").
    pub stored: Option<Probe>,
    pub expected: Probe,
}

/// What checking one slice found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SliceCheck {
    pub slice: String,
    /// Positions checked against their moves.
    pub positions: u64,
    /// Positions whose stored probe is wrong.
    pub mismatches: u64,
    /// Entries that only repeat a symmetry class yet hold a value (they
    /// must be "don't care").
    pub duplicates_with_values: u64,
    /// The first few mismatches.
    pub examples: Vec<Mismatch>,
    /// Why the slice's bytes cannot be trusted (a checksum that fails);
    /// its positions are not checked then.
    pub corrupt: Option<String>,
}

impl SliceCheck {
    pub fn passed(&self) -> bool {
        self.corrupt.is_none() && self.mismatches == 0 && self.duplicates_with_values == 0
    }

    /// Adds what another part of the same slice found.
    pub fn add(&mut self, other: SliceCheck) {
        self.positions += other.positions;
        self.mismatches += other.mismatches;
        self.duplicates_with_values += other.duplicates_with_values;
        let room = EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
        if self.corrupt.is_none() {
            self.corrupt = other.corrupt;
        }
    }

    /// Counts a checked position, and keeps it as an example when it is
    /// wrong and there is room.
    pub fn record(
        &mut self,
        position: impl FnOnce() -> String,
        stored: Option<Probe>,
        expected: Probe,
    ) {
        self.positions += 1;
        if stored != Some(expected) {
            self.mismatches += 1;
            if self.examples.len() < EXAMPLES {
                self.examples.push(Mismatch {
                    position: position(),
                    stored,
                    expected,
                });
            }
        }
    }
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
#[derive(Debug, Clone, Copy, Default)]
pub struct Expectation {
    moves: u32,
    shortest_loss: Option<u32>,
    draw: bool,
    longest_win: u32,
}

impl Expectation {
    /// Adds a successor's value and depth (from the next mover's view).
    #[inline]
    pub fn add(&mut self, value: Value, depth: u32) {
        self.moves += 1;
        match value {
            Value::Loss => {
                self.shortest_loss = Some(self.shortest_loss.map_or(depth, |d| d.min(depth)))
            }
            Value::Draw => self.draw = true,
            Value::Win => self.longest_win = self.longest_win.max(depth),
        }
    }

    /// The expected probe; `terminal` when there was no move.
    pub fn probe(&self, terminal: Value) -> Probe {
        let (value, depth) = if self.moves == 0 {
            (terminal, 0)
        } else if let Some(d) = self.shortest_loss {
            (Value::Win, d + 1)
        } else if self.draw {
            return Probe {
                value: Value::Draw,
                depth: None,
            };
        } else {
            (Value::Loss, self.longest_win + 1)
        };
        Probe {
            value,
            depth: Some(depth),
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
