//! A take-away game as data: its board, cells, rule, moves, start and
//! symmetries, as a game file or a preset gives them.

use super::{hexagram, symmetry, triangle};
use crate::Rule;

/// Cells a game may have: the 9-layer triangle's 45. Its 2^45 positions
/// are past any machine's memory already, and the layout's rank tables
/// grow as 2^(cells − 21) (past 45 cells they would not fit either).
pub const MAX_CELLS: u32 = 45;

/// Which notation the game's positions and moves use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    /// Rows `o/oo/ooo`, cells named `a1`, `b2`, moves `c1-c3`.
    Triangle { layers: u32 },
    /// Positions as the integer Σ 2^i over ringed points, moves `2+5`.
    Hexagram,
    /// Positions as one `o`/`.` per cell, moves `0+3`.
    Custom,
}

/// A take-away game as data: what a game file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NimDefinition {
    pub name: String,
    pub board: Board,
    pub cells: u32,
    pub rule: Rule,
    /// Each move as a mask of the cells it empties.
    pub moves: Vec<u64>,
    pub start: u64,
    /// Cell permutations (image of cell `i` at index `i`) that map moves to moves.
    pub symmetries: Vec<Vec<u32>>,
}

impl NimDefinition {
    pub fn triangle(layers: u32, rule: Rule) -> NimDefinition {
        let cells = triangle::cell_count(layers);
        NimDefinition {
            name: format!("Triangular Nim, {layers} layers, {} rule", rule.as_str()),
            board: Board::Triangle { layers },
            cells,
            rule,
            moves: triangle::moves(layers),
            start: (1u64 << cells) - 1,
            symmetries: triangle::symmetries(layers),
        }
    }

    pub fn hexagram() -> NimDefinition {
        let moves = hexagram::moves();
        NimDefinition {
            name: "hexagram ring game".to_string(),
            board: Board::Hexagram,
            cells: hexagram::POINTS,
            rule: Rule::Misere,
            symmetries: symmetry::automorphisms(hexagram::POINTS, &moves),
            moves,
            start: (1u64 << hexagram::POINTS) - 1,
        }
    }
}
