//! The `egdb.v1` contract between the coordinator and its workers.
//!
//! The messages and the `Coordination` service are generated from
//! `proto/egdb/v1/egdb.proto`. The [`Coordinator`] trait is the worker's
//! view of a coordinator: the build implements it in-process,
//! [`server::serve`] puts any implementation on the network, and
//! [`client::RemoteCoordinator`] implements it for workers on other
//! machines, so worker code is the same in both.

pub mod check;
pub mod client;
pub mod client_io;
pub mod codec;
pub mod job;
pub mod lease;
pub mod server;
pub mod shard;
pub mod status;
#[cfg(feature = "store")]
pub mod stored;
pub mod tls;
pub mod values;
pub mod wire_error;
pub mod wire_limits;

/// Generated `egdb.v1` messages and the `Coordination` and `Query` services.
pub mod v1 {
    include!(concat!(env!("OUT_DIR"), "/egdb.v1.rs"));

    /// The encoded descriptors of `egdb.v1`, for gRPC reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/egdb_descriptor.bin"));
}

pub use check::CheckReport;
pub use egdb_games::SliceId;
pub use job::JobId;
pub use lease::{Lease, Leased, Task};
pub use shard::{Shard, ShardPiece, SliceResult};
pub use status::{BuildStatus, WorkerStatus};
pub use wire_error::WireError;

/// Version of this contract; requests of another version are refused.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest worker name.
pub const MAX_WORKER_NAME: usize = 128;

/// Why `name` cannot name a worker, if it cannot: names are printed by
/// `egdb status` and written to logs, so they are short and plain (letters,
/// digits and `.` `_` `-` `:` `@`, as host names and `host-pid` are).
pub fn worker_name_fault(name: &str) -> Option<String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || ".-_:@".contains(c);
    if (1..=MAX_WORKER_NAME).contains(&name.len()) && name.chars().all(plain) {
        return None;
    }
    Some(format!(
        "a worker name is 1 to {MAX_WORKER_NAME} letters, digits or . _ - : @ \
         (this one has {} bytes)",
        name.len()
    ))
}

/// What kind of failure a [`LinkError`] is; each maps to one gRPC status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// The request was wrong (a result that fails its checks, an unknown
    /// slice): `INVALID_ARGUMENT`.
    Refused,
    /// A slice that is not (yet) done: `NOT_FOUND`.
    NotFound,
    /// Another protocol version or game: `FAILED_PRECONDITION`.
    Mismatch,
    /// A missing or wrong cluster token: `UNAUTHENTICATED`.
    Unauthenticated,
    /// The coordinator cannot be reached (yet): `UNAVAILABLE`; worth a retry.
    Unavailable,
    /// The coordinator failed (its store, say): `INTERNAL`.
    Internal,
    /// Stored data that fails its checksum: `DATA_LOSS`.
    DataLoss,
    /// Another worker process under the same name is in the build:
    /// `ALREADY_EXISTS`.
    Duplicate,
}

/// An error reaching or answering the coordinator, with a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkError {
    pub kind: LinkKind,
    pub message: String,
}

impl LinkError {
    pub fn new(kind: LinkKind, message: impl Into<String>) -> LinkError {
        LinkError {
            kind,
            message: message.into(),
        }
    }

    pub fn refused(message: impl Into<String>) -> LinkError {
        LinkError::new(LinkKind::Refused, message)
    }

    pub fn internal(message: impl Into<String>) -> LinkError {
        LinkError::new(LinkKind::Internal, message)
    }
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LinkError {}

/// What a worker says of itself when it joins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerInfo {
    pub name: String,
    pub threads: u32,
    /// Bytes the worker may use for one slice.
    pub memory: u64,
    /// The game the worker was started for, if it was pinned to one.
    pub game: Option<String>,
    /// Drawn by the worker process at start ([`WorkerInfo::new_instance`]):
    /// tells a second process under the same name from this one.
    pub instance: u64,
    /// The instance of this worker's earlier process, known to be gone:
    /// the coordinator hands the name over at once when that is the
    /// process it knows under it.
    pub replaces: Option<u64>,
}

impl WorkerInfo {
    /// A number for this worker process, different in every process.
    pub fn new_instance() -> u64 {
        use std::hash::BuildHasher;
        // RandomState draws its keys from the operating system.
        std::collections::hash_map::RandomState::new()
            .hash_one((std::process::id(), std::time::SystemTime::now()))
    }
}

/// What a coordinator tells a worker that joins.
#[derive(Debug, Clone, PartialEq)]
pub struct Registration {
    /// The game it builds.
    pub game: String,
    /// Seconds a lease lives without a heartbeat.
    pub lease_seconds: f64,
}

/// What a worker asks of a coordinator.
pub trait Coordinator: Send + Sync {
    /// Joins the build.
    ///
    /// # Errors
    /// [`LinkKind::Mismatch`] for a worker pinned to another game.
    fn register(&self, worker: &WorkerInfo) -> Result<Registration, LinkError>;

    /// The next slice to solve, if one is ready for this worker.
    ///
    /// # Errors
    /// When the coordinator cannot be reached or refuses the worker.
    fn lease(&self, worker: &str) -> Result<Lease, LinkError>;

    /// [`Coordinator::lease`], saying which slices' shards the worker's
    /// cache holds, so that it is leased work that reads them; the answer
    /// says which of those are still read. By default what it holds is
    /// not heard.
    ///
    /// # Errors
    /// As [`Coordinator::lease`].
    fn lease_holding(&self, worker: &str, held: &[SliceId]) -> Result<Leased, LinkError> {
        let _ = held;
        self.lease(worker).map(Leased::from)
    }

    /// Keeps a lease alive; `false` when it is gone (expired and leased
    /// again, or the slice is done), and the worker should drop the slice.
    ///
    /// # Errors
    /// When the coordinator cannot be reached.
    fn heartbeat(&self, worker: &str, slice_id: &SliceId) -> Result<bool, LinkError>;

    /// The finished shard of a slice this worker depends on.
    ///
    /// # Errors
    /// When the slice is not done or cannot be read.
    fn fetch_shard(&self, worker: &str, slice_id: &SliceId) -> Result<Shard, LinkError>;

    /// [`Coordinator::fetch_shard`] a piece at a time as it is read, to
    /// `piece`, which returns `false` when nobody takes more. A server
    /// streams the pieces as they come, so that a large shard's first
    /// message does not wait for its last block to be read (a P = 12
    /// worker gave up after 60 s without one, the coordinator starved of
    /// CPU). By default the whole shard is fetched first.
    ///
    /// # Errors
    /// As [`Coordinator::fetch_shard`], also after some pieces were given.
    fn fetch_shard_pieces(
        &self,
        worker: &str,
        slice_id: &SliceId,
        piece: &mut dyn FnMut(ShardPiece) -> bool,
    ) -> Result<(), LinkError> {
        let mut shard = self.fetch_shard(worker, slice_id)?;
        let blocks = std::mem::take(&mut shard.blocks);
        if piece(ShardPiece::Header(shard)) {
            for block in blocks {
                if !piece(ShardPiece::Block(block)) {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Whether a result whose shard carries this header (a shard without
    /// its blocks) would be taken: asked before the blocks are received, so
    /// that a server buffers nothing for a result it would refuse. The full
    /// checks come with [`Coordinator::complete`]; by default every header
    /// passes.
    ///
    /// # Errors
    /// [`LinkKind::Refused`] for a slice not leased to the worker, or a
    /// header that does not fit the slice.
    fn admit_result(&self, worker: &str, header: &Shard) -> Result<(), LinkError> {
        let _ = (worker, header);
        Ok(())
    }

    /// Hands over a solved slice. Completing the same slice twice is harmless.
    ///
    /// # Errors
    /// When the result fails its checks; the slice is then solved again.
    fn complete(&self, worker: &str, result: SliceResult) -> Result<(), LinkError>;

    /// Gives a lease back unsolved, with the reason.
    ///
    /// # Errors
    /// When the coordinator cannot be reached.
    fn fail(&self, worker: &str, slice_id: &SliceId, reason: &str) -> Result<(), LinkError>;

    /// How far the build is: slices, workers, bytes moved, time left.
    ///
    /// # Errors
    /// When the coordinator cannot be reached.
    fn status(&self) -> Result<BuildStatus, LinkError>;

    /// Hands over what checking a leased slice found (a coordinator that
    /// verifies a store).
    ///
    /// # Errors
    /// [`LinkKind::Refused`] when the worker does not hold the slice's
    /// lease, the report is out of bounds, or the coordinator is not
    /// verifying.
    fn checked(&self, worker: &str, report: CheckReport) -> Result<(), LinkError>;
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
