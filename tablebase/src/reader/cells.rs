//! Reading a position's cell, in any family: the family says where the
//! cell lies, the slice's record how it is encoded.

use egdb_db_format::encoding::{unpack_value_depth16, unpack_value_depth8};
use egdb_db_format::{CellEncoding, ValueCode};
use egdb_games::{Cell, Family, Value};

use super::damage::{corrupt, misfit_error};
use super::{Answer, MoveAnswer, Probe, Tablebase};
use crate::TablebaseError;

impl Tablebase {
    /// The value and depth of a position; a finished game has depth 0, a
    /// draw none.
    pub(crate) fn probe_in<F: Family>(
        &self,
        game: &F,
        position: &F::Position,
    ) -> Result<Probe, TablebaseError> {
        match game.locate(position) {
            Some(cell) => self.cell(cell),
            None => {
                // A family whose position is neither stored nor over breaks
                // its contract: said, not answered with a made-up value.
                let value =
                    game.terminal(position)
                        .ok_or_else(|| TablebaseError::SliceNotFound {
                            slice: format!("none holds {}", game.format_position(position)),
                        })?;
                Ok(Probe {
                    value,
                    depth: Some(0),
                })
            }
        }
    }

    /// What a cell holds.
    fn cell(&self, cell: Cell) -> Result<Probe, TablebaseError> {
        let number = self
            .slots
            .get(cell.slice as usize)
            .copied()
            .flatten()
            .ok_or_else(|| TablebaseError::SliceNotFound {
                slice: self
                    .plan
                    .get(cell.slice as usize)
                    .map_or_else(|| format!("number {}", cell.slice), |id| id.to_string()),
            })?;
        let record = &self.records[number as usize];
        if let Some(reason) = &self.misfits[number as usize] {
            return Err(misfit_error(record, reason));
        }
        let block_of = |at: u64| (at / record.block_bytes.max(1)) as u32;
        let entry = cell.entry;
        let (code, depth) = match record.encoding {
            CellEncoding::WinBits => {
                let [byte] = self.bytes::<1>(number, entry / 8)?;
                let win = byte >> (entry % 8) & 1 == 1;
                let value = if win { Value::Win } else { Value::Loss };
                return Ok(Probe { value, depth: None });
            }
            CellEncoding::ValueDepth8 => {
                let [byte] = self.bytes::<1>(number, entry)?;
                let (code, depth) = unpack_value_depth8(byte);
                (code, u32::from(depth))
            }
            CellEncoding::ValueDepth16 => {
                let bytes = self.bytes::<2>(number, 2 * entry)?;
                let (code, depth) = unpack_value_depth16(u16::from_le_bytes(bytes));
                (code, u32::from(depth))
            }
        };
        let value = match code {
            ValueCode::Win => Value::Win,
            ValueCode::Loss => Value::Loss,
            ValueCode::Draw => Value::Draw,
            ValueCode::DontCare => {
                let width = if record.encoding == CellEncoding::ValueDepth16 {
                    2
                } else {
                    1
                };
                return Err(corrupt(
                    record,
                    block_of(width * entry),
                    "a stored position's cell says don't-care",
                ));
            }
        };
        Ok(Probe {
            value,
            // A draw has no length.
            depth: (value != Value::Draw).then_some(depth),
        })
    }

    pub(super) fn probe_named_in<F: Family>(
        &self,
        game: &F,
        text: &str,
    ) -> Result<(String, Probe), TablebaseError> {
        let position = game.parse_position(text)?;
        Ok((
            game.format_position(&position),
            self.probe_in(game, &position)?,
        ))
    }

    pub(super) fn answer_in<F: Family>(
        &self,
        game: &F,
        text: &str,
    ) -> Result<Answer, TablebaseError> {
        let position = game.parse_position(text)?;
        Ok(self.expand(game, &position)?.0)
    }

    /// A position's answer, and the positions its moves lead to (in the
    /// same order).
    pub(super) fn expand<F: Family>(
        &self,
        game: &F,
        position: &F::Position,
    ) -> Result<(Answer, Vec<F::Position>), TablebaseError> {
        let (moves, afters): (Vec<_>, Vec<_>) = game.moves(position).into_iter().unzip();
        let answers = moves
            .iter()
            .zip(&afters)
            .map(|(m, after)| {
                Ok(MoveAnswer {
                    mv: game.format_move(m),
                    after: game.format_position(after),
                    probe: self.probe_in(game, after)?,
                })
            })
            .collect::<Result<_, TablebaseError>>()?;
        let answer = Answer {
            position: game.format_position(position),
            probe: self.probe_in(game, position)?,
            moves: answers,
        };
        Ok((answer, afters))
    }
}
