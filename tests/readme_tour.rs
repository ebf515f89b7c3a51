//! README's five-minute tour, run as written: the shell block between its
//! `<!-- tour -->` marks, with the binary under test first on the PATH the
//! block itself sets and free loopback ports in place of the fixed ones.

mod common;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The ports the README names, each given a free one here.
const README_PORTS: [&str; 3] = ["127.0.0.1:7070", "127.0.0.1:7071", "127.0.0.1:8080"];

fn tour_block(readme: &str) -> String {
    let after = readme
        .split_once("<!-- tour -->")
        .expect("README marks its tour with <!-- tour -->")
        .1;
    let block = after
        .split_once("<!-- /tour -->")
        .expect("README ends its tour with <!-- /tour -->")
        .0;
    let inner = block
        .trim()
        .strip_prefix("```sh")
        .and_then(|b| b.strip_suffix("```"))
        .expect("the tour is one ```sh block");
    inner.to_string()
}

fn free_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

/// A build cache as the tour expects one, `$CARGO_TARGET_DIR/release/egdb`,
/// holding the binary under test whatever profile built it.
fn target_dir_with_binary(dir: &Path) -> std::path::PathBuf {
    let target = dir.join("target");
    std::fs::create_dir_all(target.join("release")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_egdb"), target.join("release/egdb")).unwrap();
    target
}

#[test]
fn the_readme_tour_runs_as_written() {
    let readme = std::fs::read_to_string(common::repo_file("README.md")).unwrap();
    let mut script = tour_block(&readme);
    for port in README_PORTS {
        assert!(script.contains(port), "the tour no longer uses {port}");
        script = script.replace(port, &free_port());
    }
    let dir = tempfile::tempdir().unwrap();
    let target = target_dir_with_binary(dir.path());
    let scratch = dir.path().join("tmp");
    std::fs::create_dir(&scratch).unwrap();
    let mut command = Command::new("bash");
    command
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(common::repo_file(""))
        .env("CARGO_TARGET_DIR", &target)
        .env("TMPDIR", &scratch)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so that whatever it left running goes with it.
        .process_group(0);
    let child = command.spawn().expect("bash runs");
    let group = child.id() as libc::pid_t;
    let out = common::finish(child, "the README tour", Duration::from_secs(600));
    // SAFETY: signals the group this test created; no process of it is
    // needed any more.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the tour failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // What each step shows: the value of standard:3 from the store and
    // from the server, the explorer page, the cluster's build, the build
    // stopped, resumed and checked, and its results.
    for expected in [
        "win in 23",
        "\"value\":\"win\"",
        "<title>egdb explorer</title>",
        "listening on",
        "built morris:taiwan:4",
        "stopped as asked: 20 of",
        "every slice verified as it was stored",
        "first player to move",
    ] {
        assert!(
            stdout.contains(expected),
            "the tour printed no {expected:?}:\n{stdout}"
        );
    }
}
