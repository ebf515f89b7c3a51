//! `egdb verify`: a finished store checked without the engines that built
//! it. First every block's checksum and each slice's, then every stored
//! position against the positions its legal moves lead to, found by forward
//! move generation and read back through the same probes queries use:
//!
//! * a position with no move has the rules' value and depth 0;
//! * one with a move to a lost position is won, in one more than the
//!   shortest such loss;
//! * one whose moves all lead to won positions is lost, in one more than
//!   the longest;
//! * any other is drawn.
//!
//! Value-only tables (Nim without `--depth`) check values alone.

mod morris;
mod nim;

use egdb_games::{Game, Value};

use crate::tablebase::{Probe, Tablebase};
use crate::CoordinatorError;

/// Mismatches kept as examples per slice.
const EXAMPLES: usize = 10;

/// A position whose stored probe is not what its moves say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The position in the game's notation.
    pub position: String,
    pub stored: Probe,
    pub expected: Probe,
}

/// What verifying one slice found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SliceCheck {
    pub slice: String,
    /// Positions checked against their moves.
    pub positions: u64,
    /// Positions whose stored probe is wrong.
    pub mismatches: u64,
    /// The first few of them.
    pub examples: Vec<Mismatch>,
    /// Why the slice's bytes cannot be trusted (a checksum that fails);
    /// its positions are not checked then.
    pub corrupt: Option<String>,
}

impl SliceCheck {
    pub fn passed(&self) -> bool {
        self.corrupt.is_none() && self.mismatches == 0
    }

    fn add(&mut self, other: SliceCheck) {
        self.positions += other.positions;
        self.mismatches += other.mismatches;
        let room = EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
    }

    fn record(&mut self, position: impl FnOnce() -> String, stored: Probe, expected: Probe) {
        self.positions += 1;
        if stored != expected {
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

/// Verifies one slice of the store: checksums, then every position.
///
/// # Errors
/// Store I/O errors, and corrupt blocks of *other* slices that the checked
/// positions' moves lead into (those slices fail their own check too).
pub fn verify_slice(tablebase: &Tablebase, slice: &str) -> Result<SliceCheck, CoordinatorError> {
    let mut check = SliceCheck {
        slice: slice.to_string(),
        ..SliceCheck::default()
    };
    match tablebase.store().read_slice(slice) {
        Ok(_) => {}
        Err(e @ egdb_db_format::FormatError::Corrupt { .. }) => {
            check.corrupt = Some(e.to_string());
            return Ok(check);
        }
        Err(e) => return Err(e.into()),
    }
    let found = match tablebase.game() {
        Game::Nim(game) => nim::check(tablebase, game, slice)?,
        Game::Morris(game) => morris::check(tablebase, game, slice)?,
    };
    check.add(found);
    Ok(check)
}

/// The probe a position must have, given its moves' probes (each from the
/// next mover's view); `terminal` is the rules' value when it has no move.
fn expected(successors: &[Probe], terminal: Option<Value>, with_depth: bool) -> Probe {
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
