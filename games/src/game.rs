//! One game of either family, for the parts of egdb that handle both alike:
//! planning a build, naming a store, sizing its slices.

use crate::morris::MorrisGame;
use crate::nim::{custom, Board, NimGame};
use crate::{GameError, GameSpec, SliceInfo};

/// A game instantiated from its spec. One lives per build or store, so the
/// size difference of the variants costs nothing.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum Game {
    Nim(NimGame),
    Morris(MorrisGame),
}

impl Game {
    /// Instantiates a spec; `nim:file:PATH` reads and validates the file.
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
            _ => NimGame::from_spec_with_definition(spec, definition).map(Game::Nim),
        }
    }

    pub fn spec(&self) -> GameSpec {
        match self {
            Game::Nim(game) => game.spec().clone(),
            Game::Morris(game) => game.spec(),
        }
    }

    pub fn name(&self) -> String {
        match self {
            Game::Nim(game) => game.name().to_string(),
            Game::Morris(game) => game.name(),
        }
    }

    /// What tells this game's stores from others'.
    pub fn fingerprint(&self) -> u64 {
        match self {
            Game::Nim(game) => game.fingerprint(),
            Game::Morris(game) => game.fingerprint(),
        }
    }

    /// The definition a store keeps where the spec alone does not give the
    /// game (custom take-away games, as TOML).
    pub fn definition(&self) -> Option<String> {
        match self {
            Game::Nim(game) if game.definition().board == Board::Custom => {
                Some(custom::to_toml(game.definition()))
            }
            _ => None,
        }
    }

    /// Whether every stored cell holds a depth whatever the build asks:
    /// Morris tables always do.
    pub fn always_depth(&self) -> bool {
        matches!(self, Game::Morris(_))
    }

    /// The slices of a build, dependencies first.
    pub fn slices(&self) -> Vec<SliceInfo> {
        match self {
            Game::Nim(game) => game.slices(),
            Game::Morris(game) => game.slices(),
        }
    }
}
