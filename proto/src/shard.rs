//! A slice's table as it travels between processes: a [`Shard`] of
//! compressed blocks, and a [`SliceResult`] (a shard with its counts). They
//! cross the wire as [`v1::Shard`] and [`v1::SliceResult`]; these are the
//! conversions, the incoming ones checked once here.

use std::time::Duration;

use egdb_db_format::{CellEncoding, SliceCounts};
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
}
