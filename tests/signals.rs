//! Servers stop cleanly on SIGTERM as on Ctrl-C, and a client that hangs
//! up while they write cannot kill them with SIGPIPE (one-shot commands
//! into a closed pipe: `tests/cli_build.rs`).

mod common;

use std::process::Child;
use std::time::{Duration, Instant};

use common::*;

/// Whether the process ignores `signal` (its `SigIgn` mask in /proc).
fn ignores(child: &Child, signal: i32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .expect("a SigIgn line");
    let mask = u64::from_str_radix(mask.trim(), 16).unwrap();
    mask >> (signal - 1) & 1 == 1
}

/// Sends SIGTERM and waits for the exit status (killing after 30 s).
fn terminate(mut child: Child) -> std::process::ExitStatus {
    // SAFETY: signals our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("no exit 30 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts a server, checks that it ignores SIGPIPE, and that SIGTERM stops
/// it as Ctrl-C does.
fn assert_server_outlives_pipes_and_stops_on_sigterm(args: &[&str]) {
    let (child, _) = spawn_listening(args);
    assert!(ignores(&child, libc::SIGPIPE), "{args:?}");
    let status = terminate(child);
    assert_eq!(status.code(), Some(130), "{args:?}: {status:?}");
}

#[test]
fn serve_ignores_sigpipe_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t3.egdb");
    build("nim:triangle:3:normal", &store, &[]);
    assert_server_outlives_pipes_and_stops_on_sigterm(&[
        "serve",
        "--store",
        store.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ]);
}

#[test]
fn the_coordinator_ignores_sigpipe_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t4.egdb");
    assert_server_outlives_pipes_and_stops_on_sigterm(&[
        "coordinator",
        "nim:triangle:4:normal",
        "--store",
        store.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ]);
}
