//! Per-slice counts.

use serde::{Deserialize, Serialize};

/// Per-slice counts, as `egdb stats` prints them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SliceCounts {
    /// Every arrangement once.
    pub positions: u64,
    pub win: u64,
    pub loss: u64,
    pub draw: u64,
    /// Symmetry classes once (absent where the classes were not counted).
    pub canonical_positions: Option<u64>,
    pub canonical_win: Option<u64>,
    pub canonical_loss: Option<u64>,
    pub canonical_draw: Option<u64>,
    pub max_depth: Option<u32>,
}
