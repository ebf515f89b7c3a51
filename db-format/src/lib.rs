//! The on-disk format of egdb stores; it knows nothing of game rules.
//!
//! * [`encoding`] — how one position's value (and depth) is held in bits.
//! * [`block`] — the block record: header, payload (zstd, or [`tabled`]
//!   and [`ranked`] for two-byte cells), CRC-32.
//! * [`store`] — the RocksDB layout: store identity, build manifest, blocks.
//! * [`backup`] — backups of a store taken while it is built, and restores.
//!
//! The format is documented in `docs/FORMAT.md`; [`FORMAT_VERSION`] changes
//! whenever it does.

#[cfg(feature = "store")]
pub mod backup;
pub mod block;
mod code_tree;
mod counts;
pub mod encoding;
pub mod error;
mod parts;
mod range_coder;
pub mod ranked;
#[cfg(feature = "store")]
pub mod store;
pub mod symbols;
pub mod tabled;

#[cfg(feature = "store")]
pub use backup::{BackupEntry, Backups};
pub use block::{
    block_codec, block_len, block_size_fault, check_block, decode_block, decode_block_part,
    encode_block, layout_fault, max_record_len, rank_block, BlockPart, BlockRecord, Codec, Packing,
    MAX_BLOCK_BYTES,
};
pub use counts::SliceCounts;
pub use encoding::{CellEncoding, ValueCode};
pub use error::FormatError;
#[cfg(feature = "store")]
pub use store::{SliceRecord, SolvedBy, Store, StoreIdentity, MAX_STORE_SLICES};

/// Version of the block records and the store layout written today.
/// Format 3 added ranked blocks (two-byte cells range-coded, in parts that
/// decode alone); format 4 tabled ones (the same ranks under fixed
/// chances, rANS), which it writes instead.
pub const FORMAT_VERSION: u16 = 4;

/// The oldest version still read: a format-2 store differs only in that
/// every block is zstd (the codec byte held its level).
pub const OLDEST_FORMAT_VERSION: u16 = 2;

/// Raw bytes per block: small enough that a probe decompresses little,
/// large enough that zstd finds its patterns.
pub const DEFAULT_BLOCK_BYTES: usize = 64 * 1024;
