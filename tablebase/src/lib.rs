//! Finished tablebases: what a stored slice must hold, checked without the
//! engines that built it.
//!
//! * [`check`] — every stored position of a slice against the positions
//!   its legal moves lead to, from decoded tables in memory (forward move
//!   generation and the rules of `egdb-games`, nothing of the engines).
//!   `egdb verify` runs it over a store, and workers run it for a
//!   coordinator that leases verification.
//! * [`memory`] — huge-page advice for tables read at random (shared with
//!   the engines).
//!
//! This crate knows no store and no network: its callers decode the
//! slices (checksums checked) and hand their cells over.

pub mod check;
pub mod memory;

pub use check::{Mismatch, Probe, SliceCheck};
