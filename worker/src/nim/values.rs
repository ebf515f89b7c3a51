//! The bit-parallel value engine: 64 positions per word, one move a shift
//! and a mask per word.
//!
//! A word's positions that remove outer stones read finished words of
//! earlier slices; moves inside the word block are resolved in rounds by the
//! number of block stones, since such a move only reaches fewer.

use std::sync::atomic::AtomicBool;

use egdb_games::nim::NimGame;
use egdb_games::Rule;

use super::moves::MoveGroups;
use super::rows::{active_groups, par_rows};
use crate::WorkerError;

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
    let mut table = vec![0u64; layout.words(h) as usize];
    par_rows(layout, h, &mut table, 1, cancel, |row, words| {
        let (same_low, other) = active_groups(layout, moves, h, row, dependency)?;
        let lows = layout.low_halves(h - row.high_stones);
        for (i, word) in words.iter_mut().enumerate() {
            let low = lows[i] as u64;
            let mut wins = 0u64;
            let mut movable = moves.inner_any_superset;
            for a in &same_low {
                let losses = !a.source[a.base as usize + i];
                for p in &a.group.parts {
                    wins |= (losses << p.shift) & p.superset;
                }
                movable |= a.group.any_superset;
            }
            for a in &other {
                if low & a.group.low != a.group.low {
                    continue;
                }
                let losses = !a.source[(a.base + layout.low_rank(low ^ a.group.low)) as usize];
                for p in &a.group.parts {
                    wins |= (losses << p.shift) & p.superset;
                }
                movable |= a.group.any_superset;
            }
            if misere {
                // Whoever cannot move has won: the opponent took the last stone.
                wins |= !movable;
            }
            for k in 1..=moves.word_bits as usize {
                let mut inner = 0u64;
                for p in &moves.inner {
                    inner |= (!wins << p.shift) & p.superset;
                }
                wins |= inner & moves.by_popcount[k];
            }
            *word = wins & moves.valid;
        }
        Ok(())
    })?;
    Ok(table)
}
