//! Symmetry at the slice level: counting classes (Burnside) and storing
//! each class once in depth tables.
//!
//! Slices are closed under the game's symmetries (the word block is a union
//! of orbits), so both work slice by slice.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use egdb_games::nim::NimGame;

use super::planes::{Planes, BYTES_PER_WORD};
use super::rows::par_rows;
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

/// Calls `visit(word, outer cells, entries)` for every word of slice `h`
/// of a table with `per_word` entries per word, chunks in parallel.
fn for_each_word<T, F>(game: &NimGame, h: u32, table: &mut [T], per_word: usize, visit: F)
where
    T: Send,
    F: Fn(usize, u64, &mut [T]) + Sync,
{
    let layout = game.layout();
    let w = layout.word_bits();
    let never = AtomicBool::new(false);
    // Only cancellation makes `par_rows` fail, and nothing cancels here.
    let _ = par_rows(layout, h, table, per_word, &never, |chunk, entries| {
        let lows = &layout.low_halves(h - chunk.row.high_stones)[chunk.offset as usize..];
        let first = (chunk.row.first_word + chunk.offset) as usize;
        for (i, (word, &low)) in entries.chunks_mut(per_word).zip(lows).enumerate() {
            let outer = (chunk.row.high << layout.low_bits()) | low as u64;
            visit(first + i, layout.unpack(outer << w), word);
        }
        Ok(())
    });
}

/// The bytes stored for a depth table: each word's bytes, with every
/// non-canonical position set to "don't care" (0).
pub fn keep_canonical(game: &NimGame, h: u32, table: &[Planes]) -> Vec<u8> {
    let mut stored = vec![0u8; table.len() * BYTES_PER_WORD];
    let symmetric = game.symmetry().len() > 1;
    let images = WordImages::new(game);
    let slots = images.lane_cells.len();
    for_each_word(
        game,
        h,
        &mut stored,
        BYTES_PER_WORD,
        |index, outer, bytes| {
            bytes.copy_from_slice(&table[index].to_bytes());
            if symmetric {
                let outer_images = images.outer_images(game, outer);
                for (l, entry) in bytes.iter_mut().enumerate().take(slots) {
                    if !images.is_canonical(outer, &outer_images, l) {
                        *entry = 0;
                    }
                }
            }
        },
    );
    stored
}

/// The depth table the engine reads from stored bytes: "don't care"
/// entries are filled from their canonical images. Returns the table and
/// the number of entries that could not be filled (corruption).
pub fn restore_symmetric(game: &NimGame, h: u32, stored: &[u8]) -> (Vec<Planes>, u64) {
    let layout = game.layout();
    let symmetric = game.symmetry().len() > 1;
    let images = WordImages::new(game);
    let slots = images.lane_cells.len();
    let unfilled = AtomicU64::new(0);
    let mut table = zeroed_table::<Planes>(stored.len() / BYTES_PER_WORD);
    for_each_word(game, h, &mut table, 1, |index, outer, word| {
        let at = index * BYTES_PER_WORD;
        let mut bytes = [0u8; BYTES_PER_WORD];
        bytes.copy_from_slice(&stored[at..at + BYTES_PER_WORD]);
        if symmetric {
            let outer_images = images.outer_images(game, outer);
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
        word[0] = Planes::from_bytes(&bytes);
    });
    (table, unfilled.into_inner())
}
