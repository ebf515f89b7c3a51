//! `egdb verify`: a finished store checked without the engines that built
//! it. For each slice, every block's checksum and the slice's, then every
//! stored position against the positions its legal moves lead to
//! (`egdb_tablebase::check` states the rule).
//!
//! Morris slices are checked from decoded tables in memory: the slice and
//! the slices its moves lead into, kept in a cache up to a memory budget
//! (slices are checked in plan order, so a slice's dependencies were
//! mostly checked just before it). Take-away slices go through the probes
//! queries use. Value-only tables (Nim without `--depth`) check values
//! alone.

mod morris;
mod nim;

use egdb_games::Game;
pub use egdb_tablebase::check::{expected, Mismatch, SliceCheck, EXAMPLES};

use crate::tablebase::Tablebase;
use crate::CoordinatorError;

/// Checks the slices of one store, keeping decoded slices between checks.
pub struct Verifier<'a> {
    tablebase: &'a Tablebase,
    morris: morris::Loaded,
}

impl<'a> Verifier<'a> {
    /// A verifier that keeps up to `memory` bytes of decoded slices besides
    /// the one being checked and those it reads.
    pub fn new(tablebase: &'a Tablebase, memory: u64) -> Verifier<'a> {
        Verifier {
            tablebase,
            morris: morris::Loaded::new(memory),
        }
    }

    /// Verifies one slice of the store: checksums, then every position.
    ///
    /// # Errors
    /// Store I/O errors. A corrupt slice, or one whose moves lead into a
    /// corrupt or missing slice, is a failed check, not an error.
    pub fn check(&mut self, slice: &str) -> Result<SliceCheck, CoordinatorError> {
        match self.tablebase.game() {
            Game::Nim(game) => nim::check(self.tablebase, game, slice),
            Game::Morris(game) => self.morris.check(self.tablebase, game, slice),
        }
    }
}

/// The check of a slice whose bytes cannot be trusted.
fn corrupt(slice: &str, reason: String) -> SliceCheck {
    SliceCheck {
        slice: slice.to_string(),
        corrupt: Some(reason),
        ..SliceCheck::default()
    }
}
