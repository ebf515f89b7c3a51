//! The depth engine: value and plies to the end of every position, 64
//! positions per word in bit planes (see [`super::planes`]).
//!
//! The winner takes the fastest win, the loser the slowest loss. Each word
//! folds the children of its 64 positions: those in earlier slices first,
//! then the moves inside the word block in rounds by block stones, as in
//! the value engine.

use std::sync::atomic::AtomicBool;

use egdb_db_format::ValueCode;
use egdb_games::nim::NimGame;
use egdb_games::Value;

use super::moves::MoveGroups;
use super::planes::{Fold, Planes};
use super::rows::{active_groups, par_rows};
use crate::table::zeroed_table;
use crate::WorkerError;

/// Solves slice `h` with depths.
///
/// # Errors
/// [`WorkerError::MissingDependency`]; [`WorkerError::Cancelled`].
pub fn solve_depths<'a>(
    game: &NimGame,
    moves: &'a MoveGroups,
    h: u32,
    dependency: &(dyn Fn(u32) -> Option<&'a [Planes]> + Sync),
    cancel: &AtomicBool,
) -> Result<Vec<Planes>, WorkerError> {
    let layout = game.layout();
    let terminal = terminal_code(game);
    let mut table = zeroed_table::<Planes>(layout.words(h) as usize);
    par_rows(layout, h, &mut table, 1, cancel, |chunk, words| {
        let (same_low, other) = active_groups(layout, moves, h, &chunk.row, dependency)?;
        let lows = &layout.low_halves(h - chunk.row.high_stones)[chunk.offset as usize..];
        for (i, word) in words.iter_mut().enumerate() {
            let low = lows[i] as u64;
            let mut fold = Fold::default();
            for a in &same_low {
                let source = &a.source[(a.base + chunk.offset) as usize + i];
                for p in &a.group.parts {
                    fold.add(source, p.shift, p.superset);
                }
            }
            for a in &other {
                if low & a.group.low == a.group.low {
                    let source = &a.source[(a.base + layout.low_rank(low ^ a.group.low)) as usize];
                    for p in &a.group.parts {
                        fold.add(source, p.shift, p.superset);
                    }
                }
            }
            *word = resolve_inner(fold, moves, terminal);
        }
        Ok(())
    })?;
    Ok(table)
}

/// The value of a position without a move.
pub(super) fn terminal_code(game: &NimGame) -> ValueCode {
    match game.terminal_value() {
        Value::Win => ValueCode::Win,
        Value::Loss => ValueCode::Loss,
        Value::Draw => ValueCode::Draw,
    }
}

/// Adds the moves inside the word block, in rounds by block stones: such a
/// move reaches positions with fewer, final in an earlier round.
#[inline]
pub(super) fn resolve_inner(mut fold: Fold, moves: &MoveGroups, terminal: ValueCode) -> Planes {
    let mut word = fold.resolve(terminal, moves.valid);
    if moves.inner.is_empty() {
        return word;
    }
    for k in 1..=moves.word_bits as usize {
        let round = moves.by_popcount[k];
        for p in &moves.inner {
            fold.add(&word, p.shift, p.superset & round);
        }
        word = fold.resolve(terminal, moves.valid);
    }
    word
}
