//! What both ends of the coordination link hold each other to: the
//! largest message, how long a call may go without an answer, and the
//! bounds of the fields that cross (the errors that refuse a field name
//! them, so they live apart from both).

use std::time::Duration;

/// Largest message either side accepts: a shard part is one block.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// How long a short call (register, lease, heartbeat, …) may take, and a
/// transfer may go without a message (fetching) or per mebibyte sent
/// (results): a coordinator that answers none within it is treated as
/// unreachable.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The most slices a worker says it holds, or is told it still reads,
/// in one lease: more than any plan has (a P = 12 Morris game has 1478).
pub const MAX_HELD: usize = 65_536;

/// Longest position, slice id or reason taken from a check report.
pub const MAX_TEXT: usize = 1000;
