//! Errors of the storage layer. Corruption is its own variant, distinct from
//! I/O, so that callers can report it as data loss.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum FormatError {
    #[error("store {path}: {reason}")]
    Open { path: String, reason: String },
    #[error("no egdb store at {path}")]
    NotAStore { path: String },
    #[error(
        "store {path} was written in format version {found}; this egdb reads version {expected}"
    )]
    Version {
        path: String,
        found: u16,
        expected: u16,
    },
    #[error("store {path} holds {found}, not {wanted}")]
    OtherGame {
        path: String,
        found: String,
        wanted: String,
    },
    #[error("corrupt block {block} of slice {slice}: {reason}")]
    Corrupt {
        slice: String,
        block: u32,
        reason: String,
    },
    #[error("slice {slice} is not in the store")]
    MissingSlice { slice: String },
    #[error("store I/O: {0}")]
    Io(String),
    /// RocksDB found its own data damaged (a checksum of its files).
    #[error("store damaged: {0}")]
    Damaged(String),
}

#[cfg(feature = "store")]
impl From<rocksdb::Error> for FormatError {
    fn from(e: rocksdb::Error) -> FormatError {
        match e.kind() {
            rocksdb::ErrorKind::Corruption => FormatError::Damaged(e.into_string()),
            _ => FormatError::Io(e.into_string()),
        }
    }
}
