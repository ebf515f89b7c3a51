//! The bit-parallel value engine: 64 positions per word, one move a shift
//! and a mask per word.
//!
//! A row's words are filled group by group: for each group of moves that
//! removes the same outer stones, every word the group applies to reads one
//! finished word of an earlier slice (streaming through both rows, no
//! branches). Moves inside the word block are then resolved in rounds by the
//! number of block stones, since such a move only reaches fewer.

use std::sync::atomic::AtomicBool;

use egdb_games::nim::NimGame;
use egdb_games::Rule;

use super::moves::{MoveGroups, WordPart};
use super::rows::{active_groups, par_rows};
use crate::table::{prefetch, zeroed_table};
use crate::WorkerError;

/// How many pairs ahead the source word is prefetched: the source rows of
/// groups that remove low-half stones are read with gaps, which hardware
/// prefetchers follow badly.
const PREFETCH_AHEAD: usize = 16;

/// Wins of the positions of a word whose children `losses` marks, for the
/// moves `parts` that read that word.
#[inline(always)]
fn wins_through(losses: u64, parts: &[WordPart]) -> u64 {
    let mut wins = 0;
    for p in parts {
        wins |= (losses << p.shift) & p.superset;
    }
    wins
}

/// Solves slice `h`: bit `L` of word `i` is 1 when the player to move wins.
///
/// # Errors
/// [`WorkerError::MissingDependency`] when a slice it reads is not given;
/// [`WorkerError::Cancelled`].
pub fn solve_values<'a>(
    game: &NimGame,
    moves: &'a MoveGroups,
    h: u32,
    dependency: &(dyn Fn(u32) -> Option<&'a [u64]> + Sync),
    cancel: &AtomicBool,
) -> Result<Vec<u64>, WorkerError> {
    let layout = game.layout();
    let misere = game.rule() == Rule::Misere;
    // Positions without a move win under misère. Where every cell alone is
    // a move that is the empty board only, so no bookkeeping is needed.
    let track_movable = misere && !moves.singles_cover_all;
    let empty_board_wins = misere && moves.singles_cover_all && h == 0;
    let mut table = zeroed_table::<u64>(layout.words(h) as usize);
    par_rows(layout, h, &mut table, 1, cancel, |chunk, words| {
        let (same_low, other) = active_groups(layout, moves, h, &chunk.row, dependency)?;
        let low_stones = (h - chunk.row.high_stones) as usize;
        let (first, end) = (
            chunk.offset as u16,
            (chunk.offset + chunk.len).min(u16::MAX as u64 + 1) as u32,
        );
        // `words` accumulates wins; `movable` the positions with some move.
        let mut movable =
            vec![moves.inner_any_superset; if track_movable { words.len() } else { 0 }];
        for a in &same_low {
            let start = (a.base + chunk.offset) as usize;
            let source = &a.source[start..start + words.len()];
            let parts = a.group.parts.as_slice();
            match parts {
                [one] => {
                    for (word, &s) in words.iter_mut().zip(source) {
                        *word |= (!s << one.shift) & one.superset;
                    }
                }
                _ => {
                    for (word, &s) in words.iter_mut().zip(source) {
                        *word |= wins_through(!s, parts);
                    }
                }
            }
            for m in movable.iter_mut() {
                *m |= a.group.any_superset;
            }
        }
        for a in &other {
            let source = &a.source[a.base as usize..];
            let pairs = &a.group.pairs[low_stones];
            let pairs = if chunk.offset == 0 && chunk.len == chunk.row.len {
                &pairs[..]
            } else {
                &pairs[pairs.partition_point(|p| p.0 < first)
                    ..pairs.partition_point(|p| (p.0 as u32) < end)]
            };
            // Word indices relative to the chunk.
            let at = |i: u16| (i - first) as usize;
            match a.group.parts.as_slice() {
                [one] => {
                    for (j, &(i, s)) in pairs.iter().enumerate() {
                        if let Some(&(_, ahead)) = pairs.get(j + PREFETCH_AHEAD) {
                            prefetch(source, ahead as usize);
                        }
                        words[at(i)] |= (!source[s as usize] << one.shift) & one.superset;
                    }
                }
                parts => {
                    for (j, &(i, s)) in pairs.iter().enumerate() {
                        if let Some(&(_, ahead)) = pairs.get(j + PREFETCH_AHEAD) {
                            prefetch(source, ahead as usize);
                        }
                        words[at(i)] |= wins_through(!source[s as usize], parts);
                    }
                }
            }
            if track_movable {
                for &(i, _) in pairs {
                    movable[at(i)] |= a.group.any_superset;
                }
            }
        }
        if empty_board_wins {
            // Slice 0 is one word, and its bit 0 is the empty board.
            words[0] |= 1;
        }
        for (i, word) in words.iter_mut().enumerate() {
            let mut wins = *word;
            if track_movable {
                // Whoever cannot move has won: the opponent took the last stone.
                wins |= !movable[i];
            }
            *word = if moves.inner_are_the_six_cells {
                resolve_six_cells(wins)
            } else {
                resolve_inner(wins, moves)
            };
        }
        Ok(())
    })?;
    Ok(table)
}

/// Resolves moves inside the word block, in rounds by block stones: a move
/// inside the block reaches only positions with fewer.
#[inline]
fn resolve_inner(mut wins: u64, moves: &MoveGroups) -> u64 {
    for k in 1..=moves.word_bits as usize {
        wins |= wins_through(!wins, &moves.inner) & moves.by_popcount[k];
    }
    wins & moves.valid
}

/// [`resolve_inner`] for the usual block: six cells, no move inside it but
/// the six single stones, so every shift and mask is a constant.
#[inline]
fn resolve_six_cells(mut wins: u64) -> u64 {
    const HAS_CELL: [u64; 6] = [
        0xAAAA_AAAA_AAAA_AAAA,
        0xCCCC_CCCC_CCCC_CCCC,
        0xF0F0_F0F0_F0F0_F0F0,
        0xFF00_FF00_FF00_FF00,
        0xFFFF_0000_FFFF_0000,
        0xFFFF_FFFF_0000_0000,
    ];
    const BY_POPCOUNT: [u64; 7] = by_popcount();
    for mask in &BY_POPCOUNT[1..] {
        let losses = !wins;
        let mut reached = 0;
        for (cell, has) in HAS_CELL.iter().enumerate() {
            reached |= (losses << (1u32 << cell)) & has;
        }
        wins |= reached & mask;
    }
    wins
}

const fn by_popcount() -> [u64; 7] {
    let mut masks = [0u64; 7];
    let mut l = 0;
    while l < 64 {
        masks[(l as u64).count_ones() as usize] |= 1 << l;
        l += 1;
    }
    masks
}
