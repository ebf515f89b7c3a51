//! Splitting a slice's table into rows that threads fill independently.

use std::sync::atomic::{AtomicBool, Ordering};

use egdb_games::nim::{slice_id, NimLayout, Row};
use rayon::prelude::*;

use super::moves::{Group, MoveGroups};
use crate::WorkerError;

/// Words a thread takes at once: rows longer than this are cut, so that
/// threads stay balanced however long rows are.
const CHUNK_WORDS: u64 = 8192;

/// A run of consecutive words of one row.
#[derive(Debug, Clone, Copy)]
pub struct Chunk {
    pub row: Row,
    /// First word of the chunk, counted from the row's start.
    pub offset: u64,
    pub len: u64,
}

/// Runs `fill` on every chunk of every row of slice `h` in parallel;
/// `table` holds `entries_per_word` entries per word. Stops early when
/// `cancel` is set.
///
/// # Errors
/// [`WorkerError::Cancelled`] when cancelled, or the first error of `fill`.
pub fn par_rows<T, F>(
    layout: &NimLayout,
    h: u32,
    table: &mut [T],
    entries_per_word: usize,
    cancel: &AtomicBool,
    fill: F,
) -> Result<(), WorkerError>
where
    T: Send,
    F: Fn(&Chunk, &mut [T]) -> Result<(), WorkerError> + Sync,
{
    par_row_list(layout.rows(h), table, entries_per_word, cancel, fill)
}

/// [`par_rows`] over the given rows, which `table` holds one after another.
///
/// # Errors
/// As [`par_rows`].
pub fn par_row_list<T, F>(
    rows: impl Iterator<Item = Row>,
    table: &mut [T],
    entries_per_word: usize,
    cancel: &AtomicBool,
    fill: F,
) -> Result<(), WorkerError>
where
    T: Send,
    F: Fn(&Chunk, &mut [T]) -> Result<(), WorkerError> + Sync,
{
    let mut rest = table;
    let mut work = Vec::new();
    for row in rows {
        let mut offset = 0;
        while offset < row.len {
            let len = CHUNK_WORDS.min(row.len - offset);
            let (entries, tail) = rest.split_at_mut(len as usize * entries_per_word);
            work.push((Chunk { row, offset, len }, entries));
            rest = tail;
            offset += len;
        }
    }
    work.into_par_iter().try_for_each(|(chunk, entries)| {
        if cancel.load(Ordering::Relaxed) {
            return Err(WorkerError::Cancelled);
        }
        fill(&chunk, entries)
    })
}

/// A move group that applies to a row, with its source located.
pub struct ActiveGroup<'a, T> {
    pub group: &'a Group,
    pub source: &'a [T],
    /// First word of the source row.
    pub base: u64,
}

/// Active groups that remove no low-half stones (they read their source
/// row in step), and the others (they follow pair lists).
pub type ActiveGroups<'a, T> = (Vec<ActiveGroup<'a, T>>, Vec<ActiveGroup<'a, T>>);

/// The groups whose moves can apply to some word of `row` (slice `h`), and
/// where each reads. `dependency(h')` is the table of slice `h'`.
///
/// # Errors
/// [`WorkerError::MissingDependency`] when a needed slice is not given.
pub fn active_groups<'a, T>(
    layout: &NimLayout,
    moves: &'a MoveGroups,
    h: u32,
    row: &Row,
    dependency: &dyn Fn(u32) -> Option<&'a [T]>,
) -> Result<ActiveGroups<'a, T>, WorkerError> {
    let low_stones = h - row.high_stones;
    let (mut same_low, mut other) = (Vec::new(), Vec::new());
    for group in &moves.groups {
        if group.high & row.high != group.high
            || group.removed > h
            || group.low.count_ones() > low_stones
        {
            continue;
        }
        let target = h - group.removed;
        let source = dependency(target).ok_or_else(|| WorkerError::MissingDependency {
            slice: slice_id(target).to_string(),
        })?;
        let active = ActiveGroup {
            group,
            source,
            base: layout.row_start(target, row.high ^ group.high),
        };
        if group.low == 0 {
            same_low.push(active);
        } else {
            other.push(active);
        }
    }
    Ok((same_low, other))
}
