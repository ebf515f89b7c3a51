//! A build fed by hand: results of noise handed to a coordinator's
//! `Build` as a worker would (shared by the fuzz targets that include this
//! file with `#[path]`).

#![allow(dead_code)]

use std::path::Path;

use egdb_coordinator::{Build, BuildOptions};
use egdb_db_format::{encode_block, CellEncoding, Packing};
use egdb_games::{Game, GameSpec, SliceInfo};
use egdb_proto::v1::{self, ShardBlock};
use egdb_proto::{Coordinator, SliceResult, WorkerInfo};

pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

/// A result for `info` whose table holds `raw`, cut into `block_bytes`, as
/// it crosses the wire.
pub fn result_of(
    info: &SliceInfo,
    encoding: CellEncoding,
    raw: &[u8],
    block_bytes: usize,
) -> v1::SliceResult {
    let blocks = raw
        .chunks(block_bytes)
        .enumerate()
        .map(|(i, chunk)| ShardBlock {
            index: i as u32,
            record: encode_block(i as u32, encoding, chunk, Packing::Small(1)).expect("encodes"),
        })
        .collect();
    v1::SliceResult {
        shard: Some(v1::Shard {
            slice_id: info.id.to_string(),
            encoding: u32::from(encoding.tag()),
            raw_len: raw.len() as u64,
            raw_crc32: crc32fast::hash(raw),
            block_bytes: block_bytes as u64,
            blocks,
        }),
        counts: Some(v1::SliceCounts {
            positions: info.positions,
            ..v1::SliceCounts::default()
        }),
        solve_seconds: 0.5,
    }
}

pub fn options(deep_verify: bool) -> BuildOptions {
    BuildOptions {
        depth: true,
        memory_budget: 1 << 40,
        max_slices: None,
        deep_verify,
        lease_seconds: 3600.0,
        verify_as_built: false,
        verified_list: None,
    }
}

pub fn worker() -> WorkerInfo {
    WorkerInfo {
        name: "w-1".to_string(),
        threads: 1,
        memory: 1 << 40,
        game: None,
        instance: 1,
        replaces: None,
    }
}

pub fn encoding_of(game: &Game) -> CellEncoding {
    egdb_check::identity::cell_encoding(game, true)
}

/// The planned slice a leased task names.
pub fn planned<'a>(plan: &'a [SliceInfo], task: &egdb_proto::Task) -> &'a SliceInfo {
    plan.iter()
        .find(|s| s.id == task.slice_id)
        .expect("the task's slice is planned")
}

/// A result as the server hands it to the build.
pub fn taken(result: v1::SliceResult) -> SliceResult {
    SliceResult::try_from(result).expect("a valid result")
}

/// A finished store of `spec` whose tables are noise (a fifth all
/// "don't care").
pub fn noise_store(path: &Path, spec: &str) -> Game {
    let game = Game::from_spec(&spec.parse::<GameSpec>().expect("a spec")).expect("a game");
    let encoding = encoding_of(&game);
    let build = Build::open(path, &game, options(false)).expect("opens");
    build.register(&worker()).expect("registers");
    let mut seed = 1;
    while let Some(task) = build.lease("w-1").expect("leases").task() {
        let info = planned(build.plan(), &task);
        seed += 1;
        let len = encoding.table_bytes(info.entries) as usize;
        let raw = if seed % 5 == 0 {
            vec![0; len]
        } else {
            noise(seed, len)
        };
        build
            .complete("w-1", taken(result_of(info, encoding, &raw, 4096)))
            .expect("takes a valid result");
    }
    assert!(build.is_complete().expect("reads"));
    game
}
