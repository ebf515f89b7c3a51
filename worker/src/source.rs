//! Where a task's dependency shards come from: the worker's cache when it
//! has them, else the coordinator. Every shard is checked (each block, then
//! the whole) before use; one damaged on the way is fetched again.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use egdb_db_format::{CellEncoding, FormatError};
use egdb_proto::Coordinator;
use egdb_proto::Task;
use egdb_proto::{Shard, SliceId};

use crate::cache::ShardCache;
use crate::shard::decode_shard;
use crate::WorkerError;

/// Fetches of one shard before a damaged transfer counts as a failure.
pub const FETCH_ATTEMPTS: u32 = 3;

/// The dependency shards of one task.
pub struct ShardSource<'a> {
    link: &'a dyn Coordinator,
    worker: &'a str,
    task: &'a Task,
    cache: Option<&'a ShardCache>,
    /// Nanoseconds spent in [`ShardSource::fetch`]: reading, checking and
    /// decoding dependencies, and writing fetched ones into the cache.
    fetching: AtomicU64,
}

impl<'a> ShardSource<'a> {
    pub fn new(
        link: &'a dyn Coordinator,
        worker: &'a str,
        task: &'a Task,
        cache: Option<&'a ShardCache>,
    ) -> ShardSource<'a> {
        ShardSource {
            link,
            worker,
            task,
            cache,
            fetching: AtomicU64::new(0),
        }
    }

    /// The time spent fetching so far.
    pub fn fetch_time(&self) -> Duration {
        Duration::from_nanos(self.fetching.load(Ordering::Relaxed))
    }

    /// The checked bytes of a finished slice.
    ///
    /// # Errors
    /// Coordinator errors; [`egdb_db_format::FormatError::Corrupt`] when
    /// [`FETCH_ATTEMPTS`] transfers in a row arrive damaged.
    pub fn fetch(&self, slice_id: &SliceId) -> Result<(CellEncoding, Vec<u8>), WorkerError> {
        let started = Instant::now();
        let fetched = self.fetch_checked(slice_id);
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.fetching.fetch_add(nanos, Ordering::Relaxed);
        fetched
    }

    fn fetch_checked(&self, slice_id: &SliceId) -> Result<(CellEncoding, Vec<u8>), WorkerError> {
        if let Some(decoded) = self.cached(slice_id) {
            return Ok(decoded);
        }
        let mut attempt = 1;
        loop {
            let shard = self.link.fetch_shard(self.worker, slice_id)?;
            match checked_as(&shard, slice_id).and_then(|()| decode_shard(&shard)) {
                Ok(decoded) => {
                    tracing::debug!(slice = slice_id.as_str(), "dependency fetched");
                    self.keep(&shard);
                    return Ok(decoded);
                }
                Err(e) if attempt < FETCH_ATTEMPTS => {
                    tracing::warn!(worker = self.worker, slice = slice_id.as_str(), attempt, error = %e, "shard damaged in transfer; fetching it again");
                    attempt += 1;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Keeps a checked shard in the cache, if the worker has one; a cache
    /// that cannot be written costs only a later fetch.
    pub fn keep(&self, shard: &Shard) {
        if let Some(cache) = self.cache {
            if let Err(e) = cache.put(self.task, shard) {
                tracing::warn!(slice = %shard.slice_id, error = %e, "cannot cache shard");
            }
        }
    }

    fn cached(&self, slice_id: &SliceId) -> Option<(CellEncoding, Vec<u8>)> {
        let cache = self.cache?;
        let found = cache.get(self.task, slice_id).and_then(|shard| {
            shard
                .map(|s| checked_as(&s, slice_id).and_then(|()| decode_shard(&s)))
                .transpose()
                .map_err(Into::into)
        });
        match found {
            Ok(Some(decoded)) => {
                tracing::debug!(slice = slice_id.as_str(), "dependency from the cache");
                Some(decoded)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(slice = slice_id.as_str(), error = %e, "cached shard unusable; fetching it");
                None
            }
        }
    }
}

/// A shard must be the slice asked for: one labelled otherwise is neither
/// used nor cached under the name asked for.
fn checked_as(shard: &Shard, slice_id: &SliceId) -> Result<(), FormatError> {
    if shard.slice_id == *slice_id {
        return Ok(());
    }
    Err(FormatError::Corrupt {
        slice: slice_id.to_string(),
        block: None,
        reason: format!("the shard sent is labelled {:?}", shard.slice_id.as_str()),
    })
}
