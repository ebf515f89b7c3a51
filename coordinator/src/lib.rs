//! The build side of egdb: the manifest and scheduler of a build over a
//! store. Reading, checking and serving finished stores is
//! `egdb-tablebase`'s.
//!
//! * [`building`] — a build over a store: which slices are done, verified
//!   completion. It implements the worker-facing
//!   [`egdb_proto::Coordinator`] contract.
//! * [`schedule`] — readiness, leases, expiry, memory fit, registration:
//!   pure, with the time passed in.

pub mod building;
pub mod error;
pub mod schedule;

pub use building::checksum_list::{read_checksum_list, ListError, Listed};
pub use building::{
    BackedUp, BackupPlan, Build, BuildOptions, BuildProgress, Ranked, ReuseSource, Reused,
    VerifiedList,
};
pub use error::CoordinatorError;
