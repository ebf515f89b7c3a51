//! Slices taken from another store instead of solved: a Morris game's
//! movement slices do not depend on the pieces a side starts with, so a
//! build of P pieces can take those that a store of the same rules with
//! other P holds (Taiwan P = 12 starts from P = 9's), and so can a build
//! of rules that differ only while placing (Taiwan's reading that protects
//! mills while placing, from Taiwan's store). Where placing and moving mix
//! (RULES.md §3a), hand slices are named by what they hold, so a build of
//! one start takes them too from a store of another start of the same
//! rules. A slice is taken
//! only when both plans give it the same id, size and dependencies, and
//! only once every block passed its checksum and the slice's bytes its
//! recorded CRC; the records are copied as they are but for the path,
//! which names the store they came from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use egdb_db_format::{decode_block, FormatError, SliceRecord, SolvedBy, Store};
use egdb_games::morris::MorrisSlice;
use egdb_games::{Game, SliceId, SliceInfo};

use super::{check_id, slice_job, Build};
use crate::CoordinatorError;
use egdb_check::identity::{cell_encoding, from_identity};

/// What a build took from another store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reused {
    pub slices: usize,
    pub entries: u64,
    /// Bytes of block records copied.
    pub bytes: u64,
}

/// A store to take slices from, opened and found of the same movement
/// rules and cell encoding as the build: checked before the build's own
/// store is made, so that a refused one leaves nothing behind.
pub struct ReuseSource {
    store: Store,
    path: PathBuf,
    game: Game,
    /// Whether its hand slices are ours too (the same rules of mixing).
    hand_slices_too: bool,
}

impl ReuseSource {
    /// Opens the store at `path` (read only) for a build of `ours`.
    ///
    /// # Errors
    /// [`CoordinatorError::Unreusable`] for a store of other rules or cell
    /// encoding, or one that does not open.
    pub fn open(path: &Path, ours: &Game, depth: bool) -> Result<ReuseSource, CoordinatorError> {
        let unreusable = |reason: String| CoordinatorError::Unreusable {
            path: path.display().to_string(),
            reason,
        };
        let store = Store::open_read_only(path).map_err(|e| match e {
            FormatError::Damaged(_) | FormatError::Corrupt { .. } | FormatError::Io { .. } => {
                CoordinatorError::ReuseDamaged {
                    path: path.display().to_string(),
                    source: e,
                }
            }
            other => unreusable(other.to_string()),
        })?;
        let theirs = from_identity(store.identity()).map_err(|e| unreusable(e.to_string()))?;
        if !ours.same_movement_rules(&theirs) {
            return Err(unreusable(format!(
                "it holds {}, whose movement phase is not {}'s",
                theirs.spec(),
                ours.spec()
            )));
        }
        let (their_encoding, our_encoding) = (
            cell_encoding(&theirs, store.identity().depth),
            cell_encoding(ours, depth),
        );
        if their_encoding != our_encoding {
            return Err(unreusable(format!(
                "its cells are {their_encoding:?}, this build's {our_encoding:?}"
            )));
        }
        Ok(ReuseSource {
            store,
            path: path.to_path_buf(),
            hand_slices_too: ours.same_hand_rules(&theirs),
            game: theirs,
        })
    }
}

impl Build {
    /// Takes every movement slice not yet built that `source` holds
    /// (another number of pieces, other rules of placing), checked, and
    /// marks it done.
    ///
    /// # Errors
    /// [`CoordinatorError::Unreusable`] for a build that verifies a store
    /// or of other cells than the source was opened for;
    /// [`CoordinatorError::ReuseDamaged`] for a block of the source that
    /// fails its checks or a slice whose bytes are not its recorded CRC;
    /// store I/O.
    pub fn reuse(&self, source: &ReuseSource) -> Result<Reused, CoordinatorError> {
        let path = source.path.as_path();
        let unreusable = |reason: String| CoordinatorError::Unreusable {
            path: path.display().to_string(),
            reason,
        };
        if !self.solving {
            return Err(unreusable("a verify takes no slices".to_string()));
        }
        let (other, theirs) = (&source.store, &source.game);
        let their_encoding = cell_encoding(theirs, other.identity().depth);
        if their_encoding != self.encoding {
            return Err(unreusable(format!(
                "its cells are {their_encoding:?}, this build's {:?}",
                self.encoding
            )));
        }
        let damaged = |source: FormatError| CoordinatorError::ReuseDamaged {
            path: path.display().to_string(),
            source,
        };
        let their_plan: HashMap<SliceId, SliceInfo> = theirs
            .slices()
            .into_iter()
            .map(|s| (s.id.clone(), s))
            .collect();
        let mut reused = Reused::default();
        for slice in &self.plan {
            let same = their_plan.get(&slice.id).is_some_and(|t| {
                t.entries == slice.entries
                    && t.positions == slice.positions
                    && t.dependencies == slice.dependencies
            });
            let shared = match MorrisSlice::parse(slice.id.as_str()) {
                Some(MorrisSlice::Movement { .. }) => true,
                Some(MorrisSlice::Hand { .. }) => source.hand_slices_too,
                _ => false,
            };
            if !same || !shared || self.lock().schedule.is_done(&slice_job(&slice.id)) {
                continue;
            }
            let Some(record) = other.slice(slice.id.as_str()).map_err(damaged)? else {
                continue;
            };
            record.check_layout().map_err(damaged)?;
            // Its bytes must be the planned table's length before any block
            // is read (the store checked that the record is this slice's).
            let expected_len = self.encoding.table_bytes(slice.entries);
            if record.raw_len != expected_len {
                return Err(unreusable(format!(
                    "its record of {} has {} bytes; the table is {expected_len}",
                    slice.id, record.raw_len
                )));
            }
            let mut crc = crc32fast::Hasher::new();
            // Grown as blocks are read: the count is the record's word.
            let mut blocks = Vec::new();
            for index in 0..record.blocks {
                let bytes = other.block_record(&record.slice, index).map_err(damaged)?;
                let block = decode_block(&record.slice, index, record.block_len(index), &bytes)
                    .map_err(damaged)?;
                crc.update(&block.raw);
                blocks.push(bytes);
            }
            if crc.finalize() != record.raw_crc32 {
                return Err(damaged(FormatError::Corrupt {
                    slice: record.slice.clone(),
                    block: None,
                    reason: "the slice's bytes are not its recorded CRC".to_string(),
                }));
            }
            let record = SliceRecord {
                solved_by: Some(SolvedBy::Reused {
                    from: path.display().to_string(),
                }),
                // Checked in the other store; in this one, its check (and
                // so its time) is still to come.
                check_seconds: 0.0,
                ..record
            };
            self.store.put_slice(&record, &blocks)?;
            self.stored_crc(&slice.id, record.raw_crc32);
            // Done; in a build that verifies as it goes, its check is
            // still to come, as for every slice stored, unless the list of
            // a verified store gives it these bytes.
            {
                let mut state = self.lock();
                let job = slice_job(&slice.id);
                state.schedule.finish(&job);
                self.ranking_after(&state.schedule, &job, record.rank_pending);
                if self.vouched(&record) {
                    let check = check_id(&slice.id);
                    if state.schedule.finish(&check) {
                        self.ranking_after(&state.schedule, &check, false);
                    }
                }
            }
            reused.slices += 1;
            reused.entries += slice.entries;
            reused.bytes += record.stored_bytes;
            tracing::info!(
                slice = slice.id.as_str(),
                from = %path.display(),
                "slice taken from another store"
            );
        }
        Ok(reused)
    }
}
