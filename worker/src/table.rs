//! A solved slice in memory.

/// A slice's table as the engines read and write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SliceTable {
    /// One win bit per position, 64 positions per word.
    Bits(Vec<u64>),
    /// One value-and-depth byte per position, 64 bytes per word.
    Depths(Vec<u8>),
}
