//! Why a message from the wire does not become a domain value: every
//! incoming conversion of this crate says so with a [`WireError`], whose
//! text the peer or the person is shown.

use egdb_games::checked::EXAMPLES;
use egdb_games::NotASliceId;

use crate::wire_limits::{MAX_HELD, MAX_TEXT};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WireError {
    #[error(transparent)]
    NotASliceId(#[from] NotASliceId),
    #[error("unknown encoding {0}")]
    UnknownEncoding(u32),
    #[error("block {0} out of order")]
    BlockOutOfOrder(u32),
    #[error("result carries no shard")]
    NoShard,
    #[error("result carries no counts")]
    NoCounts,
    /// `what` is "a solve time" or "a check time".
    #[error("{what} of {seconds} is not a number of seconds")]
    NotSeconds { what: &'static str, seconds: f64 },
    /// A status's durations: `what` names which.
    #[error("{what} of {seconds} s")]
    NotADuration { what: &'static str, seconds: f64 },
    #[error("{what} longer than {MAX_TEXT} bytes")]
    TooLong { what: &'static str },
    #[error("{0} examples; at most {EXAMPLES}")]
    TooManyExamples(usize),
    #[error("a mismatch without its expected value")]
    NoExpected,
    #[error("a reply without its probe")]
    NoProbe,
    #[error("value {0} names no game value")]
    UnknownValue(i32),
    #[error("{0} slices in one list; at most {MAX_HELD}")]
    TooManySlices(usize),
}
