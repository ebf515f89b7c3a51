//! Ctrl-C in the middle of a build, then the same command again.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

#[test]
fn an_interrupted_build_resumes_without_redoing_slices() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t7d");
    let s = store.to_str().unwrap();
    // About a minute of work: long enough to be interrupted in the middle.
    let child = Command::new(env!("CARGO_BIN_EXE_egdb"))
        .args(["build", "nim:triangle:7:normal", "--depth", "--store", s])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until a few slices are in, then send SIGINT as a terminal would.
    let started = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let done = std::fs::read_dir(&store).map(|d| d.count()).unwrap_or(0);
        if done > 0 && started.elapsed() > Duration::from_secs(3) {
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
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("run the same command again to resume"),
        "{}",
        stderr(&out)
    );

    let kept = checksums(&store);
    assert!(
        !kept.is_empty() && kept.len() < 23,
        "{} slices kept",
        kept.len()
    );
    // Go on for one more slice only: it must start from what is there.
    let again = build(
        "nim:triangle:7:normal",
        &store,
        &["--depth", "--max-slices", "1"],
    );
    let expected = format!("{} of 23 slices already in", kept.len());
    assert!(stderr(&again).contains(&expected), "{}", stderr(&again));
    let now = checksums(&store);
    assert_eq!(now.len(), kept.len() + 1);
    assert!(kept.iter().all(|k| now.contains(k)));
}
