//! The time left that `egdb status` shows: the entries still to solve or
//! check, at the rate of this run's finished solves and checks.

use egdb_check::SliceCheck;
use egdb_coordinator::{Build, BuildOptions};
use egdb_games::{Game, GameSpec, SliceInfo};
use egdb_proto::{BuildStatus, CheckReport, Coordinator};

#[path = "../../tests/common/build_noise.rs"]
mod build_noise;
use build_noise::*;

const GAME: &str = "nim:triangle:4:normal";

fn game() -> Game {
    Game::from_spec(&GAME.parse::<GameSpec>().expect("a spec")).expect("a game")
}

/// Asserts that the status's time left stands for `left` entries, given
/// the entries `done` in this run: eta / elapsed = left / done.
fn assert_left(status: &BuildStatus, done: u64, left: u64) {
    let eta = status.eta.expect("a time left once a job is finished");
    let says = eta.as_secs_f64() / status.elapsed.as_secs_f64() * done as f64;
    let left = left as f64;
    assert!(
        (says - left).abs() < 1e-6 * left,
        "{says} entries vs {left}"
    );
}

fn total(plan: &[SliceInfo]) -> u64 {
    plan.iter().map(|s| s.entries).sum()
}

/// Leases the next task and solves it with noise; its slice.
fn solve_one(build: &Build, encoding: egdb_db_format::CellEncoding) -> SliceInfo {
    let task = build.lease("w-1").expect("leases").task().expect("a task");
    assert!(!task.verify, "{task:?}");
    let info = planned(build.plan(), &task).clone();
    let raw = noise(3, encoding.table_bytes(info.entries) as usize);
    build
        .complete("w-1", taken(result_of(&info, encoding, &raw, 4096)))
        .expect("takes a valid result");
    info
}

/// Leases the next task, a check, and reports it passed; its slice.
fn check_one(build: &Build) -> SliceInfo {
    let task = build.lease("w-1").expect("leases").task().expect("a task");
    assert!(task.verify, "{task:?}");
    let info = planned(build.plan(), &task).clone();
    let crc = build
        .store()
        .slice(info.id.as_str())
        .expect("reads")
        .expect("stored")
        .raw_crc32;
    let report = CheckReport {
        check: SliceCheck::new(info.id.clone()),
        raw_crc32: crc,
        seconds: 0.1,
    };
    build.checked("w-1", report).expect("takes the check");
    info
}

#[test]
fn a_build_that_verifies_as_it_goes_counts_its_checks_in_the_time_left() {
    let dir = tempfile::tempdir().unwrap();
    let game = game();
    let encoding = encoding_of(&game);
    let options = BuildOptions {
        verify_as_built: true,
        ..options(false)
    };
    let build = Build::open(&dir.path().join("s.egdb"), &game, options).expect("opens");
    build.register(&worker()).expect("registers");
    let all = total(build.plan());
    assert!(build.status_now().eta.is_none(), "nothing finished yet");

    let first = solve_one(&build, encoding);
    // Every solve but the first and every check are left.
    assert_left(&build.status_now(), first.entries, 2 * all - first.entries);

    // The first slice's check is ready before anything reading it.
    let checked = check_one(&build);
    assert_eq!(checked.id, first.id);
    assert_left(
        &build.status_now(),
        2 * first.entries,
        2 * (all - first.entries),
    );
}

#[test]
fn a_verifying_coordinator_has_a_time_left() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.egdb");
    let game = noise_store(&path, GAME);
    let options = BuildOptions {
        lease_seconds: 3600.0,
        ..options(false)
    };
    let build = Build::open_verify(&path, &game, options).expect("opens to verify");
    build.register(&worker()).expect("registers");
    let all = total(build.plan());
    assert!(build.status_now().eta.is_none(), "nothing checked yet");

    let first = check_one(&build);
    assert_left(&build.status_now(), first.entries, all - first.entries);
}
