//! What the worker asks of each game family: solve one leased slice, reading
//! the slices it depends on through the coordinator, and hand back its shard.

use std::sync::atomic::AtomicBool;

use egdb_db_format::{CellEncoding, SliceCounts};
use egdb_proto::v1::{Shard, SliceTask};
use egdb_proto::Coordinator;

use crate::shard::{decode_shard, encode_shard};
use crate::WorkerError;

/// How solved slices are cut and compressed.
#[derive(Debug, Clone, Copy)]
pub struct ShardOptions {
    pub block_bytes: usize,
    pub zstd_level: i32,
}

/// A solved slice, ready to hand over.
#[derive(Debug)]
pub struct Solved {
    pub shard: Shard,
    pub counts: SliceCounts,
}

/// One game's engine with the dependency tables it keeps between tasks.
pub trait SliceSolver: Send {
    /// Solves `task`'s slice; dependencies not kept from earlier tasks are
    /// fetched from `link`.
    ///
    /// # Errors
    /// [`WorkerError::BadTask`] for a slice the game does not have, bad
    /// shards, [`WorkerError::Cancelled`], coordinator errors.
    fn solve(
        &mut self,
        task: &SliceTask,
        link: &dyn Coordinator,
        options: ShardOptions,
        cancel: &AtomicBool,
    ) -> Result<Solved, WorkerError>;
}

/// A dependency's stored bytes, every block and the whole checked.
///
/// # Errors
/// Coordinator errors and corrupt shards.
pub fn fetch(
    link: &dyn Coordinator,
    slice_id: &str,
) -> Result<(CellEncoding, Vec<u8>), WorkerError> {
    let shard = link.fetch_shard(slice_id)?;
    Ok(decode_shard(&shard)?)
}

/// Cuts a solved slice's bytes into a shard.
///
/// # Errors
/// Only if compression fails.
pub fn shard_of(
    slice_id: &str,
    encoding: CellEncoding,
    raw: &[u8],
    options: ShardOptions,
) -> Result<Shard, WorkerError> {
    Ok(encode_shard(
        slice_id,
        encoding,
        raw,
        options.block_bytes,
        options.zstd_level,
    )?)
}
