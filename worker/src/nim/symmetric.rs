//! Symmetry at the slice level: counting classes (Burnside) and storing
//! each class once in depth tables.
//!
//! Slices are closed under the game's symmetries (the word block is a union
//! of orbits), so both work slice by slice.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use egdb_games::nim::NimGame;

use super::depth::BYTES_PER_WORD;
use super::rows::par_rows;

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

/// Calls `visit(position mask, entry)` for every position of slice `h`,
/// each with its own entry of the depth table `table`, chunks in parallel.
fn for_each_entry<F>(game: &NimGame, h: u32, table: &mut [u8], visit: F)
where
    F: Fn(u64, &mut u8) + Sync,
{
    let layout = game.layout();
    let w = layout.word_bits();
    let never = AtomicBool::new(false);
    // Only cancellation makes `par_rows` fail, and nothing cancels here.
    let _ = par_rows(
        layout,
        h,
        table,
        BYTES_PER_WORD,
        &never,
        |chunk, entries| {
            let lows = &layout.low_halves(h - chunk.row.high_stones)[chunk.offset as usize..];
            for (word, &low) in entries.chunks_mut(BYTES_PER_WORD).zip(lows) {
                let outer = (chunk.row.high << layout.low_bits()) | low as u64;
                for (l, entry) in word.iter_mut().enumerate().take(1 << w) {
                    visit(layout.unpack((outer << w) | l as u64), entry);
                }
            }
            Ok(())
        },
    );
}

/// A copy of a depth table with every non-canonical position set to
/// "don't care" (0), for storage.
pub fn keep_canonical(game: &NimGame, h: u32, table: &[u8]) -> Vec<u8> {
    let mut stored = table.to_vec();
    let symmetry = game.symmetry();
    if symmetry.len() > 1 {
        for_each_entry(game, h, &mut stored, |mask, entry| {
            if !symmetry.is_canonical(mask) {
                *entry = 0;
            }
        });
    }
    stored
}

/// Fills the "don't care" entries of a stored depth table from their
/// canonical images, giving back the full table the engine reads.
/// Returns the number of entries that could not be filled (corruption).
pub fn restore_symmetric(game: &NimGame, h: u32, stored: &mut [u8]) -> u64 {
    let symmetry = game.symmetry();
    let layout = game.layout();
    if symmetry.len() == 1 {
        return 0;
    }
    let snapshot = stored.to_vec();
    let unfilled = AtomicU64::new(0);
    for_each_entry(game, h, stored, |mask, entry| {
        if *entry != 0 {
            return;
        }
        let slot = layout.locate(symmetry.canonical(mask));
        let source = snapshot[slot.word as usize * BYTES_PER_WORD + slot.bit as usize];
        if slot.slice != h || source == 0 {
            unfilled.fetch_add(1, Ordering::Relaxed);
        } else {
            *entry = source;
        }
    });
    unfilled.into_inner()
}
