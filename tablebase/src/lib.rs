//! Finished tablebases: read, probed, checked and served. Nothing here
//! builds; `egdb-coordinator` writes the stores this crate reads.
//!
//! * [`reader`] — a store opened for queries: probes block by block with a
//!   cache, every move of a position with its value, perfect-play lines,
//!   opening books.
//! * [`served`] — a tablebase as the `egdb.v1.Query` gRPC service.
//! * [`check`] — every stored position of a slice against the positions
//!   its legal moves lead to, from decoded tables in memory (forward move
//!   generation and the rules of `egdb-games`, nothing of the engines).
//!   Workers run it for a coordinator that leases verification; what it
//!   finds ([`SliceCheck`]) is a type of the wire contract, `egdb-proto`.
//! * [`verify`] — `egdb verify`: a store checked slice by slice, with a
//!   journal so that an interrupted verify goes on.
//! * [`identity`] — a store's identity and the game it names.
//! * [`memory`] — huge-page advice for tables read at random (shared with
//!   the engines).

pub mod check;
pub mod error;
pub mod identity;
pub mod memory;
pub mod reader;
pub mod served;
pub mod verify;

pub use check::{Mismatch, Probe, SliceCheck};
pub use error::TablebaseError;
pub use reader::{Answer, BookEntry, MoveAnswer, Tablebase};
