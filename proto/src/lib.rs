//! The `egdb.v1` contract between the coordinator and its workers.
//!
//! The messages are generated from `proto/egdb/v1/egdb.proto`. The
//! [`Coordinator`] trait is the worker's view of a coordinator: the embedded
//! build implements it in-process, and a gRPC client will implement it for
//! workers on other machines, so worker code is the same in both.

/// Generated `egdb.v1` messages.
pub mod v1 {
    include!(concat!(env!("OUT_DIR"), "/egdb.v1.rs"));
}

/// Version of this contract; requests of another version are refused.
pub const PROTOCOL_VERSION: u32 = 1;

/// An error reaching or answering the coordinator, with a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkError(pub String);

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LinkError {}

/// What a worker asks of a coordinator.
pub trait Coordinator: Send + Sync {
    /// The next slice to solve, if one is ready for this worker.
    ///
    /// # Errors
    /// When the coordinator cannot be reached or refuses the worker.
    fn lease(&self, worker: &str) -> Result<v1::LeaseReply, LinkError>;

    /// The finished shard of a slice this worker depends on.
    ///
    /// # Errors
    /// When the slice is not done or cannot be read.
    fn fetch_shard(&self, slice_id: &str) -> Result<v1::Shard, LinkError>;

    /// Hands over a solved slice. Completing the same slice twice is harmless.
    ///
    /// # Errors
    /// When the result fails its checks; the slice is then solved again.
    fn complete(&self, worker: &str, result: v1::SliceResult) -> Result<(), LinkError>;

    /// Gives a lease back unsolved, with the reason.
    ///
    /// # Errors
    /// When the coordinator cannot be reached.
    fn fail(&self, worker: &str, slice_id: &str, reason: &str) -> Result<(), LinkError>;
}

/// Per-slice counts cross the wire as [`v1::SliceCounts`] and are stored as
/// [`egdb_db_format::SliceCounts`]; these are the two conversions.
impl From<&egdb_db_format::SliceCounts> for v1::SliceCounts {
    fn from(c: &egdb_db_format::SliceCounts) -> v1::SliceCounts {
        v1::SliceCounts {
            positions: c.positions,
            win: c.win,
            loss: c.loss,
            draw: c.draw,
            canonical_positions: c.canonical_positions,
            canonical_win: c.canonical_win,
            canonical_loss: c.canonical_loss,
            canonical_draw: c.canonical_draw,
            max_depth: c.max_depth,
        }
    }
}

impl From<&v1::SliceCounts> for egdb_db_format::SliceCounts {
    fn from(c: &v1::SliceCounts) -> egdb_db_format::SliceCounts {
        egdb_db_format::SliceCounts {
            positions: c.positions,
            win: c.win,
            loss: c.loss,
            draw: c.draw,
            canonical_positions: c.canonical_positions,
            canonical_win: c.canonical_win,
            canonical_loss: c.canonical_loss,
            canonical_draw: c.canonical_draw,
            max_depth: c.max_depth,
        }
    }
}
