//! A slice's table as it travels between processes: a [`Shard`] of
//! compressed blocks, and a [`SliceResult`] (a shard with its counts). They
//! cross the wire as [`v1::Shard`] and [`v1::SliceResult`]; these are the
//! conversions, the incoming ones checked once here.

use std::time::Duration;

use egdb_db_format::{block_len, block_size_fault, max_record_len, CellEncoding, SliceCounts};
use egdb_games::SliceId;

use crate::{v1, WireError};

/// A slice's table as compressed blocks, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shard {
    pub slice_id: SliceId,
    pub encoding: CellEncoding,
    /// Bytes of the uncompressed table.
    pub raw_len: u64,
    /// CRC-32 of the uncompressed table.
    pub raw_crc32: u32,
    /// Uncompressed bytes per block (the last may be shorter).
    pub block_bytes: u64,
    /// Block records (db-format), block `i` at index `i`.
    pub blocks: Vec<Vec<u8>>,
}

impl Shard {
    /// Bytes of the blocks as sent or stored.
    pub fn stored_bytes(&self) -> u64 {
        self.blocks.iter().map(|b| b.len() as u64).sum()
    }
}

/// The smallest blocks a shard of more than one block may be cut into on
/// the wire (builds cut at 64 KiB). Each block costs whoever holds it a few
/// dozen bytes beside its record: a peer sending blocks of a byte or two
/// could make the other side hold a hundred times the shard it announced.
pub const MIN_WIRE_BLOCK_BYTES: u64 = 1024;

/// What is wrong with the layout a shard's header announces, if anything:
/// a block size out of range, or blocks too small for a shard this long.
/// Checked before any block is taken, by both ends of a transfer.
pub(crate) fn header_fault(shard: &v1::Shard) -> Option<String> {
    if let Some(fault) = block_size_fault(shard.block_bytes) {
        return Some(fault);
    }
    (shard.raw_len > shard.block_bytes && shard.block_bytes < MIN_WIRE_BLOCK_BYTES).then(|| {
        format!(
            "shard of {} bytes in blocks of {}: a shard of several blocks has blocks of at least {MIN_WIRE_BLOCK_BYTES} bytes",
            shard.raw_len, shard.block_bytes
        )
    })
}

/// What is wrong with `block` as the next block of `shard` (whose header
/// passed [`header_fault`]), if anything: one more than the header's
/// layout gives, or longer than its raw bytes can compress to. Checked as
/// each block arrives, so that a peer cannot make the other side hold more
/// than the shard it announced.
pub(crate) fn unexpected_block(shard: &v1::Shard, block: &v1::ShardBlock) -> Option<String> {
    let index = shard.blocks.len() as u64;
    let numbered = u32::try_from(index).ok();
    let Some(number) =
        numbered.filter(|_| index < shard.raw_len.div_ceil(shard.block_bytes.max(1)))
    else {
        return Some(format!(
            "block {index} is past the {} bytes the shard announced",
            shard.raw_len
        ));
    };
    let raw = block_len(shard.raw_len, shard.block_bytes, number);
    (block.record.len() as u64 > max_record_len(raw)).then(|| {
        format!(
            "block {index} is {} bytes, more than {raw} raw bytes can compress to",
            block.record.len()
        )
    })
}

/// A shard as it is read, a piece at a time: the shard without its
/// blocks, then each block record in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardPiece {
    Header(Shard),
    Block(Vec<u8>),
}

/// A solved slice as a worker hands it over.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceResult {
    pub shard: Shard,
    pub counts: SliceCounts,
    /// A duration, so never NaN: the manifest keeps it as JSON, where NaN
    /// would make a record that never reads back.
    pub solve_time: Duration,
}

impl From<Shard> for v1::Shard {
    fn from(shard: Shard) -> v1::Shard {
        v1::Shard {
            slice_id: shard.slice_id.to_string(),
            encoding: u32::from(shard.encoding.tag()),
            raw_len: shard.raw_len,
            raw_crc32: shard.raw_crc32,
            block_bytes: shard.block_bytes,
            blocks: (0u32..)
                .zip(shard.blocks)
                .map(|(index, record)| v1::ShardBlock { index, record })
                .collect(),
        }
    }
}

impl TryFrom<v1::Shard> for Shard {
    type Error = WireError;

    /// # Errors
    /// A slice id that is not one, an encoding tag that names none, or
    /// blocks out of order.
    fn try_from(shard: v1::Shard) -> Result<Shard, WireError> {
        let slice_id = SliceId::parse(&shard.slice_id)?;
        let encoding = u8::try_from(shard.encoding)
            .ok()
            .and_then(CellEncoding::from_tag)
            .ok_or(WireError::UnknownEncoding(shard.encoding))?;
        let blocks = (0u32..)
            .zip(shard.blocks)
            .map(|(i, block)| {
                if block.index == i {
                    Ok(block.record)
                } else {
                    Err(WireError::BlockOutOfOrder(block.index))
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(Shard {
            slice_id,
            encoding,
            raw_len: shard.raw_len,
            raw_crc32: shard.raw_crc32,
            block_bytes: shard.block_bytes,
            blocks,
        })
    }
}

impl From<SliceResult> for v1::SliceResult {
    fn from(result: SliceResult) -> v1::SliceResult {
        v1::SliceResult {
            shard: Some(result.shard.into()),
            counts: Some((&result.counts).into()),
            solve_seconds: result.solve_time.as_secs_f64(),
        }
    }
}

impl TryFrom<v1::SliceResult> for SliceResult {
    type Error = WireError;

    /// # Errors
    /// A missing shard or counts, a shard that does not convert, or a solve
    /// time that is not a number of seconds.
    fn try_from(result: v1::SliceResult) -> Result<SliceResult, WireError> {
        let shard = result.shard.ok_or(WireError::NoShard)?.try_into()?;
        let counts = result.counts.as_ref().ok_or(WireError::NoCounts)?;
        let seconds = result.solve_seconds;
        let solve_time =
            Duration::try_from_secs_f64(seconds).map_err(|_| WireError::NotSeconds {
                what: "a solve time",
                seconds,
            })?;
        Ok(SliceResult {
            shard,
            counts: counts.into(),
            solve_time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egdb_db_format::MAX_BLOCK_BYTES;

    fn shard() -> Shard {
        Shard {
            slice_id: SliceId::new("move-03-03"),
            encoding: CellEncoding::ValueDepth16,
            raw_len: 10,
            raw_crc32: 7,
            block_bytes: 4,
            blocks: vec![vec![1, 2], vec![3], vec![]],
        }
    }

    #[test]
    fn results_cross_the_wire_unchanged() {
        let result = SliceResult {
            shard: shard(),
            counts: SliceCounts {
                positions: 5,
                win: 1,
                max_depth: Some(3),
                ..SliceCounts::default()
            },
            solve_time: Duration::from_millis(1500),
        };
        let wire = v1::SliceResult::from(result.clone());
        assert_eq!(SliceResult::try_from(wire), Ok(result));
    }

    #[test]
    fn bad_results_are_refused_with_the_reason() {
        let wire = v1::SliceResult::from(SliceResult {
            shard: shard(),
            counts: SliceCounts::default(),
            solve_time: Duration::ZERO,
        });
        let refused = |change: fn(&mut v1::SliceResult)| {
            let mut bad = wire.clone();
            change(&mut bad);
            SliceResult::try_from(bad).unwrap_err()
        };
        assert_eq!(refused(|r| r.shard = None), WireError::NoShard);
        assert_eq!(refused(|r| r.counts = None), WireError::NoCounts);
        let nan = refused(|r| r.solve_seconds = f64::NAN);
        assert!(matches!(nan, WireError::NotSeconds { seconds, .. } if seconds.is_nan()));
        assert_eq!(
            refused(|r| r.solve_seconds = -1.0).to_string(),
            "a solve time of -1 is not a number of seconds"
        );
        let encoding = refused(|r| r.shard.as_mut().unwrap().encoding = 99);
        assert_eq!(encoding.to_string(), "unknown encoding 99");
        let order = refused(|r| r.shard.as_mut().unwrap().blocks.swap(0, 1));
        assert_eq!(order.to_string(), "block 1 out of order");
        let id = refused(|r| r.shard.as_mut().unwrap().slice_id = "a/b".to_string());
        assert_eq!(
            id,
            WireError::NotASliceId(egdb_games::NotASliceId { bytes: 3 })
        );
    }

    #[test]
    fn a_transfer_takes_only_the_layout_its_header_announced() {
        let header = |raw_len: u64, block_bytes: u64| v1::Shard {
            raw_len,
            block_bytes,
            ..v1::Shard::from(shard())
        };
        // Block sizes out of range, and tiny blocks for a shard of several.
        assert!(header_fault(&header(10, 0))
            .unwrap()
            .contains("not between"));
        assert!(header_fault(&header(10, MAX_BLOCK_BYTES + 1)).is_some());
        let tiny = header_fault(&header(1 << 20, 1)).unwrap();
        assert!(tiny.contains("at least 1024"), "{tiny}");
        // One short block, or blocks of at least the least size: taken.
        assert_eq!(header_fault(&header(10, 4096)), None);
        assert_eq!(header_fault(&header(10, 10)), None);
        assert_eq!(header_fault(&header(5000, MIN_WIRE_BLOCK_BYTES)), None);
        // Each block: no more of them than the layout has, none longer
        // than its raw bytes can compress to.
        let mut taking = header(3000, 2048);
        taking.blocks.clear();
        let block = |len: usize| v1::ShardBlock {
            index: 0,
            record: vec![0; len],
        };
        let bloated = unexpected_block(&taking, &block(1 << 20)).unwrap();
        assert!(bloated.contains("more than 2048 raw bytes"), "{bloated}");
        assert_eq!(unexpected_block(&taking, &block(100)), None);
        taking.blocks = vec![block(100), block(100)];
        let extra = unexpected_block(&taking, &block(10)).unwrap();
        assert!(extra.contains("past the 3000 bytes"), "{extra}");
    }
}
