//! Symmetry at the slice level: counting classes (Burnside) and storing
//! each class once in depth tables.
//!
//! Slices are closed under the game's symmetries (the word block is a union
//! of orbits), so both work slice by slice.

use egdb_games::nim::NimGame;
use rayon::prelude::*;

use super::depth::BYTES_PER_WORD;

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

/// Calls `visit(entry index in a depth table, position mask)` for every
/// position of slice `h`, rows in parallel.
fn for_each_position<F>(game: &NimGame, h: u32, visit: F)
where
    F: Fn(usize, u64) + Sync,
{
    let layout = game.layout();
    let w = layout.word_bits();
    let rows: Vec<_> = layout.rows(h).collect();
    rows.par_iter().for_each(|row| {
        let lows = layout.low_halves(h - row.high_stones);
        for (i, &low) in lows.iter().enumerate() {
            let outer = (row.high << layout.low_bits()) | low as u64;
            let word = row.first_word as usize + i;
            for l in 0..1u64 << w {
                visit(
                    word * BYTES_PER_WORD + l as usize,
                    layout.unpack((outer << w) | l),
                );
            }
        }
    });
}

/// A copy of a depth table with every non-canonical position set to
/// "don't care" (0), for storage.
pub fn keep_canonical(game: &NimGame, h: u32, table: &[u8]) -> Vec<u8> {
    let symmetry = game.symmetry();
    if symmetry.len() == 1 {
        return table.to_vec();
    }
    let stored: Vec<std::sync::atomic::AtomicU8> = table
        .iter()
        .map(|&b| std::sync::atomic::AtomicU8::new(b))
        .collect();
    for_each_position(game, h, |entry, mask| {
        if !symmetry.is_canonical(mask) {
            stored[entry].store(0, std::sync::atomic::Ordering::Relaxed);
        }
    });
    stored.into_iter().map(|b| b.into_inner()).collect()
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
    let valid_slots = 1usize << layout.word_bits();
    let snapshot = stored.to_vec();
    let filled: Vec<std::sync::atomic::AtomicU8> = stored
        .iter()
        .map(|&b| std::sync::atomic::AtomicU8::new(b))
        .collect();
    let unfilled = std::sync::atomic::AtomicU64::new(0);
    for_each_position(game, h, |entry, mask| {
        if snapshot[entry] != 0 || entry % BYTES_PER_WORD >= valid_slots {
            return;
        }
        let slot = layout.locate(symmetry.canonical(mask));
        let source = snapshot[slot.word as usize * BYTES_PER_WORD + slot.bit as usize];
        if slot.slice != h || source == 0 {
            unfilled.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        } else {
            filled[entry].store(source, std::sync::atomic::Ordering::Relaxed);
        }
    });
    for (target, value) in stored.iter_mut().zip(filled) {
        *target = value.into_inner();
    }
    unfilled.into_inner()
}
