//! Morris engines: retrograde analysis with cycles for movement slices
//! and for hand slices (placing and moving mixed, RULES.md §3a, whose
//! placements leave the slice as captures do), one backward pass per
//! placement round.
//!
//! Tables hold one 16-bit cell per entry of a [`TableIndex`] (value code
//! and depth, `db-format`'s `ValueDepth16`); entries that only duplicate a
//! symmetry class are "don't care" (0).

mod counting;
mod hands;
mod layout;
mod movement;
mod placement;
mod solved;
mod state;
pub mod task;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use egdb_games::morris::moves::terminal_value;
use egdb_games::morris::slices::table_of_position;
use egdb_games::morris::{MorrisGame, MorrisRules, MorrisSlice, Position};

use crate::WorkerError;
use solved::cell_of;
pub use solved::{target, Best, Dependencies, Outcome, SolvedSlice, SolvedTable, Target};

/// The engine of one Morris game.
#[derive(Debug, Clone)]
pub struct MorrisEngine {
    game: MorrisGame,
}

impl MorrisEngine {
    pub fn new(game: MorrisGame) -> MorrisEngine {
        MorrisEngine { game }
    }

    pub fn game(&self) -> &MorrisGame {
        &self.game
    }

    /// Solves `slice`; `deps` must hold every slice it reads.
    ///
    /// # Errors
    /// [`WorkerError::Cancelled`] soon after `cancel` is set;
    /// [`WorkerError::TooDeep`] for dependencies deeper than a game goes.
    pub fn solve(
        &self,
        slice: MorrisSlice,
        deps: &Dependencies,
        cancel: &AtomicBool,
    ) -> Result<SolvedSlice, WorkerError> {
        let rules = self.game.rules();
        let tables = match slice {
            MorrisSlice::Movement { .. } | MorrisSlice::Hand { .. } => {
                movement::solve(rules, slice, deps, cancel)?
            }
            MorrisSlice::Placement { .. } => {
                placement::solve(rules, slice, deps, cancel).ok_or(WorkerError::Cancelled)?
            }
        };
        Ok(SolvedSlice { slice, tables })
    }

    /// Every slice of the game in plan order, all kept in memory (small
    /// games and tests). Each is given only the slices the plan says it
    /// reads, as a build gives them, so that a plan that misses one fails
    /// here too.
    pub fn solve_all(&self) -> Dependencies {
        let mut solved = Dependencies::new();
        let never = AtomicBool::new(false);
        for (slice, reads) in self.game.plan() {
            let given: Dependencies = reads
                .iter()
                .map(|read| (*read, Arc::clone(&solved[read])))
                .collect();
            let done = self
                .solve(slice, &given, &never)
                .expect("nothing cancels this run");
            solved.insert(slice, Arc::new(done));
        }
        solved
    }
}

/// The value and depth of a position of a solved game (tests and queries of
/// in-memory solutions).
pub fn probe(rules: &MorrisRules, solved: &Dependencies, position: &Position) -> Outcome {
    if let Some(value) = terminal_value(rules, position) {
        return (value, 0);
    }
    let (mover, opponent) = position.sides();
    let (slice, table) =
        table_of_position(rules, position).expect("a game not over lies in a table");
    let solved = solved
        .get(&slice)
        .unwrap_or_else(|| panic!("slice {slice} was not solved"));
    cell_of(&solved.tables[table], mover, opponent)
}
