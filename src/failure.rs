//! How a command fails: a one-line message and an exit status. Bad input
//! (a spec, position, file or store that is not what the command needs)
//! exits with 2; failures of the work itself with 1.

use egdb_coordinator::CoordinatorError;
use egdb_db_format::FormatError;
use egdb_games::GameError;
use egdb_tablebase::TablebaseError;

/// What a command gives back: its exit status, or why it failed.
pub type Exit = Result<i32, Failure>;

#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub bad_input: bool,
}

impl Failure {
    pub fn bad_input(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            bad_input: true,
        }
    }

    pub fn failed(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            bad_input: false,
        }
    }

    pub fn exit_code(&self) -> i32 {
        if self.bad_input {
            2
        } else {
            1
        }
    }
}

impl From<GameError> for Failure {
    fn from(e: GameError) -> Failure {
        Failure::bad_input(e.to_string())
    }
}

impl From<FormatError> for Failure {
    fn from(e: FormatError) -> Failure {
        let bad_input = matches!(
            e,
            FormatError::NotAStore { .. }
                | FormatError::OtherGame { .. }
                | FormatError::Version { .. }
                | FormatError::Open { .. }
        );
        Failure {
            message: e.to_string(),
            bad_input,
        }
    }
}

impl From<CoordinatorError> for Failure {
    fn from(e: CoordinatorError) -> Failure {
        match e {
            CoordinatorError::Game(e) => e.into(),
            CoordinatorError::Format(e) => e.into(),
            // The budget is the command's own --memory: nothing was written.
            e @ (CoordinatorError::Unreusable { .. } | CoordinatorError::OverBudget { .. }) => {
                Failure::bad_input(e.to_string())
            }
            other => Failure::failed(other.to_string()),
        }
    }
}

impl From<TablebaseError> for Failure {
    fn from(e: TablebaseError) -> Failure {
        match e {
            TablebaseError::Game(e) => e.into(),
            TablebaseError::Format(e) => e.into(),
            e @ (TablebaseError::BookTooLarge { .. } | TablebaseError::NotAMove { .. }) => {
                Failure::bad_input(e.to_string())
            }
            other => Failure::failed(other.to_string()),
        }
    }
}
