//! Shards to and from stores: the coordinator serves its finished slices
//! as shards, and a worker's cache keeps the shards it fetched.

use egdb_db_format::block::checksum_holds;
use egdb_db_format::{FormatError, SliceCounts, SliceRecord, Store};

use crate::{Shard, SliceId};

/// A finished slice of `store` as a shard, `None` when it is not there. A
/// block whose checksum fails is an error, never sent as good.
///
/// # Errors
/// [`FormatError::Corrupt`] naming the block; store I/O errors.
pub fn read_shard(store: &Store, slice_id: &SliceId) -> Result<Option<Shard>, FormatError> {
    let Some(record) = store.slice(slice_id.as_str())? else {
        return Ok(None);
    };
    let blocks = (0..record.blocks)
        .map(|index| {
            let bytes = store.block_record(slice_id.as_str(), index)?;
            if !checksum_holds(&bytes) {
                return Err(FormatError::Corrupt {
                    slice: slice_id.to_string(),
                    block: Some(index),
                    reason: "checksum mismatch in the store".to_string(),
                });
            }
            Ok(bytes)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(Shard {
        slice_id: slice_id.clone(),
        encoding: record.encoding,
        raw_len: record.raw_len,
        raw_crc32: record.raw_crc32,
        block_bytes: record.block_bytes,
        blocks,
    }))
}

/// Writes a checked shard into `store` as it came, with `counts` for its
/// manifest record.
///
/// # Errors
/// Store I/O errors.
pub fn write_shard(store: &Store, shard: &Shard, counts: SliceCounts) -> Result<(), FormatError> {
    let record = record_of(shard, counts);
    let blocks: Vec<&[u8]> = shard.blocks.iter().map(Vec::as_slice).collect();
    store.put_slice(&record, &blocks)
}

/// The manifest record of a shard's slice (no stones, no solve time: the
/// caller sets those it knows).
pub fn record_of(shard: &Shard, counts: SliceCounts) -> SliceRecord {
    SliceRecord {
        slice: shard.slice_id.to_string(),
        encoding: shard.encoding,
        raw_len: shard.raw_len,
        raw_crc32: shard.raw_crc32,
        block_bytes: shard.block_bytes,
        blocks: shard.blocks.len() as u32,
        stored_bytes: shard.stored_bytes(),
        counts,
        stones: None,
        seconds: 0.0,
        rank_pending: false,
        rank_seconds: 0.0,
        solved_by: None,
    }
}
