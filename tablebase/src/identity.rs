//! Games from specs and from store identities.

use egdb_db_format::{CellEncoding, StoreIdentity};
use egdb_games::{Game, GameError, GameSpec};

/// The identity a store built for `game` carries.
pub fn identity(game: &Game, depth: bool) -> StoreIdentity {
    StoreIdentity {
        game: game.spec().to_string(),
        fingerprint: game.fingerprint(),
        definition: game.definition(),
        depth: depth || game.always_depth(),
    }
}

/// The game a store was built for; game files come from the store's copy of
/// the definition, so a store outlives the file it was built from.
///
/// # Errors
/// [`GameError`] when the identity names no game this egdb knows.
pub fn from_identity(identity: &StoreIdentity) -> Result<Game, GameError> {
    let spec: GameSpec = identity.game.parse()?;
    Game::from_spec_with_definition(&spec, identity.definition.as_deref())
}

/// How a build of `game` stores its cells.
pub fn cell_encoding(game: &Game, depth: bool) -> CellEncoding {
    match game {
        Game::Morris(_) => CellEncoding::ValueDepth16,
        Game::Nim(_) if depth => CellEncoding::ValueDepth8,
        Game::Nim(_) => CellEncoding::WinBits,
    }
}
