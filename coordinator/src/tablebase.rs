//! Probing a store: value and depth of positions, block by block.
//!
//! Blocks are read lazily and kept in a small cache, so opening a store reads
//! only its manifest, and repeated probes near each other decompress once.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use egdb_db_format::encoding::unpack_value_depth8;
use egdb_db_format::{CellEncoding, FormatError, SliceRecord, Store, ValueCode};
use egdb_games::nim::{slice_id, NimGame};
use egdb_games::Value;

use crate::game::from_identity;
use crate::CoordinatorError;

/// Decompressed blocks kept at most.
const CACHED_BLOCKS: usize = 256;

/// Decompressed blocks by (slice number, block index).
type BlockCache = HashMap<(u32, u32), Arc<Vec<u8>>>;

/// What the table says of one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub value: Value,
    /// Plies to the end under perfect play, where the table has depths.
    pub depth: Option<u32>,
}

/// A store opened for queries.
pub struct Tablebase {
    store: Store,
    game: NimGame,
    records: HashMap<String, SliceRecord>,
    cache: Mutex<BlockCache>,
}

impl Tablebase {
    /// # Errors
    /// [`FormatError::NotAStore`] and friends; a game this egdb does not know.
    pub fn open(path: &Path) -> Result<Tablebase, CoordinatorError> {
        let store = Store::open_read_only(path)?;
        let game = from_identity(store.identity())?;
        let records = store
            .slices()?
            .into_iter()
            .map(|r| (r.slice.clone(), r))
            .collect();
        Ok(Tablebase {
            store,
            game,
            records,
            cache: Mutex::new(HashMap::new()),
        })
    }

    pub fn game(&self) -> &NimGame {
        &self.game
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Finished slices' records, in slice order.
    pub fn records(&self) -> Vec<&SliceRecord> {
        let mut records: Vec<&SliceRecord> = self.records.values().collect();
        records.sort_by(|a, b| a.slice.cmp(&b.slice));
        records
    }

    /// The value (and depth) of a position.
    ///
    /// # Errors
    /// [`CoordinatorError::SliceNotFound`] when its slice is not in the store;
    /// [`FormatError::Corrupt`] naming slice and block when the block fails
    /// its checksum — never a value from a bad block.
    pub fn probe(&self, position: u64) -> Result<Probe, CoordinatorError> {
        // Depth tables keep each symmetry class once, under its canonical member.
        let slot = self
            .game
            .layout()
            .locate(self.game.symmetry().canonical(position));
        let id = slice_id(slot.slice);
        let record =
            self.records
                .get(id.as_str())
                .ok_or_else(|| CoordinatorError::SliceNotFound {
                    slice: id.to_string(),
                })?;
        let entry = slot.word * 64 + slot.bit as u64;
        let byte_at = match record.encoding {
            CellEncoding::WinBits => entry / 8,
            CellEncoding::ValueDepth8 | CellEncoding::ValueDepth16 => entry,
        };
        let block_bytes = record.block_bytes.max(1);
        let block_index = (byte_at / block_bytes) as u32;
        let corrupt = |reason: &str| FormatError::Corrupt {
            slice: id.to_string(),
            block: block_index,
            reason: reason.to_string(),
        };
        if record.encoding == CellEncoding::ValueDepth16 {
            return Err(corrupt("16-bit Morris cells in a take-away game's store").into());
        }
        let block = self.block(slot.slice, record, block_index)?;
        let byte = *block
            .get((byte_at % block_bytes) as usize)
            .ok_or_else(|| corrupt("block shorter than its manifest record says"))?;
        match record.encoding {
            CellEncoding::WinBits => Ok(Probe {
                value: if byte >> (entry % 8) & 1 == 1 {
                    Value::Win
                } else {
                    Value::Loss
                },
                depth: None,
            }),
            CellEncoding::ValueDepth8 => {
                let (code, depth) = unpack_value_depth8(byte);
                let value = match code {
                    ValueCode::Win => Value::Win,
                    ValueCode::Loss => Value::Loss,
                    ValueCode::Draw => Value::Draw,
                    ValueCode::DontCare => {
                        return Err(corrupt("canonical position stored as don't-care").into())
                    }
                };
                Ok(Probe {
                    value,
                    depth: Some(depth as u32),
                })
            }
            CellEncoding::ValueDepth16 => unreachable!("refused above"),
        }
    }

    /// Every legal move with the probe of the position it leads to (from the
    /// next mover's view), in the game's move order.
    ///
    /// # Errors
    /// As [`Tablebase::probe`].
    pub fn moves(&self, position: u64) -> Result<Vec<(u64, Probe)>, CoordinatorError> {
        self.game
            .legal_moves(position)
            .map(|m| self.probe(position ^ m).map(|p| (m, p)))
            .collect()
    }

    fn block(
        &self,
        slice: u32,
        record: &SliceRecord,
        index: u32,
    ) -> Result<Arc<Vec<u8>>, CoordinatorError> {
        let key = (slice, index);
        if let Some(block) = self.lock().get(&key) {
            return Ok(block.clone());
        }
        if index >= record.blocks {
            return Err(FormatError::Corrupt {
                slice: record.slice.clone(),
                block: index,
                reason: "block beyond the slice's end".to_string(),
            }
            .into());
        }
        let block = Arc::new(self.store.read_block(&record.slice, index)?.raw);
        let mut cache = self.lock();
        if cache.len() >= CACHED_BLOCKS {
            cache.clear();
        }
        cache.insert(key, block.clone());
        Ok(block)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BlockCache> {
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
