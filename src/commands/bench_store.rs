//! `egdb bench-store`: what a finished store's blocks would take on disk
//! under other codecs, measured on its own blocks (nothing is written).
//! Each sampled block is read and checked, then compressed at each level
//! as it is stored today (two-byte cells) and as one-byte symbols
//! (`egdb_db_format::symbols`), and the symbols are read back and compared;
//! then as today's writer makes its record (tabled for two-byte cells), read
//! back whole and one part at a time, and as format 3 made it (ranked).

use std::time::{Duration, Instant};

use egdb_db_format::ranked::{self, PART_BYTES};
use egdb_db_format::symbols::{from_symbols, to_symbols};
use egdb_db_format::{
    block_codec, decode_block, decode_block_part, encode_block, CellEncoding, Codec, Packing, Store,
};

use crate::cli::BenchStoreArgs;
use crate::failure::Exit;
use crate::failure::Failure;

/// Bytes a block record adds to its payload: header and checksum.
const RECORD_OVERHEAD: u64 = 24;

/// What one codec at one level made of the sampled blocks.
#[derive(Default, Clone)]
struct Tally {
    bytes: u64,
    compress: Duration,
    decode: Duration,
}

/// A writer's records of the sampled blocks, read back whole and by part.
#[derive(Default)]
struct Written {
    whole: Tally,
    part_decode: Duration,
    parts: u32,
}

impl Written {
    fn add(&mut self, other: &Written) {
        self.whole.bytes += other.whole.bytes;
        self.whole.compress += other.whole.compress;
        self.whole.decode += other.whole.decode;
        self.part_decode += other.part_decode;
        self.parts += other.parts;
    }

    fn line(
        &self,
        name: &str,
        per_class: impl Fn(u64) -> f64,
        raw: u64,
        blocks: u64,
    ) -> Result<(), Failure> {
        outln!(
            "{name}: {:.3} bytes per class, {:.1} MB/s, {:.1} us/block, {:.1} us per part of {} KiB",
            per_class(self.whole.bytes),
            raw as f64 / 1e6 / self.whole.compress.as_secs_f64().max(1e-9),
            self.whole.decode.as_secs_f64() * 1e6 / blocks as f64,
            self.part_decode.as_secs_f64() * 1e6 / f64::from(self.parts.max(1)),
            PART_BYTES >> 10,
        )
    }
}

pub fn run(args: BenchStoreArgs) -> Exit {
    let store = Store::open_read_only(&args.store)?;
    let records = store.slices()?;
    let classes: u64 = records
        .iter()
        .map(|r| r.counts.canonical_positions.unwrap_or(r.counts.positions))
        .sum();
    if classes == 0 {
        return Err(Failure::failed(format!(
            "{} holds no positions to measure",
            args.store.display()
        )));
    }
    let mut plain = vec![Tally::default(); args.levels.len()];
    let mut symbols = vec![Tally::default(); args.levels.len()];
    let (mut written, mut format_3) = (Written::default(), Written::default());
    let (mut stored, mut sampled_raw, mut total_raw, mut blocks, mut crowded) = (0, 0, 0, 0, 0);
    let mut nth = 0u64;
    for record in &records {
        record.check_layout()?;
        total_raw += record.raw_len;
        for index in 0..record.blocks {
            nth += 1;
            if nth % args.every != 0 {
                continue;
            }
            let stored_record = store.block_record(&record.slice, index)?;
            let block = decode_block(
                &record.slice,
                index,
                record.block_len(index),
                &stored_record,
            )?;
            stored += stored_record.len() as u64;
            sampled_raw += block.raw.len() as u64;
            blocks += 1;
            let packed = (record.encoding == CellEncoding::ValueDepth16)
                .then(|| to_symbols(&block.raw))
                .flatten();
            crowded += u64::from(packed.is_none());
            for (i, &level) in args.levels.iter().enumerate() {
                measure(&mut plain[i], &block.raw, level, |bytes| {
                    decompressed(bytes, block.raw.len())
                })?;
                let (input, limit) = match &packed {
                    Some(p) => (p.as_slice(), p.len()),
                    None => (block.raw.as_slice(), block.raw.len()),
                };
                measure(&mut symbols[i], input, level, |bytes| {
                    let inflated = decompressed(bytes, limit)?;
                    match packed {
                        Some(_) => from_symbols(&inflated, block.raw.len()),
                        None => Ok(inflated),
                    }
                })
                .and_then(|back| {
                    (back == block.raw).then_some(()).ok_or_else(|| {
                        Failure::failed(format!(
                            "block {index} of {} did not read back from symbols",
                            record.slice
                        ))
                    })
                })?;
            }
            let mismatch = || {
                Failure::failed(format!(
                    "block {index} of {} did not read back as written today",
                    record.slice
                ))
            };
            let started = Instant::now();
            let today = encode_block(index, record.encoding, &block.raw, Packing::Small(1))?;
            let encoded = started.elapsed();
            let len = block.raw.len() as u64;
            let read_today = |part: Option<u64>| {
                match part {
                    None => decode_block(&record.slice, index, len, &today).map(|b| (0, b.raw)),
                    Some(at) => decode_block_part(&record.slice, index, len, &today, at)
                        .map(|p| (p.first as usize, p.raw)),
                }
                .map_err(Failure::from)
            };
            let today_read =
                measure_written(encoded, today.len(), &block.raw, read_today, mismatch)?;
            written.add(&today_read);
            // Format 3 ranked where today's writer tables, else wrote the same.
            if block_codec(&record.slice, index, len, &today)? != Codec::Tabled {
                format_3.add(&today_read);
                continue;
            }
            let started = Instant::now();
            let payload = ranked::encode(&block.raw).ok_or_else(mismatch)?;
            let encoded = started.elapsed();
            let parts = block.raw.len().div_ceil(PART_BYTES).max(1);
            let read_ranked = |part: Option<u64>| {
                let (first, last) = match part {
                    None => (0, parts - 1),
                    Some(at) => (at as usize / PART_BYTES, at as usize / PART_BYTES),
                };
                ranked::decode(&payload, block.raw.len(), first, last)
                    .map(|raw| (first, raw))
                    .map_err(Failure::failed)
            };
            let record_len = payload.len() + RECORD_OVERHEAD as usize;
            format_3.add(&measure_written(
                encoded,
                record_len,
                &block.raw,
                read_ranked,
                mismatch,
            )?);
        }
    }
    if blocks == 0 {
        return Err(Failure::failed("no block sampled: lower --every"));
    }
    // Sampled bytes scaled to the whole store, per symmetry class.
    let per_class =
        |bytes: u64| bytes as f64 * total_raw as f64 / sampled_raw as f64 / classes as f64;
    outln!(
        "{}: {} slices, {classes} classes, {blocks} blocks sampled (every {}), {:.1} MiB raw; {crowded} blocks with more than 256 distinct cells stay two-byte",
        args.store.display(),
        records.len(),
        args.every,
        sampled_raw as f64 / f64::from(1 << 20),
    )?;
    outln!("as stored: {:.3} bytes per class", per_class(stored))?;
    outln!("codec       level  bytes/class  compress MB/s  decode us/block")?;
    for (i, &level) in args.levels.iter().enumerate() {
        for (name, tally) in [("two-byte", &plain[i]), ("symbols", &symbols[i])] {
            let with_overhead = tally.bytes + RECORD_OVERHEAD * blocks;
            outln!(
                "{name:<10} {level:>6}  {:>11.3}  {:>13.1}  {:>15.1}",
                per_class(with_overhead),
                sampled_raw as f64 / 1e6 / tally.compress.as_secs_f64().max(1e-9),
                tally.decode.as_secs_f64() * 1e6 / blocks as f64,
            )?;
        }
    }
    written.line(
        "as written today (tabled where the cells allow)",
        per_class,
        sampled_raw,
        blocks,
    )?;
    format_3.line(
        "as format 3 wrote them (ranked where the cells allow)",
        per_class,
        sampled_raw,
        blocks,
    )?;
    Ok(0)
}

/// A record of `bytes` made in `encoded` read back with `read` (whole,
/// then by the part holding each byte offset), timed; `mismatch` when
/// what it reads back is not `raw`.
fn measure_written(
    encoded: Duration,
    bytes: usize,
    raw: &[u8],
    read: impl Fn(Option<u64>) -> Result<(usize, Vec<u8>), Failure>,
    mismatch: impl Fn() -> Failure,
) -> Result<Written, Failure> {
    let mut written = Written {
        whole: Tally {
            bytes: bytes as u64,
            compress: encoded,
            decode: Duration::ZERO,
        },
        ..Written::default()
    };
    let started = Instant::now();
    let (_, whole) = read(None)?;
    written.whole.decode = started.elapsed();
    if whole != raw {
        return Err(mismatch());
    }
    for at in (0..raw.len()).step_by(PART_BYTES) {
        let started = Instant::now();
        let (first, part) = read(Some(at as u64))?;
        written.part_decode += started.elapsed();
        written.parts += 1;
        let from = first * PART_BYTES;
        if raw.get(from..from + part.len()) != Some(&part[..]) {
            return Err(mismatch());
        }
    }
    Ok(written)
}

/// Compresses `input` at `level` into `tally`, then reads it back with
/// `read`, timed, and returns what that gave.
fn measure<T>(
    tally: &mut Tally,
    input: &[u8],
    level: i32,
    read: impl FnOnce(&[u8]) -> Result<T, String>,
) -> Result<T, Failure> {
    let started = Instant::now();
    let compressed = zstd::bulk::compress(input, level)
        .map_err(|e| Failure::failed(format!("zstd at level {level}: {e}")))?;
    tally.compress += started.elapsed();
    tally.bytes += compressed.len() as u64;
    let started = Instant::now();
    let back = read(&compressed).map_err(Failure::failed)?;
    tally.decode += started.elapsed();
    Ok(back)
}

fn decompressed(bytes: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    zstd::bulk::decompress(bytes, limit).map_err(|e| e.to_string())
}
