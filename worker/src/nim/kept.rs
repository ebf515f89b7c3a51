//! The depth engine over kept rows (`egdb_games::nim::row_symmetry`): a
//! table holds one row of each orbit of high halves, about a sixth of the
//! words for a triangle of 8 layers, and takes as much less time.
//!
//! A move whose source row is not kept reads the kept image of that row
//! through a symmetry `g`. Such children are folded in g's lane order (the
//! kept word as it is, the move's block stones mapped by `g`), one fold per
//! symmetry, and each fold is turned back once per word before they join.

use std::sync::atomic::AtomicBool;

use egdb_games::nim::row_symmetry::RowSymmetry;
use egdb_games::nim::{slice_id, NimGame};

use super::depth::{resolve_inner, terminal_code};
use super::moves::{superset, Group, MoveGroups, WordPart};
use super::planes::{Fold, Planes};
use super::rows::par_row_list;
use super::symmetric::Kept;
use crate::table::zeroed_table;
use crate::WorkerError;

/// A group's reads for one target row: where its source row is kept and
/// through which symmetry.
struct Read<'a> {
    group: &'a Group,
    source: &'a [Planes],
    base: u64,
    g: usize,
    /// The group's parts with their block stones mapped by `g`.
    parts: &'a [WordPart],
}

/// Solves slice `h` into its kept rows; `dependency(h')` gives the kept
/// rows of slice `h'`.
///
/// # Errors
/// [`WorkerError::MissingDependency`]; [`WorkerError::Cancelled`].
pub fn solve_depths_kept<'a>(
    game: &NimGame,
    moves: &'a MoveGroups,
    rows: &Kept,
    h: u32,
    dependency: &(dyn Fn(u32) -> Option<&'a [Planes]> + Sync),
    cancel: &AtomicBool,
) -> Result<Vec<Planes>, WorkerError> {
    let layout = game.layout();
    let terminal = terminal_code(game);
    let slots = 1u32 << moves.word_bits;
    let (symmetry, kept) = (&rows.rows, &rows.kept);
    // Words fold through at most 64 symmetries (a bit each below).
    debug_assert!(symmetry.len() <= 64);
    // part_images[group][g]: the group's parts as seen in g's lane order.
    let part_images: Vec<Vec<Vec<WordPart>>> = moves
        .groups
        .iter()
        .map(|group| {
            (0..symmetry.len())
                .map(|g| {
                    group
                        .parts
                        .iter()
                        .map(|p| image(symmetry, g, p, slots))
                        .collect()
                })
                .collect()
        })
        .collect();
    let slice = kept.slice(h);
    let mut table = zeroed_table::<Planes>(slice.words as usize);
    par_row_list(
        slice.rows.iter().copied(),
        &mut table,
        1,
        cancel,
        |chunk, words| {
            let row = &chunk.row;
            let low_stones = h - row.high_stones;
            let mut reads = Vec::new();
            for (index, group) in moves.groups.iter().enumerate() {
                if group.high & row.high != group.high
                    || group.removed > h
                    || group.low.count_ones() > low_stones
                {
                    continue;
                }
                let target = h - group.removed;
                let missing = || WorkerError::MissingDependency {
                    slice: slice_id(target).to_string(),
                };
                let source = dependency(target).ok_or_else(missing)?;
                let (kept_high, g) = symmetry.kept_row(row.high ^ group.high);
                let base = kept.slice(target).start(kept_high).ok_or_else(missing)?;
                reads.push(Read {
                    group,
                    source,
                    base,
                    g,
                    parts: &part_images[index][g],
                });
            }
            let lows = &layout.low_halves(low_stones)[chunk.offset as usize..];
            let mut folds = vec![Fold::default(); symmetry.len()];
            for (i, word) in words.iter_mut().enumerate() {
                let low = lows[i] as u64;
                folds.fill(Fold::default());
                let mut used = 0u64;
                for r in &reads {
                    if low & r.group.low != r.group.low {
                        continue;
                    }
                    let source_low = symmetry.low(r.g, low ^ r.group.low);
                    let source = &r.source[(r.base + layout.low_rank(source_low)) as usize];
                    for p in r.parts {
                        folds[r.g].add(source, p.shift, p.superset);
                    }
                    used |= 1 << r.g;
                }
                let mut fold = folds[0];
                for (g, other) in folds.iter().enumerate().skip(1) {
                    if used >> g & 1 == 1 {
                        fold.merge(&other.gather(&rows.lane_maps[g]));
                    }
                }
                *word = resolve_inner(fold, moves, terminal);
            }
            Ok(())
        },
    )?;
    Ok(table)
}

/// A move's part in the word block as seen through symmetry `g`.
fn image(symmetry: &RowSymmetry, g: usize, part: &WordPart, slots: u32) -> WordPart {
    let shift = symmetry.lane(g, part.shift);
    WordPart {
        shift,
        superset: superset(shift as u64, slots),
    }
}
