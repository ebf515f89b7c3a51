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
    /// Where those went, and the shards' stored bytes.
    split: [AtomicU64; Part::COUNT],
}

/// The parts of a task's fetching counted apart.
#[derive(Clone, Copy)]
enum Part {
    /// Waiting for the coordinator: its reading, the wire, the receiving.
    Wire,
    /// Checking each block and inflating the shard, wherever it came from.
    Decode,
    CacheRead,
    CacheWrite,
    BytesFetched,
    BytesFromCache,
}

impl Part {
    const COUNT: usize = 6;
}

/// Where a task's fetching went: seconds waiting for the coordinator,
/// decoding, reading and writing the cache, and the stored bytes fetched
/// and read from the cache.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FetchSplit {
    pub wire: f64,
    pub decode: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub bytes_fetched: u64,
    pub bytes_from_cache: u64,
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
            split: Default::default(),
        }
    }

    /// The time spent fetching so far.
    pub fn fetch_time(&self) -> Duration {
        Duration::from_nanos(self.fetching.load(Ordering::Relaxed))
    }

    /// Where the time spent fetching went so far.
    pub fn fetch_split(&self) -> FetchSplit {
        let get = |part: Part| self.split[part as usize].load(Ordering::Relaxed);
        let seconds = |part: Part| Duration::from_nanos(get(part)).as_secs_f64();
        FetchSplit {
            wire: seconds(Part::Wire),
            decode: seconds(Part::Decode),
            cache_read: seconds(Part::CacheRead),
            cache_write: seconds(Part::CacheWrite),
            bytes_fetched: get(Part::BytesFetched),
            bytes_from_cache: get(Part::BytesFromCache),
        }
    }

    fn count(&self, part: Part, amount: u64) {
        self.split[part as usize].fetch_add(amount, Ordering::Relaxed);
    }

    /// Runs `f`, counting its time to `part`.
    fn timed<T>(&self, part: Part, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let value = f();
        self.count(part, nanos_since(started));
        value
    }

    /// The checked bytes of a finished slice.
    ///
    /// # Errors
    /// Coordinator errors; [`egdb_db_format::FormatError::Corrupt`] when
    /// [`FETCH_ATTEMPTS`] transfers in a row arrive damaged.
    pub fn fetch(&self, slice_id: &SliceId) -> Result<(CellEncoding, Vec<u8>), WorkerError> {
        let started = Instant::now();
        let fetched = self.fetch_checked(slice_id);
        self.fetching
            .fetch_add(nanos_since(started), Ordering::Relaxed);
        fetched
    }

    fn fetch_checked(&self, slice_id: &SliceId) -> Result<(CellEncoding, Vec<u8>), WorkerError> {
        if let Some(decoded) = self.cached(slice_id) {
            return Ok(decoded);
        }
        let mut attempt = 1;
        loop {
            let shard = self.timed(Part::Wire, || self.link.fetch_shard(self.worker, slice_id))?;
            self.count(Part::BytesFetched, shard.stored_bytes());
            let decoded = self.timed(Part::Decode, || {
                checked_as(&shard, slice_id).and_then(|()| decode_shard(&shard))
            });
            match decoded {
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
            if let Err(e) = self.timed(Part::CacheWrite, || cache.put(self.task, shard)) {
                tracing::warn!(slice = %shard.slice_id, error = %e, "cannot cache shard");
            }
        }
    }

    fn cached(&self, slice_id: &SliceId) -> Option<(CellEncoding, Vec<u8>)> {
        let cache = self.cache?;
        let found = self
            .timed(Part::CacheRead, || cache.get(self.task, slice_id))
            .and_then(|shard| {
                let Some(shard) = shard else {
                    return Ok(None);
                };
                self.count(Part::BytesFromCache, shard.stored_bytes());
                self.timed(Part::Decode, || {
                    checked_as(&shard, slice_id).and_then(|()| decode_shard(&shard))
                })
                .map(Some)
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

fn nanos_since(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX)
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
