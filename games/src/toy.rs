//! The rotor game: a tiny loopy game that exists to show a third family
//! going through build, query, verify and serve (spec `toy:rotor:N`, known
//! only with the `toy` feature, which the tests turn on).
//!
//! A heap of `N` tokens and a rotor pointing at 0, 1 or 2. A move either
//! turns the rotor one step (2 turns back to 0) or takes `r + 1` tokens,
//! where `r` is where the rotor points, which then points at
//! `(t + r) mod 3` of the tokens `t` there were. Who faces an empty heap
//! has lost. Turning can go on forever, so some positions are draws.
//!
//! Positions are written `t/r` (`5/1`), moves `turn` and `take`. Slice
//! `rotor-TT` holds the three positions with `t` tokens; an empty heap is
//! over and stored nowhere.

use std::fmt;

use crate::family::{Cell, Family};
use crate::fingerprint::Fnv;
use crate::{GameError, GameSpec, SliceId, SliceInfo, Value};

pub use crate::spec::MAX_TOKENS;

/// A rotor game with `tokens` tokens at the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RotorGame {
    tokens: u32,
}

/// Tokens left and where the rotor points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RotorPosition {
    pub tokens: u32,
    pub rotor: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RotorMove {
    Turn,
    Take,
}

impl fmt::Display for RotorPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.tokens, self.rotor)
    }
}

impl RotorGame {
    /// # Panics
    /// For a heap of 0 or more than [`MAX_TOKENS`] (specs are checked before).
    pub fn new(tokens: u32) -> RotorGame {
        assert!((1..=MAX_TOKENS).contains(&tokens));
        RotorGame { tokens }
    }

    fn slice_id(tokens: u32) -> SliceId {
        SliceId::new(format!("rotor-{tokens:02}"))
    }
}

impl Family for RotorGame {
    type Position = RotorPosition;
    type Move = RotorMove;

    fn spec(&self) -> GameSpec {
        GameSpec::Rotor {
            tokens: self.tokens,
        }
    }

    fn name(&self) -> String {
        format!("the rotor game, {} tokens", self.tokens)
    }

    fn fingerprint(&self) -> u64 {
        let mut hash = Fnv::default();
        hash.write(b"rotor");
        hash.write(&self.tokens.to_le_bytes());
        hash.0
    }

    fn slices(&self) -> Vec<SliceInfo> {
        (1..=self.tokens)
            .map(|t| SliceInfo {
                id: RotorGame::slice_id(t),
                positions: 3,
                entries: 3,
                kept_entries: 3,
                dependencies: (1..=3)
                    .filter(|&k| k < t)
                    .map(|k| RotorGame::slice_id(t - k))
                    .collect(),
                stones: None,
            })
            .collect()
    }

    fn start(&self) -> RotorPosition {
        RotorPosition {
            tokens: self.tokens,
            rotor: 0,
        }
    }

    fn parse_position(&self, text: &str) -> Result<RotorPosition, GameError> {
        let fail = |reason: &str| GameError::MalformedPosition {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        if text == "start" {
            return Ok(self.start());
        }
        let (tokens, rotor) = text
            .split_once('/')
            .ok_or_else(|| fail("expected TOKENS/ROTOR"))?;
        let tokens: u32 = tokens
            .parse()
            .map_err(|_| fail("tokens must be a whole number"))?;
        let rotor: u32 = rotor
            .parse()
            .map_err(|_| fail("the rotor must be 0, 1 or 2"))?;
        if tokens > self.tokens {
            return Err(fail(&format!("the game has {} tokens", self.tokens)));
        }
        if rotor > 2 {
            return Err(fail("the rotor must be 0, 1 or 2"));
        }
        Ok(RotorPosition { tokens, rotor })
    }

    fn format_position(&self, position: &RotorPosition) -> String {
        position.to_string()
    }

    fn format_move(&self, mv: &RotorMove) -> String {
        match mv {
            RotorMove::Turn => "turn".to_string(),
            RotorMove::Take => "take".to_string(),
        }
    }

    fn moves(&self, p: &RotorPosition) -> Vec<(RotorMove, RotorPosition)> {
        if p.tokens == 0 {
            return Vec::new();
        }
        let turned = RotorPosition {
            rotor: (p.rotor + 1) % 3,
            ..*p
        };
        let mut moves = vec![(RotorMove::Turn, turned)];
        let take = p.rotor + 1;
        if take <= p.tokens {
            let taken = RotorPosition {
                tokens: p.tokens - take,
                rotor: (p.tokens + p.rotor) % 3,
            };
            moves.push((RotorMove::Take, taken));
        }
        moves
    }

    fn terminal(&self, position: &RotorPosition) -> Option<Value> {
        (position.tokens == 0).then_some(Value::Loss)
    }

    fn locate(&self, p: &RotorPosition) -> Option<Cell> {
        (p.tokens > 0).then(|| Cell {
            slice: p.tokens - 1,
            entry: u64::from(p.rotor),
        })
    }

    fn position_at(&self, cell: Cell) -> Option<RotorPosition> {
        (cell.slice < self.tokens && cell.entry < 3).then(|| RotorPosition {
            tokens: cell.slice + 1,
            rotor: cell.entry as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_positions_match() {
        let game = RotorGame::new(9);
        for (i, slice) in game.slices().iter().enumerate() {
            for entry in 0..slice.entries {
                let cell = Cell {
                    slice: i as u32,
                    entry,
                };
                let position = game.position_at(cell).unwrap();
                assert_eq!(game.locate(&position), Some(cell));
                let text = game.format_position(&position);
                assert_eq!(game.parse_position(&text), Ok(position));
            }
        }
        assert!(game.position_at(Cell { slice: 9, entry: 0 }).is_none());
        assert!(game.locate(&game.parse_position("0/2").unwrap()).is_none());
    }

    #[test]
    fn moves_follow_the_rules() {
        let game = RotorGame::new(9);
        let moves = game.moves(&RotorPosition {
            tokens: 5,
            rotor: 2,
        });
        let texts: Vec<String> = moves
            .iter()
            .map(|(m, p)| format!("{} {p}", game.format_move(m)))
            .collect();
        assert_eq!(texts, ["turn 5/0", "take 2/1"]);
        assert_eq!(
            game.moves(&RotorPosition {
                tokens: 1,
                rotor: 1
            })
            .len(),
            1
        );
        assert!(game
            .moves(&RotorPosition {
                tokens: 0,
                rotor: 0
            })
            .is_empty());
    }

    #[test]
    fn bad_text_is_named() {
        let game = RotorGame::new(4);
        for bad in ["", "5/0", "1/3", "x/1", "1/", "1-0"] {
            assert!(game.parse_position(bad).is_err(), "{bad}");
        }
    }
}
