//! Morris positions: who stands where, what is still in hand, who moves, and
//! the notation of RULES.md (`<24 points> <b|w> <hand B> <hand W>`, `start`).

use std::fmt;

use super::board::{Point, PointSet, NOTATION_ORDER, POINTS};
use super::rules::MorrisRules;
use crate::{GameError, PositionError};

/// The two players; the first player (`B`) moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Color {
    First,
    Second,
}

impl Color {
    pub const fn other(self) -> Color {
        match self {
            Color::First => Color::Second,
            Color::Second => Color::First,
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// Which phase a position is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Pieces are still in hand; `ply` placements have been made.
    Placement {
        ply: u32,
    },
    /// Pieces are still in hand where placing and moving mix (RULES.md
    /// §3a): who places and who moves follows from the hands.
    Hands,
    Movement,
}

/// A legal arrangement: validated against the rules it was made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    board: [PointSet; 2],
    hand: [u8; 2],
    to_move: Color,
}

impl Position {
    /// The empty board, both hands full, the first player to move.
    pub fn start(rules: &MorrisRules) -> Position {
        Position {
            board: [PointSet::EMPTY; 2],
            hand: rules.start_hands(),
            to_move: Color::First,
        }
    }

    /// A position from its parts, checked against `rules`.
    ///
    /// # Errors
    /// The reason the parts cannot occur in a game under `rules`.
    pub fn new(
        rules: &MorrisRules,
        first: PointSet,
        second: PointSet,
        to_move: Color,
        hand: [u8; 2],
    ) -> Result<Position, PositionError> {
        if !first.intersection(second).is_empty() || !first.union(second).is_subset(PointSet::FULL)
        {
            return Err(PositionError::Overlap);
        }
        let [first_pieces, second_pieces] = rules.start_hands();
        for (side, board, hand, pieces) in [
            ('B', first, hand[0], first_pieces),
            ('W', second, hand[1], second_pieces),
        ] {
            if hand > pieces {
                return Err(PositionError::HandTooLarge { side, hand, pieces });
            }
            if board.len() + u32::from(hand) > u32::from(pieces) {
                return Err(PositionError::TooManyPieces {
                    side,
                    board: board.len(),
                    hand,
                    pieces,
                });
            }
        }
        let placed = [first_pieces - hand[0], second_pieces - hand[1]];
        // Where placing and moving mix, any hands may meet either side to
        // move: the stores hold every start up to the game's.
        if hand != [0, 0] && !rules.mixes_hands() {
            let expected = match placed[0].checked_sub(placed[1]) {
                Some(0) => Color::First,
                Some(1) => Color::Second,
                _ => {
                    return Err(PositionError::PlacementsOutOfTurn {
                        first: placed[0],
                        second: placed[1],
                    })
                }
            };
            if to_move != expected {
                return Err(PositionError::WrongSideToPlace {
                    hand,
                    expected: if expected == Color::First { 'B' } else { 'W' },
                });
            }
        }
        Ok(Position {
            board: [first, second],
            hand,
            to_move,
        })
    }

    /// Parses `start` or `<24 points> <b|w> <hand B> <hand W>`.
    ///
    /// # Errors
    /// [`GameError::MalformedPosition`] naming what is wrong.
    pub fn parse(rules: &MorrisRules, text: &str) -> Result<Position, GameError> {
        let fail = |reason: String| GameError::MalformedPosition {
            text: text.to_string(),
            reason,
        };
        let trimmed = text.trim();
        if trimmed == "start" {
            return Ok(Position::start(rules));
        }
        let fields: Vec<&str> = trimmed.split_whitespace().collect();
        let [points, side, hand_first, hand_second] = fields.as_slice() else {
            return Err(fail(format!(
                "expected `start` or 4 fields (24 points, b|w, pieces in hand of B and W), \
                 found {}",
                fields.len()
            )));
        };
        let chars: Vec<char> = points.chars().collect();
        if chars.len() != POINTS {
            return Err(fail(format!(
                "the board needs 24 points (a1 d1 g1 … d7 g7), found {}",
                chars.len()
            )));
        }
        let mut board = [PointSet::EMPTY; 2];
        for (&c, &n) in chars.iter().zip(NOTATION_ORDER.iter()) {
            let point = Point::new(n).expect("notation order names board points");
            match c {
                'B' => board[0] = board[0].with(point),
                'W' => board[1] = board[1].with(point),
                '.' => {}
                other => return Err(fail(format!("point {point} is `{other}`; use B, W or ."))),
            }
        }
        let to_move = match *side {
            "b" => Color::First,
            "w" => Color::Second,
            other => return Err(fail(format!("side to move must be b or w, not `{other}`"))),
        };
        let hand_of = |field: &str, name: &str| {
            crate::spec::whole_number::<u8>(field).ok_or_else(|| {
                fail(format!(
                    "{name}'s pieces in hand must be a number, not `{field}`"
                ))
            })
        };
        let hand = [hand_of(hand_first, "B")?, hand_of(hand_second, "W")?];
        Position::new(rules, board[0], board[1], to_move, hand).map_err(|e| fail(e.to_string()))
    }

    pub fn to_move(&self) -> Color {
        self.to_move
    }

    pub fn board(&self, color: Color) -> PointSet {
        self.board[color.index()]
    }

    pub fn hand(&self, color: Color) -> u8 {
        self.hand[color.index()]
    }

    /// The side to move's pieces and the other side's.
    pub fn sides(&self) -> (PointSet, PointSet) {
        (self.board(self.to_move), self.board(self.to_move.other()))
    }

    pub fn phase(&self, rules: &MorrisRules) -> Phase {
        if self.hand == [0, 0] {
            Phase::Movement
        } else if rules.mixes_hands() {
            Phase::Hands
        } else {
            Phase::Placement {
                ply: self.ply(rules),
            }
        }
    }

    /// Placements made so far: 2P once the movement phase has begun (in
    /// the two-phase game, where the hands give it).
    pub fn ply(&self, rules: &MorrisRules) -> u32 {
        2 * u32::from(rules.pieces) - u32::from(self.hand[0] + self.hand[1])
    }

    /// The position after the side to move's pieces become `mover` and the
    /// other side's `opponent`, with a piece taken from hand when `placed`;
    /// the other side moves next.
    pub(crate) fn after(&self, mover: PointSet, opponent: PointSet, placed: bool) -> Position {
        let me = self.to_move;
        let mut next = *self;
        next.board[me.index()] = mover;
        next.board[me.other().index()] = opponent;
        if placed {
            next.hand[me.index()] -= 1;
        }
        next.to_move = me.other();
        next
    }

    /// The same hands and side to move with the boards `first` and
    /// `second`: an image of the position under a board symmetry, which
    /// keeps it legal.
    pub(crate) fn with_boards(&self, first: PointSet, second: PointSet) -> Position {
        Position {
            board: [first, second],
            ..*self
        }
    }

    /// The same position with the roles given by the mover's and the
    /// opponent's sets; used by the engines to rebuild a position.
    pub fn from_sides(
        rules: &MorrisRules,
        mover: PointSet,
        opponent: PointSet,
        to_move: Color,
        hand: [u8; 2],
    ) -> Result<Position, PositionError> {
        let (first, second) = match to_move {
            Color::First => (mover, opponent),
            Color::Second => (opponent, mover),
        };
        Position::new(rules, first, second, to_move, hand)
    }
}

/// Who moves, and the hands first player first, for a position where the
/// side to move and the other side hold `pieces` (board and hand) and the
/// hands `[mover's, other's]`: the first player where the starts allow,
/// else the second (a cell stands for both colours' positions).
pub fn colours_of(rules: &MorrisRules, pieces: [u32; 2], hands: [u8; 2]) -> (Color, [u8; 2]) {
    let [k, l] = rules.start_hands().map(u32::from);
    if pieces[0] <= k && pieces[1] <= l {
        (Color::First, hands)
    } else {
        (Color::Second, [hands[1], hands[0]])
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &n in &NOTATION_ORDER {
            let point = Point::new(n).expect("notation order names board points");
            let c = if self.board[0].contains(point) {
                'B'
            } else if self.board[1].contains(point) {
                'W'
            } else {
                '.'
            };
            write!(f, "{c}")?;
        }
        let side = match self.to_move {
            Color::First => 'b',
            Color::Second => 'w',
        };
        write!(f, " {side} {} {}", self.hand[0], self.hand[1])
    }
}
