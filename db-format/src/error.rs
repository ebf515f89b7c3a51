//! Errors of the storage layer. Corruption is its own variant, distinct from
//! I/O, so that callers can report it as data loss.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum FormatError {
    #[error("store {path}: {reason}")]
    Open { path: String, reason: String },
    /// The disk is too full to open a store for writing: nothing was
    /// changed.
    #[error(
        "store {path}: its disk has {free} bytes free, too few to open it for writing; \
         nothing in it was changed and every slice it holds is kept: free some space \
         and run the same command again"
    )]
    NoSpace { path: String, free: u64 },
    #[error("no egdb store at {path}")]
    NotAStore { path: String },
    #[error(
        "store {path} was written in format version {found}; this egdb reads versions {oldest} to {expected}", oldest = crate::OLDEST_FORMAT_VERSION
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
    /// Damage found in a slice: in one block, or in the slice as a whole
    /// (its record, its checksum, its encoding) when `block` is `None`.
    #[error("corrupt {}slice {slice}: {reason}", block_of(*.block))]
    Corrupt {
        slice: String,
        block: Option<u32>,
        reason: String,
    },
    #[error("slice {slice} is not in the store")]
    MissingSlice { slice: String },
    /// Reading or writing failed (RocksDB, zstd, JSON): what was being
    /// done, and the error underneath.
    #[error("store I/O ({doing}): {source}")]
    Io {
        doing: &'static str,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A slice too large to hold in memory here.
    #[error("slice {slice}: cannot allocate its {bytes} bytes")]
    OutOfMemory { slice: String, bytes: u64 },
    /// A backup could not be taken, listed or restored.
    #[error("backups in {dir}: {reason}")]
    Backup { dir: String, reason: String },
    /// RocksDB found its own data damaged (a checksum of its files).
    #[error("store damaged: {0}")]
    Damaged(String),
}

impl FormatError {
    /// An I/O error while `doing` something, its source kept.
    pub fn io(
        doing: &'static str,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> FormatError {
        FormatError::Io {
            doing,
            source: source.into(),
        }
    }
}

/// "block N of " for damage in one block, nothing for the whole slice.
fn block_of(block: Option<u32>) -> String {
    block.map(|b| format!("block {b} of ")).unwrap_or_default()
}

#[cfg(feature = "store")]
impl From<rocksdb::Error> for FormatError {
    fn from(e: rocksdb::Error) -> FormatError {
        match e.kind() {
            rocksdb::ErrorKind::Corruption => {
                FormatError::Damaged(without_directories(&e.into_string()))
            }
            _ => FormatError::io("RocksDB", e),
        }
    }
}

/// RocksDB's words with every path cut to its file's name: the file
/// (`000011.sst`, `MANIFEST-000005`) says where the damage is, the
/// directories say nothing to a client and are the server's own.
pub fn without_directories(text: &str) -> String {
    text.split(' ')
        .map(|word| match word.rsplit_once('/') {
            Some((_, name)) if word.contains('/') => name,
            _ => word,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl FormatError {
    /// A store of another game than the one wanted. The same name under
    /// other rules (a rules file changed since the build) says so, rather
    /// than "holds X, not X".
    pub fn other_game(path: String, found: &str, wanted: &str) -> FormatError {
        let (found, wanted) = if found == wanted {
            (
                format!("{found} under other rules"),
                format!("{wanted} as given now"),
            )
        } else {
            (found.to_string(), wanted.to_string())
        };
        FormatError::OtherGame {
            path,
            found,
            wanted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{without_directories, FormatError};

    #[test]
    fn damage_reports_name_files_not_directories() {
        assert_eq!(
            without_directories(
                "block checksum mismatch: stored = 1, computed = 2 in /root/s.egdb/000011.sst offset 7"
            ),
            "block checksum mismatch: stored = 1, computed = 2 in 000011.sst offset 7"
        );
    }

    #[test]
    fn damage_names_a_block_only_when_one_is_at_fault() {
        let corrupt = |block| FormatError::Corrupt {
            slice: "s".into(),
            block,
            reason: "r".into(),
        };
        assert_eq!(corrupt(None).to_string(), "corrupt slice s: r");
        assert_eq!(
            corrupt(Some(3)).to_string(),
            "corrupt block 3 of slice s: r"
        );
    }
}
