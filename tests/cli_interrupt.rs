//! Ctrl-C in the middle of a build, then the same command again.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

#[test]
fn an_interrupted_build_resumes_without_redoing_slices() {
    // About a minute of work: long enough to be interrupted in the middle.
    interrupt_and_resume("nim:triangle:7:normal", &["--depth"], 23, 3);
}

#[test]
fn an_interrupted_morris_build_resumes_without_redoing_slices() {
    // Interrupted inside the 5 v 4 movement slices, about 10 s each.
    interrupt_and_resume("morris:taiwan:5", &[], 134, 8);
}

/// Interrupts `egdb build GAME` after `after_seconds` and a first slice,
/// then goes on for one more slice.
fn interrupt_and_resume(game: &str, extra: &[&str], slices: usize, after_seconds: u64) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let s = store.to_str().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_egdb"))
        .args(["build", game, "--store", s])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until a few slices are in, then send SIGINT as a terminal would.
    let started = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let done = std::fs::read_dir(&store).map(|d| d.count()).unwrap_or(0);
        if done > 0 && started.elapsed() > Duration::from_secs(after_seconds) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "build did not start"
        );
    }
    // SAFETY: sends SIGINT to our own child process, which is still running.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let interrupted = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    eprintln!(
        "{game}: stopped {:.1} s after Ctrl-C",
        interrupted.elapsed().as_secs_f64()
    );
    assert!(
        stderr(&out).contains("run the same command again to resume"),
        "{}",
        stderr(&out)
    );

    let kept = checksums(&store);
    assert!(
        !kept.is_empty() && kept.len() < slices,
        "{} slices kept",
        kept.len()
    );
    // Go on for one more slice only: it must start from what is there.
    let mut args = extra.to_vec();
    args.extend(["--max-slices", "1"]);
    let again = build(game, &store, &args);
    let expected = format!("{} of {slices} slices already in", kept.len());
    assert!(stderr(&again).contains(&expected), "{}", stderr(&again));
    let now = checksums(&store);
    assert_eq!(now.len(), kept.len() + 1);
    assert!(kept.iter().all(|k| now.contains(k)));
}
