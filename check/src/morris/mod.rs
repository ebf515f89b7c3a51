//! Every entry of a Morris slice against its moves, from decoded tables in
//! memory: the slice's own and those of the slices its moves lead into.
//!
//! For each class entry the legal moves are generated forward (the rules
//! of `egdb-games`), each successor is found by its table's index, and the
//! stored value and depth must be what the successors say; entries that
//! only repeat a class must hold no value. Tables are walked by the class
//! of the side that moves next ([`swapped`]; [`placing`], [`moving`]): successors that keep that
//! side's set lie in one run of their table, and are ranked from the
//! entry's own set.

use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::{terminal_by_counts, Counts};
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::slices::table_of;
use egdb_games::morris::{MorrisRules, MorrisSlice};
use egdb_games::Value;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

mod hands;
mod moving;
mod placing;
mod reads;
mod swapped;
mod tables;

use moving::check_moving_run;
use placing::check_placing_run;
use reads::{target_in, Context, Target};
use swapped::with_duplicates;
pub use tables::{CellTable, MorrisCheckError, MorrisTables};

use super::SliceCheck;

/// Checks every entry of `own`; `tables_of` gives the other slices its
/// moves lead into. Stops early, with a partial count, when `cancel` is
/// set.
///
/// # Errors
/// [`MorrisCheckError::Missing`] when a move leads into a slice that is
/// not given.
pub fn check_morris<'a>(
    rules: &MorrisRules,
    own: &'a MorrisTables,
    cancel: &AtomicBool,
    tables_of: impl Fn(MorrisSlice) -> Option<&'a MorrisTables>,
) -> Result<SliceCheck, MorrisCheckError> {
    if matches!(own.slice, MorrisSlice::Hand { .. }) {
        return hands::check_hand_slice(rules, own, cancel, tables_of);
    }
    let context = Context::of(rules, own.slice);
    let mut total = SliceCheck::new(own.slice.id());
    for table in &own.tables {
        let key = table.index.key();
        let mover_after = key.mover + u32::from(context.placing);
        let next_ply = context.ply + u32::from(context.placing);
        // targets[removed][parity of pieces on odd points]
        let mut targets = [[Target::Over(Value::Draw); 2]; MAX_REMOVED as usize + 1];
        for (removed, by_parity) in targets.iter_mut().enumerate() {
            let Some(left) = key.opponent.checked_sub(removed as u32) else {
                continue;
            };
            for (odd, target) in by_parity.iter_mut().enumerate() {
                *target = locate(rules, own, &tables_of, next_ply, (left, mover_after), odd);
            }
        }
        // Walked by the class of the side that moves next; duplicates in
        // the stored layout.
        let engine = TableIndex::new(key.swapped());
        let classes = (0..engine.rep_count())
            .into_par_iter()
            // Given up half-way: the caller looks at `cancel`.
            .filter(|_| !cancel.load(Ordering::Relaxed))
            .map(|id| {
                if context.placing {
                    check_placing_run(rules, &context, table, &engine, &targets, id)
                } else {
                    check_moving_run(rules, &context, table, &engine, &targets, id)
                }
            });
        total.add(with_duplicates(own.slice, table, classes, cancel)?);
    }
    Ok(total)
}

/// The target of positions after `ply` placements with these counts
/// (side to move, other side) and parity.
fn locate<'a>(
    rules: &MorrisRules,
    own: &'a MorrisTables,
    tables_of: &impl Fn(MorrisSlice) -> Option<&'a MorrisTables>,
    ply: u32,
    (mover, opponent): (u32, u32),
    odd: usize,
) -> Target<'a> {
    let counts = Counts {
        board: [mover, opponent],
        hand: rules.hands_after(ply),
    };
    if let Some(value) = terminal_by_counts(rules, counts) {
        return Target::Over(value);
    }
    let Some((slice, table)) = table_of(rules, ply, mover, opponent, odd as u32) else {
        unreachable!("positions not over by their counts lie in a table");
    };
    target_in(own, tables_of, slice, table)
}

#[cfg(test)]
mod tests {
    use super::reads::{add_cell, decode};
    use crate::Expectation;
    use egdb_db_format::encoding::{pack_value_depth16, MAX_DEPTH16};
    use egdb_db_format::ValueCode;
    use egdb_games::Value;

    /// The branch-free fold of stored cells says what folding their
    /// decoded probes says, for every mix of up to three cells of each
    /// code, "don't care" among them, and for no cell at all.
    #[test]
    fn cells_fold_as_their_probes_do() {
        let cells: Vec<u16> = [
            ValueCode::DontCare,
            ValueCode::Loss,
            ValueCode::Draw,
            ValueCode::Win,
        ]
        .into_iter()
        .flat_map(|code| [0, 1, 2, 9, MAX_DEPTH16].map(|d| pack_value_depth16(code, d)))
        .collect();
        let mut mixes: Vec<Vec<u16>> = vec![Vec::new()];
        let mut level = mixes.clone();
        for _ in 0..3 {
            level = level
                .iter()
                .flat_map(|m| cells.iter().map(move |&c| [m.as_slice(), &[c]].concat()))
                .collect();
            mixes.extend(level.iter().cloned());
        }
        assert_eq!(mixes.len(), 1 + 20 + 400 + 8000);
        for mix in &mixes {
            let (mut by_bits, mut by_probes) = (Expectation::default(), Expectation::default());
            for &cell in mix {
                add_cell(&mut by_bits, cell);
                match decode(cell) {
                    Some(p) => by_probes.add(p.value, p.depth.unwrap_or(0)),
                    None => by_probes.add(Value::Draw, 0),
                }
            }
            for terminal in [Value::Loss, Value::Draw] {
                assert_eq!(
                    by_bits.probe(terminal),
                    by_probes.probe(terminal),
                    "{mix:?}"
                );
            }
        }
    }
}
