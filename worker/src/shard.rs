//! Shards: a slice's stored bytes as checked, compressed blocks.

use egdb_db_format::{
    decode_block, encode_block, layout_fault, CellEncoding, FormatError, Packing,
};
use egdb_proto::{Shard, SliceId};
use rayon::prelude::*;

/// Cuts raw bytes into blocks and compresses them in parallel.
///
/// # Errors
/// Only if compression fails.
pub fn encode_shard(
    slice_id: &SliceId,
    encoding: CellEncoding,
    raw: &[u8],
    block_bytes: usize,
    packing: Packing,
) -> Result<Shard, FormatError> {
    encode_shard_with(
        slice_id,
        encoding,
        raw.len(),
        block_bytes,
        packing,
        |at, block| block.copy_from_slice(&raw[at..at + block.len()]),
    )
}

/// [`encode_shard`] of `raw_len` bytes that `fill(offset, block)` makes
/// block by block, so that a slice whose stored form is larger than its
/// table in RAM is never whole in memory.
///
/// # Errors
/// Only if compression fails.
pub fn encode_shard_with<F>(
    slice_id: &SliceId,
    encoding: CellEncoding,
    raw_len: usize,
    block_bytes: usize,
    packing: Packing,
    fill: F,
) -> Result<Shard, FormatError>
where
    F: Fn(usize, &mut [u8]) + Sync,
{
    let block_bytes = block_bytes.max(1);
    let parts = (0..raw_len.div_ceil(block_bytes))
        .into_par_iter()
        .map(|index| {
            let at = index * block_bytes;
            let mut raw = vec![0u8; block_bytes.min(raw_len - at)];
            fill(at, &mut raw);
            let mut crc = crc32fast::Hasher::new();
            crc.update(&raw);
            let record = encode_block(index as u32, encoding, &raw, packing)?;
            Ok((record, crc))
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    let mut crc = crc32fast::Hasher::new();
    let mut blocks = Vec::with_capacity(parts.len());
    for (block, part) in parts {
        crc.combine(&part);
        blocks.push(block);
    }
    Ok(Shard {
        slice_id: slice_id.clone(),
        encoding,
        raw_len: raw_len as u64,
        raw_crc32: crc.finalize(),
        block_bytes: block_bytes as u64,
        blocks,
    })
}

/// Checks every block and the whole, and gives back the raw bytes.
///
/// Each block is decoded straight into its place in the result, so that
/// no more than one block a thread is ever held beside it: collecting the
/// blocks first held every one of them too, and the allocator kept their
/// memory after they were freed (P = 12: 1.3 GiB more than a worker's
/// tables, in 64 KiB blocks).
///
/// # Errors
/// [`FormatError::Corrupt`] naming the slice and block that fails.
pub fn decode_shard(shard: &Shard) -> Result<(CellEncoding, Vec<u8>), FormatError> {
    let corrupt = |block: Option<u32>, reason: String| FormatError::Corrupt {
        slice: shard.slice_id.to_string(),
        block,
        reason,
    };
    let encoding = shard.encoding;
    if let Some(reason) = layout_fault(shard.raw_len, shard.block_bytes, shard.blocks.len() as u64)
    {
        return Err(corrupt(None, reason));
    }
    // The layout holds: `raw_len` cut in `block_bytes` pieces (at most
    // 16 MiB each) gives one piece a block. Its size was bounded by
    // whoever handed the shard over (the link and the cache refuse one
    // larger than the worker's memory).
    let mut raw = vec![0u8; shard.raw_len as usize];
    raw.par_chunks_mut(shard.block_bytes as usize)
        .zip(shard.blocks.par_iter())
        .enumerate()
        .try_for_each(|(i, (place, record))| {
            let index = i as u32;
            let block = decode_block(shard.slice_id.as_str(), index, place.len() as u64, record)?;
            if block.encoding != encoding {
                return Err(corrupt(
                    Some(index),
                    "block encoding differs from the shard's".to_string(),
                ));
            }
            // decode_block gave exactly the length asked for.
            place.copy_from_slice(&block.raw);
            Ok(())
        })?;
    if crc32fast::hash(&raw) != shard.raw_crc32 {
        return Err(corrupt(None, "shard checksum does not match".to_string()));
    }
    Ok((encoding, raw))
}
