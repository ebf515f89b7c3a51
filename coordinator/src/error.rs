//! Errors of the coordinator.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum CoordinatorError {
    #[error(transparent)]
    Game(#[from] egdb_games::GameError),
    #[error(transparent)]
    Format(#[from] egdb_db_format::FormatError),
    #[error("slice {slice} needs {need} bytes of memory; the budget (--memory) is {budget} bytes")]
    OverBudget {
        slice: String,
        need: u64,
        budget: u64,
    },
    #[error("slice {slice} cannot be checked: {reason}")]
    Unverifiable { slice: String, reason: String },
    #[error("shard of slice {slice} refused: {reason}")]
    ShardRefused { slice: String, reason: String },
    #[error("cannot take slices from {path}: {reason}")]
    Unreusable { path: String, reason: String },
    /// The store slices are taken from is damaged: which store, and where.
    #[error("the store slices are taken from, {path}: {source}")]
    ReuseDamaged {
        path: String,
        source: egdb_db_format::FormatError,
    },
}
