//! Errors of reading a tablebase.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum TablebaseError {
    /// Text that is not a position of the game, or a store whose game this
    /// egdb does not know.
    #[error(transparent)]
    Game(#[from] egdb_games::GameError),
    /// The store cannot be read, or a block fails its checksum.
    #[error(transparent)]
    Format(#[from] egdb_db_format::FormatError),
    #[error("position is in slice {slice}, which is not in the store (yet)")]
    SliceNotFound { slice: String },
    #[error(
        "the book passes {limit} positions at ply {ply}; ask for fewer plies or a larger limit"
    )]
    BookTooLarge { limit: u64, ply: u32 },
    #[error(
        "move {ply}, `{}`, is not legal in {position}; the legal moves: {legal}",
        egdb_games::shown(.mv)
    )]
    NotAMove {
        /// Moves before it on the line.
        ply: u32,
        mv: String,
        position: String,
        legal: String,
    },
    /// Tables of a store that contradict each other or their records
    /// (what a results page would publish).
    #[error("{0}")]
    Inconsistent(String),
}
