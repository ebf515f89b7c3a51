//! Every stored position of a take-away slice against its moves, from
//! decoded slices in memory.
//!
//! Value tables (one win bit per position) hold every position, and each
//! position's own bit is checked against its moves' own bits. Depth tables
//! keep each symmetry class once, under its canonical member: canonical
//! positions are checked through their moves' canonical images, and every
//! other entry must be "don't care".

use egdb_db_format::encoding::unpack_value_depth8;
use egdb_db_format::CellEncoding;
use egdb_games::nim::NimGame;
use egdb_games::Value;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::{Expectation, Probe, SliceCheck};

/// Why a slice cannot be checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NimCheckError {
    #[error(
        "slice {slice} holds {bytes} bytes; its {words} words take {expected} as {encoding:?}"
    )]
    WrongSize {
        slice: String,
        bytes: u64,
        words: u64,
        expected: u64,
        encoding: CellEncoding,
    },
    #[error("slice {slice}: {encoding:?} cells are not a take-away game's")]
    WrongEncoding {
        slice: String,
        encoding: CellEncoding,
    },
    #[error("slice {slice} reads slice {needed}, which was not given")]
    Missing { slice: String, needed: String },
}

/// One slice's stored bytes, checked for size.
#[derive(Debug)]
pub struct NimTable {
    /// Stones outside the word block: the slice number.
    pub stones: u32,
    pub encoding: CellEncoding,
    pub raw: Vec<u8>,
}

impl NimTable {
    /// # Errors
    /// [`NimCheckError`] when the bytes are not the slice's cells.
    pub fn new(
        game: &NimGame,
        stones: u32,
        encoding: CellEncoding,
        raw: Vec<u8>,
    ) -> Result<NimTable, NimCheckError> {
        let slice = egdb_games::nim::slice_id(stones).to_string();
        if encoding == CellEncoding::ValueDepth16 {
            return Err(NimCheckError::WrongEncoding { slice, encoding });
        }
        let words = game.layout().words(stones);
        let expected = encoding.table_bytes(words * 64);
        if raw.len() as u64 != expected {
            return Err(NimCheckError::WrongSize {
                slice,
                bytes: raw.len() as u64,
                words,
                expected,
                encoding,
            });
        }
        Ok(NimTable {
            stones,
            encoding,
            raw,
        })
    }

    /// Bytes of memory the table takes.
    pub fn bytes(&self) -> u64 {
        self.raw.len() as u64
    }

    /// The cell of entry `entry` (word × 64 + bit); `None`: "don't care".
    #[inline]
    fn probe(&self, entry: u64) -> Option<Probe> {
        match self.encoding {
            CellEncoding::WinBits => {
                let won = self.raw[(entry / 8) as usize] >> (entry % 8) & 1 == 1;
                Some(Probe {
                    value: if won { Value::Win } else { Value::Loss },
                    depth: None,
                })
            }
            _ => {
                let (code, depth) = unpack_value_depth8(self.raw[entry as usize]);
                crate::probe_of_code(code, u32::from(depth))
            }
        }
    }
}

/// Words per parallel task.
const WORDS_PER_TASK: u64 = 256;

/// Checks every stored position of `own`; `tables_of(stones)` gives the
/// slices its moves lead into. Stops early, with a partial count, when
/// `cancel` is set.
///
/// # Errors
/// [`NimCheckError::Missing`] when a move leads into a slice that is not
/// given.
pub fn check_nim<'a>(
    game: &NimGame,
    own: &'a NimTable,
    cancel: &AtomicBool,
    tables_of: impl Fn(u32) -> Option<&'a NimTable> + Sync,
) -> Result<SliceCheck, NimCheckError> {
    let layout = game.layout();
    let h = own.stones;
    let with_depth = own.encoding != CellEncoding::WinBits;
    let terminal = game.terminal_value();
    let table = |stones: u32| {
        if stones == h {
            Some(own)
        } else {
            tables_of(stones)
        }
    };
    let words = layout.words(h);
    let found = (0..words.div_ceil(WORDS_PER_TASK))
        .into_par_iter()
        // Given up half-way: the caller looks at `cancel`.
        .filter(|_| !cancel.load(Ordering::Relaxed))
        .map(|task| {
            let mut check = SliceCheck::<()>::default();
            let first = task * WORDS_PER_TASK;
            for word in first..words.min(first + WORDS_PER_TASK) {
                // A word's positions share their outer cells; the block
                // cells are the bit's (the layout permutes cells bit by bit).
                let outer = layout.position(h, word, 0);
                for bit in 0..64u32 {
                    let position = outer | layout.unpack(u64::from(bit));
                    let stored = own.probe(word * 64 + u64::from(bit));
                    if with_depth && !game.symmetry().is_canonical(position) {
                        check.duplicates_with_values += u64::from(stored.is_some());
                        continue;
                    }
                    let mut expectation = Expectation::default();
                    for m in game.legal_moves(position) {
                        let next = position ^ m;
                        // Depth tables keep each class under its canonical member.
                        let at = layout.locate(if with_depth {
                            game.symmetry().canonical(next)
                        } else {
                            next
                        });
                        let successor = table(at.slice).ok_or(at.slice)?;
                        match successor.probe(at.word * 64 + u64::from(at.bit)) {
                            Some(p) => expectation.add(p.value, p.depth.unwrap_or(0)),
                            // Its own slice's mismatch; here a draw.
                            None => expectation.add(Value::Draw, 0),
                        }
                    }
                    let mut expected = expectation.probe(terminal);
                    if !with_depth {
                        expected.depth = None;
                    }
                    check.record(|| game.format_position(position), stored, expected);
                }
            }
            Ok(check)
        })
        .try_reduce(SliceCheck::default, |mut a, b| {
            a.add(b);
            Ok(a)
        })
        .map_err(|needed: u32| NimCheckError::Missing {
            slice: egdb_games::nim::slice_id(h).to_string(),
            needed: egdb_games::nim::slice_id(needed).to_string(),
        })?;
    Ok(SliceCheck::of(egdb_games::nim::slice_id(h), found))
}
