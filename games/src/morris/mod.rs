//! Morris games on the 24-point board: Taiwan Morris and Nine Men's Morris
//! rules with any number of pieces (RULES.md §1-3).
//!
//! * [`board`] — points, point sets, lines, adjacency, notation order.
//! * [`rules`] — the rules as one options struct with presets.
//! * [`position`] — positions and their notation.
//! * [`moves`] — moves, un-moves, terminal positions.
//! * [`symmetry`] — the 16 board symmetries and canonical forms.
//! * [`index`] — tables indexed by symmetry class.
//! * [`burnside`] — class counts from the symmetries' cycles, to check the index.
//! * [`slices`] — the slice graph.
//! * [`oracle`] — a plain solver to check the engines against.

pub mod board;
pub mod burnside;
pub mod captures;
pub mod index;
pub mod moves;
pub mod oracle;
pub mod position;
pub mod rules;
pub mod slices;
pub mod symmetry;

pub use board::{Point, PointSet};
pub use moves::Move;
pub use position::{Color, Phase, Position};
pub use rules::{MorrisRules, Variant, MAX_PIECES, MIN_PIECES};
pub use slices::MorrisSlice;

use crate::GameSpec;

/// A Morris game: a rule preset and the pieces per side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MorrisGame {
    variant: Variant,
    rules: MorrisRules,
}

impl MorrisGame {
    /// # Panics
    /// When `pieces` is outside 3…12 (specs are checked before).
    pub fn new(variant: Variant, pieces: u8) -> MorrisGame {
        assert!((MIN_PIECES..=MAX_PIECES).contains(&pieces));
        MorrisGame {
            variant,
            rules: MorrisRules::preset(variant, pieces),
        }
    }

    pub fn spec(&self) -> GameSpec {
        GameSpec::Morris {
            variant: self.variant,
            pieces: self.rules.pieces,
        }
    }

    pub fn rules(&self) -> &MorrisRules {
        &self.rules
    }

    pub fn name(&self) -> String {
        let name = match self.variant {
            Variant::Taiwan => "Taiwan Morris",
            Variant::Standard => "Morris, standard rules",
        };
        format!("{name}, {} pieces", self.rules.pieces)
    }

    /// Every slice with the slices it reads, dependencies first.
    pub fn plan(&self) -> Vec<(MorrisSlice, Vec<MorrisSlice>)> {
        slices::plan(&self.rules)
    }
}
