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

    /// The slices whose tables it keeps for the tasks to come.
    fn kept(&self) -> Vec<SliceId>;
}

/// A kept table's memory, counted against what a task may keep.
pub trait TableBytes {
    fn table_bytes(&self) -> u64;
}

/// What a task may keep for the tasks after it, besides the tables it
/// reads: memory beyond what the coordinator counts it to need, and how
/// soon each slice held is read again (as the coordinator said when it
/// was leased).
#[derive(Debug, Clone, Default)]
pub struct Keeping {
    /// Bytes beyond the task's need; 0 keeps only what it reads.
    pub spare: u64,
    /// Of the slices held when the task was leased, those that jobs not
    /// done still read, each with how many of them are read before it;
    /// no job reads the others.
    pub next_use: HashMap<SliceId, usize>,
}

impl Keeping {
    /// `spare` bytes for the slices `still_read` names, soonest first.
    pub fn new(spare: u64, still_read: &[SliceId]) -> Keeping {
        Keeping {
            spare,
            next_use: still_read
                .iter()
                .enumerate()
                .map(|(before, id)| (id.clone(), before))
                .collect(),
        }
    }

    /// Of `extras` (key, id, bytes), the keys kept: those read soonest
    /// first, while they fit in the spare bytes; none that no job reads.
    fn choose<K>(&self, mut extras: Vec<(K, SliceId, u64)>) -> Vec<K> {
        extras.retain(|(_, id, _)| self.next_use.contains_key(id));
        extras.sort_by_key(|(_, id, _)| self.next_use[id]);
        let mut room = self.spare;
        extras
            .into_iter()
            .filter_map(|(key, _, bytes)| {
                let fits = bytes <= room;
                room -= if fits { bytes } else { 0 };
                fits.then_some(key)
            })
            .collect()
    }
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
    /// What it may keep for later tasks.
    pub keeping: &'a Keeping,
}

impl<'a> SolveContext<'a> {
    pub fn parts(self) -> (&'a ShardSource<'a>, ShardOptions, &'a AtomicBool) {
        (self.source, self.options, self.cancel)
    }
}

/// Makes `loaded` hold the tables a task reads, `keys[i]` the slice named
/// `ids[i]`, and those of the others that `keeping` keeps (`id_of` names
/// them). Tables loaded for earlier tasks stay; the others are dropped
/// first, then the missing ones read from `source` (every block and the
/// whole checked) and turned into tables by `load`.
///
/// # Errors
/// Coordinator errors, corrupt shards, and `load`'s errors.
pub fn keep_dependencies<K: Copy + Eq + Hash, T: TableBytes>(
    loaded: &mut HashMap<K, Arc<T>>,
    (ids, keys): (&[SliceId], &[K]),
    source: &ShardSource,
    (keeping, id_of): (&Keeping, impl Fn(K) -> SliceId),
    mut load: impl FnMut(K, CellEncoding, Vec<u8>) -> Result<T, WorkerError>,
) -> Result<(), WorkerError> {
    let extras = loaded
        .iter()
        .filter(|(key, _)| !keys.contains(key))
        .map(|(&key, table)| (key, id_of(key), table.table_bytes()))
        .collect();
    let kept = keeping.choose(extras);
    loaded.retain(|key, _| keys.contains(key) || kept.contains(key));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_keeps_the_tables_read_soonest_that_fit_and_none_no_job_reads() {
        let id = SliceId::new;
        let keeping = Keeping::new(100, &[id("soon"), id("later"), id("last")]);
        let extras = vec![
            ("last", id("last"), 10),
            ("dead", id("dead"), 1),
            ("later", id("later"), 60),
            ("soon", id("soon"), 50),
        ];
        // soon (50) fits, later (60) would pass 100, last (10) fits.
        assert_eq!(keeping.choose(extras.clone()), ["soon", "last"]);
        assert!(Keeping::default().choose(extras).is_empty());
    }
}
