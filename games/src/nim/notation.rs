//! Positions and moves as users type and read them (RULES.md, "Notation").
//!
//! * Triangle: rows from the top joined by `/`, `o` a stone, `.` taken
//!   (`o/oo/ooo`); moves name the removed cells, `c2`, the two ends of a
//!   line `c1-c3`, or a list `c1,c2,c3`.
//! * Hexagram: the integer Σ 2^i over ringed points (`2088`) or the list of
//!   ringed points (`[3,5,11]`); moves `5` or `2+5`.
//! * Custom: one `o`/`.` per cell, the integer mask or the list of cells.
//!
//! `start` is the game's start position everywhere.

use super::{triangle, Board, NimGame};
use crate::GameError;

impl NimGame {
    /// # Errors
    /// [`GameError::MalformedPosition`] naming what is wrong.
    pub fn parse_position(&self, text: &str) -> Result<u64, GameError> {
        let fail = |reason: String| GameError::MalformedPosition {
            text: text.to_string(),
            reason,
        };
        let text = text.trim();
        if text == "start" {
            return Ok(self.start());
        }
        let cells = self.cells();
        let mask = match self.definition().board {
            Board::Triangle { layers } => parse_rows(text, layers).map_err(fail)?,
            Board::Hexagram | Board::Custom => {
                if text.starts_with('[') {
                    let inner = text
                        .strip_prefix('[')
                        .and_then(|t| t.strip_suffix(']'))
                        .ok_or_else(|| fail("a list is written [0,3,5]".to_string()))?;
                    parse_cell_list(inner, cells).map_err(fail)?
                } else if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
                    text.parse::<u64>()
                        .map_err(|_| fail("number too large".to_string()))?
                } else if !text.is_empty() && text.bytes().all(|b| b == b'o' || b == b'.') {
                    if text.len() != cells as usize {
                        return Err(fail(format!(
                            "{} cells given, the game has {cells}",
                            text.len()
                        )));
                    }
                    text.bytes()
                        .enumerate()
                        .fold(0u64, |m, (i, b)| if b == b'o' { m | 1 << i } else { m })
                } else {
                    return Err(fail(
                        "expected `start`, an integer, a list like [0,3,5] or one o/. per cell"
                            .to_string(),
                    ));
                }
            }
        };
        if !self.contains(mask) {
            return Err(fail(format!("the game has only cells 0 to {}", cells - 1)));
        }
        Ok(mask)
    }

    pub fn format_position(&self, position: u64) -> String {
        match self.definition().board {
            Board::Triangle { layers } => (0..layers)
                .map(|r| {
                    (0..=r)
                        .map(|c| {
                            if position & (1 << triangle::cell(r, c)) != 0 {
                                'o'
                            } else {
                                '.'
                            }
                        })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join("/"),
            Board::Hexagram => position.to_string(),
            Board::Custom => (0..self.cells())
                .map(|c| if position & (1 << c) != 0 { 'o' } else { '.' })
                .collect(),
        }
    }

    /// Parses a move and checks that it is legal in `position`.
    ///
    /// # Errors
    /// [`GameError::MalformedMove`] for text that names no move of the game,
    /// [`GameError::IllegalMove`] for a move whose cells are not all present.
    pub fn parse_move(&self, position: u64, text: &str) -> Result<u64, GameError> {
        let fail = |reason: String| GameError::MalformedMove {
            text: text.to_string(),
            reason,
        };
        let text = text.trim();
        let mask = match self.definition().board {
            Board::Triangle { layers } => {
                let cell = |name: &str| {
                    triangle::parse_cell(layers, name.trim()).ok_or_else(|| {
                        fail(format!(
                            "`{name}` is not a cell of the {layers}-layer triangle"
                        ))
                    })
                };
                if let Some((a, b)) = text.split_once('-') {
                    let (a, b) = (cell(a)?, cell(b)?);
                    self.moves()
                        .iter()
                        .copied()
                        .find(|&m| m & (1 << a) != 0 && m & (1 << b) != 0 && ends_of_line(m, a, b))
                        .ok_or_else(|| {
                            fail("the two cells are not the ends of one line".to_string())
                        })?
                } else {
                    text.split(',')
                        .try_fold(0u64, |m, name| Ok(m | 1 << cell(name)?))?
                }
            }
            Board::Hexagram | Board::Custom => {
                parse_cell_list(&text.replace(['+', '-'], ","), self.cells()).map_err(fail)?
            }
        };
        if !self.moves().contains(&mask) {
            return Err(fail("those cells are not one move of the game".to_string()));
        }
        if mask & position != mask {
            return Err(GameError::IllegalMove {
                text: text.to_string(),
                reason: "some of its cells are already empty".to_string(),
            });
        }
        Ok(mask)
    }

    pub fn format_move(&self, mv: u64) -> String {
        let cells: Vec<u32> = (0..self.cells()).filter(|c| mv & (1 << c) != 0).collect();
        match self.definition().board {
            Board::Triangle { .. } => match cells.as_slice() {
                [one] => triangle::cell_name(*one),
                [first, .., last] => format!(
                    "{}-{}",
                    triangle::cell_name(*first),
                    triangle::cell_name(*last)
                ),
                [] => String::new(),
            },
            Board::Hexagram | Board::Custom => cells
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("+"),
        }
    }
}

/// Whether `a` and `b` are the two extreme cells of the line move `m`.
fn ends_of_line(m: u64, a: u32, b: u32) -> bool {
    let (lo, hi) = (a.min(b), a.max(b));
    m.trailing_zeros() == lo && 63 - m.leading_zeros() == hi
}

fn parse_rows(text: &str, layers: u32) -> Result<u64, String> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != layers as usize {
        return Err(format!(
            "{} rows given, the triangle has {layers}",
            rows.len()
        ));
    }
    let mut mask = 0u64;
    for (r, row) in rows.iter().enumerate() {
        if row.chars().count() != r + 1 {
            return Err(format!(
                "row {} has {} cells, it should have {}",
                r + 1,
                row.chars().count(),
                r + 1
            ));
        }
        for (c, ch) in row.chars().enumerate() {
            match ch {
                'o' => mask |= 1 << triangle::cell(r as u32, c as u32),
                '.' => {}
                other => return Err(format!("`{other}` is neither `o` (stone) nor `.` (taken)")),
            }
        }
    }
    Ok(mask)
}

fn parse_cell_list(text: &str, cells: u32) -> Result<u64, String> {
    let mut mask = 0u64;
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let c: u32 = item
            .parse()
            .map_err(|_| format!("`{item}` is not a cell number"))?;
        if c >= cells {
            return Err(format!(
                "cell {c} does not exist (cells are 0 to {})",
                cells - 1
            ));
        }
        mask |= 1 << c;
    }
    Ok(mask)
}

#[cfg(test)]
mod tests {
    use crate::nim::{triangle, NimGame};
    use crate::GameSpec;
    use proptest::prelude::*;

    #[test]
    fn triangle_positions_read_as_written() {
        let game = triangle(3);
        assert_eq!(game.parse_position("o/oo/ooo").unwrap(), 0b111111);
        assert_eq!(game.parse_position("start").unwrap(), 0b111111);
        assert_eq!(
            game.parse_position("./.o/o..").unwrap(),
            (1 << 2) | (1 << 3)
        );
        assert_eq!(game.format_position(0b111111), "o/oo/ooo");
    }

    #[test]
    fn malformed_positions_are_refused() {
        let game = triangle(3);
        for (text, needle) in [
            ("o/oo", "2 rows given"),
            ("o/ooo/ooo", "row 2 has 3 cells"),
            ("o/ox/ooo", "`x` is neither"),
        ] {
            let err = game.parse_position(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
        let hex = NimGame::from_spec(&GameSpec::NimHexagram).unwrap();
        assert!(hex.parse_position("8192").is_err());
        assert!(hex.parse_position("[3,13]").is_err());
        assert!(hex.parse_position("abc").is_err());
        assert_eq!(hex.parse_position("[3,5,11]").unwrap(), 2088);
    }

    #[test]
    fn moves_read_as_written() {
        let game = triangle(4);
        let full = game.start();
        let line = game.parse_move(full, "d1-d4").unwrap();
        assert_eq!(line.count_ones(), 4);
        assert_eq!(game.format_move(line), "d1-d4");
        assert_eq!(
            game.parse_move(full, "b1,c2").unwrap(),
            game.parse_move(full, "b1-c2").unwrap()
        );
        assert!(game.parse_move(full, "a1-d2").is_err());
        assert!(game.parse_move(full, "b1,d4").is_err());
        assert!(game
            .parse_move(0, "a1")
            .unwrap_err()
            .to_string()
            .contains("not legal"));
    }

    proptest! {
        #[test]
        fn triangle_notation_round_trips(layers in 1u32..=9, bits in any::<u64>()) {
            let game = triangle(layers);
            let position = bits & game.start();
            let text = game.format_position(position);
            prop_assert_eq!(game.parse_position(&text).unwrap(), position);
        }

        #[test]
        fn move_notation_round_trips(layers in 1u32..=8, pick in any::<prop::sample::Index>()) {
            let game = triangle(layers);
            let mv = game.moves()[pick.index(game.moves().len())];
            prop_assert_eq!(game.parse_move(game.start(), &game.format_move(mv)).unwrap(), mv);
        }

        #[test]
        fn hexagram_notation_round_trips(position in 0u64..8192) {
            let game = NimGame::from_spec(&GameSpec::NimHexagram).unwrap();
            prop_assert_eq!(game.parse_position(&game.format_position(position)).unwrap(), position);
        }
    }
}
