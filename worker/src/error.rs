//! Errors of the engines and the worker.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum WorkerError {
    #[error("cancelled")]
    Cancelled,
    #[error("slice {slice} is needed but was not provided")]
    MissingDependency { slice: String },
    #[error("symmetry inconsistent in slice {slice}: {detail}")]
    SymmetryInconsistent { slice: String, detail: String },
    #[error("shard of slice {slice} is unusable: {reason}")]
    BadShard { slice: String, reason: String },
    /// A solve that would store a depth its cells cannot hold: no game
    /// goes that deep, so its dependencies cannot be right.
    #[error("slice {slice} reaches depth {depth}, the deepest its cells hold: its dependencies cannot be right")]
    TooDeep { slice: String, depth: u32 },
    #[error("task refused: {0}")]
    BadTask(String),
    #[error("shard cache {dir}: {reason}")]
    Cache { dir: String, reason: String },
    #[error("coordinator: {0}")]
    Link(#[from] egdb_proto::LinkError),
    #[error(transparent)]
    Format(#[from] egdb_db_format::FormatError),
}
