//! Games from specs and from store identities.

use egdb_db_format::{CellEncoding, StoreIdentity};
use egdb_games::{with_game, Family, Game, GameError, GameSpec, SliceInfo};

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
    with_game!(game, g => cell_encoding_of(g, depth))
}

/// How a build of a game of family `F` stores its cells.
pub fn cell_encoding_of<F: Family>(game: &F, depth: bool) -> CellEncoding {
    match game.depth_cell_bits() {
        _ if !depth && !game.always_depth() => CellEncoding::WinBits,
        8 => CellEncoding::ValueDepth8,
        _ => CellEncoding::ValueDepth16,
    }
}

/// Why `bytes` of `encoding` cells cannot be `slice`'s table, if they
/// cannot: cells of the wrong kind for the game, or bytes for another
/// number of cells.
pub fn misfit(
    game: &Game,
    slice: &SliceInfo,
    encoding: CellEncoding,
    bytes: u64,
) -> Option<String> {
    let allowed = match encoding {
        CellEncoding::WinBits => !game.always_depth(),
        CellEncoding::ValueDepth8 => game.depth_cell_bits() == 8,
        CellEncoding::ValueDepth16 => game.depth_cell_bits() == 16,
    };
    if !allowed {
        return Some(format!("{encoding:?} cells in a store of {}", game.spec()));
    }
    let expected = encoding.table_bytes(slice.entries);
    (bytes != expected).then(|| {
        format!(
            "{bytes} bytes of {encoding:?} cells; its {} cells take {expected}",
            slice.entries
        )
    })
}
