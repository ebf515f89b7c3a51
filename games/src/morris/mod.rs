//! Morris games on the 24-point board: Taiwan Morris, Nine Men's Morris
//! and Morabaraba rules with any number of pieces (RULES.md §1-3), and any
//! variant a rules file gives.
//!
//! * [`board`] — points, point sets, lines, adjacency, notation order.
//! * [`rules`] — the rules as one options struct with presets.
//! * [`file`] — rules files (`morris:file:PATH`).
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
pub mod file;
pub mod index;
mod locator;
pub mod moves;
#[cfg(any(test, feature = "oracle"))]
pub mod oracle;
pub mod placements;
pub mod position;
pub mod rules;
pub mod slices;
pub mod symmetry;

pub use board::{Point, PointSet};
pub use moves::Move;
pub use position::{Color, Phase, Position};
pub use rules::{MorrisRules, Placing, Variant, MAX_PIECES, MIN_PIECES};
pub use slices::MorrisSlice;

use std::sync::{Arc, OnceLock};

use crate::fingerprint::Fnv;
use crate::{GameError, GameSpec, SliceInfo};
use index::TableIndex;
use rules::{Blocked, CaptureRule, DanTakes, MillTargets, PieceLoss, SeveralCaptures};

/// A Morris game: rules (a preset's or a file's) and the pieces per side.
#[derive(Debug, Clone)]
pub struct MorrisGame {
    spec: GameSpec,
    name: String,
    /// A rules file's variant as a store keeps it; `None` for presets.
    definition: Option<String>,
    rules: MorrisRules,
    /// Built on the first position located, shared by clones.
    locator: Arc<OnceLock<locator::Locator>>,
}

impl PartialEq for MorrisGame {
    fn eq(&self, other: &MorrisGame) -> bool {
        (&self.spec, &self.rules) == (&other.spec, &other.rules)
    }
}

impl Eq for MorrisGame {}

impl MorrisGame {
    /// # Panics
    /// When `pieces` is outside 3…12 (specs are checked before).
    pub fn new(variant: Variant, pieces: u8) -> MorrisGame {
        assert!((MIN_PIECES..=MAX_PIECES).contains(&pieces));
        MorrisGame {
            spec: GameSpec::Morris { variant, pieces },
            name: format!("{}, {pieces} pieces", variant.title()),
            definition: None,
            rules: MorrisRules::preset(variant, pieces),
            locator: Arc::default(),
        }
    }

    /// A start with `first` pieces for the first player and `second` for
    /// the second, pieces in hand while moving (`morris:FAMILY:K:L`).
    ///
    /// # Errors
    /// The reason the family allows no such start.
    pub fn with_hands(variant: Variant, first: u8, second: u8) -> Result<MorrisGame, GameError> {
        let spec = GameSpec::MorrisHands {
            variant,
            first,
            second,
        };
        let rules = MorrisRules::preset(variant, first)
            .with_hands(first, second)
            .map_err(|reason| GameError::UnknownSpec {
                spec: spec.to_string(),
                reason,
            })?;
        Ok(MorrisGame {
            name: format!("{}, {first} against {second} pieces", variant.title()),
            spec,
            definition: None,
            rules,
            locator: Arc::default(),
        })
    }

    /// The game of a rules file (`morris:file:PATH`): its text as the file
    /// holds it or as a store kept it.
    ///
    /// # Errors
    /// [`GameError::GameFile`] for text that gives no variant.
    pub fn from_rules_file(spec: GameSpec, text: &str) -> Result<MorrisGame, GameError> {
        let path = match &spec {
            GameSpec::MorrisFile { path } => path.display().to_string(),
            other => other.to_string(),
        };
        let def = file::parse(text, &path)?;
        Ok(MorrisGame {
            spec,
            definition: Some(file::to_toml(&def)),
            name: def.name,
            rules: def.rules,
            locator: Arc::default(),
        })
    }

    pub fn spec(&self) -> GameSpec {
        self.spec.clone()
    }

    /// A rules file's variant as a store keeps it; `None` for presets.
    pub fn definition(&self) -> Option<&str> {
        self.definition.as_deref()
    }

    pub fn rules(&self) -> &MorrisRules {
        &self.rules
    }

    fn locator(&self) -> &locator::Locator {
        self.locator
            .get_or_init(|| locator::Locator::new(self.plan().into_iter().map(|(slice, _)| slice)))
    }

    pub fn name(&self) -> String {
        self.name.clone()
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
        // Options added later hash only where they differ from the rule
        // that held before them, so that older stores keep their prints.
        let taking_all = r.several_captures == SeveralCaptures::All;
        if r.dan_takes != DanTakes::Both || r.capture != CaptureRule::Compulsory || taking_all {
            hash.write(&[
                u8::from(r.dan_takes == DanTakes::One),
                u8::from(r.capture == CaptureRule::Optional),
            ]);
        }
        if taking_all {
            hash.write(&[1]);
        }
        if r.blocked == Blocked::Draws {
            hash.write(&[2]);
        }
        if let Some([first, second]) = r.hands {
            hash.write(&[3, first, second, u8::from(r.placing == Placing::Lasker)]);
        }
        hash.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store is opened only by a game of its fingerprint: these are the
    /// prints of stores built before the later rules options existed
    /// (the P = 9 stores of `docs/results/` among them).
    #[test]
    fn fingerprints_of_existing_variants_never_change() {
        let prints: Vec<String> = [
            (Variant::Taiwan, 9),
            (Variant::TaiwanProtected, 9),
            (Variant::Standard, 9),
            (Variant::Morabaraba, 12),
        ]
        .into_iter()
        .map(|(v, p)| format!("{:016x}", MorrisGame::new(v, p).fingerprint()))
        .collect();
        assert_eq!(
            prints,
            [
                "61d5094151c6ac77",
                "487742ec5727d7b1",
                "293b5441326f2d11",
                "fcad7d6f4f01ee47"
            ]
        );
        // And the readings built before `several_captures` existed.
        let reading = |name: &str, text: &str| {
            let spec: GameSpec = format!("morris:file:{name}").parse().unwrap();
            let game = MorrisGame::from_rules_file(spec, text).unwrap();
            format!("{:016x}", game.fingerprint())
        };
        assert_eq!(
            [
                reading(
                    "dan-one.toml",
                    include_str!("../../../docs/variants/taiwan-readings/dan-one.toml")
                ),
                reading(
                    "capture-optional.toml",
                    include_str!("../../../docs/variants/taiwan-readings/capture-optional.toml")
                ),
            ],
            ["06124e3b2ea383f7", "060ee93b2ea0a281"]
        );
        // And those built since, with the options they brought.
        assert_eq!(
            [
                reading(
                    "take-all.toml",
                    include_str!("../../../docs/variants/taiwan-readings/take-all.toml")
                ),
                reading(
                    "blocked-draws.toml",
                    include_str!("../../../docs/variants/taiwan-readings/blocked-draws.toml")
                ),
            ],
            ["ebf56b903af13fbd", "3b9da6dc3cb92594"]
        );
    }
}
