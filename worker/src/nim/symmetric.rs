//! Symmetry at the slice level: counting classes (Burnside) and storing
//! each class once in depth tables.
//!
//! Slices are closed under the game's symmetries (the word block is a union
//! of orbits), so both work slice by slice.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;

use egdb_games::nim::row_symmetry::{KeptRows, RowSymmetry};
use egdb_games::nim::{NimGame, Row};

use super::planes::{Planes, BYTES_PER_WORD};
use super::rows::par_row_list;
use crate::table::zeroed_table;

/// Most fixed positions enumerated for class counts; past it they are skipped.
const MAX_FIXED_POSITIONS: u64 = 1 << 26;

/// The slots of positions fixed by each non-identity symmetry, by slice.
/// By Burnside's lemma the classes of a value are
/// `(positions + Σ_g fixed positions of g) / |G|`.
#[derive(Debug, Clone)]
pub struct FixedPoints {
    /// `by_slice[h]`: (word, bit) of each fixed position, once per symmetry fixing it.
    by_slice: Vec<Vec<(u64, u8)>>,
    group_size: u64,
}

impl FixedPoints {
    /// `None` when the game has too many fixed positions to enumerate.
    pub fn new(game: &NimGame) -> Option<FixedPoints> {
        let symmetry = game.symmetry();
        let layout = game.layout();
        let cycles: Vec<Vec<u64>> = (1..symmetry.len()).map(|g| symmetry.cycles(g)).collect();
        let total: u64 = cycles
            .iter()
            .map(|c| 1u64.checked_shl(c.len() as u32).unwrap_or(u64::MAX))
            .sum();
        if total > MAX_FIXED_POSITIONS {
            return None;
        }
        let mut by_slice = vec![Vec::new(); layout.slice_count() as usize];
        for cycles in &cycles {
            for choice in 0..1u64 << cycles.len() {
                let mask = cycles
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| choice & (1 << i) != 0)
                    .fold(0u64, |m, (_, c)| m | c);
                let slot = layout.locate(mask);
                by_slice[slot.slice as usize].push((slot.word, slot.bit as u8));
            }
        }
        Some(FixedPoints {
            by_slice,
            group_size: symmetry.len() as u64,
        })
    }

    pub fn group_size(&self) -> u64 {
        self.group_size
    }

    /// The fixed positions' slots in slice `h`.
    pub fn in_slice(&self, h: u32) -> &[(u64, u8)] {
        &self.by_slice[h as usize]
    }
}

/// The images of a word's positions under every symmetry, cheaply: the
/// word block is a union of orbits, so a position's image is the image of
/// its outer cells joined with the image of its block cells.
struct WordImages {
    /// Cells of each lane's block subset.
    lane_cells: Vec<u64>,
    /// `lane_images[g][l]`: the image of lane `l`'s block cells under `g`.
    lane_images: Vec<Vec<u64>>,
}

impl WordImages {
    fn new(game: &NimGame) -> WordImages {
        let layout = game.layout();
        let symmetry = game.symmetry();
        let lane_cells: Vec<u64> = (0..1u64 << layout.word_bits())
            .map(|l| layout.unpack(l))
            .collect();
        let lane_images = (0..symmetry.len())
            .map(|g| lane_cells.iter().map(|&c| symmetry.apply(g, c)).collect())
            .collect();
        WordImages {
            lane_cells,
            lane_images,
        }
    }

    /// The images of a word's outer cells under every symmetry.
    fn outer_images(&self, game: &NimGame, outer_cells: u64) -> Vec<u64> {
        let symmetry = game.symmetry();
        (0..symmetry.len())
            .map(|g| symmetry.apply(g, outer_cells))
            .collect()
    }

    /// Whether lane `l` of the word is its class's representative (its
    /// smallest image).
    #[inline]
    fn is_canonical(&self, outer_cells: u64, outer_images: &[u64], l: usize) -> bool {
        let mask = outer_cells | self.lane_cells[l];
        outer_images
            .iter()
            .zip(&self.lane_images)
            .all(|(o, lanes)| (o | lanes[l]) >= mask)
    }

    /// The representative of lane `l`'s class.
    #[inline]
    fn canonical(&self, outer_images: &[u64], l: usize) -> u64 {
        outer_images
            .iter()
            .zip(&self.lane_images)
            .map(|(o, lanes)| o | lanes[l])
            .min()
            .unwrap_or(0)
    }
}

/// A word of a slice's full layout: its index and its outer cells.
struct FullWord {
    index: usize,
    cells: u64,
}

/// Calls `visit(full word, planes)` for every word of `rows` (rows of
/// slice `h` that `table` holds one after another), chunks in parallel.
fn for_each_word<F>(
    game: &NimGame,
    h: u32,
    rows: impl Iterator<Item = Row>,
    table: &mut [Planes],
    visit: F,
) where
    F: Fn(&FullWord, &mut Planes) + Sync,
{
    let layout = game.layout();
    let w = layout.word_bits();
    let never = AtomicBool::new(false);
    // Only cancellation makes `par_row_list` fail, and nothing cancels here.
    let _ = par_row_list(rows, table, 1, &never, |chunk, words| {
        let lows = &layout.low_halves(h - chunk.row.high_stones)[chunk.offset as usize..];
        let first = (layout.row_start(h, chunk.row.high) + chunk.offset) as usize;
        for (i, (word, &low)) in words.iter_mut().zip(lows).enumerate() {
            let outer = (chunk.row.high << layout.low_bits()) | low as u64;
            let full = FullWord {
                index: first + i,
                cells: layout.unpack(outer << w),
            };
            visit(&full, word);
        }
        Ok(())
    });
}

/// The bytes stored for a depth table: each word's bytes in the full
/// layout, with every non-canonical position set to "don't care" (0).
pub struct StoredDepths<'a> {
    game: &'a NimGame,
    h: u32,
    table: &'a [Planes],
    kept: Option<&'a Kept>,
    images: WordImages,
}

impl<'a> StoredDepths<'a> {
    pub fn new(game: &'a NimGame, h: u32, table: &'a [Planes], kept: Option<&'a Kept>) -> Self {
        StoredDepths {
            game,
            h,
            table,
            kept,
            images: WordImages::new(game),
        }
    }

    /// Length of the stored bytes.
    pub fn len(&self) -> usize {
        self.game.layout().words(self.h) as usize * BYTES_PER_WORD
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stored bytes from `offset` on, as many as `out` holds.
    pub fn fill(&self, offset: usize, out: &mut [u8]) {
        let layout = self.game.layout();
        let w = layout.word_bits();
        let symmetric = self.game.symmetry().len() > 1;
        let slots = self.images.lane_cells.len();
        let mut at = 0;
        while at < out.len() {
            let index = (offset + at) / BYTES_PER_WORD;
            let skip = (offset + at) % BYTES_PER_WORD;
            // The word's outer cells (lane 0 has no block stones).
            let cells = layout.position(self.h, index as u64, 0);
            let planes = match self.kept {
                None => self.table[index],
                Some(kept) => {
                    let outer = layout.pack(cells) >> w;
                    let low = outer & ((1 << layout.low_bits()) - 1);
                    kept.word(
                        self.game,
                        self.h,
                        self.table,
                        outer >> layout.low_bits(),
                        low,
                    )
                }
            };
            let mut bytes = planes.to_bytes();
            if symmetric {
                let outer_images = self.images.outer_images(self.game, cells);
                for (l, entry) in bytes.iter_mut().enumerate().take(slots) {
                    if !self.images.is_canonical(cells, &outer_images, l) {
                        *entry = 0;
                    }
                }
            }
            let n = (BYTES_PER_WORD - skip).min(out.len() - at);
            out[at..at + n].copy_from_slice(&bytes[skip..skip + n]);
            at += n;
        }
    }

    /// All the stored bytes at once.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut stored = vec![0u8; self.len()];
        stored
            .par_chunks_mut(1 << 16)
            .enumerate()
            .for_each(|(i, chunk)| self.fill(i << 16, chunk));
        stored
    }
}

/// The depth table the engine reads from stored bytes (all words, or the
/// kept rows): "don't care" entries are filled from their canonical
/// images. Returns the table and the number of entries that could not be
/// filled (corruption).
pub fn restore_symmetric(
    game: &NimGame,
    h: u32,
    stored: &[u8],
    kept: Option<&Kept>,
) -> (Vec<Planes>, u64) {
    let layout = game.layout();
    let symmetric = game.symmetry().len() > 1;
    let images = WordImages::new(game);
    let slots = images.lane_cells.len();
    let unfilled = AtomicU64::new(0);
    let (rows, words): (Vec<Row>, u64) = match kept {
        None => (layout.rows(h).collect(), layout.words(h)),
        Some(kept) => (kept.kept.slice(h).rows.clone(), kept.kept.slice(h).words),
    };
    let mut table = zeroed_table::<Planes>(words as usize);
    for_each_word(game, h, rows.into_iter(), &mut table, |word, out| {
        let at = word.index * BYTES_PER_WORD;
        let mut bytes = [0u8; BYTES_PER_WORD];
        bytes.copy_from_slice(&stored[at..at + BYTES_PER_WORD]);
        if symmetric {
            let outer_images = images.outer_images(game, word.cells);
            for (l, entry) in bytes.iter_mut().enumerate().take(slots) {
                if *entry != 0 {
                    continue;
                }
                let slot = layout.locate(images.canonical(&outer_images, l));
                let source = stored[slot.word as usize * BYTES_PER_WORD + slot.bit as usize];
                if slot.slice != h || source == 0 {
                    unfilled.fetch_add(1, Ordering::Relaxed);
                } else {
                    *entry = source;
                }
            }
        }
        *out = Planes::from_bytes(&bytes);
    });
    (table, unfilled.into_inner())
}

/// Depth tables that keep one row of each orbit of high halves: the rows,
/// and how to read any word through them.
#[derive(Debug, Clone)]
pub struct Kept {
    pub rows: RowSymmetry,
    pub kept: KeptRows,
    /// `lane_maps[g][l]`: lane `g(l)`.
    pub lane_maps: Vec<Vec<u8>>,
}

impl Kept {
    /// `None` when the game's symmetries do not map rows to rows.
    pub fn new(game: &NimGame) -> Option<Kept> {
        let rows = game.row_symmetry()?;
        let kept = KeptRows::new(game.layout(), &rows);
        let slots = 1u32 << game.layout().word_bits();
        let lane_maps = (0..rows.len())
            .map(|g| (0..slots).map(|l| rows.lane(g, l) as u8).collect())
            .collect();
        Some(Kept {
            rows,
            kept,
            lane_maps,
        })
    }

    /// Where the word (high, low) of slice `h` is kept, and the symmetry
    /// that maps it there.
    #[inline]
    pub fn locate(&self, game: &NimGame, h: u32, high: u64, low: u64) -> (usize, usize) {
        let (kept_high, g) = self.rows.kept_row(high);
        let start = self.kept.slice(h).start(kept_high).unwrap_or(0);
        let word = start + game.layout().low_rank(self.rows.low(g, low));
        (word as usize, g)
    }

    /// The planes of word (high, low) of slice `h`, from the kept `table`.
    pub fn word(&self, game: &NimGame, h: u32, table: &[Planes], high: u64, low: u64) -> Planes {
        let (word, g) = self.locate(game, h, high, low);
        table[word].gather(&self.lane_maps[g])
    }

    /// Kept word and lane of a position of slice `h`.
    pub fn slot(&self, game: &NimGame, h: u32, position: u64) -> (usize, u32) {
        let layout = game.layout();
        let w = layout.word_bits();
        let packed = layout.pack(position);
        let outer = packed >> w;
        let low = outer & ((1 << layout.low_bits()) - 1);
        let (word, g) = self.locate(game, h, outer >> layout.low_bits(), low);
        let lane = self.rows.lane(g, (packed & ((1 << w) - 1)) as u32);
        (word, lane)
    }

    /// How many rows each kept row stands for (its orbit's size).
    pub fn weight(&self, high: u64) -> u64 {
        let mut images: Vec<u64> = (0..self.rows.len())
            .map(|g| self.rows.high(g, high))
            .collect();
        images.sort_unstable();
        images.dedup();
        images.len() as u64
    }
}
