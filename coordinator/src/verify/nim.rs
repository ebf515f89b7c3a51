//! Every stored position of a take-away slice against its moves.

use egdb_db_format::CellEncoding;
use egdb_games::nim::NimGame;
use egdb_games::SliceId;
use rayon::prelude::*;

use super::{corrupt, expected, SliceCheck};
use crate::tablebase::{Probe, Tablebase};
use crate::CoordinatorError;

pub(super) fn check(
    tablebase: &Tablebase,
    game: &NimGame,
    slice: &str,
) -> Result<SliceCheck, CoordinatorError> {
    match tablebase.store().read_slice(slice) {
        Ok(_) => {}
        Err(e @ egdb_db_format::FormatError::Corrupt { .. }) => {
            return Ok(corrupt(slice, e.to_string()));
        }
        Err(e) => return Err(e.into()),
    }
    let h =
        game.slice_number(&SliceId::new(slice))
            .ok_or_else(|| CoordinatorError::Unverifiable {
                slice: slice.to_string(),
                reason: "not a slice of the store's game".to_string(),
            })?;
    let (_, record) = tablebase.record(slice)?;
    let with_depth = record.encoding != CellEncoding::WinBits;
    let layout = game.layout();
    let terminal = Some(game.terminal_value());
    // Value tables hold every position: each one's own bit is checked
    // against its moves' own bits.
    let read = |p: u64| {
        if with_depth {
            tablebase.probe_nim(game, p)
        } else {
            tablebase.nim_cell(game, p)
        }
    };
    (0..layout.words(h))
        .into_par_iter()
        .map(|word| {
            let mut check = SliceCheck::default();
            let mut successors: Vec<Probe> = Vec::new();
            for bit in 0..64 {
                let position = layout.position(h, word, bit);
                // Depth tables keep each symmetry class once.
                if with_depth && !game.symmetry().is_canonical(position) {
                    continue;
                }
                successors.clear();
                for m in game.legal_moves(position) {
                    successors.push(read(position ^ m)?);
                }
                let stored = tablebase.nim_cell(game, position)?;
                let wanted = expected(&successors, terminal, with_depth);
                check.record(|| game.format_position(position), Some(stored), wanted);
            }
            Ok(check)
        })
        .try_reduce(SliceCheck::default, |mut a, b| {
            a.add(b);
            Ok(a)
        })
        .map(|check| SliceCheck {
            slice: slice.to_string(),
            ..check
        })
}
