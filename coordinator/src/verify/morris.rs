//! Every symmetry class of a Morris slice against its moves.

use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::{legal_moves, terminal_value};
use egdb_games::morris::{Color, MorrisGame, MorrisSlice, Position};
use rayon::prelude::*;

use super::{expected, SliceCheck};
use crate::tablebase::{Probe, Tablebase};
use crate::CoordinatorError;

pub(super) fn check(
    tablebase: &Tablebase,
    game: &MorrisGame,
    slice: &str,
) -> Result<SliceCheck, CoordinatorError> {
    let parsed = MorrisSlice::parse(slice).ok_or_else(|| CoordinatorError::Unverifiable {
        slice: slice.to_string(),
        reason: "not a slice of the store's game".to_string(),
    })?;
    let rules = game.rules();
    let (to_move, hand) = match parsed {
        MorrisSlice::Movement { .. } => (Color::First, [0, 0]),
        MorrisSlice::Placement { ply, .. } => {
            let pieces = u32::from(rules.pieces);
            let to_move = if ply % 2 == 0 {
                Color::First
            } else {
                Color::Second
            };
            // The first player has placed ⌈ply / 2⌉ pieces, the second ⌊ply / 2⌋.
            let hand = [pieces - ply.div_ceil(2), pieces - ply / 2].map(|h| h as u8);
            (to_move, hand)
        }
    };
    let mut total = SliceCheck::default();
    for key in parsed.tables() {
        let index = TableIndex::new(key);
        let found = (0..index.rep_count())
            .into_par_iter()
            .map(|rep| {
                let mut check = SliceCheck::default();
                let mut failure = None;
                let mut successors: Vec<Probe> = Vec::new();
                index.for_each_entry_of_rep(rep, |_, entry| {
                    if !entry.canonical || failure.is_some() {
                        return;
                    }
                    let position = match Position::from_sides(
                        rules,
                        entry.mover,
                        entry.opponent,
                        to_move,
                        hand,
                    ) {
                        Ok(position) => position,
                        Err(reason) => {
                            failure = Some(CoordinatorError::Unverifiable {
                                slice: slice.to_string(),
                                reason: format!("an entry is no position: {reason}"),
                            });
                            return;
                        }
                    };
                    let outcome = (|| {
                        successors.clear();
                        for (_, next) in legal_moves(rules, &position) {
                            successors.push(tablebase.probe_morris(game, &next)?);
                        }
                        let stored = tablebase.probe_morris(game, &position)?;
                        let terminal = terminal_value(rules, &position);
                        Ok::<_, CoordinatorError>((stored, expected(&successors, terminal, true)))
                    })();
                    match outcome {
                        Ok((stored, wanted)) => {
                            check.record(|| position.to_string(), stored, wanted)
                        }
                        Err(e) => failure = Some(e),
                    }
                });
                match failure {
                    Some(e) => Err(e),
                    None => Ok(check),
                }
            })
            .try_reduce(SliceCheck::default, |mut a, b| {
                a.add(b);
                Ok(a)
            })?;
        total.add(found);
    }
    Ok(total)
}
