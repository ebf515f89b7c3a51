//! Probing a store: value and depth of positions, block by block.
//!
//! Blocks are read lazily and kept in a small cache, so opening a store reads
//! only its manifest, and repeated probes near each other decompress once.
//! The game's family says where a position's cell lies; [`cells`] reads it
//! as the slice's record says it is encoded; [`book`] walks the positions
//! near a root.

mod book;
mod cache;
mod cells;
mod damage;
mod line;

pub use book::BookEntry;
pub use line::{best_move, LineStep};

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use cache::{keep_near, key, near, BlockCache};
use damage::{corrupt, misfit_error};

use egdb_db_format::ranked::PART_BYTES;
use egdb_db_format::{FormatError, SliceRecord, Store};
use egdb_games::{with_game, Family, Game, SliceId};

use crate::TablebaseError;
use egdb_check::identity::{from_identity, misfit};

/// Bytes of decompressed blocks a tablebase keeps unless told otherwise.
pub const DEFAULT_CACHE_BYTES: u64 = 64 << 20;

pub use crate::Probe;

/// A position's probe and every legal move's, in notation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The position as the game prints it.
    pub position: String,
    pub probe: Probe,
    /// Each legal move, in the game's move order; empty when it is over.
    pub moves: Vec<MoveAnswer>,
}

/// A legal move, the position it leads to and that position's probe (from
/// the next mover's view).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveAnswer {
    pub mv: String,
    pub after: String,
    pub probe: Probe,
}

/// A store opened for queries.
pub struct Tablebase {
    store: Store,
    game: Game,
    /// Finished slices' records, in slice order; a slice's number is its
    /// place here.
    records: Vec<SliceRecord>,
    /// Why each record cannot hold its slice's cells, if it cannot.
    misfits: Vec<Option<String>>,
    /// The game's slices in plan order, as [`egdb_games::Cell`] numbers them.
    plan: Vec<SliceId>,
    /// The number of each slice of the plan, if stored.
    slots: Vec<Option<u32>>,
    cache: RwLock<BlockCache>,
    /// Whether the store was complete when opened (a read-only view does not
    /// change after).
    complete: bool,
    /// Tells this tablebase's blocks from another's in per-thread caches.
    id: u64,
}

/// Ids of open tablebases, never reused.
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Tablebase {
    /// # Errors
    /// [`FormatError::NotAStore`] and friends; a game this egdb does not know.
    pub fn open(path: &Path) -> Result<Tablebase, TablebaseError> {
        let store = Store::open_read_only(path)?;
        let game = from_identity(store.identity())?;
        let complete = store.is_complete()?;
        // At most MAX_STORE_SLICES (the store refuses a longer manifest):
        // their numbers fit the block cache's keys.
        let mut records = store.slices()?;
        records.sort_by(|a, b| a.slice.cmp(&b.slice));
        let numbers = records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.slice.as_str(), i as u32))
            .collect::<HashMap<&str, u32>>();
        let slices = game.slices();
        let slots = slices
            .iter()
            .map(|s| numbers.get(s.id.as_str()).copied())
            .collect::<Vec<_>>();
        let mut misfits = vec![None; records.len()];
        for (slice, number) in slices.iter().zip(&slots) {
            if let Some(n) = *number {
                let record = &records[n as usize];
                misfits[n as usize] = misfit(&game, slice, record.encoding, record.raw_len);
            }
        }
        let plan = slices.into_iter().map(|s| s.id).collect();
        Ok(Tablebase {
            store,
            game,
            records,
            misfits,
            plan,
            slots,
            cache: RwLock::new(BlockCache::new(DEFAULT_CACHE_BYTES)),
            complete,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// Keeps up to `bytes` of decompressed blocks (a server: as much of the
    /// tablebase as memory allows).
    pub fn with_cache_bytes(self, bytes: u64) -> Tablebase {
        *self.write() = BlockCache::new(bytes);
        self
    }

    /// Whether every slice of the game was in the store when it was opened.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The game's slices, dependencies first: what a complete store holds.
    pub fn plan(&self) -> &[SliceId] {
        &self.plan
    }

    /// The records of the plan's slices in the store, in plan order, each
    /// checked to fit its slice (cells of the game's kind, and as many as
    /// the slice has): what a reader of whole slices may trust.
    ///
    /// # Errors
    /// [`FormatError::Corrupt`] for the first record that does not fit.
    pub fn planned_records(&self) -> Result<Vec<&SliceRecord>, TablebaseError> {
        self.slots
            .iter()
            .flatten()
            .map(|&number| {
                let record = &self.records[number as usize];
                match &self.misfits[number as usize] {
                    Some(reason) => Err(misfit_error(record, reason)),
                    None => Ok(record),
                }
            })
            .collect()
    }

    /// Reads every block of a slice as stored, checking each block's
    /// checksum and then the slice's over all of them, without holding the
    /// slice whole: what a command must have done before it vouches for a
    /// slice's bytes.
    ///
    /// # Errors
    /// [`FormatError::Corrupt`] naming the slice and, where one is at
    /// fault, the block.
    pub fn check_stored(&self, record: &SliceRecord) -> Result<(), TablebaseError> {
        Ok(self.store.check_bytes(record)?)
    }

    /// Finished slices' records, in slice order.
    pub fn records(&self) -> Vec<&SliceRecord> {
        self.records.iter().collect()
    }

    /// The probe of the game's start position.
    ///
    /// # Errors
    /// As [`Tablebase::answer`].
    pub fn start(&self) -> Result<Probe, TablebaseError> {
        with_game!(&self.game, g => self.probe_in(g, &g.start()))
    }

    /// The value (and depth) of a position given in notation.
    ///
    /// # Errors
    /// As [`Tablebase::answer`].
    pub fn probe(&self, text: &str) -> Result<Probe, TablebaseError> {
        Ok(self.probe_named(text)?.1)
    }

    /// The position as the game prints it, and its probe.
    ///
    /// # Errors
    /// As [`Tablebase::answer`].
    pub fn probe_named(&self, text: &str) -> Result<(String, Probe), TablebaseError> {
        with_game!(&self.game, g => self.probe_named_in(g, text))
    }

    /// The value (and depth) of a position given in notation, and of every
    /// position one legal move leads to.
    ///
    /// # Errors
    /// [`TablebaseError::Game`] for text that is not a position of the
    /// game; [`TablebaseError::SliceNotFound`] when a slice it needs is not
    /// in the store; [`FormatError::Corrupt`] naming slice and block when a
    /// block fails its checksum — never a value from a bad block.
    pub fn answer(&self, text: &str) -> Result<Answer, TablebaseError> {
        with_game!(&self.game, g => self.answer_in(g, text))
    }

    /// `N` stored bytes of slice number `slice` from byte `at` on; one part
    /// of one block read unless the cell straddles two.
    fn bytes<const N: usize>(&self, slice: u32, at: u64) -> Result<[u8; N], TablebaseError> {
        let record = &self.records[slice as usize];
        let mut out = [0u8; N];
        let mut filled = 0;
        while filled < N {
            let (index, start) = place(record, at + filled as u64)?;
            let (part, start) = (start / PART_BYTES, start % PART_BYTES);
            let wanted = &mut out[filled..];
            let k = key(slice, index, part as u32);
            let take = match near(self.id, k, |raw| copy_from(raw, start, wanted)) {
                Some(take) => take,
                None => {
                    let raw = self.part(slice, index, part)?;
                    let take = copy_from(&raw, start, &mut out[filled..]);
                    keep_near(self.id, k, raw);
                    take
                }
            };
            if take == 0 {
                return Err(corrupt(
                    record,
                    index,
                    "block shorter than its manifest record says",
                ));
            }
            filled += take;
        }
        Ok(out)
    }

    /// Part `part` of a block ([`PART_BYTES`] raw bytes): decoded alone
    /// where the block's codec allows, else with the whole block, whose
    /// other parts are kept too.
    fn part(&self, slice: u32, index: u32, part: usize) -> Result<Arc<Vec<u8>>, TablebaseError> {
        if let Some(raw) = self.read().get(key(slice, index, part as u32)) {
            return Ok(raw);
        }
        let record = &self.records[slice as usize];
        let decoded = self
            .store
            .read_block_part(record, index, (part * PART_BYTES) as u64)?;
        let first = decoded.first as usize;
        // A part decoded alone is kept as it came; a whole block is cut.
        let parts: Vec<Arc<Vec<u8>>> = if decoded.raw.len() <= PART_BYTES {
            vec![Arc::new(decoded.raw)]
        } else {
            decoded
                .raw
                .chunks(PART_BYTES)
                .map(|chunk| Arc::new(chunk.to_vec()))
                .collect()
        };
        let wanted = part
            .checked_sub(first)
            .and_then(|k| parts.get(k).cloned())
            .ok_or_else(|| {
                corrupt(
                    record,
                    index,
                    "a block decoded without the part asked of it",
                )
            })?;
        let mut cache = self.write();
        for (k, raw) in parts.into_iter().enumerate() {
            cache.insert(key(slice, index, (first + k) as u32), raw);
        }
        Ok(wanted)
    }

    // A thread that panicked holding the lock cannot leave the cache torn:
    // every update is one insert or remove at a time.
    fn read(&self) -> std::sync::RwLockReadGuard<'_, BlockCache> {
        self.cache.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BlockCache> {
        self.cache.write().unwrap_or_else(|p| p.into_inner())
    }
}

/// The block holding byte `at` of a slice, and the byte's offset in it;
/// a byte past the slice's end (a family that located a position wrongly)
/// is an error, never a byte of another block.
fn place(record: &SliceRecord, at: u64) -> Result<(u32, usize), TablebaseError> {
    let block_bytes = record.block_bytes.max(1);
    match u32::try_from(at / block_bytes) {
        Ok(index) if at < record.raw_len => Ok((index, (at % block_bytes) as usize)),
        _ => Err(FormatError::Corrupt {
            slice: record.slice.clone(),
            block: None,
            reason: format!(
                "byte {at} asked of a slice of {} bytes (a position located past its end)",
                record.raw_len
            ),
        }
        .into()),
    }
}

/// Copies what `block` holds of `out` from `start` on; how many bytes.
fn copy_from(block: &[u8], start: usize, out: &mut [u8]) -> usize {
    let take = out.len().min(block.len().saturating_sub(start));
    out[..take].copy_from_slice(&block[start..start + take]);
    take
}

#[cfg(test)]
mod tests {
    use super::*;
    use egdb_db_format::{CellEncoding, SliceCounts};

    #[test]
    fn a_byte_past_the_slice_is_refused_not_wrapped_to_another_block() {
        let record = SliceRecord {
            slice: "move-03-03".to_string(),
            encoding: CellEncoding::ValueDepth8,
            raw_len: 2500,
            raw_crc32: 0,
            block_bytes: 1000,
            blocks: 3,
            stored_bytes: 0,
            counts: SliceCounts::default(),
            stones: None,
            seconds: 0.0,
            rank_pending: false,
            rank_seconds: 0.0,
            check_seconds: 0.0,
            solved_by: None,
        };
        assert_eq!(place(&record, 0).unwrap(), (0, 0));
        assert_eq!(place(&record, 2499).unwrap(), (2, 499));
        assert!(place(&record, 2500).is_err());
        // An index that truncated to 32 bits would be block 0.
        assert!(place(&record, (1u64 << 32) * 1000).is_err());
    }
}
