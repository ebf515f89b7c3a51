//! Where a Morris position lies in its store: the slice and table its
//! counts name, the entry of its symmetry class in that table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use egdb_db_format::encoding::unpack_value_depth16;
use egdb_db_format::{CellEncoding, ValueCode};
use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::{legal_moves, terminal_value};
use egdb_games::morris::slices::table_of;
use egdb_games::morris::{MorrisGame, MorrisSlice, Position};
use egdb_games::Value;

use super::{corrupt, Answer, Probe, Tablebase};
use crate::CoordinatorError;

/// The table indexes of the slices probed so far (built once each).
#[derive(Default)]
pub(super) struct Indexes(Mutex<HashMap<MorrisSlice, Arc<SliceIndex>>>);

/// A slice's tables and where each starts among its cells.
struct SliceIndex {
    tables: Vec<TableIndex>,
    /// Cells before each table; one more entry: all the slice's cells.
    starts: Vec<u64>,
}

impl Indexes {
    fn of(&self, slice: MorrisSlice) -> Arc<SliceIndex> {
        let mut known = self.0.lock().unwrap_or_else(|p| p.into_inner());
        known
            .entry(slice)
            .or_insert_with(|| {
                let tables: Vec<TableIndex> =
                    slice.tables().into_iter().map(TableIndex::new).collect();
                let starts = std::iter::once(0)
                    .chain(tables.iter().scan(0, |sum, t| {
                        *sum += t.len();
                        Some(*sum)
                    }))
                    .collect();
                Arc::new(SliceIndex { tables, starts })
            })
            .clone()
    }
}

impl Tablebase {
    /// The value and depth of a Morris position; a finished game has depth
    /// 0, a draw none.
    pub(crate) fn probe_morris(
        &self,
        game: &MorrisGame,
        position: &Position,
    ) -> Result<Probe, CoordinatorError> {
        let rules = game.rules();
        if let Some(value) = terminal_value(rules, position) {
            return Ok(Probe {
                value,
                depth: Some(0),
            });
        }
        let (mover, opponent) = position.sides();
        let odd = mover.odd_count() + opponent.odd_count();
        let (slice, table) = table_of(rules, position.ply(rules), mover.len(), opponent.len(), odd)
            .expect("positions not over by their counts lie in a table");
        let (number, record) = self.record(&slice.to_string())?;
        let index = self.morris.of(slice);
        let cells = index.starts[index.tables.len()];
        if record.encoding != CellEncoding::ValueDepth16 || record.raw_len != 2 * cells {
            return Err(corrupt(
                record,
                0,
                &format!(
                    "{:?} slice of {} bytes; a Morris slice holds {cells} 16-bit cells",
                    record.encoding, record.raw_len
                ),
            ));
        }
        let at = 2 * (index.starts[table] + index.tables[table].index(mover, opponent));
        let (code, depth) = unpack_value_depth16(u16::from_le_bytes(self.bytes::<2>(number, at)?));
        let value = match code {
            ValueCode::Win => Value::Win,
            ValueCode::Loss => Value::Loss,
            ValueCode::Draw => Value::Draw,
            ValueCode::DontCare => {
                let block = (at / record.block_bytes.max(1)) as u32;
                return Err(corrupt(
                    record,
                    block,
                    "a symmetry class stored as don't-care",
                ));
            }
        };
        Ok(Probe {
            value,
            // A draw has no length.
            depth: (value != Value::Draw).then_some(u32::from(depth)),
        })
    }

    pub(super) fn answer_morris(
        &self,
        game: &MorrisGame,
        text: &str,
    ) -> Result<Answer, CoordinatorError> {
        let position = Position::parse(game.rules(), text)?;
        let moves = legal_moves(game.rules(), &position)
            .into_iter()
            .map(|(m, next)| Ok((m.to_string(), self.probe_morris(game, &next)?)))
            .collect::<Result<_, CoordinatorError>>()?;
        Ok(Answer {
            position: position.to_string(),
            probe: self.probe_morris(game, &position)?,
            moves,
        })
    }
}
