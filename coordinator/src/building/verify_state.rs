//! What a verifying build keeps besides the lease state: the journal of
//! passed checks, each stored slice's checksum, the failures; and what a
//! check needs of a worker's memory.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use egdb_check::verify::Journal;
use egdb_check::SliceCheck;
use egdb_db_format::{CellEncoding, SliceRecord};
use egdb_games::{Game, SliceId, SliceInfo};

/// What a verifying build keeps besides the lease state.
pub(super) struct Verifying {
    /// `None` once removed at the end.
    pub(super) journal: Mutex<Option<Journal>>,
    /// Each stored slice's checksum: what a pass is recorded against (a
    /// build that verifies as it goes adds each slice it stores).
    pub(super) crcs: Mutex<HashMap<SliceId, u32>>,
    pub(super) failures: Mutex<Vec<SliceCheck>>,
}

impl Verifying {
    /// The checks of a build that verifies as it goes, over the store at
    /// `path` holding `records` so far; passes an earlier run of it
    /// recorded are kept.
    pub(super) fn of_build(path: &Path, game: &Game, records: &[SliceRecord]) -> Verifying {
        Verifying {
            journal: Mutex::new(Some(Journal::open_of_build(path, game))),
            crcs: Mutex::new(
                records
                    .iter()
                    .map(|r| (SliceId::new(r.slice.clone()), r.raw_crc32))
                    .collect(),
            ),
            failures: Mutex::new(Vec::new()),
        }
    }

    /// Whether `slice` passed its check before, with these bytes.
    pub(super) fn passed(&self, slice: &SliceId, raw_crc32: u32) -> bool {
        lock(&self.journal)
            .as_ref()
            .is_some_and(|j| j.passed(slice, raw_crc32))
    }
}

/// Bytes a worker holds to check each slice: the slice and every slice it
/// reads, decoded.
pub(super) fn check_needs(plan: &[SliceInfo], encoding: CellEncoding) -> Vec<u64> {
    let raw = |s: &SliceInfo| encoding.table_bytes(s.entries);
    plan.iter()
        .map(|slice| {
            let reads: u64 = plan
                .iter()
                .filter(|s| slice.dependencies.contains(&s.id))
                .map(raw)
                .sum();
            raw(slice) + reads
        })
        .collect()
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
