//! Servers stop cleanly on SIGTERM as on Ctrl-C, and a client that hangs
//! up while they write cannot kill them with SIGPIPE.

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

#[test]
fn one_shot_commands_end_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t3.egdb");
    build("nim:triangle:3:normal", &store, &[]);
    // `stats` prints more than nothing into a pipe already closed.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_egdb"))
        .args(["stats", "--store", store.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}
