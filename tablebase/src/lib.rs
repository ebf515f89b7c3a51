//! Finished tablebases read and probed, above the build: a program that
//! only wants values opens a store here, with no server, network or
//! build code in its dependencies (`egdb-serve` puts a tablebase on the
//! network). Nothing here builds or checks a slice (`egdb-check` does,
//! beneath the build); `egdb-coordinator` writes the stores this crate
//! reads.
//!
//! * [`reader`] — a store opened for queries: probes block by block with a
//!   cache, every move of a position with its value, perfect-play lines,
//!   opening books.
//! * [`results`] — a finished Morris store's results page and checksum
//!   list, and the damage found reading every block.
//!
//! ```
//! use egdb_games::Value;
//! use egdb_tablebase::Tablebase;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("t4.egdb");
//! # build("nim:triangle:4:normal", &path)?;
//!
//! let tablebase = Tablebase::open(&path)?;
//! let start = tablebase.start()?;
//! assert_eq!(start.value, Value::Win);
//! // Every legal move with what it leads to, from the next mover's view.
//! let answer = tablebase.answer("start")?;
//! assert!(answer.moves.iter().any(|m| m.probe.value == Value::Loss));
//! # Ok(())
//! # }
//! # // The store `egdb build` would write, built in-process.
//! # fn build(spec: &str, path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
//! #     use egdb_coordinator::{Build, BuildOptions};
//! #     use egdb_worker::{Worker, WorkerConfig};
//! #     let game = egdb_games::Game::from_spec(&spec.parse()?)?;
//! #     let options = BuildOptions {
//! #         depth: true,
//! #         memory_budget: 1 << 30,
//! #         max_slices: None,
//! #         deep_verify: false,
//! #         lease_seconds: 60.0,
//! #         verify_as_built: false,
//! #         verified_list: None,
//! #     };
//! #     let build = Build::open(path, &game, options)?;
//! #     let cancel = std::sync::atomic::AtomicBool::new(false);
//! #     Worker::new(WorkerConfig::named("doc", 1 << 30), &build).run(&cancel)?;
//! #     Ok(())
//! # }
//! ```

pub mod error;
pub mod reader;
pub mod results;

pub use egdb_games::checked::Probe;
pub use error::TablebaseError;
pub use reader::{Answer, BookEntry, MoveAnswer, Tablebase};
