//! A worker's local cache of the shards it fetched, kept across restarts
//! (`egdb worker --cache DIR`): a worker started again reads its
//! dependencies from disk instead of the network.
//!
//! One directory per build under `DIR`, named after the game, its
//! definition and whether depths are stored, so that a cache serves every
//! build of the same tables and never another's; in it one plain file per
//! shard (`cache_file`). Not a store: putting a shard writes its bytes
//! once, and dropping one unlinks a file, where a RocksDB store wrote each
//! byte to its log, its tables and again in compactions (twice to five
//! times in all, measured), for data that can always be fetched again.
//! Slices never change once done, so cached shards never go stale; the
//! worker checks each one again before use. The directory is locked while
//! a worker uses it.
//!
//! A limit ([`ShardCache::with_limit`]) bounds the bytes kept of the build
//! in use: past it go first the shards no job still reads, then those read
//! latest ([`ShardCache::still_read`], as the coordinator says), then the
//! least recently used, so that a long build does not fill the disk with
//! shards it no longer reads. Shards kept from an earlier run count as used
//! before any of this run's.
//!
//! The directory also names the worker process that last joined a build
//! with it (`INSTANCE`). The next process to hold the lock knows that one
//! is gone, and says so when it joins: the coordinator hands it the name
//! at once instead of waiting a lease length for the earlier one to fall
//! silent.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use egdb_db_format::StoreIdentity;
use egdb_games::bounded_file::read_at_most;
use egdb_proto::Task;
use egdb_proto::{Shard, SliceId};

use crate::cache_file::{self, file_bytes};
use crate::WorkerError;

/// The file naming the process that last joined a build with the cache.
const INSTANCE_FILE: &str = "INSTANCE";

/// The shard cache in one directory.
pub struct ShardCache {
    dir: PathBuf,
    /// Held open for its lock.
    _lock: File,
    /// The store of the build last asked about.
    open: Mutex<Option<OpenBuild>>,
    /// The most raw bytes a cached shard may announce: anyone who can
    /// write the directory could otherwise make the worker inflate more
    /// than its memory.
    max_shard_bytes: u64,
    /// The most stored bytes kept of one build's shards.
    limit: u64,
}

/// One build's cached shards: a directory of shard files
/// (`cache_file`), one per slice, and an identity file naming the build.
struct OpenBuild {
    name: String,
    dir: PathBuf,
    /// Each cached slice's last use (a tick of this cache) and bytes on
    /// disk.
    used: HashMap<String, (u64, u64)>,
    tick: u64,
    bytes: u64,
    /// What the coordinator said of the shards held when the worker last
    /// asked for work; shards put since are not in it.
    next_use: HashMap<String, NextUse>,
}

/// When a cached shard is read next, as the coordinator said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NextUse {
    /// No job that is not done reads it.
    Never,
    /// Among the shards still read, this many are read before it.
    After(usize),
}

/// The file naming a build's directory's game and rules.
const IDENTITY_FILE: &str = "IDENTITY";

/// The longest identity file read (a game file's definition included).
const MAX_IDENTITY_BYTES: u64 = 1 << 20;

/// What cached shard files end in; written under this name plus
/// [`ASIDE`] first.
const SHARD_SUFFIX: &str = ".shard";
const ASIDE: &str = ".new";

impl OpenBuild {
    fn open(dir: &Path, name: String, identity: &StoreIdentity) -> Result<OpenBuild, WorkerError> {
        let failed = |reason: String| WorkerError::Cache {
            dir: dir.display().to_string(),
            reason,
        };
        // Caches before shard files kept each build in an egdb store under
        // the build's name: its disk is given back.
        let older = dir.join(&name);
        if older.join("CURRENT").is_file() && older.join(IDENTITY_FILE).is_file() {
            std::fs::remove_dir_all(&older).map_err(|e| failed(e.to_string()))?;
            tracing::info!(dir = %older.display(), "removed a shard cache an earlier egdb kept as a store");
        }
        let build = dir.join(format!("{name}{SHARD_SUFFIX}s"));
        std::fs::create_dir_all(&build).map_err(|e| failed(e.to_string()))?;
        let expected = serde_json::to_vec(identity).map_err(|e| failed(e.to_string()))?;
        let found = read_at_most(&build.join(IDENTITY_FILE), MAX_IDENTITY_BYTES).ok();
        let mut files = shard_files(&build).map_err(|e| failed(e.to_string()))?;
        if found.as_deref() != Some(expected.as_slice()) {
            // Another build under the same name (a fingerprint shared by
            // other rules), or a directory never finished: emptied.
            for file in files.drain(..) {
                std::fs::remove_file(file.path).map_err(|e| failed(e.to_string()))?;
            }
            std::fs::write(build.join(IDENTITY_FILE), &expected)
                .map_err(|e| failed(e.to_string()))?;
        }
        // Kept from an earlier run: used before anything of this one, in
        // the order they were written.
        files.sort_by_key(|file| file.written);
        let used: HashMap<String, (u64, u64)> = (1u64..)
            .zip(files)
            .map(|(tick, file)| (file.slice, (tick, file.bytes)))
            .collect();
        let bytes = used.values().map(|&(_, b)| b).sum();
        Ok(OpenBuild {
            name,
            dir: build,
            tick: used.len() as u64,
            used,
            bytes,
            next_use: HashMap::new(),
        })
    }

    fn path(&self, slice: &SliceId) -> PathBuf {
        self.dir.join(format!("{slice}{SHARD_SUFFIX}"))
    }

    fn touch(&mut self, slice: &str, bytes: u64) {
        self.tick += 1;
        if let Some((_, old)) = self.used.insert(slice.to_string(), (self.tick, bytes)) {
            self.bytes -= old;
        }
        self.bytes += bytes;
    }

    /// Forgets a slice whose file is gone.
    fn forget(&mut self, slice: &str) {
        if let Some((_, bytes)) = self.used.remove(slice) {
            self.bytes -= bytes;
        }
        self.next_use.remove(slice);
    }

    /// Which shard goes before which (the largest first): those no job
    /// reads, then those read latest, then those the coordinator has not
    /// spoken of; the least recently used first among equals.
    fn eviction_order(&self, slice: &str, tick: u64) -> (u8, u64) {
        let age = u64::MAX - tick;
        match self.next_use.get(slice) {
            Some(NextUse::Never) => (2, age),
            Some(&NextUse::After(before)) => (1, before as u64),
            None => (0, age),
        }
    }

    /// Removes shards but `keep`, in [`OpenBuild::eviction_order`], until
    /// at most `limit` bytes are left.
    fn shrink_to(&mut self, limit: u64, keep: &str) -> Result<(), WorkerError> {
        while self.bytes > limit {
            let first = self
                .used
                .iter()
                .filter(|(slice, _)| slice.as_str() != keep)
                .max_by_key(|(slice, &(tick, _))| self.eviction_order(slice, tick))
                .map(|(slice, _)| SliceId::new(slice.clone()));
            let Some(slice) = first else {
                return Ok(());
            };
            match std::fs::remove_file(self.path(&slice)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(WorkerError::Cache {
                        dir: self.dir.display().to_string(),
                        reason: e.to_string(),
                    })
                }
                _ => {}
            }
            self.forget(slice.as_str());
        }
        Ok(())
    }
}

/// A shard file found in a build's directory.
struct ShardFile {
    slice: String,
    path: PathBuf,
    bytes: u64,
    written: std::time::SystemTime,
}

/// The shard files in `dir`; files half written by a process that stopped
/// are removed.
fn shard_files(dir: &Path) -> std::io::Result<Vec<ShardFile>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let path = entry.path();
        if name.ends_with(ASIDE) {
            std::fs::remove_file(&path)?;
            continue;
        }
        let Some(slice) = name.strip_suffix(SHARD_SUFFIX) else {
            continue;
        };
        let meta = entry.metadata()?;
        if SliceId::parse(slice).is_err() || !meta.is_file() {
            continue;
        }
        files.push(ShardFile {
            slice: slice.to_string(),
            path,
            bytes: meta.len(),
            written: meta.modified().unwrap_or(std::time::UNIX_EPOCH),
        });
    }
    Ok(files)
}

impl std::fmt::Debug for ShardCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardCache")
            .field("dir", &self.dir)
            .finish()
    }
}

impl ShardCache {
    /// Opens (creating) the cache in `dir` and locks it.
    ///
    /// # Errors
    /// [`WorkerError::Cache`] when the directory cannot be made or another
    /// worker uses it.
    pub fn open(dir: &Path) -> Result<ShardCache, WorkerError> {
        let failed = |reason: String| WorkerError::Cache {
            dir: dir.display().to_string(),
            reason,
        };
        std::fs::create_dir_all(dir).map_err(|e| failed(e.to_string()))?;
        let lock = File::create(dir.join("LOCK")).map_err(|e| failed(e.to_string()))?;
        if !try_lock(&lock) {
            return Err(failed(
                "another worker uses it; give each worker its own --cache".to_string(),
            ));
        }
        Ok(ShardCache {
            dir: dir.to_path_buf(),
            _lock: lock,
            open: Mutex::new(None),
            max_shard_bytes: u64::MAX,
            limit: u64::MAX,
        })
    }

    /// The instance of the worker process that last joined a build with
    /// this cache; gone, since this process holds the lock now. `None` when
    /// none did, or the file is not one egdb wrote.
    pub fn previous_instance(&self) -> Option<u64> {
        // A regular file of a number and a newline: no pipe to block on,
        // nothing longer read.
        let bytes = read_at_most(&self.dir.join(INSTANCE_FILE), 24).ok()?;
        std::str::from_utf8(&bytes)
            .ok()?
            .strip_suffix('\n')?
            .parse()
            .ok()
    }

    /// Names `instance` as the process that joined a build with this
    /// cache: written to a new file of the owner's only (whatever stood
    /// under its name, a link say, removed first), then renamed over the
    /// last, so a crash leaves one or the other.
    ///
    /// # Errors
    /// I/O errors.
    pub fn record_instance(&self, instance: u64) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let aside = self.dir.join(format!("{INSTANCE_FILE}.new"));
        match std::fs::remove_file(&aside) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        File::options()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&aside)?
            .write_all(format!("{instance}\n").as_bytes())?;
        std::fs::rename(aside, self.dir.join(INSTANCE_FILE))
    }

    /// Keeps at most `bytes` stored bytes of a build's shards (the shard
    /// just put stays, whatever its size).
    pub fn with_limit(self, bytes: u64) -> ShardCache {
        ShardCache {
            limit: bytes,
            ..self
        }
    }

    /// Stored bytes of the build in use's shards (0 before any use).
    pub fn bytes(&self) -> u64 {
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.as_ref().map_or(0, |build| build.bytes)
    }

    /// The slices whose shards are kept of the build last used (none
    /// before the first task), to tell the coordinator.
    pub fn held(&self) -> Vec<SliceId> {
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.as_ref().map_or_else(Vec::new, |build| {
            build
                .used
                .keys()
                .map(|slice| SliceId::new(slice.clone()))
                .collect()
        })
    }

    /// What the coordinator answered to [`ShardCache::held`]: of the
    /// shards held, `still_read` are read by jobs not done, soonest first;
    /// the others by none. Call it before anything else is put.
    pub fn still_read(&self, still_read: &[SliceId]) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let Some(build) = open.as_mut() else {
            return;
        };
        let mut next_use: HashMap<String, NextUse> = build
            .used
            .keys()
            .map(|slice| (slice.clone(), NextUse::Never))
            .collect();
        for (before, slice) in still_read.iter().enumerate() {
            if let Some(next) = next_use.get_mut(slice.as_str()) {
                *next = NextUse::After(before);
            }
        }
        build.next_use = next_use;
    }

    /// Refuses cached shards of more than `bytes` raw bytes, as the link
    /// refuses such shards from the coordinator.
    pub fn with_max_shard_bytes(self, bytes: u64) -> ShardCache {
        ShardCache {
            max_shard_bytes: bytes,
            ..self
        }
    }

    /// The shard of `slice_id` in `task`'s build, if cached; blocks whose
    /// checksum fails are an error, and so is a shard larger than
    /// [`ShardCache::with_max_shard_bytes`] allows. An id that names no
    /// file (none a family makes) is never cached.
    ///
    /// # Errors
    /// I/O errors, damaged files ([`egdb_db_format::FormatError::Corrupt`],
    /// the file removed), [`WorkerError::BadShard`].
    pub fn get(&self, task: &Task, slice_id: &SliceId) -> Result<Option<Shard>, WorkerError> {
        if SliceId::parse(slice_id.as_str()).is_err() {
            return Ok(None);
        }
        let max_raw = self.max_shard_bytes;
        self.with_build(task, |build| {
            let read = cache_file::read(&build.path(slice_id), slice_id, max_raw);
            match &read {
                Ok(Some(shard)) => build.touch(slice_id.as_str(), file_bytes(shard)),
                Ok(None) => build.forget(slice_id.as_str()),
                // Damaged: fetched again and put in its place. (One too
                // large for this worker may serve one with more memory.)
                Err(WorkerError::Format(_)) => {
                    build.forget(slice_id.as_str());
                    let _ = std::fs::remove_file(build.path(slice_id));
                }
                Err(_) => {}
            }
            read
        })
    }

    /// Keeps a checked shard of `task`'s build (again, if it was there),
    /// then removes the least recently used others past the limit.
    ///
    /// # Errors
    /// I/O errors, a slice id that names no file.
    pub fn put(&self, task: &Task, shard: &Shard) -> Result<(), WorkerError> {
        let limit = self.limit;
        let slice = SliceId::parse(shard.slice_id.as_str()).map_err(|e| WorkerError::BadShard {
            slice: shard.slice_id.to_string(),
            reason: e.to_string(),
        })?;
        self.with_build(task, |build| {
            let path = build.path(&slice);
            let aside = build.dir.join(format!("{slice}{SHARD_SUFFIX}{ASIDE}"));
            let bytes =
                cache_file::write(&path, &aside, shard).map_err(|e| WorkerError::Cache {
                    dir: build.dir.display().to_string(),
                    reason: e.to_string(),
                })?;
            build.touch(slice.as_str(), bytes);
            build.shrink_to(limit, slice.as_str())
        })
    }

    fn with_build<T>(
        &self,
        task: &Task,
        f: impl FnOnce(&mut OpenBuild) -> Result<T, WorkerError>,
    ) -> Result<T, WorkerError> {
        let (name, identity) = namespace(task);
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if open.as_ref().is_none_or(|build| build.name != name) {
            // Close the last build's store before opening the next.
            *open = None;
            *open = Some(OpenBuild::open(&self.dir, name, &identity)?);
        }
        match open.as_mut() {
            Some(build) => f(build),
            None => unreachable!("opened above"),
        }
    }
}

/// The directory name and store identity of a task's build.
fn namespace(task: &Task) -> (String, StoreIdentity) {
    let definition = task.game_definition.clone();
    // A build without a definition hashes as the empty one (caches made
    // before the field was optional keep their names).
    let fingerprint = u64::from(crc32fast::hash(
        definition.as_deref().unwrap_or_default().as_bytes(),
    ));
    let readable: String = task
        .game
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let depth = if task.depth { "-depth" } else { "" };
    let name = format!("{readable}{depth}-{fingerprint:08x}");
    let identity = StoreIdentity {
        game: task.game.clone(),
        fingerprint,
        definition,
        depth: task.depth,
    };
    (name, identity)
}

/// An exclusive, non-blocking lock on an open file; released when it closes.
fn try_lock(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this process owns for as long as `file`.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}
