//! The depth engine: one byte per position, value and plies to the end.
//!
//! The winner takes the fastest win, the loser the slowest loss. Slots are
//! laid out as in the value engine, 64 bytes per word.

use std::sync::atomic::AtomicBool;

use egdb_db_format::encoding::{pack_value_depth8, unpack_value_depth8};
use egdb_db_format::ValueCode;
use egdb_games::nim::NimGame;
use egdb_games::Value;

use super::moves::MoveGroups;
use super::rows::{active_groups, par_rows};
use crate::WorkerError;

/// Bytes per word of a depth table.
pub const BYTES_PER_WORD: usize = 64;

/// Folds the children of one position into its value byte.
#[derive(Default)]
struct Children {
    any: bool,
    /// Shortest depth among children that lose for their mover.
    fastest_win: Option<u8>,
    longest: u8,
}

impl Children {
    #[inline]
    fn add(&mut self, child: u8) {
        let (code, depth) = unpack_value_depth8(child);
        self.any = true;
        if code == ValueCode::Loss {
            self.fastest_win = Some(self.fastest_win.map_or(depth, |d| d.min(depth)));
        }
        self.longest = self.longest.max(depth);
    }

    #[inline]
    fn value(&self, terminal: ValueCode) -> u8 {
        match (self.any, self.fastest_win) {
            (false, _) => pack_value_depth8(terminal, 0),
            (true, Some(d)) => pack_value_depth8(ValueCode::Win, d + 1),
            (true, None) => pack_value_depth8(ValueCode::Loss, self.longest + 1),
        }
    }
}

/// Solves slice `h` with depths.
///
/// # Errors
/// [`WorkerError::MissingDependency`]; [`WorkerError::Cancelled`].
pub fn solve_depths<'a>(
    game: &NimGame,
    moves: &'a MoveGroups,
    h: u32,
    dependency: &(dyn Fn(u32) -> Option<&'a [u8]> + Sync),
    cancel: &AtomicBool,
) -> Result<Vec<u8>, WorkerError> {
    let layout = game.layout();
    let terminal = match game.terminal_value() {
        Value::Win => ValueCode::Win,
        Value::Loss => ValueCode::Loss,
        Value::Draw => ValueCode::Draw,
    };
    let slots = 1usize << moves.word_bits;
    let mut table = vec![0u8; layout.words(h) as usize * BYTES_PER_WORD];
    par_rows(
        layout,
        h,
        &mut table,
        BYTES_PER_WORD,
        cancel,
        |chunk, bytes| {
            let (same_low, other) = active_groups(layout, moves, h, &chunk.row, dependency)?;
            let lows = &layout.low_halves(h - chunk.row.high_stones)[chunk.offset as usize..];
            let mut sources = Vec::with_capacity(same_low.len() + other.len());
            for (i, word) in bytes.chunks_mut(BYTES_PER_WORD).enumerate() {
                let low = lows[i] as u64;
                sources.clear();
                for a in &same_low {
                    let at = (a.base as usize + chunk.offset as usize + i) * BYTES_PER_WORD;
                    sources.push((&a.source[at..at + BYTES_PER_WORD], &a.group.parts));
                }
                for a in &other {
                    if low & a.group.low == a.group.low {
                        let at =
                            (a.base + layout.low_rank(low ^ a.group.low)) as usize * BYTES_PER_WORD;
                        sources.push((&a.source[at..at + BYTES_PER_WORD], &a.group.parts));
                    }
                }
                for l in 0..slots {
                    let mut children = Children::default();
                    for (source, parts) in &sources {
                        for p in parts.iter() {
                            if l as u32 & p.shift == p.shift {
                                children.add(source[l ^ p.shift as usize]);
                            }
                        }
                    }
                    for p in &moves.inner {
                        if l as u32 & p.shift == p.shift {
                            children.add(word[l ^ p.shift as usize]);
                        }
                    }
                    word[l] = children.value(terminal);
                }
            }
            Ok(())
        },
    )?;
    Ok(table)
}
