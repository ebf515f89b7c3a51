//! Perfect play from a position: the winner takes the quickest win, the
//! loser the longest defence, a drawn side keeps the draw.

use egdb_games::{with_game, Family, Value};

use super::{Probe, Tablebase};
use crate::TablebaseError;

/// One ply of a line: the move and the probe of the position it leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineStep {
    pub mv: String,
    /// The position after the move, in notation.
    pub position: String,
    /// Its probe, from the next mover's view.
    pub probe: Probe,
}

/// Which of the moves (given by the probes they lead to) perfect play
/// takes from a position of value `value`; `None` when there is no move.
pub fn best_move(value: Value, successors: &[Probe]) -> Option<usize> {
    let depth = |i: usize| successors[i].depth.unwrap_or(0);
    let with = |v: Value| (0..successors.len()).filter(move |&i| successors[i].value == v);
    match value {
        Value::Win => with(Value::Loss).min_by_key(|&i| depth(i)),
        Value::Loss => with(Value::Win).max_by_key(|&i| depth(i)),
        Value::Draw => with(Value::Draw).next(),
    }
    .or((!successors.is_empty()).then_some(0))
}

impl Tablebase {
    /// The perfect-play line from a position in notation, to the end of the
    /// game or `max_plies` plies, whichever comes first.
    ///
    /// # Errors
    /// As [`Tablebase::answer`].
    pub fn line(&self, text: &str, max_plies: u32) -> Result<Vec<LineStep>, TablebaseError> {
        with_game!(&self.game, g => self.line_in(g, text, max_plies))
    }

    fn line_in<F: Family>(
        &self,
        game: &F,
        text: &str,
        max_plies: u32,
    ) -> Result<Vec<LineStep>, TablebaseError> {
        let mut position = game.parse_position(text)?;
        let mut steps = Vec::new();
        while steps.len() < max_plies as usize {
            let value = self.probe_in(game, &position)?.value;
            let mut moves = game.moves(&position);
            let probes = moves
                .iter()
                .map(|(_, next)| self.probe_in(game, next))
                .collect::<Result<Vec<_>, _>>()?;
            let Some(i) = best_move(value, &probes) else {
                break;
            };
            let (mv, next) = moves.swap_remove(i);
            position = next;
            steps.push(LineStep {
                mv: game.format_move(&mv),
                position: game.format_position(&position),
                probe: probes[i],
            });
        }
        Ok(steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(value: Value, depth: Option<u32>) -> Probe {
        Probe { value, depth }
    }

    #[test]
    fn the_winner_hurries_the_loser_holds_out() {
        let moves = [
            p(Value::Win, Some(3)),
            p(Value::Loss, Some(4)),
            p(Value::Loss, Some(2)),
            p(Value::Win, Some(7)),
            p(Value::Draw, None),
        ];
        assert_eq!(best_move(Value::Win, &moves), Some(2));
        assert_eq!(best_move(Value::Draw, &moves), Some(4));
        let all_won = [p(Value::Win, Some(3)), p(Value::Win, Some(9))];
        assert_eq!(best_move(Value::Loss, &all_won), Some(1));
        assert_eq!(best_move(Value::Win, &[]), None);
    }
}
