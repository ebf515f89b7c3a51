//! Fuzzing the coordinator's side: results a worker hands to a build
//! (headers and shards, damaged or lying about their slice). Each must be
//! taken or refused, never panic; valid results must be stored and read
//! back. (Queries against stores of noise are `tablebase/tests/fuzz.rs`.)
//!
//! `PROPTEST_CASES` sets the cases per target: 256 unless set,
//! `deploy/fuzz.sh` runs a million.

use std::sync::atomic::{AtomicUsize, Ordering};

use egdb_coordinator::{Build, BuildOptions};
use egdb_db_format::CellEncoding;
use egdb_games::{Game, GameSpec};
use egdb_proto::v1::{self, ShardBlock};
use egdb_proto::{Coordinator, Shard, SliceResult};
use proptest::prelude::*;
use proptest::sample::{select, Index};

#[path = "../../tests/common/fuzz_edits.rs"]
mod fuzz_edits;
use fuzz_edits::*;

#[path = "../../tests/common/build_noise.rs"]
mod build_noise;
use build_noise::*;

// ---- Results handed to a build ----

#[derive(Debug, Clone)]
enum Damage {
    NoShard,
    NoCounts,
    Positions(u64),
    SliceId(String),
    Encoding(u32),
    RawLen(u64),
    BlockBytes(u64),
    Crc(u32),
    Block(Index, Vec<ByteEdit>, bool),
    BlockIndex(Index, u32),
    DropBlock(Index),
    RepeatBlock(Index),
    ExtraBlock(Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        1 => Just(Damage::NoShard),
        1 => Just(Damage::NoCounts),
        1 => prop_oneof![0u64..100, any::<u64>()].prop_map(Damage::Positions),
        1 => prop_oneof![
            select(&["outer-00", "outer-09", "move-03-03", "place-00-00-00", ""][..]).prop_map(String::from),
            "[a-z0-9-]{0,12}",
        ]
        .prop_map(Damage::SliceId),
        1 => prop_oneof![0u32..=4, any::<u32>()].prop_map(Damage::Encoding),
        1 => prop_oneof![0u64..100_000, any::<u64>()].prop_map(Damage::RawLen),
        1 => prop_oneof![0u64..=70_000, Just(16 << 20), any::<u64>()].prop_map(Damage::BlockBytes),
        1 => any::<u32>().prop_map(Damage::Crc),
        3 => (any::<Index>(), byte_edits(), prop::bool::weighted(0.7))
            .prop_map(|(i, e, f)| Damage::Block(i, e, f)),
        1 => (any::<Index>(), prop_oneof![0u32..8, any::<u32>()])
            .prop_map(|(i, v)| Damage::BlockIndex(i, v)),
        1 => any::<Index>().prop_map(Damage::DropBlock),
        1 => any::<Index>().prop_map(Damage::RepeatBlock),
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(Damage::ExtraBlock),
    ]
}

fn damaged(mut result: v1::SliceResult, damage: &[Damage]) -> v1::SliceResult {
    for d in damage {
        match d {
            Damage::NoShard => result.shard = None,
            Damage::NoCounts => result.counts = None,
            Damage::Positions(p) => {
                if let Some(c) = result.counts.as_mut() {
                    c.positions = *p;
                }
            }
            _ => {}
        }
        let Some(shard) = result.shard.as_mut() else {
            continue;
        };
        let n = shard.blocks.len();
        match d {
            Damage::SliceId(id) => shard.slice_id = id.clone(),
            Damage::Encoding(e) => shard.encoding = *e,
            Damage::RawLen(v) => shard.raw_len = *v,
            Damage::BlockBytes(v) => shard.block_bytes = *v,
            Damage::Crc(v) => shard.raw_crc32 = *v,
            Damage::Block(i, edits, fix) if n > 0 => {
                let block = &mut shard.blocks[i.index(n)];
                let record = edited(&block.record, edits);
                block.record = if *fix { with_crc(record) } else { record };
            }
            Damage::BlockIndex(i, v) if n > 0 => shard.blocks[i.index(n)].index = *v,
            Damage::DropBlock(i) if n > 0 => {
                shard.blocks.remove(i.index(n));
            }
            Damage::RepeatBlock(i) if n > 0 => {
                let i = i.index(n);
                let block = shard.blocks[i].clone();
                shard.blocks.insert(i, block);
            }
            Damage::ExtraBlock(record) => shard.blocks.push(ShardBlock {
                index: n as u32,
                record: record.clone(),
            }),
            _ => {}
        }
    }
    result
}

/// Hands fuzzed results to a build of `spec` over a fresh store.
fn results_to_a_build(spec: &str, deep_verify: bool) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let game = Game::from_spec(&spec.parse::<GameSpec>().expect("a spec")).expect("a game");
    let encoding = encoding_of(&game);
    let build = Build::open(&dir.path().join("s"), &game, options(deep_verify)).expect("opens");
    build.register(&worker()).expect("registers");
    let plan = build.plan().to_vec();
    let stored = AtomicUsize::new(0);
    let strategy = (
        prop::bool::weighted(0.7),
        any::<Index>(),
        any::<u64>(),
        prop_oneof![Just(65_536usize), 1usize..=5000],
        prop::option::weighted(0.75, prop::collection::vec(damage(), 1..3)),
    );
    run(strategy, |(leased, pick, seed, block_bytes, damage)| {
        // The slice leased to the worker, if one is ready, else any.
        let task = build.lease("w-1").expect("leases").task();
        let held_lease = task.filter(|_| leased);
        let info = match &held_lease {
            Some(task) => planned(&plan, task),
            None => pick.get(&plan),
        };
        let raw = noise(seed, encoding.table_bytes(info.entries) as usize);
        let valid = result_of(info, encoding, &raw, block_bytes);
        let result = damaged(valid.clone(), damage.as_deref().unwrap_or_default());
        // What the server does: the header is admitted, then the whole
        // result taken, each once it converts.
        if let Some(shard) = &result.shard {
            let header = v1::Shard {
                blocks: Vec::new(),
                ..shard.clone()
            };
            if let Ok(header) = Shard::try_from(header) {
                let _ = build.admit_result("w-1", &header);
            }
        }
        let was_done = build
            .store()
            .slice(info.id.as_str())
            .expect("reads")
            .is_some();
        let answer = SliceResult::try_from(result)
            .map_err(|e| egdb_proto::LinkError::refused(e.to_string()))
            .and_then(|result| build.complete("w-1", result));
        let held = build.store().slice(info.id.as_str()).expect("reads");
        // A valid result from the lease holder, or for a slice done, is taken.
        if damage.is_none() && (held_lease.is_some() || was_done) {
            prop_assert!(answer.is_ok(), "{}: {:?}", info.id, answer.err());
        }
        if answer.is_ok() && !was_done && held.is_some() {
            // Stored: whole and checked where the build decompresses.
            stored.fetch_add(1, Ordering::SeqCst);
            if deep_verify {
                let read = build.store().read_slice(info.id.as_str());
                prop_assert!(read.is_ok(), "{:?}", read.err());
            }
        }
        Ok(())
    });
    assert!(stored.load(Ordering::SeqCst) > 0, "no result was stored");
    drop(build);
    // Whatever was stored, the store opens again.
    Build::open(&dir.path().join("s"), &game, options(deep_verify)).expect("opens again");
}

#[test]
fn results_to_a_nim_build() {
    results_to_a_build("nim:triangle:5:normal", true);
}

#[test]
fn results_to_a_morris_build() {
    results_to_a_build("morris:standard:3", false);
}

// ---- The verify journal kept beside a store ----

#[test]
fn verify_journals() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let game = Game::from_spec(&"nim:triangle:3:normal".parse::<GameSpec>().expect("a spec"))
        .expect("a game");
    // A directory without RocksDB's IDENTITY: the journal names it `-`.
    let header = format!(
        "egdb-verify 2 {} {:016x} -",
        game.spec(),
        game.fingerprint()
    );
    let record = (
        prop_oneof![
            select(&["outer-00", "move-03-03", "", "a b", "é"][..]).prop_map(String::from),
            any::<String>()
        ],
        any::<u32>(),
    );
    let strategy = (
        prop::bool::weighted(0.9),
        prop::collection::vec(record, 0..8),
        prop::option::weighted(0.5, byte_edits()),
    );
    let kept = AtomicUsize::new(0);
    run(strategy, |(headed, records, edits)| {
        let mut text = if headed {
            format!("{header}\n")
        } else {
            String::new()
        };
        for (slice, crc) in &records {
            text += &format!("{slice} {crc:08x}\n");
        }
        let bytes = edits
            .as_deref()
            .map_or(text.clone().into_bytes(), |e| edited(text.as_bytes(), e));
        std::fs::write(dir.path().join("verify.journal"), bytes).expect("writes");
        let journal = egdb_check::verify::Journal::open(dir.path(), &game, false);
        // Unedited, with names of one line: each slice's last line holds.
        if headed && edits.is_none() && records.iter().all(|(s, _)| !s.contains('\n')) {
            let last: std::collections::HashMap<&String, u32> =
                records.iter().map(|(s, c)| (s, *c)).collect();
            // Lines that name no slice are dropped as they are read.
            for (slice, crc) in last {
                if let Ok(id) = egdb_proto::SliceId::parse(slice) {
                    prop_assert!(journal.passed(&id, crc), "{:?} {:08x}", slice, crc);
                    kept.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
        Ok(())
    });
    assert!(kept.load(Ordering::SeqCst) > 0);
}

/// Found by `stored_slices_read_back_or_fail_cleanly` (db-format): JSON
/// has no number for NaN or infinity, serde_json writes `null`, and the
/// manifest record no longer reads. A solve time that is NaN (a clock gone
/// wrong, or a hostile peer) is refused: taken, it left a store that opened
/// neither for the build nor for queries. Now a result holds a duration:
/// NaN does not convert, and the longest one stores.
#[test]
fn a_result_with_a_nan_solve_time_leaves_a_store_that_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    let game = Game::from_spec(&"nim:triangle:4:normal".parse::<GameSpec>().unwrap()).unwrap();
    let build = Build::open(&path, &game, options(false)).unwrap();
    build.register(&worker()).unwrap();
    let task = build.lease("w-1").unwrap().task().unwrap();
    let info = planned(build.plan(), &task).clone();
    let raw = noise(
        1,
        CellEncoding::ValueDepth8.table_bytes(info.entries) as usize,
    );
    let wire = result_of(&info, CellEncoding::ValueDepth8, &raw, 4096);
    for seconds in [f64::NAN, f64::INFINITY, -1.0] {
        let nan = v1::SliceResult {
            solve_seconds: seconds,
            ..wire.clone()
        };
        assert!(SliceResult::try_from(nan).is_err(), "{seconds}");
    }
    let longest = SliceResult {
        solve_time: std::time::Duration::MAX,
        ..taken(wire)
    };
    build.complete("w-1", longest).expect("taken");
    drop(build);
    let reopened = Build::open(&path, &game, options(false));
    assert!(reopened.is_ok(), "taken, then: {:?}", reopened.err());
}

/// Found by an audit of panic sites: in a build that verifies as it goes,
/// the status of a worker holding a check indexed the plan with the
/// check's job number, one past the plan's end. Any `Status` call (a
/// peer's, `egdb status`) then failed while a check was out.
#[test]
fn status_names_a_check_that_a_worker_holds() {
    let dir = tempfile::tempdir().unwrap();
    let game = Game::from_spec(&"nim:triangle:4:normal".parse::<GameSpec>().unwrap()).unwrap();
    let encoding = encoding_of(&game);
    let verifying = BuildOptions {
        verify_as_built: true,
        ..options(false)
    };
    let build = Build::open(&dir.path().join("s"), &game, verifying).unwrap();
    build.register(&worker()).unwrap();
    let check = loop {
        let task = build.lease("w-1").unwrap().task().expect("a job is ready");
        if task.verify {
            break task;
        }
        let info = planned(build.plan(), &task).clone();
        let raw = noise(1, encoding.table_bytes(info.entries) as usize);
        build
            .complete("w-1", taken(result_of(&info, encoding, &raw, 4096)))
            .unwrap();
    };
    let status = build.status().expect("a status while a check is out");
    let held = status.workers[0].holds.as_ref().map(|(job, _)| job.clone());
    assert_eq!(held, Some(egdb_proto::JobId::Check(check.slice_id.clone())));
    assert_eq!(
        status.workers[0]
            .holds
            .as_ref()
            .map(|(job, _)| job.to_string()),
        Some(format!("check:{}", check.slice_id)),
        "as egdb status shows it"
    );
}
