//! What the worker asks of each game family: solve one leased slice, reading
//! the slices it depends on through the coordinator, and hand back its shard.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use egdb_db_format::{CellEncoding, Packing, SliceCounts};
use egdb_proto::Task;
use egdb_proto::{Shard, SliceId};

use crate::shard::encode_shard;
use crate::sound::SoundShards;
use crate::source::ShardSource;
use crate::WorkerError;

/// How solved slices are cut and compressed.
#[derive(Debug, Clone, Copy)]
pub struct ShardOptions {
    pub block_bytes: usize,
    pub packing: Packing,
}

/// A solved slice, ready to hand over.
#[derive(Debug)]
pub struct Solved {
    pub shard: Shard,
    pub counts: SliceCounts,
}

/// One game's engine with the dependency tables it keeps between tasks.
pub trait SliceSolver: Send {
    /// Solves `task`'s slice; dependencies not loaded for earlier tasks are
    /// read from the context's source.
    ///
    /// # Errors
    /// [`WorkerError::BadTask`] for a slice the game does not have, bad
    /// shards, [`WorkerError::Cancelled`], coordinator errors.
    fn solve(&mut self, task: &Task, context: SolveContext<'_>) -> Result<Solved, WorkerError>;
}

/// What a solve reads besides its task.
#[derive(Clone, Copy)]
pub struct SolveContext<'a> {
    /// Where the dependencies come from.
    pub source: &'a ShardSource<'a>,
    /// How the solved slice is cut and compressed.
    pub options: ShardOptions,
    /// Set when the solve is to stop.
    pub cancel: &'a AtomicBool,
    /// Dependencies this process found sound before, not checked again.
    pub sound: &'a SoundShards,
}

impl<'a> SolveContext<'a> {
    pub fn parts(self) -> (&'a ShardSource<'a>, ShardOptions, &'a AtomicBool) {
        (self.source, self.options, self.cancel)
    }
}

/// Makes `loaded` hold exactly the tables a task reads: `keys[i]` is the
/// slice named `ids[i]`. Tables loaded for earlier tasks stay; the others are
/// read from `source` (every block and the whole checked) and turned into
/// tables by `load`.
///
/// # Errors
/// Coordinator errors, corrupt shards, and `load`'s errors.
pub fn keep_dependencies<K: Copy + Eq + Hash, T>(
    loaded: &mut HashMap<K, Arc<T>>,
    ids: &[SliceId],
    keys: &[K],
    source: &ShardSource,
    mut load: impl FnMut(K, CellEncoding, Vec<u8>) -> Result<T, WorkerError>,
) -> Result<(), WorkerError> {
    loaded.retain(|key, _| keys.contains(key));
    for (id, &key) in ids.iter().zip(keys) {
        if let Entry::Vacant(slot) = loaded.entry(key) {
            let (encoding, raw) = source.fetch(id)?;
            slot.insert(Arc::new(load(key, encoding, raw)?));
        }
    }
    Ok(())
}

/// Cuts a solved slice's bytes into a shard.
///
/// # Errors
/// Only if compression fails.
pub fn shard_of(
    slice_id: &SliceId,
    encoding: CellEncoding,
    raw: &[u8],
    options: ShardOptions,
) -> Result<Shard, WorkerError> {
    Ok(encode_shard(
        slice_id,
        encoding,
        raw,
        options.block_bytes,
        options.packing,
    )?)
}
