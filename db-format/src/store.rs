//! The RocksDB layout of a store.
//!
//! Column families:
//! * `meta` — `format_version` (u16 LE), `identity` (JSON [`StoreIdentity`]),
//!   `complete` (present once every slice is in).
//! * `manifest` — slice id → JSON [`SliceRecord`], written after the
//!   slice's blocks through the same write-ahead log: a slice is in the
//!   store exactly when its record is.
//! * `blocks` — `slice id` `/` `block index (u32 BE)` → block record.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rocksdb::{ColumnFamilyDescriptor, Options, WriteBatch, WriteOptions, DB};
use serde::{Deserialize, Serialize};

use crate::block::{
    block_len, decode_block, decode_block_part, layout_fault, BlockPart, BlockRecord,
};
use crate::{CellEncoding, FormatError, SliceCounts, FORMAT_VERSION, OLDEST_FORMAT_VERSION};

const META: &str = "meta";
const MANIFEST: &str = "manifest";
const BLOCKS: &str = "blocks";

/// What a store holds: a store opened for another game is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreIdentity {
    /// The game spec the store was built for, e.g. `nim:triangle:7:normal`.
    pub game: String,
    /// Fingerprint of the rules (cells, moves, symmetries, rule).
    pub fingerprint: u64,
    /// The game's definition where the spec alone does not give it (game files).
    pub definition: Option<String>,
    /// Whether depths are stored.
    pub depth: bool,
}

impl StoreIdentity {
    /// Whether `other` names the same game: the same spec, or, for a game
    /// defined by a file, the same definition whatever path named the
    /// file (a store keeps its rules, so it outlives where the file was).
    pub fn same_game(&self, other: &StoreIdentity) -> bool {
        self.fingerprint == other.fingerprint
            && (self.game == other.game
                || (self.definition.is_some() && self.definition == other.definition))
    }
}

/// A finished slice: where its blocks are and what they hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceRecord {
    pub slice: String,
    pub encoding: CellEncoding,
    pub raw_len: u64,
    /// CRC-32 of the slice's raw bytes: equal for equal tables, whatever
    /// machine or compression level built them.
    pub raw_crc32: u32,
    pub block_bytes: u64,
    pub blocks: u32,
    /// Sum of the block records' sizes.
    pub stored_bytes: u64,
    pub counts: SliceCounts,
    /// Stones left outside the word block (Nim).
    pub stones: Option<u32>,
    /// Seconds the solve took.
    pub seconds: f64,
    /// Written with zstd only, to be ranked once no unfinished slice of
    /// its build reads it (absent from records written otherwise).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rank_pending: bool,
    /// Seconds its ranking took, after the solve (0: written ranked, or
    /// not ranked).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rank_seconds: f64,
    /// Seconds its check against its moves took, in a build that checks
    /// each slice as it stores it (0: not checked so; absent from records
    /// written before egdb recorded it, and ignored by binaries before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub check_seconds: f64,
    /// The path that put the slice here (absent from records written
    /// before egdb recorded it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solved_by: Option<SolvedBy>,
}

/// Slices a store may hold: far more than any game's plan (Taiwan P = 12
/// has 1478), so that a damaged or hostile manifest is refused before it
/// is read whole.
pub const MAX_STORE_SLICES: usize = 1 << 21;

/// Bytes of one manifest record: a record is a few hundred.
const MAX_RECORD_BYTES: usize = 64 << 10;

/// A manifest record read back, bounded before it is parsed; a bad key is
/// named only as far as it is a plain slice id.
fn record_of(key: &[u8], bytes: &[u8]) -> Result<SliceRecord, FormatError> {
    let corrupt = |reason: String| FormatError::Corrupt {
        slice: match std::str::from_utf8(key) {
            Ok(id) if plain_id(id) => id.to_string(),
            _ => format!("<a key of {} bytes>", key.len()),
        },
        block: None,
        reason,
    };
    if bytes.len() > MAX_RECORD_BYTES {
        return Err(corrupt(format!(
            "manifest record of {} bytes; at most {MAX_RECORD_BYTES}",
            bytes.len()
        )));
    }
    let record: SliceRecord =
        serde_json::from_slice(bytes).map_err(|e| corrupt(format!("manifest record: {e}")))?;
    // A record filed under another slice's id would have its blocks read
    // (and trusted) as that slice's.
    if record.slice.as_bytes() != key {
        return Err(corrupt(format!(
            "the manifest record under this id is slice {:?}'s",
            record.slice.chars().take(80).collect::<String>()
        )));
    }
    Ok(record)
}

/// Whether a manifest key reads as a slice id: short, letters, digits,
/// `-` and `_` (the rule of `egdb_games::SliceId::parse`, which this crate,
/// beneath the games, cannot call).
fn plain_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The path a slice took into its store: how much of a build went through
/// the network is the store's own record, not a log's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "path", rename_all = "snake_case")]
pub enum SolvedBy {
    /// Solved by a worker of the building process (`egdb build`).
    Process { worker: String },
    /// Solved by a worker that sent its shard over the network (`egdb
    /// coordinator`).
    Network { worker: String },
    /// Taken from another store (`--reuse`), every block checked.
    Reused { from: String },
}

fn is_zero(seconds: &f64) -> bool {
    *seconds == 0.0
}

impl SliceRecord {
    /// Checks that the record's length, block size and block count agree,
    /// before anything is allocated from them.
    ///
    /// # Errors
    /// [`FormatError::Corrupt`] naming the slice (no block: the record is
    /// the slice's).
    pub fn check_layout(&self) -> Result<(), FormatError> {
        match layout_fault(self.raw_len, self.block_bytes, u64::from(self.blocks)) {
            None => Ok(()),
            Some(reason) => Err(FormatError::Corrupt {
                slice: self.slice.clone(),
                block: None,
                reason: format!("manifest record: {reason}"),
            }),
        }
    }

    /// Raw bytes of block `index`.
    pub fn block_len(&self, index: u32) -> u64 {
        block_len(self.raw_len, self.block_bytes, index)
    }
}

/// An open store.
pub struct Store {
    db: DB,
    path: PathBuf,
    identity: StoreIdentity,
    version: u16,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("identity", &self.identity)
            .finish()
    }
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn options(create: bool) -> Options {
    let mut opts = Options::default();
    opts.create_if_missing(create);
    opts.create_missing_column_families(create);
    // Blocks are zstd frames already.
    opts.set_compression_type(rocksdb::DBCompressionType::None);
    // The small column families' memtables rarely fill, and each keeps
    // alive every log file since its oldest write: past this, RocksDB
    // flushes them so that the logs can go (P = 12: 4 GiB of logs beside
    // 10.6 GiB of tables).
    opts.set_max_total_wal_size(MAX_LOG_BYTES);
    // Each open moves RocksDB's own text log aside as LOG.old.*; a few
    // are kept, not a thousand.
    opts.set_keep_log_file_num(KEPT_TEXT_LOGS);
    opts
}

/// RocksDB's text logs (LOG, LOG.old.*) kept in a store.
const KEPT_TEXT_LOGS: usize = 3;

/// The least free disk a store is opened for writing with: opening writes
/// a new manifest, log and options file, and on a full disk would leave
/// only a moved text log behind. (Short of what it needs, RocksDB's own
/// error still says so.)
const LEAST_FREE_TO_OPEN: u64 = 256 << 10;

/// Refuses to open `path` for writing on a disk that is (nearly) full,
/// before RocksDB touches a file in it.
/// Also refuses, in words rather than RocksDB's, a place under a file or
/// on a file system that holds no files (`/proc`).
fn room_to_open(path: &Path) -> Result<(), FormatError> {
    let refused = |reason: String| FormatError::Open {
        path: shown(path),
        reason,
    };
    if let Some(file) = path.ancestors().skip(1).find(|p| p.is_file()) {
        return Err(refused(format!(
            "{} is a file, not a directory",
            shown(file)
        )));
    }
    match disk_bytes(path) {
        Some((_, 0)) => Err(refused(
            "its place is on no disk (a file system such as /proc holds no store)".to_string(),
        )),
        Some((free, _)) if free < LEAST_FREE_TO_OPEN => Err(FormatError::NoSpace {
            path: shown(path),
            free,
        }),
        _ => Ok(()),
    }
}

/// Bytes free to an unprivileged writer on the disk of `path` (or of its
/// nearest existing parent), if the system says.
pub(crate) fn free_bytes(path: &Path) -> Option<u64> {
    disk_bytes(path).map(|(free, _)| free)
}

/// Bytes free to an unprivileged writer and bytes in all on the disk of
/// `path` (or of its nearest existing parent), if the system says.
fn disk_bytes(path: &Path) -> Option<(u64, u64)> {
    let existing = path.ancestors().find(|p| p.exists())?;
    let name = std::ffi::CString::new(existing.as_os_str().as_encoded_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `name` is a NUL-terminated path and `stats` a buffer of the
    // type statvfs fills; it is read only when the call succeeded.
    let stats = unsafe {
        if libc::statvfs(name.as_ptr(), stats.as_mut_ptr()) != 0 {
            return None;
        }
        stats.assume_init()
    };
    // Both are u64 on x86-64 Linux; not everywhere.
    #[allow(clippy::useless_conversion)]
    let (free, blocks, block_bytes) = (
        u64::from(stats.f_bavail),
        u64::from(stats.f_blocks),
        u64::from(stats.f_frsize),
    );
    Some((
        free.saturating_mul(block_bytes),
        blocks.saturating_mul(block_bytes),
    ))
}

/// Log files kept before the column families holding the oldest are
/// flushed.
const MAX_LOG_BYTES: u64 = 256 << 20;

fn descriptors() -> Vec<ColumnFamilyDescriptor> {
    [META, MANIFEST, BLOCKS]
        .iter()
        .map(|name| ColumnFamilyDescriptor::new(*name, options(false)))
        .collect()
}

fn is_store_dir(path: &Path) -> bool {
    path.join("CURRENT").is_file()
}

/// Why a store directory did not open: damage to its files (RocksDB's
/// checksums, a truncated or missing file) is [`FormatError::Damaged`],
/// anything else (a lock held by a build, permissions) an open error.
fn opening_failed(path: &Path, e: rocksdb::Error) -> FormatError {
    let text = e.clone().into_string();
    let io = matches!(e.kind(), rocksdb::ErrorKind::IOError);
    if io && text.contains("No space left on device") {
        return FormatError::io("opening the store", e);
    }
    let missing_file = io && text.contains("No such file or directory");
    if e.kind() == rocksdb::ErrorKind::Corruption || missing_file {
        return FormatError::Damaged(format!(
            "{} cannot be opened: one of its files is damaged, truncated or missing ({}); \
             restore the store from a copy or build it again",
            shown(path),
            crate::error::without_directories(&text)
        ));
    }
    FormatError::Open {
        path: shown(path),
        reason: text,
    }
}

/// Whether `path` is a store whose creation stopped before its identity
/// was written (a full disk, a kill): RocksDB made exactly our column
/// families, and the one batch that writes the format version and the
/// identity never landed. Nothing else can be in it (slices are written
/// only after the identity), so it is created again rather than refused
/// for ever.
fn half_created(path: &Path) -> bool {
    let mut ours = vec!["default".to_string()];
    ours.extend([META, MANIFEST, BLOCKS].map(String::from));
    ours.sort();
    let Ok(mut found) = DB::list_cf(&Options::default(), path) else {
        return false;
    };
    found.sort();
    if found != ours {
        return false;
    }
    let Ok(db) = DB::open_cf_descriptors_read_only(&options(false), path, descriptors(), false)
    else {
        return false;
    };
    db.cf_handle(META)
        .and_then(|meta| db.get_cf(meta, b"format_version").ok())
        .is_some_and(|version| version.is_none())
}

impl Store {
    /// Opens the store at `path` for a build of `identity`, creating it when
    /// the directory is missing or empty. A store of an older format is
    /// carried on in today's: its blocks stay as they are (still read), new
    /// ones are written today's way, and binaries of the older format
    /// refuse it from then on (see [`Store::upgraded_from`]).
    ///
    /// # Errors
    /// [`FormatError::OtherGame`] when the store holds another game or was
    /// built with other options; [`FormatError::Open`] when the directory
    /// holds something that is not a store.
    pub fn create_or_open(path: &Path, identity: &StoreIdentity) -> Result<Store, FormatError> {
        room_to_open(path)?;
        if is_store_dir(path) {
            let store = match Store::open(path) {
                // Only a store that does not open is looked at more closely.
                Err(FormatError::NotAStore { .. }) if half_created(path) => {
                    return Store::create(path, identity)
                }
                opened => opened?,
            };
            if !store.identity.same_game(identity) {
                return Err(FormatError::other_game(
                    shown(path),
                    &store.identity.game,
                    &identity.game,
                ));
            }
            if store.identity.depth != identity.depth {
                let with = |d: bool| if d { "with --depth" } else { "without --depth" };
                return Err(FormatError::OtherGame {
                    path: shown(path),
                    found: format!(
                        "{} built {}",
                        store.identity.game,
                        with(store.identity.depth)
                    ),
                    wanted: format!("a build {}", with(identity.depth)),
                });
            }
            if store.version != FORMAT_VERSION {
                let meta = store.cf(META)?;
                store.db.put_cf_opt(
                    meta,
                    b"format_version",
                    FORMAT_VERSION.to_le_bytes(),
                    &synced(),
                )?;
            }
            return Ok(store);
        }
        if path.exists()
            && std::fs::read_dir(path)
                .map(|mut d| d.next().is_some())
                .unwrap_or(true)
        {
            return Err(FormatError::Open {
                path: shown(path),
                reason: "exists and is not an egdb store; give an empty or new directory"
                    .to_string(),
            });
        }
        Store::create(path, identity)
    }

    /// A new store at `path` (missing, empty, or [`half_created`]).
    fn create(path: &Path, identity: &StoreIdentity) -> Result<Store, FormatError> {
        let db = DB::open_cf_descriptors(&options(true), path, descriptors()).map_err(|e| {
            FormatError::Open {
                path: shown(path),
                reason: e.into_string(),
            }
        })?;
        let meta = db
            .cf_handle(META)
            .ok_or_else(|| FormatError::Damaged("the meta column family is missing".into()))?;
        let mut batch = WriteBatch::default();
        batch.put_cf(meta, b"format_version", FORMAT_VERSION.to_le_bytes());
        batch.put_cf(
            meta,
            b"identity",
            serde_json::to_vec(identity).map_err(|e| FormatError::io("writing the identity", e))?,
        );
        db.write_opt(batch, &synced())?;
        Ok(Store {
            db,
            path: path.to_path_buf(),
            identity: identity.clone(),
            version: FORMAT_VERSION,
        })
    }

    /// Opens an existing store for writing (builds).
    ///
    /// # Errors
    /// [`FormatError::NotAStore`] when there is none at `path`,
    /// [`FormatError::Version`] for a store of another format version.
    pub fn open(path: &Path) -> Result<Store, FormatError> {
        Store::open_with(path, false)
    }

    /// Opens an existing store for reading only: no compaction starts, and
    /// a store that a build is writing can be read meanwhile.
    ///
    /// # Errors
    /// As [`Store::open`].
    pub fn open_read_only(path: &Path) -> Result<Store, FormatError> {
        Store::open_with(path, true)
    }

    fn open_with(path: &Path, read_only: bool) -> Result<Store, FormatError> {
        if !is_store_dir(path) {
            return Err(FormatError::NotAStore { path: shown(path) });
        }
        let opened = if read_only {
            DB::open_cf_descriptors_read_only(&options(false), path, descriptors(), false)
        } else {
            room_to_open(path)?;
            DB::open_cf_descriptors(&options(false), path, descriptors())
        };
        let db = opened.map_err(|e| opening_failed(path, e))?;
        let meta = db
            .cf_handle(META)
            .ok_or_else(|| FormatError::NotAStore { path: shown(path) })?;
        let version = db
            .get_cf(meta, b"format_version")?
            .and_then(|v| <[u8; 2]>::try_from(v.as_slice()).ok())
            .map(u16::from_le_bytes)
            .ok_or_else(|| FormatError::NotAStore { path: shown(path) })?;
        if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
            return Err(FormatError::Version {
                path: shown(path),
                found: version,
                expected: FORMAT_VERSION,
            });
        }
        let identity = db
            .get_cf(meta, b"identity")?
            .and_then(|v| serde_json::from_slice(&v).ok())
            .ok_or_else(|| FormatError::NotAStore { path: shown(path) })?;
        Ok(Store {
            db,
            path: path.to_path_buf(),
            identity,
            version,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The RocksDB database, for its backups.
    pub(crate) fn db(&self) -> &DB {
        &self.db
    }

    pub fn identity(&self) -> &StoreIdentity {
        &self.identity
    }

    /// The older format a store was opened in, when a build carries it on
    /// in today's ([`Store::create_or_open`]).
    pub fn upgraded_from(&self) -> Option<u16> {
        (self.version != FORMAT_VERSION).then_some(self.version)
    }

    fn cf(&self, name: &str) -> Result<&rocksdb::ColumnFamily, FormatError> {
        self.db
            .cf_handle(name)
            .ok_or_else(|| FormatError::Damaged(format!("the column family {name} is missing")))
    }

    /// The record of a finished slice, `None` if it is not in the store.
    ///
    /// # Errors
    /// I/O errors, or [`FormatError::Corrupt`] for an unreadable record.
    pub fn slice(&self, id: &str) -> Result<Option<SliceRecord>, FormatError> {
        match self.db.get_cf(self.cf(MANIFEST)?, id.as_bytes())? {
            None => Ok(None),
            Some(bytes) => record_of(id.as_bytes(), &bytes).map(Some),
        }
    }

    /// Every finished slice's record, in id order.
    ///
    /// # Errors
    /// As [`Store::slice`].
    pub fn slices(&self) -> Result<Vec<SliceRecord>, FormatError> {
        let mut records = Vec::new();
        for item in self
            .db
            .iterator_cf(self.cf(MANIFEST)?, rocksdb::IteratorMode::Start)
        {
            if records.len() == MAX_STORE_SLICES {
                return Err(FormatError::Damaged(format!(
                    "more than {MAX_STORE_SLICES} slices in the manifest, more than any game has"
                )));
            }
            let (key, bytes) = item?;
            records.push(record_of(&key, &bytes)?);
        }
        Ok(records)
    }

    /// Writes a slice's blocks, then its record in a synced write: the
    /// slice is in the store from the moment its record is. Both go through
    /// RocksDB's write-ahead log in that order, so a crashed process
    /// recovers each slice whole or not at all. Writing a slice again
    /// rewrites equal data.
    ///
    /// # Errors
    /// I/O errors.
    pub fn put_slice<B: AsRef<[u8]>>(
        &self,
        record: &SliceRecord,
        blocks: &[B],
    ) -> Result<(), FormatError> {
        /// Bytes per write batch, so that a large slice is not copied whole.
        const BATCH_BYTES: usize = 64 << 20;
        let blocks_cf = self.cf(BLOCKS)?;
        let mut batch = WriteBatch::default();
        for (index, block) in blocks.iter().enumerate() {
            batch.put_cf(
                blocks_cf,
                block_key(&record.slice, index as u32),
                block.as_ref(),
            );
            if batch.size_in_bytes() >= BATCH_BYTES {
                self.db.write(std::mem::take(&mut batch))?;
            }
        }
        batch.put_cf(
            self.cf(MANIFEST)?,
            record.slice.as_bytes(),
            record_json(record)?,
        );
        self.db.write_opt(batch, &synced())?;
        Ok(())
    }

    /// Writes blocks of a stored slice over again (the same bytes, coded
    /// anew), unsynced: until [`Store::put_record`] syncs, a crash may keep
    /// either version of each, and both decode alike.
    ///
    /// # Errors
    /// I/O errors.
    pub fn put_blocks(&self, slice: &str, blocks: &[(u32, Vec<u8>)]) -> Result<(), FormatError> {
        let blocks_cf = self.cf(BLOCKS)?;
        let mut batch = WriteBatch::default();
        for (index, block) in blocks {
            batch.put_cf(blocks_cf, block_key(slice, *index), block);
        }
        self.db.write(batch)?;
        Ok(())
    }

    /// Writes a stored slice's manifest record over again, synced (with
    /// every block written before it).
    ///
    /// # Errors
    /// I/O errors.
    pub fn put_record(&self, record: &SliceRecord) -> Result<(), FormatError> {
        self.db.put_cf_opt(
            self.cf(MANIFEST)?,
            record.slice.as_bytes(),
            record_json(record)?,
            &synced(),
        )?;
        Ok(())
    }

    /// Takes a slice out: its record first, synced (from then on the slice
    /// is not in the store), then its blocks, whose disk is given back at
    /// once. For caches; a build's store never loses a slice.
    ///
    /// # Errors
    /// I/O errors.
    pub fn remove_slice(&self, slice: &str) -> Result<(), FormatError> {
        self.db
            .delete_cf_opt(self.cf(MANIFEST)?, slice.as_bytes(), &synced())?;
        // Every key "slice/…": '0' follows '/'.
        let (from, to) = (
            [slice.as_bytes(), b"/"].concat(),
            [slice.as_bytes(), b"0"].concat(),
        );
        let blocks = self.cf(BLOCKS)?;
        self.db.delete_range_cf(blocks, &from, &to)?;
        // Every column family into table files, so that no write-ahead log
        // keeps the blocks, then the blocks' files rewritten without them.
        for name in [META, MANIFEST, BLOCKS] {
            self.db.flush_cf(self.cf(name)?)?;
        }
        self.db.compact_range_cf(blocks, Some(&from), Some(&to));
        Ok(())
    }

    /// The stored record bytes of one block, unchecked (for transfer).
    ///
    /// # Errors
    /// [`FormatError::Corrupt`] when the block is missing.
    pub fn block_record(&self, slice: &str, index: u32) -> Result<Vec<u8>, FormatError> {
        let corrupt = |reason: String| FormatError::Corrupt {
            slice: slice.to_string(),
            block: Some(index),
            reason,
        };
        match self.db.get_cf(self.cf(BLOCKS)?, block_key(slice, index)) {
            Ok(Some(record)) => Ok(record),
            Ok(None) => Err(corrupt("block missing from the store".to_string())),
            // RocksDB's own checksums failed on the file holding it.
            Err(e) if e.kind() == rocksdb::ErrorKind::Corruption => Err(corrupt(format!(
                "its file is damaged ({})",
                crate::error::without_directories(&e.into_string())
            ))),
            Err(e) => Err(e.into()),
        }
    }

    /// One block of a slice, checked against the slice's record and
    /// decompressed.
    ///
    /// # Errors
    /// [`FormatError::Corrupt`] naming slice and block when the record's
    /// layout is inconsistent or the block fails its checks.
    pub fn read_block(&self, record: &SliceRecord, index: u32) -> Result<BlockRecord, FormatError> {
        let bytes = self.block_of(record, index)?;
        decode_block(&record.slice, index, record.block_len(index), &bytes)
    }

    /// Reads every block of a slice and checks that together they give
    /// the checksum its record holds: the slice's bytes as stored now.
    ///
    /// # Errors
    /// [`FormatError::Corrupt`] naming the slice (and the block) that
    /// fails.
    pub fn check_bytes(&self, record: &SliceRecord) -> Result<(), FormatError> {
        // Blocks decode on every core, each hashed alone; the hashes are
        // joined in order, so no more than a block per core is held.
        let hashes = (0..record.blocks)
            .into_par_iter()
            .map(|index| {
                let mut crc = crc32fast::Hasher::new();
                crc.update(&self.read_block(record, index)?.raw);
                Ok(crc)
            })
            .collect::<Result<Vec<_>, FormatError>>()?;
        let crc = hashes
            .into_iter()
            .fold(crc32fast::Hasher::new(), |mut all, next| {
                all.combine(&next);
                all
            });
        if crc.finalize() != record.raw_crc32 {
            return Err(FormatError::Corrupt {
                slice: record.slice.clone(),
                block: None,
                reason: "its blocks do not give the checksum its manifest record holds".to_string(),
            });
        }
        Ok(())
    }

    /// The part of block `index` that holds its byte `at`, checked; a
    /// block whose codec decodes parts apart gives that part alone
    /// ([`decode_block_part`]).
    ///
    /// # Errors
    /// As [`Store::read_block`].
    pub fn read_block_part(
        &self,
        record: &SliceRecord,
        index: u32,
        at: u64,
    ) -> Result<BlockPart, FormatError> {
        let bytes = self.block_of(record, index)?;
        decode_block_part(&record.slice, index, record.block_len(index), &bytes, at)
    }

    /// The stored bytes of block `index` of a slice whose record's layout
    /// holds, and which has that block.
    fn block_of(&self, record: &SliceRecord, index: u32) -> Result<Vec<u8>, FormatError> {
        record.check_layout()?;
        if index >= record.blocks {
            return Err(FormatError::Corrupt {
                slice: record.slice.clone(),
                block: Some(index),
                reason: format!("the slice has {} blocks", record.blocks),
            });
        }
        self.block_record(&record.slice, index)
    }

    /// A whole slice's raw bytes, every block checked, and the slice CRC too.
    ///
    /// # Errors
    /// [`FormatError::MissingSlice`]; [`FormatError::Corrupt`] for a
    /// damaged block or record; [`FormatError::OutOfMemory`] when its length cannot
    /// be allocated.
    pub fn read_slice(&self, slice: &str) -> Result<(SliceRecord, Vec<u8>), FormatError> {
        let record = self
            .slice(slice)?
            .ok_or_else(|| FormatError::MissingSlice {
                slice: slice.to_string(),
            })?;
        record.check_layout()?;
        let mut raw = Vec::new();
        raw.try_reserve_exact(record.raw_len as usize)
            .map_err(|_| FormatError::OutOfMemory {
                slice: slice.to_string(),
                bytes: record.raw_len,
            })?;
        // The layout holds: `raw_len` cut in `block_bytes` pieces gives one
        // piece a block, each decoded into its place on any core.
        raw.resize(record.raw_len as usize, 0);
        raw.par_chunks_mut(record.block_bytes as usize)
            .enumerate()
            .try_for_each(|(index, place)| {
                // read_block gives exactly the block's length.
                place.copy_from_slice(&self.read_block(&record, index as u32)?.raw);
                Ok::<(), FormatError>(())
            })?;
        if crc32fast::hash(&raw) != record.raw_crc32 {
            return Err(FormatError::Corrupt {
                slice: slice.to_string(),
                block: None,
                reason: "slice checksum does not match its manifest record".to_string(),
            });
        }
        Ok((record, raw))
    }

    /// Marks the build complete (every slice in).
    ///
    /// # Errors
    /// I/O errors.
    pub fn set_complete(&self) -> Result<(), FormatError> {
        self.db
            .put_cf_opt(self.cf(META)?, b"complete", b"1", &synced())?;
        // Into table files, so that the write-ahead log is dropped: a
        // finished store then opens without replaying it (seconds for a
        // large build) and takes half the disk. Blocks first: a reader
        // that opens the store meanwhile and finds "complete" in a table
        // file finds the blocks there too, not in the log the last flush
        // deletes (readers of a store being built still look twice).
        for name in [BLOCKS, MANIFEST, META] {
            self.db.flush_cf(self.cf(name)?)?;
        }
        Ok(())
    }

    /// # Errors
    /// I/O errors.
    pub fn is_complete(&self) -> Result<bool, FormatError> {
        Ok(self.db.get_cf(self.cf(META)?, b"complete")?.is_some())
    }
}

/// A manifest record as the store holds it.
fn record_json(record: &SliceRecord) -> Result<Vec<u8>, FormatError> {
    serde_json::to_vec(record).map_err(|e| FormatError::io("writing a slice record", e))
}

fn block_key(slice: &str, index: u32) -> Vec<u8> {
    let mut key = Vec::with_capacity(slice.len() + 5);
    key.extend_from_slice(slice.as_bytes());
    key.push(b'/');
    key.extend_from_slice(&index.to_be_bytes());
    key
}

fn synced() -> WriteOptions {
    let mut opts = WriteOptions::default();
    opts.set_sync(true);
    opts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode_block;

    #[test]
    fn a_store_bounds_its_log_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        drop(Store::create_or_open(&path, &identity("g")).unwrap());
        let options = std::fs::read_dir(&path)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("OPTIONS-")
            })
            .max()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .expect("RocksDB writes its options");
        assert!(
            options.contains(&format!("max_total_wal_size={MAX_LOG_BYTES}")),
            "{options}"
        );
    }

    #[test]
    fn a_store_whose_creation_stopped_is_created_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        // What a creation cut off before its identity leaves behind.
        drop(DB::open_cf_descriptors(&options(true), &path, descriptors()).unwrap());
        assert!(matches!(
            Store::open(&path),
            Err(FormatError::NotAStore { .. })
        ));
        let store = Store::create_or_open(&path, &identity("g")).unwrap();
        assert_eq!(store.identity().game, "g");
        drop(store);
        assert_eq!(Store::open(&path).unwrap().identity().game, "g");
        // Someone else's RocksDB is not taken for one.
        let other = dir.path().join("other");
        drop(DB::open_default(&other).unwrap());
        assert!(Store::create_or_open(&other, &identity("g")).is_err());
    }

    #[test]
    fn a_record_filed_under_another_id_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create_or_open(&dir.path().join("s"), &identity("g")).unwrap();
        let raw = vec![7u8; 100];
        let blocks = vec![encode_block(
            0,
            CellEncoding::ValueDepth16,
            &raw,
            crate::Packing::Small(1),
        )
        .unwrap()];
        store
            .put_slice(&record_of("b", &raw, &blocks), &blocks)
            .unwrap();
        assert!(store.slice("b").unwrap().is_some());
        // b's record copied under a's id, as a damaged or forged store has it.
        let json = record_json(&record_of("b", &raw, &blocks)).unwrap();
        store
            .db
            .put_cf(store.cf(MANIFEST).unwrap(), b"a", json)
            .unwrap();
        let err = store.slice("a").unwrap_err().to_string();
        assert!(err.contains("slice \"b\"'s"), "{err}");
        assert!(store.slices().is_err());
    }

    fn identity(game: &str) -> StoreIdentity {
        StoreIdentity {
            game: game.to_string(),
            fingerprint: 42,
            definition: None,
            depth: false,
        }
    }

    #[test]
    fn slices_survive_reopening_and_other_games_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let raw = vec![7u8; 100];
        {
            let store = Store::create_or_open(&path, &identity("nim:hexagram")).unwrap();
            let block =
                encode_block(0, CellEncoding::WinBits, &raw, crate::Packing::Small(3)).unwrap();
            let record = SliceRecord {
                slice: "outer-00".into(),
                encoding: CellEncoding::WinBits,
                raw_len: 100,
                raw_crc32: crc32fast::hash(&raw),
                block_bytes: 65536,
                blocks: 1,
                stored_bytes: block.len() as u64,
                counts: SliceCounts::default(),
                stones: Some(0),
                seconds: 0.0,
                rank_pending: false,
                rank_seconds: 0.0,
                check_seconds: 0.0,
                solved_by: Some(SolvedBy::Network {
                    worker: "ws1".into(),
                }),
            };
            store.put_slice(&record, &[block]).unwrap();
            assert_eq!(store.slice("outer-00").unwrap(), Some(record));
            assert!(!store.is_complete().unwrap());
            store.set_complete().unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert!(store.is_complete().unwrap());
        assert_eq!(store.read_slice("outer-00").unwrap().1, raw);
        assert!(matches!(
            store.read_slice("outer-01"),
            Err(FormatError::MissingSlice { .. })
        ));
        drop(store);
        let err = Store::create_or_open(&path, &identity("nim:triangle:3:normal")).unwrap_err();
        assert!(
            err.to_string()
                .contains("holds nim:hexagram, not nim:triangle:3:normal"),
            "{err}"
        );
    }

    #[test]
    fn a_game_file_named_by_another_path_opens_its_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let file = |game: &str, definition: &str| StoreIdentity {
            game: game.to_string(),
            fingerprint: 7,
            definition: Some(definition.to_string()),
            depth: false,
        };
        let rules = "pieces = 6";
        drop(Store::create_or_open(&path, &file("morris:file:/abs/r.toml", rules)).unwrap());
        let store = Store::create_or_open(&path, &file("morris:file:r.toml", rules)).unwrap();
        // The store keeps the name it was built under.
        assert_eq!(store.identity().game, "morris:file:/abs/r.toml");
        drop(store);
        // Other rules under the same name are another game.
        let err =
            Store::create_or_open(&path, &file("morris:file:r.toml", "pieces = 7")).unwrap_err();
        assert!(matches!(err, FormatError::OtherGame { .. }), "{err}");
        // A spec without a definition must match by name.
        let named = |game: &str| StoreIdentity {
            definition: None,
            ..file(game, "")
        };
        let preset = dir.path().join("p");
        drop(Store::create_or_open(&preset, &named("morris:taiwan:6")).unwrap());
        assert!(Store::create_or_open(&preset, &named("morris:taiwan:7")).is_err());
    }

    #[test]
    fn a_removed_slice_takes_its_blocks_and_nothing_of_its_neighbours() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create_or_open(&dir.path().join("s"), &identity("g")).unwrap();
        let raw = vec![5u8; 100];
        // The keys of "m-p0" sort before "m/…" and those of "m0" after.
        for slice in ["m", "m-p0", "m0"] {
            let blocks: Vec<Vec<u8>> = (0..3)
                .map(|i| encode_block(i, CellEncoding::WinBits, &raw, crate::Packing::Small(3)))
                .collect::<Result<_, _>>()
                .unwrap();
            store
                .put_slice(&record_of(slice, &raw, &blocks), &blocks)
                .unwrap();
        }
        store.remove_slice("m").unwrap();
        assert!(store.slice("m").unwrap().is_none());
        assert!(store.block_record("m", 0).is_err());
        for slice in ["m-p0", "m0"] {
            assert!(store.slice(slice).unwrap().is_some());
            for i in 0..3 {
                assert!(store.block_record(slice, i).is_ok(), "{slice} block {i}");
            }
        }
    }

    #[test]
    fn a_record_written_before_the_path_was_recorded_reads_without_one() {
        let mut json = serde_json::to_value(record_of("move-03-03", &[0; 4], &[])).unwrap();
        json.as_object_mut().unwrap().remove("solved_by");
        let read: SliceRecord = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(read.solved_by, None);
        json["solved_by"] = serde_json::json!({"path": "reused", "from": "/s/tw9"});
        let read: SliceRecord = serde_json::from_value(json.clone()).unwrap();
        let from = "/s/tw9".to_string();
        assert_eq!(read.solved_by, Some(SolvedBy::Reused { from }));
        json["solved_by"] = serde_json::json!({"path": "carrier pigeon"});
        assert!(serde_json::from_value::<SliceRecord>(json).is_err());
    }

    #[test]
    fn a_directory_that_is_not_a_store_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        assert!(matches!(
            Store::open(dir.path()),
            Err(FormatError::NotAStore { .. })
        ));
        let err = Store::create_or_open(dir.path(), &identity("nim:hexagram")).unwrap_err();
        assert!(err.to_string().contains("is not an egdb store"), "{err}");
        assert!(dir.path().join("notes.txt").exists());
    }

    /// A block record as format 2 wrote it: zstd, the level in byte 7.
    fn format_2_block(index: u32, encoding: CellEncoding, raw: &[u8]) -> Vec<u8> {
        let payload = zstd::bulk::compress(raw, 3).unwrap();
        let mut record = b"EGBK".to_vec();
        record.extend_from_slice(&2u16.to_le_bytes());
        record.extend_from_slice(&[encoding.tag(), 3]);
        for word in [index, raw.len() as u32, payload.len() as u32] {
            record.extend_from_slice(&word.to_le_bytes());
        }
        record.extend_from_slice(&payload);
        let crc = crc32fast::hash(&record);
        record.extend_from_slice(&crc.to_le_bytes());
        record
    }

    fn record_of(slice: &str, raw: &[u8], blocks: &[Vec<u8>]) -> SliceRecord {
        SliceRecord {
            slice: slice.into(),
            encoding: CellEncoding::ValueDepth16,
            raw_len: raw.len() as u64,
            raw_crc32: crc32fast::hash(raw),
            block_bytes: 65536,
            blocks: blocks.len() as u32,
            stored_bytes: blocks.iter().map(|b| b.len() as u64).sum(),
            counts: SliceCounts::default(),
            stones: None,
            seconds: 0.0,
            rank_pending: false,
            rank_seconds: 0.0,
            check_seconds: 0.0,
            solved_by: None,
        }
    }

    #[test]
    fn a_format_2_store_is_read_and_carried_on_in_today_s_format() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let old: Vec<u8> = (0..5000u16)
            .flat_map(|i| (0x8000 | (i / 300)).to_le_bytes())
            .collect();
        {
            let store = Store::create_or_open(&path, &identity("morris:taiwan:3")).unwrap();
            let block = format_2_block(0, CellEncoding::ValueDepth16, &old);
            store
                .put_slice(
                    &record_of("move-03-03", &old, std::slice::from_ref(&block)),
                    &[block],
                )
                .unwrap();
            let meta = store.cf(META).unwrap();
            store
                .db
                .put_cf(meta, b"format_version", 2u16.to_le_bytes())
                .unwrap();
        }
        // Read as it is: nothing written.
        let read = Store::open_read_only(&path).unwrap();
        assert_eq!(read.read_slice("move-03-03").unwrap().1, old);
        drop(read);
        // A build carries it on: new blocks tabled, the old ones still read.
        let store = Store::create_or_open(&path, &identity("morris:taiwan:3")).unwrap();
        assert_eq!(store.upgraded_from(), Some(2));
        let new: Vec<u8> = old.iter().rev().copied().collect();
        let block = encode_block(
            0,
            CellEncoding::ValueDepth16,
            &new,
            crate::Packing::Small(1),
        )
        .unwrap();
        assert_eq!(block[7], 2, "tabled");
        store
            .put_slice(
                &record_of("move-04-03-p0", &new, std::slice::from_ref(&block)),
                &[block],
            )
            .unwrap();
        drop(store);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.upgraded_from(), None);
        assert_eq!(store.read_slice("move-03-03").unwrap().1, old);
        assert_eq!(store.read_slice("move-04-03-p0").unwrap().1, new);
        let record = store.slice("move-04-03-p0").unwrap().unwrap();
        let part = store.read_block_part(&record, 0, 8192).unwrap();
        assert_eq!((part.first, &part.raw[..]), (1, &new[8192..]));
        // A format this binary does not know is refused, naming both.
        store
            .db
            .put_cf(
                store.cf(META).unwrap(),
                b"format_version",
                9u16.to_le_bytes(),
            )
            .unwrap();
        drop(store);
        let err = Store::open_read_only(&path).unwrap_err().to_string();
        assert!(
            err.contains("version 9") && err.contains("versions 2 to 4"),
            "{err}"
        );
    }
}
