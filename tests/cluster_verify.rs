//! A coordinator that verifies a finished store, leasing checks to workers
//! that talk gRPC on loopback: passes, failures named by slice and
//! position, damaged blocks, and a second run that checks only what did
//! not pass.

mod common;

use std::path::Path;
use std::process::Child;
use std::time::Duration;

use common::*;

/// A coordinator of `game` over `store` on a loopback port, with `extra`.
fn start_coordinator(game: &str, store: &Path, extra: &[&str]) -> (Child, String) {
    let mut args = vec![
        "coordinator",
        game,
        "--store",
        store.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ];
    args.extend_from_slice(extra);
    spawn_listening(&args)
}

fn start_verifier(game: &str, store: &Path) -> (Child, String) {
    start_coordinator(game, store, &["--verify"])
}

/// Runs a verifying coordinator with two workers; its output (the
/// listening line already read) and the slices the workers checked.
fn verify_on_cluster(game: &str, store: &Path) -> (std::process::Output, usize) {
    let (coordinator, url) = start_verifier(game, store);
    let workers: Vec<Child> = (0..2)
        .map(|i| start_worker(&url, &format!("v{i}"), &[]))
        .collect();
    let limit = Duration::from_secs(300);
    let out = finish(coordinator, "verifying coordinator", limit);
    let mut checked = 0;
    for (i, worker) in workers.into_iter().enumerate() {
        let done = finish(worker, "worker", limit);
        assert!(done.status.success(), "worker {i}: {}", stderr(&done));
        checked += stdout(&done)
            .split_whitespace()
            .nth(2)
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
    }
    (out, checked)
}

#[test]
fn workers_verify_what_egdb_builds() {
    let dir = tempfile::tempdir().unwrap();
    for (game, extra) in [
        ("morris:taiwan:4", &[][..]),
        ("morris:standard:3", &[][..]),
        ("nim:triangle:5:misere", &["--depth"][..]),
        ("nim:triangle:5:normal", &[][..]),
    ] {
        let store = dir.path().join(game.replace(':', "-"));
        build(game, &store, extra);
        let slices = stats_json(&store).len();
        let (out, checked) = verify_on_cluster(game, &store);
        assert!(
            out.status.success(),
            "{game}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert!(
            stdout(&out).contains(&format!("{slices} of {slices} slices passed")),
            "{game}: {}",
            stdout(&out)
        );
        assert_eq!(checked, slices, "{game}: every slice checked once");
    }
}

#[test]
fn a_changed_value_and_a_damaged_block_fail_and_a_second_run_checks_only_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw4");
    let game = "morris:taiwan:4";
    build(game, &store, &[]);
    let slices = stats_json(&store).len();
    let slice = largest_slice(&store);
    rewrite_slice(&store, &slice, |_, raw| turn_a_value(raw));
    // Another slice with a damaged block: its check fails on the checksum.
    let damaged = stats_json(&store)
        .iter()
        .map(|s| s["slice"].as_str().unwrap().to_string())
        .find(|s| s.starts_with("place-07"))
        .unwrap();
    {
        let opened = egdb_db_format::Store::open(&store).unwrap();
        let record = opened.slice(&damaged).unwrap().unwrap();
        let mut blocks: Vec<Vec<u8>> = (0..record.blocks)
            .map(|i| opened.block_record(&damaged, i).unwrap())
            .collect();
        let middle = blocks[0].len() / 2;
        blocks[0][middle] ^= 0x10;
        opened.put_slice(&record, &blocks).unwrap();
    }
    let (out, checked) = verify_on_cluster(game, &store);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let said = stdout(&out);
    assert!(said.contains(&format!("slice {slice}: FAILED")), "{said}");
    assert!(said.contains("its moves say"), "{said}");
    assert!(said.contains(&format!("slice {damaged}: FAILED")), "{said}");
    assert!(said.contains("corrupt block 0"), "{said}");
    assert_eq!(checked, slices);
    let passed: usize = said
        .split(&format!(" of {slices} slices passed"))
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(passed < slices - 1, "{said}");
    // Passes are kept: a second run checks the failed slices only.
    let (again, rechecked) = verify_on_cluster(game, &store);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(rechecked, slices - passed, "{}", stdout(&again));
    assert!(
        stdout(&again).contains(&format!("{passed} of {slices} slices passed")),
        "{}",
        stdout(&again)
    );
}

#[test]
fn a_cluster_build_checks_each_slice_before_anything_is_built_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let (store, reference) = (dir.path().join("t5"), dir.path().join("reference"));
    let game = "nim:triangle:5:normal";
    let (coordinator, url) = start_coordinator(game, &store, &["--verify-as-built", "-v"]);
    let workers: Vec<Child> = (0..2)
        .map(|i| start_worker(&url, &format!("w{i}"), &[]))
        .collect();
    let limit = Duration::from_secs(300);
    let out = finish(coordinator, "coordinator", limit);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("every slice verified as it was stored"),
        "{}",
        stdout(&out)
    );
    for worker in workers {
        let done = finish(worker, "worker", limit);
        assert!(done.status.success(), "{}", stderr(&done));
    }
    build(game, &reference, &[]);
    assert_eq!(checksums(&store), checksums(&reference));
    let journal = std::fs::read_to_string(store.join("verify.journal")).unwrap();
    assert!(
        journal.starts_with("egdb-built "),
        "a build that passed keeps its passes as a build's: {journal}"
    );
    // In the coordinator's log, every slice was verified before any slice
    // that reads it was stored.
    let events: Vec<(String, String)> = stderr(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|l| {
            let f = &l["fields"];
            Some((
                f["message"].as_str()?.to_string(),
                f["slice"].as_str()?.to_string(),
            ))
        })
        .collect();
    let at = |message: &str, slice: &str| {
        events
            .iter()
            .position(|(m, s)| m == message && s == slice)
            .unwrap_or_else(|| panic!("no {message:?} for {slice}"))
    };
    let spec: egdb_games::GameSpec = game.parse().unwrap();
    let plan = egdb_games::Game::from_spec(&spec).unwrap().slices();
    for slice in &plan {
        let stored = at("slice done", slice.id.as_str());
        assert!(at("slice verified", slice.id.as_str()) > stored);
        for read in &slice.dependencies {
            assert!(
                at("slice verified", read.as_str()) < stored,
                "{} was stored before {read} was verified",
                slice.id
            );
        }
    }
}
