//! Finished tablebases: read, probed and served, above the build. Nothing
//! here builds or checks a slice (`egdb-check` does, beneath the build);
//! `egdb-coordinator` writes the stores this crate reads.
//!
//! * [`reader`] — a store opened for queries: probes block by block with a
//!   cache, every move of a position with its value, perfect-play lines,
//!   opening books.
//! * [`served`] — a tablebase as the `egdb.v1.Query` gRPC service and as
//!   JSON and a web explorer over HTTP.

pub mod error;
pub mod reader;
pub mod served;

pub use egdb_proto::check::Probe;
pub use error::TablebaseError;
pub use reader::{Answer, BookEntry, MoveAnswer, Tablebase};
