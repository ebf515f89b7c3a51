//! Where a Morris position lies in its store: the slice and table its
//! counts name, the entry of its symmetry class in that table.

use std::collections::HashMap;
use std::sync::RwLock;

use egdb_db_format::encoding::unpack_value_depth16;
use egdb_db_format::{CellEncoding, ValueCode};
use egdb_games::morris::index::TableIndex;
use egdb_games::morris::moves::{legal_moves, terminal_value};
use egdb_games::morris::slices::table_of;
use egdb_games::morris::{MorrisGame, MorrisSlice, Position};
use egdb_games::Value;

use super::{corrupt, Answer, Probe, Tablebase};
use crate::TablebaseError;

/// The table indexes of the slices probed so far (built once each).
#[derive(Default)]
pub(super) struct Indexes(RwLock<HashMap<MorrisSlice, SliceIndex>>);

/// A slice's tables and where each starts among its cells.
struct SliceIndex {
    tables: Vec<TableIndex>,
    /// Cells before each table; one more entry: all the slice's cells.
    starts: Vec<u64>,
}

impl SliceIndex {
    fn new(slice: MorrisSlice) -> SliceIndex {
        let tables: Vec<TableIndex> = slice.tables().into_iter().map(TableIndex::new).collect();
        let starts = std::iter::once(0)
            .chain(tables.iter().scan(0, |sum, t| {
                *sum += t.len();
                Some(*sum)
            }))
            .collect();
        SliceIndex { tables, starts }
    }
}

impl Indexes {
    /// `look(index)` with the slice's index, built on first use; under a
    /// read lock, so that probes of known slices never wait for each other.
    fn with<R>(&self, slice: MorrisSlice, look: impl FnOnce(&SliceIndex) -> R) -> R {
        {
            let known = self.0.read().unwrap_or_else(|p| p.into_inner());
            if let Some(index) = known.get(&slice) {
                return look(index);
            }
        }
        let mut known = self.0.write().unwrap_or_else(|p| p.into_inner());
        look(known.entry(slice).or_insert_with(|| SliceIndex::new(slice)))
    }
}

impl Tablebase {
    /// The value and depth of a Morris position; a finished game has depth
    /// 0, a draw none.
    pub(crate) fn probe_morris(
        &self,
        game: &MorrisGame,
        position: &Position,
    ) -> Result<Probe, TablebaseError> {
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
        let number =
            *self
                .morris_numbers
                .get(&slice)
                .ok_or_else(|| TablebaseError::SliceNotFound {
                    slice: slice.to_string(),
                })?;
        let record = &self.records[number as usize];
        let (cells, entry) = self.morris.with(slice, |index| {
            let entry = index.starts[table] + index.tables[table].index(mover, opponent);
            (index.starts[index.tables.len()], entry)
        });
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
        let at = 2 * entry;
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
    ) -> Result<Answer, TablebaseError> {
        let position = Position::parse(game.rules(), text)?;
        let moves = legal_moves(game.rules(), &position)
            .into_iter()
            .map(|(m, next)| Ok((m.to_string(), self.probe_morris(game, &next)?)))
            .collect::<Result<_, TablebaseError>>()?;
        Ok(Answer {
            position: position.to_string(),
            probe: self.probe_morris(game, &position)?,
            moves,
        })
    }
}
