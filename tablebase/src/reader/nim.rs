//! Where a take-away game's positions lie in its store.

use egdb_db_format::encoding::unpack_value_depth8;
use egdb_db_format::{CellEncoding, ValueCode};
use egdb_games::nim::{slice_id, NimGame};
use egdb_games::Value;

use super::{corrupt, Answer, Probe, Tablebase};
use crate::TablebaseError;

impl Tablebase {
    /// The value (and depth) of a Nim position.
    pub(crate) fn probe_nim(&self, game: &NimGame, position: u64) -> Result<Probe, TablebaseError> {
        // Depth tables keep each symmetry class once, under its canonical
        // member; value tables keep every member, all alike.
        self.nim_cell(game, game.symmetry().canonical(position))
    }

    /// The cell stored for exactly this position (in a depth table, only
    /// canonical positions have one).
    pub(crate) fn nim_cell(&self, game: &NimGame, position: u64) -> Result<Probe, TablebaseError> {
        let slot = game.layout().locate(position);
        let number = self
            .nim_numbers
            .get(slot.slice as usize)
            .copied()
            .flatten()
            .ok_or_else(|| TablebaseError::SliceNotFound {
                slice: slice_id(slot.slice).to_string(),
            })?;
        let record = &self.records[number as usize];
        let entry = slot.word * 64 + slot.bit as u64;
        match record.encoding {
            CellEncoding::WinBits => {
                let [byte] = self.bytes::<1>(number, entry / 8)?;
                Ok(Probe {
                    value: if byte >> (entry % 8) & 1 == 1 {
                        Value::Win
                    } else {
                        Value::Loss
                    },
                    depth: None,
                })
            }
            CellEncoding::ValueDepth8 => {
                let [byte] = self.bytes::<1>(number, entry)?;
                let block = (entry / record.block_bytes.max(1)) as u32;
                let (code, depth) = unpack_value_depth8(byte);
                let value = match code {
                    ValueCode::Win => Value::Win,
                    ValueCode::Loss => Value::Loss,
                    ValueCode::Draw => Value::Draw,
                    ValueCode::DontCare => {
                        return Err(corrupt(
                            record,
                            block,
                            "canonical position stored as don't-care",
                        ))
                    }
                };
                Ok(Probe {
                    value,
                    depth: Some(u32::from(depth)),
                })
            }
            CellEncoding::ValueDepth16 => Err(corrupt(
                record,
                0,
                "16-bit Morris cells in a take-away game's store",
            )),
        }
    }

    pub(super) fn answer_nim(&self, game: &NimGame, text: &str) -> Result<Answer, TablebaseError> {
        let position = game.parse_position(text)?;
        let moves = game
            .legal_moves(position)
            .map(|m| Ok((game.format_move(m), self.probe_nim(game, position ^ m)?)))
            .collect::<Result<_, TablebaseError>>()?;
        Ok(Answer {
            position: game.format_position(position),
            probe: self.probe_nim(game, position)?,
            moves,
        })
    }
}
