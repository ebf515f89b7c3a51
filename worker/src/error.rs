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
    #[error("task refused: {0}")]
    BadTask(String),
    #[error("shard cache {dir}: {reason}")]
    Cache { dir: String, reason: String },
    #[error("coordinator: {0}")]
    Link(#[from] egdb_proto::LinkError),
    #[error(transparent)]
    Format(#[from] egdb_db_format::FormatError),
}
