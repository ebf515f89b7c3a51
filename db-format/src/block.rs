//! Block records: the unit of compression and of checksum verification.
//!
//! ```text
//! offset  size  field
//! 0       4     magic "EGBK"
//! 4       2     format version, little-endian
//! 6       1     cell encoding tag
//! 7       1     zstd level used (informational)
//! 8       4     block index within its slice
//! 12      4     raw length in bytes
//! 16      4     payload length in bytes
//! 20      n     payload: one zstd frame of the raw bytes
//! 20+n    4     CRC-32 (IEEE) of bytes 0 .. 20+n
//! ```

use std::cell::RefCell;

use crate::{CellEncoding, FormatError, FORMAT_VERSION};

const MAGIC: &[u8; 4] = b"EGBK";
const HEADER: usize = 20;

/// A decoded block record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockRecord {
    pub index: u32,
    pub encoding: CellEncoding,
    pub raw: Vec<u8>,
}

/// Compresses one block of raw bytes into a record.
///
/// # Errors
/// Only if zstd fails, which it does not for in-memory buffers in practice.
pub fn encode_block(
    index: u32,
    encoding: CellEncoding,
    raw: &[u8],
    level: i32,
) -> Result<Vec<u8>, FormatError> {
    let payload = compress(raw, level).map_err(|e| FormatError::Io(format!("zstd: {e}")))?;
    let mut record = Vec::with_capacity(HEADER + payload.len() + 4);
    record.extend_from_slice(MAGIC);
    record.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    record.push(encoding.tag());
    record.push(level.clamp(0, 255) as u8);
    record.extend_from_slice(&index.to_le_bytes());
    record.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    record.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    record.extend_from_slice(&payload);
    let crc = crc32fast::hash(&record);
    record.extend_from_slice(&crc.to_le_bytes());
    Ok(record)
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

/// Checks and decompresses a block record. `slice` only names it in errors.
///
/// # Errors
/// [`FormatError::Corrupt`] when the record is truncated, its checksum
/// fails, its header is inconsistent or its payload does not decompress to
/// the announced length; [`FormatError::Version`] for another format version.
pub fn decode_block(
    slice: &str,
    expected_index: u32,
    record: &[u8],
) -> Result<BlockRecord, FormatError> {
    let corrupt = |reason: String| FormatError::Corrupt {
        slice: slice.to_string(),
        block: expected_index,
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
    if version != FORMAT_VERSION {
        return Err(FormatError::Version {
            path: format!("block {expected_index} of slice {slice}"),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let encoding = CellEncoding::from_tag(body[6])
        .ok_or_else(|| corrupt(format!("unknown encoding {}", body[6])))?;
    let word = |at: usize| u32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]]);
    let index = word(8);
    if index != expected_index {
        return Err(corrupt(format!("record says it is block {index}")));
    }
    let raw_len = word(12) as usize;
    let payload_len = word(16) as usize;
    if HEADER + payload_len != body.len() {
        return Err(corrupt(format!(
            "payload length {payload_len} does not match the record"
        )));
    }
    let raw = decompress(&body[HEADER..], raw_len).map_err(|e| corrupt(format!("zstd: {e}")))?;
    if raw.len() != raw_len {
        return Err(corrupt(format!(
            "{} raw bytes, header says {raw_len}",
            raw.len()
        )));
    }
    Ok(BlockRecord {
        index,
        encoding,
        raw,
    })
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
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn blocks_round_trip(raw in proptest::collection::vec(any::<u8>(), 0..5000), index in any::<u32>()) {
            let record = encode_block(index, CellEncoding::WinBits, &raw, 3).unwrap();
            let block = decode_block("s", index, &record).unwrap();
            prop_assert_eq!(block.raw, raw);
            prop_assert_eq!(block.index, index);
        }

        #[test]
        fn any_flipped_byte_is_caught(raw in proptest::collection::vec(any::<u8>(), 1..2000), at in any::<prop::sample::Index>(), bit in 0u8..8) {
            let mut record = encode_block(7, CellEncoding::ValueDepth8, &raw, 3).unwrap();
            let i = at.index(record.len());
            record[i] ^= 1 << bit;
            let is_corrupt = matches!(decode_block("s", 7, &record), Err(FormatError::Corrupt { .. }));
            prop_assert!(is_corrupt);
        }

        #[test]
        fn truncation_is_caught(raw in proptest::collection::vec(any::<u8>(), 1..2000), keep in any::<prop::sample::Index>()) {
            let record = encode_block(1, CellEncoding::WinBits, &raw, 3).unwrap();
            let cut = keep.index(record.len());
            let is_corrupt = matches!(decode_block("s", 1, &record[..cut]), Err(FormatError::Corrupt { .. }));
            prop_assert!(is_corrupt);
        }
    }

    #[test]
    fn a_block_filed_under_another_index_is_refused() {
        let record = encode_block(3, CellEncoding::WinBits, b"abc", 3).unwrap();
        let err = decode_block("outer-01", 4, &record)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("block 4 of slice outer-01") && err.contains("block 3"),
            "{err}"
        );
    }
}
