//! Shards to and from stores: the coordinator serves its finished slices
//! as shards, and a worker's cache keeps the shards it fetched.

use egdb_db_format::block::checksum_holds;
use egdb_db_format::{FormatError, SliceCounts, SliceRecord, Store};

use crate::{Shard, ShardPiece, SliceId};

/// A finished slice of `store` as a shard, `None` when it is not there. A
/// block whose checksum fails is an error, never sent as good.
///
/// # Errors
/// [`FormatError::Corrupt`] naming the block; store I/O errors.
pub fn read_shard(store: &Store, slice_id: &SliceId) -> Result<Option<Shard>, FormatError> {
    let mut shard = None;
    let read = read_shard_pieces(store, slice_id, &mut |piece| {
        match (piece, shard.as_mut()) {
            (ShardPiece::Header(header), _) => shard = Some(header),
            (ShardPiece::Block(block), Some(shard)) => shard.blocks.push(block),
            // The header comes first; nothing else would.
            (ShardPiece::Block(_), None) => return false,
        }
        true
    })?;
    Ok(read.and(shard))
}

/// [`read_shard`] a piece at a time, to `piece` (the header first, then
/// each block as it is read and checked) until it returns `false`: the
/// bytes of the blocks given, `None` when the slice is not there.
///
/// # Errors
/// As [`read_shard`], after the pieces before the fault were given.
pub fn read_shard_pieces(
    store: &Store,
    slice_id: &SliceId,
    piece: &mut dyn FnMut(ShardPiece) -> bool,
) -> Result<Option<u64>, FormatError> {
    let Some(record) = store.slice(slice_id.as_str())? else {
        return Ok(None);
    };
    let header = Shard {
        slice_id: slice_id.clone(),
        encoding: record.encoding,
        raw_len: record.raw_len,
        raw_crc32: record.raw_crc32,
        block_bytes: record.block_bytes,
        blocks: Vec::new(),
    };
    let mut given = 0;
    if !piece(ShardPiece::Header(header)) {
        return Ok(Some(given));
    }
    for index in 0..record.blocks {
        let bytes = store.block_record(slice_id.as_str(), index)?;
        if !checksum_holds(&bytes) {
            return Err(FormatError::Corrupt {
                slice: slice_id.to_string(),
                block: Some(index),
                reason: "checksum mismatch in the store".to_string(),
            });
        }
        given += bytes.len() as u64;
        if !piece(ShardPiece::Block(bytes)) {
            break;
        }
    }
    Ok(Some(given))
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
        check_seconds: 0.0,
        solved_by: None,
    }
}
