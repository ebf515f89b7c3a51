//! Probing a store: value and depth of positions, block by block.
//!
//! Blocks are read lazily and kept in a small cache, so opening a store reads
//! only its manifest, and repeated probes near each other decompress once.
//! [`nim`] and [`morris`] find where a position's cell lies; this module reads
//! cells and answers in notation.

mod cache;
mod line;
mod morris;
mod nim;

pub use line::{best_move, LineStep};

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use cache::{keep_near, key, near, BlockCache};

use egdb_db_format::{FormatError, SliceRecord, Store};
use egdb_games::Game;

use crate::identity::from_identity;
use crate::TablebaseError;

/// Bytes of decompressed blocks a tablebase keeps unless told otherwise.
pub const DEFAULT_CACHE_BYTES: u64 = 64 << 20;

pub use crate::Probe;

/// A position's probe and every legal move's, in notation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The position as the game prints it.
    pub position: String,
    pub probe: Probe,
    /// Each legal move with the probe of the position it leads to (from the
    /// next mover's view), in the game's move order; empty when it is over.
    pub moves: Vec<(String, Probe)>,
}

/// A store opened for queries.
pub struct Tablebase {
    store: Store,
    game: Game,
    /// Finished slices' records, in slice order; a slice's number is its
    /// place here.
    records: Vec<SliceRecord>,
    /// Take-away games: the number of slice `h` (stones left), if stored.
    nim_numbers: Vec<Option<u32>>,
    /// Morris games: the numbers of the stored slices.
    morris_numbers: HashMap<egdb_games::morris::MorrisSlice, u32>,
    cache: RwLock<BlockCache>,
    /// Whether the store was complete when opened (a read-only view does not
    /// change after).
    complete: bool,
    /// Tells this tablebase's blocks from another's in per-thread caches.
    id: u64,
    morris: morris::Indexes,
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
        let mut records = store.slices()?;
        records.sort_by(|a, b| a.slice.cmp(&b.slice));
        let numbers = records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.slice.clone(), i as u32))
            .collect::<HashMap<String, u32>>();
        let nim_numbers = match &game {
            Game::Nim(nim) => (0..nim.layout().slice_count())
                .map(|h| numbers.get(egdb_games::nim::slice_id(h).as_str()).copied())
                .collect(),
            Game::Morris(_) => Vec::new(),
        };
        let morris_numbers = match &game {
            Game::Morris(_) => records
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    Some((egdb_games::morris::MorrisSlice::parse(&r.slice)?, i as u32))
                })
                .collect(),
            Game::Nim(_) => HashMap::new(),
        };
        Ok(Tablebase {
            store,
            game,
            records,
            nim_numbers,
            morris_numbers,
            cache: RwLock::new(BlockCache::new(DEFAULT_CACHE_BYTES)),
            complete,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            morris: morris::Indexes::default(),
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

    /// Finished slices' records, in slice order.
    pub fn records(&self) -> Vec<&SliceRecord> {
        self.records.iter().collect()
    }

    /// The probe of the game's start position.
    ///
    /// # Errors
    /// As [`Tablebase::answer`].
    pub fn start(&self) -> Result<Probe, TablebaseError> {
        match &self.game {
            Game::Nim(game) => self.probe_nim(game, game.start()),
            Game::Morris(game) => {
                self.probe_morris(game, &egdb_games::morris::Position::start(game.rules()))
            }
        }
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
        match &self.game {
            Game::Nim(game) => {
                let position = game.parse_position(text)?;
                Ok((
                    game.format_position(position),
                    self.probe_nim(game, position)?,
                ))
            }
            Game::Morris(game) => {
                let position = egdb_games::morris::Position::parse(game.rules(), text)?;
                Ok((position.to_string(), self.probe_morris(game, &position)?))
            }
        }
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
        match &self.game {
            Game::Nim(game) => self.answer_nim(game, text),
            Game::Morris(game) => self.answer_morris(game, text),
        }
    }

    /// `N` stored bytes of slice number `slice` from byte `at` on; one block
    /// read unless the cell straddles two.
    fn bytes<const N: usize>(&self, slice: u32, at: u64) -> Result<[u8; N], TablebaseError> {
        let record = &self.records[slice as usize];
        let block_bytes = record.block_bytes.max(1);
        let mut out = [0u8; N];
        let mut filled = 0;
        while filled < N {
            let at = at + filled as u64;
            let index = (at / block_bytes) as u32;
            let start = (at % block_bytes) as usize;
            let wanted = &mut out[filled..];
            let k = key(slice, index);
            let take = match near(self.id, k, |block| copy_from(block, start, wanted)) {
                Some(take) => take,
                None => {
                    let block = self.block(slice, index)?;
                    let take = copy_from(&block, start, &mut out[filled..]);
                    keep_near(self.id, k, block);
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

    fn block(&self, slice: u32, index: u32) -> Result<Arc<Vec<u8>>, TablebaseError> {
        if let Some(block) = self.read().get(key(slice, index)) {
            return Ok(block);
        }
        let record = &self.records[slice as usize];
        let block = Arc::new(self.store.read_block(record, index)?.raw);
        self.write().insert(key(slice, index), block.clone());
        Ok(block)
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

/// Copies what `block` holds of `out` from `start` on; how many bytes.
fn copy_from(block: &[u8], start: usize, out: &mut [u8]) -> usize {
    let take = out.len().min(block.len().saturating_sub(start));
    out[..take].copy_from_slice(&block[start..start + take]);
    take
}

/// A block that cannot hold what its record promises.
fn corrupt(record: &SliceRecord, block: u32, reason: &str) -> TablebaseError {
    FormatError::Corrupt {
        slice: record.slice.clone(),
        block: Some(block),
        reason: reason.to_string(),
    }
    .into()
}
