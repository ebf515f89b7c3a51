//! Block records: the unit of compression and of checksum verification.
//!
//! ```text
//! offset  size  field
//! 0       4     magic "EGBK"
//! 4       2     format version, little-endian
//! 6       1     cell encoding tag
//! 7       1     payload codec: 0 = one zstd frame of the raw bytes,
//!               1 = ranked (two-byte cells, `ranked.rs`), 2 = tabled
//!               (two-byte cells, `tabled.rs`, since format 4); in format
//!               2 the zstd level (the payload always zstd)
//! 8       4     block index within its slice
//! 12      4     raw length in bytes
//! 16      4     payload length in bytes
//! 20      n     payload
//! 20+n    4     CRC-32 (IEEE) of bytes 0 .. 20+n
//! ```

use std::cell::RefCell;

use crate::ranked::{self, PART_BYTES};
use crate::tabled;
use crate::{CellEncoding, FormatError, FORMAT_VERSION, OLDEST_FORMAT_VERSION};

const MAGIC: &[u8; 4] = b"EGBK";
const HEADER: usize = 20;

/// A decoded block record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockRecord {
    pub index: u32,
    pub encoding: CellEncoding,
    pub raw: Vec<u8>,
}

/// How a block's payload holds its raw bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// One zstd frame.
    Zstd,
    /// Ranks among the block's distinct two-byte cells, range-coded in
    /// parts that decode alone (`ranked.rs`): what format 3 wrote.
    Ranked,
    /// Ranks as above, coded with rANS under the block's own fixed
    /// chances (`tabled.rs`): decodes several times quicker than
    /// `Ranked`, what format 4 writes.
    Tabled,
}

impl Codec {
    fn tag(self) -> u8 {
        match self {
            Codec::Zstd => 0,
            Codec::Ranked => 1,
            Codec::Tabled => 2,
        }
    }
}

/// How a block is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// zstd at this level: several times quicker to read back than
    /// ranked, for tables that slices still to be solved will read.
    Quick(i32),
    /// For finished tables: two-byte cells (Morris) tabled where that is
    /// smaller than the raw bytes, everything else zstd at this level.
    Small(i32),
}

/// Compresses one block of raw bytes into a record, as `packing` says.
///
/// # Errors
/// Only if zstd fails, which it does not for in-memory buffers in practice.
pub fn encode_block(
    index: u32,
    encoding: CellEncoding,
    raw: &[u8],
    packing: Packing,
) -> Result<Vec<u8>, FormatError> {
    let level = match packing {
        Packing::Small(level) => {
            if let Some(record) = tabled_record(index, encoding, raw) {
                return Ok(record);
            }
            level
        }
        Packing::Quick(level) => level,
    };
    let payload = compress(raw, level).map_err(|e| FormatError::io("zstd compression", e))?;
    Ok(record_of(index, encoding, raw.len(), Codec::Zstd, &payload))
}

/// The tabled record of a block of two-byte cells, when that makes it
/// smaller than its raw bytes.
fn tabled_record(index: u32, encoding: CellEncoding, raw: &[u8]) -> Option<Vec<u8>> {
    (encoding == CellEncoding::ValueDepth16)
        .then(|| tabled::encode(raw))
        .flatten()
        .filter(|payload| payload.len() <= raw.len())
        .map(|payload| record_of(index, encoding, raw.len(), Codec::Tabled, &payload))
}

/// A zstd block of two-byte cells re-encoded by ranks (tabled), once that
/// record is checked to decode to the same bytes; `None` when the block is
/// coded by ranks already (either codec), is not of two-byte cells, or
/// would not be smaller. Checked as [`decode_block`] first.
///
/// # Errors
/// As [`decode_block`]; [`FormatError::Corrupt`] if the new record does
/// not give the block's bytes back (an encoder fault: the block is then
/// kept as it was).
pub fn rank_block(
    slice: &str,
    index: u32,
    expected_len: u64,
    record: &[u8],
) -> Result<Option<Vec<u8>>, FormatError> {
    let (encoding, codec, _) = checked(slice, index, expected_len, record)?;
    if encoding != CellEncoding::ValueDepth16 || codec != Codec::Zstd {
        return Ok(None);
    }
    let raw = decode_block(slice, index, expected_len, record)?.raw;
    let Some(tabled) = tabled_record(index, encoding, &raw) else {
        return Ok(None);
    };
    if decode_block(slice, index, expected_len, &tabled)?.raw != raw {
        return Err(FormatError::Corrupt {
            slice: slice.to_string(),
            block: Some(index),
            reason: "its tabled record decodes to other bytes; kept as zstd".to_string(),
        });
    }
    Ok(Some(tabled))
}

/// The codec of a record that passes [`check_block`].
///
/// # Errors
/// As [`check_block`].
pub fn block_codec(
    slice: &str,
    index: u32,
    expected_len: u64,
    record: &[u8],
) -> Result<Codec, FormatError> {
    checked(slice, index, expected_len, record).map(|(_, codec, _)| codec)
}

fn record_of(
    index: u32,
    encoding: CellEncoding,
    raw_len: usize,
    codec: Codec,
    payload: &[u8],
) -> Vec<u8> {
    let mut record = Vec::with_capacity(HEADER + payload.len() + 4);
    record.extend_from_slice(MAGIC);
    record.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    record.push(encoding.tag());
    record.push(codec.tag());
    record.extend_from_slice(&index.to_le_bytes());
    record.extend_from_slice(&(raw_len as u32).to_le_bytes());
    record.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    record.extend_from_slice(payload);
    let crc = crc32fast::hash(&record);
    record.extend_from_slice(&crc.to_le_bytes());
    record
}

/// Whether a record's trailing CRC-32 matches the rest: the cheap check,
/// without decompressing.
pub fn checksum_holds(record: &[u8]) -> bool {
    let Some(split) = record.len().checked_sub(4) else {
        return false;
    };
    let (body, crc) = record.split_at(split);
    crc32fast::hash(body) == u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]])
}

/// The largest block a record may announce. Blocks are written at
/// [`crate::DEFAULT_BLOCK_BYTES`]; a larger announcement is not ours, and is
/// refused before anything is allocated or inflated.
pub const MAX_BLOCK_BYTES: u64 = 16 << 20;

/// Why `block_bytes` is no block size, if it is not: 1 to
/// [`MAX_BLOCK_BYTES`].
pub fn block_size_fault(block_bytes: u64) -> Option<String> {
    (block_bytes == 0 || block_bytes > MAX_BLOCK_BYTES)
        .then(|| format!("block size {block_bytes} is not between 1 and {MAX_BLOCK_BYTES} bytes"))
}

/// Why a slice of `raw_len` bytes cannot be cut into `blocks` blocks of
/// `block_bytes` (the last one shorter); `None` when it can.
pub fn layout_fault(raw_len: u64, block_bytes: u64, blocks: u64) -> Option<String> {
    if let Some(fault) = block_size_fault(block_bytes) {
        return Some(fault);
    }
    let needed = raw_len.div_ceil(block_bytes);
    (blocks != needed).then(|| {
        format!("{blocks} blocks for {raw_len} bytes in blocks of {block_bytes} (needs {needed})")
    })
}

/// Raw bytes of block `index` of a slice laid out as [`layout_fault`]
/// accepts: `block_bytes`, the last one what is left.
pub fn block_len(raw_len: u64, block_bytes: u64, index: u32) -> u64 {
    raw_len
        .saturating_sub(u64::from(index) * block_bytes)
        .min(block_bytes)
}

/// The longest record a block of `raw_len` raw bytes can make: the header,
/// zstd's worst case for that input (`ZSTD_COMPRESSBOUND`) and the
/// checksum. A longer record is refused before it is kept.
pub fn max_record_len(raw_len: u64) -> u64 {
    const SMALL: u64 = 128 << 10;
    let margin = if raw_len < SMALL {
        (SMALL - raw_len) >> 11
    } else {
        0
    };
    HEADER as u64 + raw_len + (raw_len >> 8) + margin + 4
}

/// Checks a block record without decompressing it: length, checksum,
/// magic, version, index, and that it announces `expected_len` raw bytes
/// (the caller knows the slice's layout). Returns its encoding and payload.
///
/// # Errors
/// As [`decode_block`].
pub fn check_block<'a>(
    slice: &str,
    expected_index: u32,
    expected_len: u64,
    record: &'a [u8],
) -> Result<(CellEncoding, &'a [u8]), FormatError> {
    checked(slice, expected_index, expected_len, record)
        .map(|(encoding, _, payload)| (encoding, payload))
}

/// [`check_block`], with the payload's codec.
fn checked<'a>(
    slice: &str,
    expected_index: u32,
    expected_len: u64,
    record: &'a [u8],
) -> Result<(CellEncoding, Codec, &'a [u8]), FormatError> {
    let corrupt = |reason: String| FormatError::Corrupt {
        slice: slice.to_string(),
        block: Some(expected_index),
        reason,
    };
    if record.len() < HEADER + 4 {
        return Err(corrupt(format!(
            "record of {} bytes is truncated",
            record.len()
        )));
    }
    if !checksum_holds(record) {
        return Err(corrupt("checksum mismatch".to_string()));
    }
    let body = &record[..record.len() - 4];
    if &body[0..4] != MAGIC {
        return Err(corrupt("bad magic".to_string()));
    }
    let version = u16::from_le_bytes([body[4], body[5]]);
    if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(FormatError::Version {
            path: format!("block {expected_index} of slice {slice}"),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let encoding = CellEncoding::from_tag(body[6])
        .ok_or_else(|| corrupt(format!("unknown encoding {}", body[6])))?;
    let codec = match (version, body[7]) {
        // Format 2 kept the zstd level there.
        (2, _) | (_, 0) => Codec::Zstd,
        (_, 1) if encoding == CellEncoding::ValueDepth16 => Codec::Ranked,
        (4.., 2) if encoding == CellEncoding::ValueDepth16 => Codec::Tabled,
        (_, tag) => {
            return Err(corrupt(format!(
                "unknown codec {tag} for {encoding:?} cells"
            )))
        }
    };
    let word = |at: usize| u32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]]);
    let index = word(8);
    if index != expected_index {
        return Err(corrupt(format!("record says it is block {index}")));
    }
    let raw_len = u64::from(word(12));
    if raw_len != expected_len {
        return Err(corrupt(format!(
            "announces {raw_len} raw bytes, the slice's layout {expected_len}"
        )));
    }
    let payload_len = word(16) as usize;
    if HEADER + payload_len != body.len() {
        return Err(corrupt(format!(
            "payload length {payload_len} does not match the record"
        )));
    }
    Ok((encoding, codec, &body[HEADER..]))
}

/// Checks and decompresses a block record that must hold `expected_len`
/// raw bytes (at most [`MAX_BLOCK_BYTES`]). `slice` only names it in errors.
///
/// # Errors
/// [`FormatError::Corrupt`] when the record is truncated, its checksum
/// fails, its header is inconsistent or announces another length, or its
/// payload does not decompress to that length; [`FormatError::Version`]
/// for another format version.
pub fn decode_block(
    slice: &str,
    expected_index: u32,
    expected_len: u64,
    record: &[u8],
) -> Result<BlockRecord, FormatError> {
    let (encoding, part) = decode(slice, expected_index, expected_len, record, None)?;
    Ok(BlockRecord {
        index: expected_index,
        encoding,
        raw: part.raw,
    })
}

/// Raw bytes of a block from one part on: the part alone when the codec
/// decodes parts apart, else the whole block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockPart {
    /// The first part held: `raw` starts at byte `first * PART_BYTES` of
    /// the block.
    pub first: u32,
    pub raw: Vec<u8>,
}

/// The part of a block holding byte `at` of it ([`PART_BYTES`] raw bytes
/// each), decoded alone where its codec allows; checked as [`decode_block`].
///
/// # Errors
/// As [`decode_block`].
pub fn decode_block_part(
    slice: &str,
    expected_index: u32,
    expected_len: u64,
    record: &[u8],
    at: u64,
) -> Result<BlockPart, FormatError> {
    let part = u32::try_from(at / PART_BYTES as u64).unwrap_or(u32::MAX);
    decode(slice, expected_index, expected_len, record, Some(part)).map(|(_, part)| part)
}

fn decode(
    slice: &str,
    expected_index: u32,
    expected_len: u64,
    record: &[u8],
    part: Option<u32>,
) -> Result<(CellEncoding, BlockPart), FormatError> {
    let corrupt = |reason: String| FormatError::Corrupt {
        slice: slice.to_string(),
        block: Some(expected_index),
        reason,
    };
    if expected_len > MAX_BLOCK_BYTES {
        return Err(corrupt(format!(
            "a block of {expected_len} bytes is larger than {MAX_BLOCK_BYTES}"
        )));
    }
    let (encoding, codec, payload) = checked(slice, expected_index, expected_len, record)?;
    let raw_len = expected_len as usize;
    let parts = raw_len.div_ceil(PART_BYTES).max(1);
    if let Some(part) = part.filter(|&p| p as usize >= parts) {
        return Err(corrupt(format!("part {part} asked of a block of {parts}")));
    }
    let (first, raw) = match (codec, part) {
        (Codec::Zstd, _) => (
            0,
            decompress(payload, raw_len).map_err(|e| corrupt(format!("zstd: {e}")))?,
        ),
        (Codec::Ranked, None) => (
            0,
            ranked::decode(payload, raw_len, 0, parts - 1).map_err(corrupt)?,
        ),
        (Codec::Ranked, Some(part)) => (
            part,
            ranked::decode(payload, raw_len, part as usize, part as usize).map_err(corrupt)?,
        ),
        (Codec::Tabled, None) => (
            0,
            tabled::decode(payload, raw_len, 0, parts - 1).map_err(corrupt)?,
        ),
        (Codec::Tabled, Some(part)) => (
            part,
            tabled::decode(payload, raw_len, part as usize, part as usize).map_err(corrupt)?,
        ),
    };
    let wanted = match (codec, part) {
        (Codec::Ranked | Codec::Tabled, Some(part)) => {
            PART_BYTES.min(raw_len - part as usize * PART_BYTES)
        }
        _ => raw_len,
    };
    if raw.len() != wanted {
        return Err(corrupt(format!(
            "{} raw bytes, header says {wanted}",
            raw.len()
        )));
    }
    Ok((encoding, BlockPart { first, raw }))
}

thread_local! {
    // Contexts are costly to set up, blocks small: one context per thread.
    static COMPRESSOR: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> = const { RefCell::new(None) };
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

fn compress(raw: &[u8], level: i32) -> std::io::Result<Vec<u8>> {
    COMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|(l, _)| *l != level) {
            *slot = Some((level, zstd::bulk::Compressor::new(level)?));
        }
        match slot.as_mut() {
            Some((_, compressor)) => compressor.compress(raw),
            None => zstd::bulk::compress(raw, level),
        }
    })
}

fn decompress(payload: &[u8], capacity: usize) -> std::io::Result<Vec<u8>> {
    DECOMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(zstd::bulk::Decompressor::new()?);
        }
        match slot.as_mut() {
            Some(decompressor) => decompressor.decompress(payload, capacity),
            None => zstd::bulk::decompress(payload, capacity),
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn records_of_incompressible_blocks_stay_within_the_bound() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        for len in [0usize, 1, 100, 4096, 200_000] {
            let raw: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect();
            for level in [1, 19] {
                let record =
                    super::encode_block(0, CellEncoding::WinBits, &raw, Packing::Small(level))
                        .unwrap();
                assert!(
                    record.len() as u64 <= super::max_record_len(len as u64),
                    "{len}"
                );
            }
        }
    }

    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn blocks_round_trip(raw in proptest::collection::vec(any::<u8>(), 0..5000), index in any::<u32>()) {
            let record = encode_block(index, CellEncoding::WinBits, &raw, Packing::Small(3)).unwrap();
            let block = decode_block("s", index, raw.len() as u64, &record).unwrap();
            prop_assert_eq!(block.raw, raw);
            prop_assert_eq!(block.index, index);
        }

        #[test]
        fn any_flipped_byte_is_caught(raw in proptest::collection::vec(any::<u8>(), 1..2000), at in any::<prop::sample::Index>(), bit in 0u8..8) {
            let mut record = encode_block(7, CellEncoding::ValueDepth8, &raw, Packing::Small(3)).unwrap();
            let i = at.index(record.len());
            record[i] ^= 1 << bit;
            let is_corrupt = matches!(decode_block("s", 7, raw.len() as u64, &record), Err(FormatError::Corrupt { .. }));
            prop_assert!(is_corrupt);
        }

        #[test]
        fn truncation_is_caught(raw in proptest::collection::vec(any::<u8>(), 1..2000), keep in any::<prop::sample::Index>()) {
            let record = encode_block(1, CellEncoding::WinBits, &raw, Packing::Small(3)).unwrap();
            let cut = keep.index(record.len());
            let is_corrupt = matches!(decode_block("s", 1, raw.len() as u64, &record[..cut]), Err(FormatError::Corrupt { .. }));
            prop_assert!(is_corrupt);
        }
    }

    #[test]
    fn a_block_filed_under_another_index_is_refused() {
        let record = encode_block(3, CellEncoding::WinBits, b"abc", Packing::Small(3)).unwrap();
        let err = decode_block("outer-01", 4, 3, &record)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("block 4 of slice outer-01") && err.contains("block 3"),
            "{err}"
        );
    }

    #[test]
    fn a_block_announcing_another_length_is_refused_before_inflating() {
        // 64 MiB of zeros compress to a few kilobytes: a bomb for a reader
        // that trusts the header.
        let bomb = encode_block(
            0,
            CellEncoding::ValueDepth16,
            &vec![0u8; 64 << 20],
            Packing::Small(3),
        )
        .unwrap();
        assert!(bomb.len() < 64 << 10);
        let err = decode_block("move-03-03", 0, 65536, &bomb)
            .unwrap_err()
            .to_string();
        assert!(err.contains("announces 67108864 raw bytes"), "{err}");
        let err = decode_block("move-03-03", 0, 64 << 20, &bomb)
            .unwrap_err()
            .to_string();
        assert!(err.contains("larger than"), "{err}");
    }

    #[test]
    fn layouts_are_checked() {
        assert_eq!(layout_fault(0, 65536, 0), None);
        assert_eq!(layout_fault(65536, 65536, 1), None);
        assert_eq!(layout_fault(65537, 65536, 2), None);
        assert!(layout_fault(65537, 65536, 1).is_some());
        assert!(layout_fault(10, 0, 1).is_some());
        assert!(layout_fault(1 << 40, 1 << 40, 1).is_some());
        assert_eq!(block_len(65537, 65536, 0), 65536);
        assert_eq!(block_len(65537, 65536, 1), 1);
        assert_eq!(block_len(65537, 65536, 2), 0);
    }
}
