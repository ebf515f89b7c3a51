//! A plain solver to check the engines against: every position in increasing
//! order of its mask (a move always yields a smaller mask), every move tried.
//! Slow and obviously right; for games of up to about 20 cells.

use super::NimGame;
use crate::Value;

/// Value and depth (plies to the end under perfect play) of every position,
/// indexed by the position's mask.
pub fn solve(game: &NimGame) -> Vec<(Value, u32)> {
    let mut table: Vec<(Value, u32)> = Vec::with_capacity(game.position_count() as usize);
    for position in 0..game.position_count() {
        let children: Vec<(Value, u32)> = game
            .legal_moves(position)
            .map(|m| table[(position ^ m) as usize])
            .collect();
        let entry = if children.is_empty() {
            (game.terminal_value(), 0)
        } else if let Some(fastest) = children
            .iter()
            .filter(|c| c.0 == Value::Loss)
            .map(|c| c.1)
            .min()
        {
            (Value::Win, fastest + 1)
        } else {
            (
                Value::Loss,
                children.iter().map(|c| c.1).max().unwrap_or(0) + 1,
            )
        };
        table.push(entry);
    }
    table
}
