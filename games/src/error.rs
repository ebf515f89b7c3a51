//! The one error type of the rules crate.

use thiserror::Error;

use crate::shown::{shown, shown_within, REASON_CHARS};

/// Everything that can be wrong with a game spec, a game file, a position or
/// a move given by a user. Each variant hands back the offending text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    #[error("unknown game `{}`: {}", shown(.spec), shown_within(.reason, REASON_CHARS))]
    UnknownSpec { spec: String, reason: String },
    #[error("game file {path}: {reason}")]
    GameFile { path: String, reason: String },
    #[error("malformed position `{}`: {}", shown(.text), shown_within(.reason, REASON_CHARS))]
    MalformedPosition { text: String, reason: String },
    #[error("malformed move `{}`: {}", shown(.text), shown_within(.reason, REASON_CHARS))]
    MalformedMove { text: String, reason: String },
    #[error("move `{}` is not legal here: {}", shown(.text), shown_within(.reason, REASON_CHARS))]
    IllegalMove { text: String, reason: String },
    #[error("game definition: {reason}")]
    Definition { reason: String },
}

/// Why Morris parts (the two sides' points, side to move, pieces in hand)
/// cannot make a position of a game; `B` is the side that places first.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    #[error("the two sides' points overlap or leave the board")]
    Overlap,
    #[error("{side} has {hand} pieces in hand, the game has {pieces}")]
    HandTooLarge { side: char, hand: u8, pieces: u8 },
    #[error(
        "{side} has {board} on the board and {hand} in hand, more than the {pieces} of the game"
    )]
    TooManyPieces {
        side: char,
        board: u32,
        hand: u8,
        pieces: u8,
    },
    #[error("B has placed {first} and W {second}: placements alternate, B first")]
    PlacementsOutOfTurn { first: u8, second: u8 },
    #[error("with {} and {} in hand it is {expected}'s turn to place", .hand[0], .hand[1])]
    WrongSideToPlace { hand: [u8; 2], expected: char },
}
