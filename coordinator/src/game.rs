//! Games from specs and from store identities.

use egdb_db_format::StoreIdentity;
use egdb_games::nim::{custom, Board, NimGame};
use egdb_games::{GameError, GameSpec};

/// The identity a store built for `game` carries.
pub fn identity(game: &NimGame, depth: bool) -> StoreIdentity {
    StoreIdentity {
        game: game.spec().to_string(),
        fingerprint: game.fingerprint(),
        definition: (game.definition().board == Board::Custom)
            .then(|| custom::to_toml(game.definition())),
        depth,
    }
}

/// The game a store was built for; game files come from the store's copy of
/// the definition, so a store outlives the file it was built from.
///
/// # Errors
/// [`GameError`] when the identity names no game this egdb knows.
pub fn from_identity(identity: &StoreIdentity) -> Result<NimGame, GameError> {
    let spec: GameSpec = identity.game.parse()?;
    NimGame::from_spec_with_definition(&spec, identity.definition.as_deref())
}
