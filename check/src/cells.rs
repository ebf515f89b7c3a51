//! Every stored position of a slice against its moves, for any family:
//! positions come from [`Family::position_at`], their moves from
//! [`Family::moves`], and each move's cell from [`Family::locate`]. Plain
//! and unhurried: families with a checker of their own ([`super::morris`],
//! [`super::nim`]) use it; a new family is checked by this one until then.

use std::sync::atomic::{AtomicBool, Ordering};

use egdb_db_format::encoding::{unpack_value_depth16, unpack_value_depth8};
use egdb_db_format::CellEncoding;
use egdb_games::{Cell, Family, SliceId, Value};

use super::{expected, Probe, SliceCheck};

/// One slice's stored cells (their size checked by the caller).
#[derive(Debug)]
pub struct CellTable {
    /// The slice's place in the game's plan.
    pub place: u32,
    pub encoding: CellEncoding,
    /// The slice's cells: the plan's count, not the bytes', which pad a
    /// last byte of one-bit cells.
    pub entries: u64,
    pub raw: Vec<u8>,
}

impl CellTable {
    fn entries(&self) -> u64 {
        self.entries
            .min(self.encoding.entries_in(self.raw.len() as u64))
    }

    /// What cell `entry` holds: `Ok(None)` for "don't care", `Err` past
    /// the end.
    fn probe(&self, entry: u64) -> Result<Option<Probe>, String> {
        if entry >= self.entries() {
            return Err(format!("cell {entry} of a slice of {}", self.entries()));
        }
        let e = entry as usize;
        Ok(match self.encoding {
            CellEncoding::WinBits => {
                let win = self.raw[e / 8] >> (e % 8) & 1 == 1;
                Some(Probe {
                    value: if win { Value::Win } else { Value::Loss },
                    depth: None,
                })
            }
            CellEncoding::ValueDepth8 => {
                let (code, depth) = unpack_value_depth8(self.raw[e]);
                crate::probe_of_code(code, u32::from(depth))
            }
            CellEncoding::ValueDepth16 => {
                let cell = u16::from_le_bytes([self.raw[2 * e], self.raw[2 * e + 1]]);
                let (code, depth) = unpack_value_depth16(cell);
                crate::probe_of_code(code, u32::from(depth))
            }
        })
    }

    pub fn bytes(&self) -> u64 {
        self.raw.len() as u64
    }
}

/// Checks every cell of `own`; `table(place)` gives the slices its moves
/// lead into. `None` when cancelled.
///
/// # Errors
/// The reason, when a move leads into a slice not given or past its cells.
pub fn check_cells<'t, F: Family>(
    game: &F,
    slice: &SliceId,
    own: &'t CellTable,
    cancel: &AtomicBool,
    table: impl Fn(u32) -> Option<&'t CellTable>,
) -> Result<SliceCheck, String> {
    let with_depth = own.encoding != CellEncoding::WinBits;
    let mut check = SliceCheck::new(slice.clone());
    for entry in 0..own.entries() {
        if entry % 4096 == 0 && cancel.load(Ordering::Relaxed) {
            break;
        }
        let cell = Cell {
            slice: own.place,
            entry,
        };
        let stored = own.probe(entry)?;
        // Value tables keep every member of a class; depth tables the
        // class's own cell only, the others "don't care".
        let position = game
            .position_at(cell)
            .filter(|p| !with_depth || game.locate(p) == Some(cell));
        let Some(position) = position else {
            if with_depth && stored.is_some() {
                check.duplicates_with_values += 1;
            }
            continue;
        };
        let mut successors = Vec::new();
        for (_, next) in game.moves(&position) {
            successors.push(match game.locate(&next) {
                None => Probe {
                    value: game.terminal(&next).ok_or_else(|| {
                        format!(
                            "{} lies in no slice and is not over",
                            game.format_position(&next)
                        )
                    })?,
                    depth: with_depth.then_some(0),
                },
                Some(c) => {
                    let into = || {
                        let slices = game.slices();
                        let id = slices.get(c.slice as usize).map(|s| s.id.to_string());
                        id.unwrap_or_else(|| format!("number {}", c.slice))
                    };
                    let dependency = table(c.slice)
                        .ok_or_else(|| format!("a move leads into slice {}, not given", into()))?;
                    dependency.probe(c.entry)?.ok_or_else(|| {
                        format!("a move leads to a don't-care cell of slice {}", into())
                    })?
                }
            });
        }
        let want = expected(&successors, game.terminal(&position), with_depth);
        check.record(|| game.format_position(&position), stored, want);
    }
    Ok(check)
}
