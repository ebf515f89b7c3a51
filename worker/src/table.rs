//! A solved slice in memory.

use crate::nim::planes::Planes;

/// A slice's table as the engines read and write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SliceTable {
    /// One win bit per position, 64 positions per word.
    Bits(Vec<u64>),
    /// Value and depth of 64 positions per word, in bit planes.
    Depths(Vec<Planes>),
}
