//! One game of any family, for the parts of egdb that handle them alike:
//! planning a build, naming a store, reading, checking and serving it.
//!
//! [`families!`] below is the one list of families: it makes [`Game`] and
//! [`with_game!`], which hands the game of any family to generic code.

use crate::family::Family;
use crate::morris::{MorrisGame, MorrisRules, Placing};
use crate::nim::NimGame;
use crate::toy::RotorGame;
use crate::{GameError, GameSpec, SliceInfo};

/// Makes [`Game`] with one variant per family and [`with_game!`] matching
/// them all; `$d` is a `$` for the inner macro.
macro_rules! families {
    ($d:tt $($family:ident($game:ty),)+) => {
        /// A game instantiated from its spec. One lives per build or store,
        /// so the size difference of the variants costs nothing.
        #[derive(Debug, Clone)]
        #[allow(clippy::large_enum_variant)]
        pub enum Game {
            $($family($game),)+
        }

        /// `with_game!(game, g => body)`: `body` with `g` bound to the
        /// family's game inside `game` (a `&Game`), compiled once per family.
        #[macro_export]
        macro_rules! with_game {
            ($d game:expr, $d g:ident => $d body:expr) => {
                match $d game {
                    $($crate::Game::$family($d g) => $d body,)+
                }
            };
        }
    };
}

families! {$
    Nim(NimGame),
    Morris(MorrisGame),
    Rotor(RotorGame),
}

impl Game {
    /// Instantiates a spec; `nim:file:PATH` and `morris:file:PATH` read and
    /// validate their file.
    ///
    /// # Errors
    /// As [`NimGame::from_spec`].
    pub fn from_spec(spec: &GameSpec) -> Result<Game, GameError> {
        Game::from_spec_with_definition(spec, None)
    }

    /// The game of a spec whose definition travels with it (a store's copy,
    /// a task's), as [`NimGame::from_spec_with_definition`].
    ///
    /// # Errors
    /// As [`NimGame::from_spec_with_definition`].
    pub fn from_spec_with_definition(
        spec: &GameSpec,
        definition: Option<&str>,
    ) -> Result<Game, GameError> {
        match *spec {
            GameSpec::Morris { variant, pieces } => {
                Ok(Game::Morris(MorrisGame::new(variant, pieces)))
            }
            GameSpec::MorrisHands {
                variant,
                first,
                second,
            } => MorrisGame::with_hands(variant, first, second).map(Game::Morris),
            GameSpec::MorrisFile { ref path } => {
                let text = match definition {
                    Some(text) => text.to_string(),
                    None => crate::morris::file::read(path)?,
                };
                MorrisGame::from_rules_file(spec.clone(), &text).map(Game::Morris)
            }
            GameSpec::Rotor { tokens } => Ok(Game::Rotor(RotorGame::new(tokens))),
            _ => NimGame::from_spec_with_definition(spec, definition).map(Game::Nim),
        }
    }

    pub fn spec(&self) -> GameSpec {
        with_game!(self, g => Family::spec(g))
    }

    pub fn name(&self) -> String {
        with_game!(self, g => Family::name(g))
    }

    /// What tells this game's stores from others'.
    pub fn fingerprint(&self) -> u64 {
        with_game!(self, g => Family::fingerprint(g))
    }

    /// The definition a store keeps where the spec alone does not give the
    /// game (custom take-away games, as TOML).
    pub fn definition(&self) -> Option<String> {
        with_game!(self, g => Family::definition(g))
    }

    /// Whether every stored cell holds a depth whatever the build asks.
    pub fn always_depth(&self) -> bool {
        with_game!(self, g => Family::always_depth(g))
    }

    /// Bits of a cell holding a value and a depth.
    pub fn depth_cell_bits(&self) -> u32 {
        with_game!(self, g => Family::depth_cell_bits(g))
    }

    /// The slices of a build, dependencies first.
    pub fn slices(&self) -> Vec<SliceInfo> {
        with_game!(self, g => Family::slices(g))
    }

    /// Whether both games mix placing and moving under the same rules,
    /// whatever their starts: then their hand slices, named by what they
    /// hold, are the same tables too.
    pub fn same_hand_rules(&self, other: &Game) -> bool {
        match (self, other) {
            (Game::Morris(a), Game::Morris(b)) => {
                let mixing = |rules: &MorrisRules| MorrisRules {
                    pieces: 0,
                    hands: rules.hands.map(|_| [0, 0]),
                    ..*rules
                };
                a.rules().mixes_hands() && mixing(a.rules()) == mixing(b.rules())
            }
            _ => false,
        }
    }

    /// Whether `other`'s movement phase plays by the same rules, whatever
    /// the pieces and the rules of placing: the Morris games whose
    /// movement slices are the same tables (Taiwan P = 9 and P = 12;
    /// Taiwan and its reading that protects mills while placing).
    pub fn same_movement_rules(&self, other: &Game) -> bool {
        match (self, other) {
            (Game::Morris(a), Game::Morris(b)) => {
                // Movement positions have no pieces in hand: how hands
                // came into play does not change them.
                let moving = |rules: &MorrisRules| MorrisRules {
                    pieces: 0,
                    hands: None,
                    placing: Placing::Forced,
                    ..rules.in_phase(false)
                };
                moving(a.rules()) == moving(b.rules())
            }
            _ => false,
        }
    }
}

/// `movement`, `placement`, `hands` (placing and moving mixed) or `nim`
/// (any family without phases): the phase a slice id names, as tables and
/// rates group slices.
pub fn phase_of(slice: &str) -> &'static str {
    use crate::morris::MorrisSlice;
    match MorrisSlice::parse(slice) {
        Some(MorrisSlice::Movement { .. }) => "movement",
        Some(MorrisSlice::Placement { .. }) => "placement",
        Some(MorrisSlice::Hand { .. }) => "hands",
        None => "nim",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(spec: &str) -> Game {
        Game::from_spec(&spec.parse().unwrap()).unwrap()
    }

    #[test]
    fn only_the_movement_rules_decide_which_games_share_slices() {
        let taiwan = game("morris:taiwan:9");
        for same in [
            "morris:taiwan:12",
            "morris:taiwan:3",
            // Mills protected while placing only.
            "morris:taiwan-protected:9",
            "morris:taiwan-protected:12",
        ] {
            assert!(taiwan.same_movement_rules(&game(same)), "{same}");
        }
        for other in [
            "morris:standard:9",
            "morris:morabaraba:12",
            "nim:triangle:5:normal",
        ] {
            assert!(!taiwan.same_movement_rules(&game(other)), "{other}");
        }
        let nim = game("nim:triangle:5:normal");
        assert!(!nim.same_movement_rules(&nim));
        // Placing and moving mixed: the movement slices are the family's.
        let standard = game("morris:standard:9");
        for same in [
            "morris:lasker:10",
            "morris:standard:7:5",
            "morris:standard:9:9",
        ] {
            assert!(standard.same_movement_rules(&game(same)), "{same}");
        }
        assert!(!standard.same_movement_rules(&game("morris:morabaraba:5:3")));
        // And the hand slices of one family's starts are one another's.
        let lasker = game("morris:lasker:10");
        assert!(lasker.same_hand_rules(&game("morris:lasker:4:7")));
        assert!(!lasker.same_hand_rules(&game("morris:standard:7:5")));
        assert!(!standard.same_hand_rules(&game("morris:standard:9:9")));
        assert!(game("morris:standard:9:9").same_hand_rules(&game("morris:standard:3:5")));
    }

    #[test]
    fn twelve_pieces_plan_every_movement_slice_of_nine_alike() {
        let nine = game("morris:taiwan:9").slices();
        let twelve = game("morris:taiwan:12").slices();
        let movement: Vec<&SliceInfo> = nine
            .iter()
            .filter(|s| s.id.as_str().starts_with("move-"))
            .collect();
        assert_eq!(movement.len(), 49);
        for slice in movement {
            let theirs = twelve.iter().find(|s| s.id == slice.id);
            assert_eq!(theirs, Some(slice), "{}", slice.id);
        }
    }
}
