//! The one error type of the rules crate.

use thiserror::Error;

/// Everything that can be wrong with a game spec, a game file, a position or
/// a move given by a user. Each variant hands back the offending text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    #[error("unknown game `{spec}`: {reason}")]
    UnknownSpec { spec: String, reason: String },
    #[error("game file {path}: {reason}")]
    GameFile { path: String, reason: String },
    #[error("malformed position `{text}`: {reason}")]
    MalformedPosition { text: String, reason: String },
    #[error("malformed move `{text}`: {reason}")]
    MalformedMove { text: String, reason: String },
    #[error("move `{text}` is not legal here: {reason}")]
    IllegalMove { text: String, reason: String },
    #[error("game definition: {reason}")]
    Definition { reason: String },
}
