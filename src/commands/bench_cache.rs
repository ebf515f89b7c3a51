//! `egdb bench-cache`: what a worker's shard cache (`egdb worker --cache`)
//! costs per GiB kept and read back, and how many bytes it writes to disk
//! for each byte kept, on shards the size of a big build's.
//!
//! The run replays a worker's traffic: each task reads the last few
//! shards put (its dependencies), then puts its own (as a solved or
//! fetched one is), under a limit that makes the cache drop those used
//! least recently. The shards hold noise, so each stores about its raw size. The
//! disk's bytes come from `/proc/self/io`, which counts the cache's
//! background threads too.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egdb_db_format::{CellEncoding, Packing};
use egdb_games::family::XorShift;
use egdb_proto::{SliceId, Task};
use egdb_worker::shard::encode_shard_with;
use egdb_worker::ShardCache;

use crate::cli::BenchCacheArgs;
use crate::failure::Exit;
use crate::failure::Failure;

/// The largest shard measured (P = 12's largest stores about 1.6 GiB).
const MAX_SHARD_BYTES: u64 = 4 << 30;

const GIB: f64 = (1u64 << 30) as f64;

pub fn run(args: BenchCacheArgs) -> Exit {
    // Every shard is held in memory as it is put.
    if args.shard_bytes > MAX_SHARD_BYTES {
        return Err(Failure::bad_input(format!(
            "--shard-bytes {} is more than the {MAX_SHARD_BYTES} this bench holds",
            args.shard_bytes
        )));
    }
    // A directory of this run's own, removed after.
    let scratch = Scratch(
        args.dir
            .join(format!("egdb-bench-cache-{}", std::process::id())),
    );
    std::fs::create_dir_all(&scratch.0)
        .map_err(|e| Failure::failed(format!("{}: {e}", scratch.0.display())))?;
    let block_bytes = egdb_db_format::DEFAULT_BLOCK_BYTES;
    let raw_len = usize::try_from(args.shard_bytes)
        .map_err(|_| Failure::failed("--shard-bytes is past this machine's addresses"))?;
    // Noise stores at about its raw size: one shard made once, put under
    // every slice's name.
    let template = encode_shard_with(
        &SliceId::new("template"),
        CellEncoding::ValueDepth16,
        raw_len,
        block_bytes,
        Packing::Quick(1),
        |index, place| noise(index as u64, place),
    )?;
    let stored = template.stored_bytes();
    let task = Task {
        game: "bench:cache".to_string(),
        depth: true,
        game_definition: None,
        slice_id: SliceId::new("bench"),
        dependencies: Vec::new(),
        verify: false,
        zstd_only: false,
        memory: 0,
    };
    let failed = |e: egdb_worker::WorkerError| Failure::failed(e.to_string());
    let cache = ShardCache::open(&scratch.0)
        .map_err(failed)?
        .with_limit(args.limit)
        .with_max_shard_bytes(args.shard_bytes);
    let io_before = disk_io();
    let (mut puts, mut gets) = (Vec::new(), Vec::new());
    let started = Instant::now();
    for n in 0..args.shards {
        // A task reads its dependencies, the shards put last, then keeps
        // its own.
        for back in (1..=args.reads.min(n)).rev() {
            let id = SliceId::new(format!("s{}", n - back));
            let get = Instant::now();
            if cache.get(&task, &id).map_err(failed)?.is_some() {
                gets.push(get.elapsed());
            }
        }
        let mut shard = template.clone();
        shard.slice_id = SliceId::new(format!("s{n}"));
        let put = Instant::now();
        cache.put(&task, &shard).map_err(failed)?;
        puts.push(put.elapsed());
    }
    drop(cache);
    let total = started.elapsed();
    let io = disk_io()
        .zip(io_before)
        .map(|(a, b)| (a.0.saturating_sub(b.0), a.1.saturating_sub(b.1)));
    let kept = stored as f64 * args.shards as f64;
    outln!(
        "shard cache, {} shards of {:.0} MiB stored ({} blocks), limit {:.2} GiB, the last {} read back before each put, in {}",
        args.shards,
        stored as f64 / (1 << 20) as f64,
        template.blocks.len(),
        args.limit as f64 / GIB,
        args.reads,
        args.dir.display()
    )?;
    outln!(
        "put: median {:.2} s per GiB kept ({} puts); get: median {:.2} s per GiB read ({} hits); all in {:.1} s",
        median(&mut puts) * GIB / stored as f64,
        puts.len(),
        median(&mut gets) * GIB / stored as f64,
        gets.len(),
        total.as_secs_f64()
    )?;
    match io {
        Some((read, written)) => outln!(
            "disk: {:.2} GiB written ({:.2} per GiB kept), {:.2} GiB read",
            written as f64 / GIB,
            written as f64 / kept,
            read as f64 / GIB
        )?,
        None => outln!("disk: /proc/self/io unreadable here")?,
    }
    Ok(0)
}

/// Bytes that do not compress (xorshift64 from the block's index).
fn noise(index: u64, place: &mut [u8]) {
    let mut x = XorShift(index.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for chunk in place.chunks_mut(8) {
        chunk.copy_from_slice(&x.next().to_le_bytes()[..chunk.len()]);
    }
}

fn median(times: &mut [Duration]) -> f64 {
    times.sort();
    times
        .get(times.len() / 2)
        .map_or(0.0, Duration::as_secs_f64)
}

/// This process's bytes read from and written to disk (`read_bytes`,
/// `write_bytes` of `/proc/self/io`).
fn disk_io() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(Path::new("/proc/self/io")).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok())
    };
    Some((field("read_bytes:")?, field("write_bytes:")?))
}

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
