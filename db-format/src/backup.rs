//! Backups of a store while it is built: RocksDB's backup engine copies
//! the store's files into a directory of backups (another disk, a network
//! mount), each backup sharing the table files the one before it holds, so
//! that only what is new is copied. A backup is the store as it stood at
//! one instant: what a crash at that instant would have left, which the
//! store is made to survive (a slice's record is written after its blocks,
//! so a slice is in a backup whole or not at all).
//!
//! Beside RocksDB's own files, the directory holds `egdb-backups.jsonl`, a
//! line per backup taken: its id, time, game and slices; and
//! `journals/ID.journal`, the store's verify journal as it stood just
//! before backup ID (its checks of slices already stored), and
//! `journals/ID.identity`, RocksDB's identity of the store, which the
//! journal names and a restore puts back.

use std::io::Write;
use std::path::{Path, PathBuf};

use rocksdb::backup::{BackupEngine, BackupEngineOptions, RestoreOptions};
use rocksdb::Env;
use serde::{Deserialize, Serialize};

use crate::store::free_bytes;
use crate::{FormatError, Store};

/// The file of what egdb knows of each backup.
const LEDGER: &str = "egdb-backups.jsonl";
/// Where the verify journals of the backups go.
const JOURNALS: &str = "journals";
/// The store's verify journal (kept beside its RocksDB files).
const JOURNAL: &str = "verify.journal";
/// RocksDB's identity of the store, which the journal names.
const IDENTITY: &str = "IDENTITY";
/// Bytes of the ledger read at most: a line is a few hundred bytes, and a
/// build takes a backup every few minutes.
const MAX_LEDGER_BYTES: u64 = 16 << 20;

/// One backup, as `egdb restore --list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupEntry {
    /// RocksDB's id of the backup (ever increasing).
    pub id: u32,
    /// Seconds since 1970 when it was taken.
    pub time: i64,
    /// The store's game spec.
    pub game: String,
    /// The store's slices at the backup's instant: at least the first,
    /// at most the second (slices stored while it began).
    pub slices: (usize, usize),
    /// Bytes of files it holds (shared ones counted in each).
    pub bytes: u64,
}

/// A directory of backups of one store.
pub struct Backups {
    dir: PathBuf,
    engine: BackupEngine,
}

impl Backups {
    /// Opens (or starts) the backups in `dir`.
    ///
    /// # Errors
    /// [`FormatError::Backup`] when `dir` is a file, cannot be made or
    /// written, or holds something RocksDB cannot read as backups.
    pub fn open(dir: &Path) -> Result<Backups, FormatError> {
        let failed = |reason: String| FormatError::Backup {
            dir: dir.display().to_string(),
            reason,
        };
        if dir.exists() && !dir.is_dir() {
            return Err(failed("it is not a directory".to_string()));
        }
        std::fs::create_dir_all(dir.join(JOURNALS)).map_err(|e| failed(e.to_string()))?;
        let options = BackupEngineOptions::new(dir).map_err(|e| failed(e.into_string()))?;
        let env = Env::new().map_err(|e| failed(e.into_string()))?;
        let engine = BackupEngine::open(&options, &env).map_err(|e| failed(e.into_string()))?;
        Ok(Backups {
            dir: dir.to_path_buf(),
            engine,
        })
    }

    /// Opens the backups in `dir`, which must be there.
    ///
    /// # Errors
    /// As [`Backups::open`], and when `dir` is missing.
    pub fn open_existing(dir: &Path) -> Result<Backups, FormatError> {
        if !dir.is_dir() {
            return Err(FormatError::Backup {
                dir: dir.display().to_string(),
                reason: "no such directory".to_string(),
            });
        }
        Backups::open(dir)
    }

    /// Restores the newest backup that restores whole and whose every
    /// slice reads back with its recorded checksum into `to` (missing or
    /// an empty directory), trying older ones after a damaged one.
    /// Returns the backup restored and each newer one passed over, with
    /// why.
    ///
    /// # Errors
    /// [`FormatError::Backup`] when no backup is sound (each named), or
    /// `to` cannot be written.
    pub fn restore_newest(
        &mut self,
        to: &Path,
    ) -> Result<(BackupEntry, Vec<(BackupEntry, String)>), FormatError> {
        let dir = self.dir.display().to_string();
        let failed = |reason: String| FormatError::Backup {
            dir: dir.clone(),
            reason,
        };
        let name = to
            .file_name()
            .ok_or_else(|| failed(format!("{} names no directory", to.display())))?
            .to_os_string();
        // A directory per try: a failed restore may leave files behind.
        let attempt = |id: u32| {
            let mut attempt = name.clone();
            attempt.push(format!(".restoring-{id}"));
            to.with_file_name(attempt)
        };
        let mut passed_over = Vec::new();
        let mut outcome = None;
        for entry in self.list() {
            let partial = attempt(entry.id);
            if partial.exists() {
                std::fs::remove_dir_all(&partial).map_err(|e| failed(e.to_string()))?;
            }
            let sound = self
                .restore(entry.id, &partial)
                .and_then(|()| read_back(&partial));
            match sound {
                Ok(()) => {
                    outcome = Some(std::fs::rename(&partial, to).map(|()| entry).map_err(|e| {
                        failed(format!(
                            "moving the restored store to {}: {e}",
                            to.display()
                        ))
                    }));
                    break;
                }
                Err(e) => passed_over.push((entry, e.to_string())),
            }
        }
        for (entry, _) in &passed_over {
            let _ = std::fs::remove_dir_all(attempt(entry.id));
        }
        if let Some(restored) = outcome {
            return Ok((restored?, passed_over));
        }
        let why: Vec<String> = passed_over
            .iter()
            .map(|(entry, why)| format!("backup {}: {why}", entry.id))
            .collect();
        Err(failed(if why.is_empty() {
            "it holds no backup".to_string()
        } else {
            format!("no backup is sound ({})", why.join("; "))
        }))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Takes a backup of `store` as it stands, then keeps only the newest
    /// `keep` (at least one).
    ///
    /// # Errors
    /// [`FormatError::Backup`] when the backup cannot be written (a full
    /// disk, a mount gone); the store is untouched either way.
    pub fn take(&mut self, store: &Store, keep: usize) -> Result<BackupEntry, FormatError> {
        let failed = |reason: String| FormatError::Backup {
            dir: self.dir.display().to_string(),
            reason,
        };
        // Never the disk the build needs: a backup whose new files would
        // leave too little room is not begun.
        let (needed, free) = (room_needed(store.path(), &self.dir), free_bytes(&self.dir));
        if let Some(free) = free.filter(|&free| free < needed) {
            return Err(failed(format!(
                "its disk has {free} bytes free, and a backup now would need about {needed} \
                 (its new files, and room left for the store to grow)"
            )));
        }
        let before = store.slices()?.len();
        // The journal first: it then holds no check of a slice the backup
        // lacks that a restored build would take on trust.
        let journal = store.path().join(JOURNAL);
        let kept_journal = self.dir.join(JOURNALS).join("next.journal");
        let has_journal = match std::fs::copy(&journal, &kept_journal) {
            Ok(_) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(failed(format!("copying the verify journal: {e}"))),
        };
        self.engine
            .create_new_backup_flush(store.db(), true)
            .map_err(|e| failed(e.into_string()))?;
        let after = store.slices()?.len();
        let newest = self
            .engine
            .get_backup_info()
            .into_iter()
            .max_by_key(|b| b.backup_id)
            .ok_or_else(|| failed("RocksDB lists no backup after taking one".to_string()))?;
        if has_journal {
            std::fs::rename(&kept_journal, self.journal_of(newest.backup_id))
                .map_err(|e| failed(format!("keeping the verify journal: {e}")))?;
        }
        // RocksDB's identity of the store, which its journal names: a
        // restored store keeps it (RocksDB would make a new one).
        match std::fs::copy(
            store.path().join(IDENTITY),
            self.identity_of(newest.backup_id),
        ) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(failed(format!("keeping the store's identity: {e}")));
            }
            _ => {}
        }
        let entry = BackupEntry {
            id: newest.backup_id,
            time: newest.timestamp,
            game: store.identity().game.clone(),
            slices: (before, after.max(before)),
            bytes: newest.size,
        };
        self.append(&entry)
            .map_err(|e| failed(format!("writing {LEDGER}: {e}")))?;
        self.engine
            .purge_old_backups(keep.max(1))
            .map_err(|e| failed(e.into_string()))?;
        self.forget_purged();
        Ok(entry)
    }

    /// The backups RocksDB holds, newest first, with what the ledger says
    /// of each (a backup the ledger lacks is listed with what RocksDB says).
    pub fn list(&self) -> Vec<BackupEntry> {
        let ledger = self.ledger();
        let mut held: Vec<BackupEntry> = self
            .engine
            .get_backup_info()
            .into_iter()
            .map(|b| {
                ledger
                    .iter()
                    .rev()
                    .find(|e| e.id == b.backup_id)
                    .cloned()
                    .unwrap_or(BackupEntry {
                        id: b.backup_id,
                        time: b.timestamp,
                        game: "?".to_string(),
                        slices: (0, 0),
                        bytes: b.size,
                    })
            })
            .collect();
        held.sort_by_key(|b| std::cmp::Reverse(b.id));
        held
    }

    /// Restores backup `id` into the new directory `to` (which must not
    /// hold anything), with its verify journal. RocksDB checks each file's
    /// checksum as it copies it back.
    ///
    /// # Errors
    /// [`FormatError::Backup`] naming the backup when a file of it is
    /// missing or damaged, or `to` cannot be written.
    pub fn restore(&mut self, id: u32, to: &Path) -> Result<(), FormatError> {
        let failed = |reason: String| FormatError::Backup {
            dir: self.dir.display().to_string(),
            reason: format!("backup {id}: {reason}"),
        };
        self.engine
            .verify_backup(id)
            .map_err(|e| failed(e.into_string()))?;
        let options = RestoreOptions::default();
        self.engine
            .restore_from_backup(to, to, &options, id)
            .map_err(|e| failed(e.into_string()))?;
        for (kept, name) in [
            (self.journal_of(id), JOURNAL),
            (self.identity_of(id), IDENTITY),
        ] {
            match std::fs::copy(kept, to.join(name)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(failed(format!("its {name}: {e}")));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn journal_of(&self, id: u32) -> PathBuf {
        self.dir.join(JOURNALS).join(format!("{id}.journal"))
    }

    fn identity_of(&self, id: u32) -> PathBuf {
        self.dir.join(JOURNALS).join(format!("{id}.identity"))
    }

    fn append(&self, entry: &BackupEntry) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(entry)?;
        line.push(b'\n');
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(LEDGER))?;
        file.write_all(&line)?;
        file.sync_data()
    }

    /// The ledger's entries; lines that do not parse (a write cut short)
    /// are passed over.
    fn ledger(&self) -> Vec<BackupEntry> {
        let path = self.dir.join(LEDGER);
        let Ok(bytes) = read_at_most(&path, MAX_LEDGER_BYTES) else {
            return Vec::new();
        };
        String::from_utf8_lossy(&bytes)
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// Drops the journals of backups RocksDB purged.
    fn forget_purged(&self) {
        let held: Vec<u32> = self
            .engine
            .get_backup_info()
            .iter()
            .map(|b| b.backup_id)
            .collect();
        let Ok(entries) = std::fs::read_dir(self.dir.join(JOURNALS)) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let id = name
                .to_str()
                .and_then(|n| {
                    n.strip_suffix(".journal")
                        .or_else(|| n.strip_suffix(".identity"))
                })
                .and_then(|n| n.parse::<u32>().ok());
            if id.is_some_and(|id| !held.contains(&id)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// The least room a backup leaves on its disk, beside what it copies.
const LEAST_ROOM_LEFT: u64 = 1 << 30;

/// Bytes a backup of the store at `store` into `dir` would copy (its table
/// files the backups do not share yet, and the rest of its small files),
/// and room for the store to grow on: a tenth of it, at least
/// [`LEAST_ROOM_LEFT`].
fn room_needed(store: &Path, dir: &Path) -> u64 {
    let shared: std::collections::HashSet<String> = std::fs::read_dir(dir.join("shared_checksum"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            Some(name.split('_').next()?.to_string())
        })
        .collect();
    let (mut all, mut new) = (0u64, 0u64);
    for entry in std::fs::read_dir(store).into_iter().flatten().flatten() {
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        all = all.saturating_add(meta.len());
        let number = name.strip_suffix(".sst");
        if !number.is_some_and(|n| shared.contains(n)) {
            new = new.saturating_add(meta.len());
        }
    }
    new.saturating_add((all / 10).max(LEAST_ROOM_LEFT))
}

/// Opens the restored store at `path` and reads every slice's blocks back
/// against its recorded checksum.
fn read_back(path: &Path) -> Result<(), FormatError> {
    let store = Store::open_read_only(path)?;
    for record in store.slices()? {
        store.check_bytes(&record)?;
    }
    Ok(())
}

/// A file's bytes, if it is a regular file of at most `most` bytes.
fn read_at_most(path: &Path, most: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() > most {
        return Err(std::io::Error::other("not a ledger"));
    }
    let mut bytes = Vec::new();
    file.take(most).read_to_end(&mut bytes)?;
    Ok(bytes)
}
