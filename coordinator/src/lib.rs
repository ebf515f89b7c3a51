//! The coordinator side of egdb: the build manifest and scheduler, and the
//! reader that answers queries from a finished store.
//!
//! * [`building`] — a build over a store: which slices are done, verified
//!   completion. It implements the worker-facing
//!   [`egdb_proto::Coordinator`] contract.
//! * [`schedule`] — readiness, leases, expiry, memory fit, registration:
//!   pure, with the time passed in.
//! * [`tablebase`] — probing positions of a store, block by block, with a cache.
//! * [`served`] — a tablebase as the `egdb.v1.Query` gRPC service.
//! * [`verify`] — a finished store checked: checksums, then every position
//!   against its moves.
//! * [`game`] — turning a game spec or a store's identity into a game.

pub mod building;
pub mod error;
pub mod game;
pub mod schedule;
pub mod served;
pub mod tablebase;
pub mod verify;

pub use building::{Build, BuildOptions, BuildProgress};
pub use error::CoordinatorError;
pub use tablebase::{Answer, Probe, Tablebase};
