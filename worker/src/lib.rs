//! The retrograde engines of egdb and the worker process that runs them.
//!
//! * [`nim`] — take-away games: the bit-parallel value engine (64 positions
//!   per word), the depth engine, and the per-position scan baseline.
//! * [`morris`] — Morris games: retrograde analysis with cycles for the
//!   movement slices, one pass per placement round.
//! * [`plain`] — a plain solver through the `Family` trait, for families
//!   without an engine of their own (small games).
//! * [`table`] — a solved slice in memory.
//! * [`shard`] — a slice's bytes as compressed, checked blocks.
//! * [`solver`] — what each game family does with a leased slice.
//! * [`source`] — dependency shards: from the [`cache`] or the coordinator,
//!   checked, fetched again when damaged in transfer.
//! * `fault` — damage injected into transfers (feature `fault`, for the
//!   tests only: no binary carries it).
//! * [`worker`] — the pull loop: lease, fetch dependencies, solve, hand over.

pub mod cache;
mod cache_file;
pub mod error;
#[cfg(feature = "fault")]
pub mod fault;
pub mod morris;
pub mod nim;
pub mod plain;
pub mod shard;
pub mod solver;
pub mod sound;
pub mod source;
pub mod table;
pub mod worker;

pub use cache::ShardCache;
pub use error::WorkerError;
pub use table::SliceTable;
pub use worker::{Worker, WorkerConfig, WorkerReport};
