//! Slices: the unit of scheduling, storage and verification.

use std::fmt;

/// A slice's stable, human-readable id, e.g. `outer-07`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SliceId(String);

impl SliceId {
    pub fn new(id: impl Into<String>) -> SliceId {
        SliceId(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SliceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a scheduler needs to know of a slice before anyone solves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliceInfo {
    pub id: SliceId,
    /// Positions in the slice, every arrangement once.
    pub positions: u64,
    /// Cells of the slice's table as stored: Nim has 64 per word (some
    /// unused where a word holds fewer positions), Morris one per index
    /// entry of each table.
    pub entries: u64,
    /// Cells a worker holds of the table while solving with depths: Nim
    /// depth tables keep one row of each symmetry orbit; else `entries`.
    pub kept_entries: u64,
    /// Slices whose values this one reads; all come earlier in the plan.
    pub dependencies: Vec<SliceId>,
    /// Stones left outside the word block (Nim).
    pub stones: Option<u32>,
}
