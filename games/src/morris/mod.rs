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
//! * `oracle` — a plain solver to check the engines against (feature
//!   `oracle`, for tests).

pub mod board;
pub mod burnside;
pub mod captures;
pub mod colex;
mod family;
pub mod index;
pub mod moves;
#[cfg(any(test, feature = "oracle"))]
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

use std::sync::{Arc, OnceLock};

use crate::fingerprint::Fnv;
use crate::{GameSpec, SliceInfo};
use index::TableIndex;
use rules::{MillTargets, PieceLoss};

/// A Morris game: a rule preset and the pieces per side.
#[derive(Debug, Clone)]
pub struct MorrisGame {
    variant: Variant,
    rules: MorrisRules,
    /// Built on the first position located, shared by clones.
    locator: Arc<OnceLock<family::Locator>>,
}

impl PartialEq for MorrisGame {
    fn eq(&self, other: &MorrisGame) -> bool {
        (self.variant, &self.rules) == (other.variant, &other.rules)
    }
}

impl Eq for MorrisGame {}

impl MorrisGame {
    /// # Panics
    /// When `pieces` is outside 3…12 (specs are checked before).
    pub fn new(variant: Variant, pieces: u8) -> MorrisGame {
        assert!((MIN_PIECES..=MAX_PIECES).contains(&pieces));
        MorrisGame {
            variant,
            rules: MorrisRules::preset(variant, pieces),
            locator: Arc::default(),
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

    fn locator(&self) -> &family::Locator {
        self.locator.get_or_init(|| family::Locator::new(self))
    }

    pub fn name(&self) -> String {
        let name = match self.variant {
            Variant::Taiwan => "Taiwan Morris",
            Variant::TaiwanProtected => "Taiwan Morris, mills protected while placing",
            Variant::Standard => "Morris, standard rules",
        };
        format!("{name}, {} pieces", self.rules.pieces)
    }

    /// Every slice with the slices it reads, dependencies first.
    pub fn plan(&self) -> Vec<(MorrisSlice, Vec<MorrisSlice>)> {
        slices::plan(&self.rules)
    }

    /// The slices of a build, dependencies first, with their sizes:
    /// `positions` from Burnside's count of each table's arrangements,
    /// `entries` from the index.
    pub fn slices(&self) -> Vec<SliceInfo> {
        self.plan()
            .into_iter()
            .map(|(slice, deps)| SliceInfo {
                id: slice.id(),
                positions: slice
                    .tables()
                    .into_iter()
                    .map(|key| burnside::fixed_positions(key, 0))
                    .sum(),
                entries: slice
                    .tables()
                    .into_iter()
                    .map(|key| TableIndex::new(key).len())
                    .sum(),
                kept_entries: 0,
                dependencies: deps.iter().map(MorrisSlice::id).collect(),
                stones: None,
            })
            .map(|info| SliceInfo {
                kept_entries: info.entries,
                ..info
            })
            .collect()
    }

    /// A stable fingerprint of the rules: stores of other rules differ in it.
    pub fn fingerprint(&self) -> u64 {
        let r = &self.rules;
        let mut hash = Fnv::default();
        hash.write(b"morris");
        hash.write(&[
            r.pieces,
            u8::from(r.diagonals),
            match r.mill_targets {
                MillTargets::Any => 0,
                MillTargets::NotInMillUnlessAll => 1,
                MillTargets::NotInMillWhilePlacing => 2,
            },
            u8::from(r.gang),
            u8::from(r.dan),
            u8::from(r.flying),
            match r.piece_loss {
                PieceLoss::BoardInMovement => 0,
                PieceLoss::BoardAndHand => 1,
            },
        ]);
        hash.0
    }
}
