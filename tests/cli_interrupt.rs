//! Ctrl-C in the middle of a build, then the same command again; a disk
//! that fills under a build and under a worker's shard cache.

#[path = "common/build_noise.rs"]
mod build_noise;
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

/// A disk that fills up mid-build: the build stops with the device's error
/// and what it kept, and the same command finishes it once there is room.
/// It mounts a small tmpfs of its own, so it needs root (as the network
/// lab does); without, it says so and checks nothing.
#[test]
fn a_full_disk_stops_the_build_and_the_same_command_finishes_it() {
    let Some((_dir, disk)) = small_disk() else {
        return;
    };
    let store = disk.0.join("store");
    // taiwan:4 takes about 3 MB.
    let out = egdb(&[
        "build",
        "morris:taiwan:4",
        "--store",
        store.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("No space left on device"), "{said}");
    assert!(
        said.contains("the same command goes on from there"),
        "{said}"
    );
    let kept = said
        .lines()
        .find_map(|l| {
            l.split_once(" of ")
                .filter(|_| l.contains("are stored and kept"))
        })
        .map(|(n, _)| n.to_string())
        .unwrap_or_else(|| panic!("no count of kept slices: {said}"));
    // Again on the full disk: a failure of the work (1, not bad input 2)
    // that says what is kept, and no more of RocksDB's files each time.
    let text_logs = || {
        std::fs::read_dir(&store)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with("LOG")
            })
            .count()
    };
    let logs_before = text_logs();
    for _ in 0..2 {
        let again = egdb(&[
            "build",
            "morris:taiwan:4",
            "--store",
            store.to_str().unwrap(),
        ]);
        let said = stderr(&again);
        assert_eq!(again.status.code(), Some(1), "{said}");
        let kept = ["every slice it holds is kept", "are stored and kept"];
        assert!(kept.iter().any(|k| said.contains(k)), "{said}");
    }
    // A store keeps three of RocksDB's text logs at most.
    assert!(
        text_logs() <= logs_before.max(3),
        "{logs_before} {}",
        text_logs()
    );
    disk.resize("64M");
    let out = build("morris:taiwan:4", &store, &[]);
    let resumed = stderr(&out);
    assert!(
        resumed.contains(&format!("resuming morris:taiwan:4: {kept} of")),
        "kept {kept}: {resumed}"
    );
    let verified = egdb(&["verify", "--store", store.to_str().unwrap()]);
    assert!(verified.status.success(), "{}", stderr(&verified));
}

/// Backups to a disk too small for them: each is refused before it is
/// begun, said, and the build (on another disk) goes on to its end.
#[test]
fn backups_that_would_fill_their_disk_are_not_taken_and_the_build_goes_on() {
    let Some((dir, disk)) = small_disk() else {
        return;
    };
    let store = dir.path().join("store");
    let backups = disk.0.join("backups");
    let out = build(
        "morris:taiwan:4",
        &store,
        &["--backup", backups.to_str().unwrap(), "--backup-every", "1"],
    );
    let said = stderr(&out);
    assert!(said.contains("no backup this time"), "{said}");
    assert!(
        said.contains("bytes free, and a backup now would need"),
        "{said}"
    );
    assert!(said.contains("backups: 0 taken"), "{said}");
}

/// A worker's shard cache on a disk that fills: the put fails with the
/// device's error and leaves no half-written file, and the cache goes on.
#[test]
fn a_full_disk_fails_a_cache_put_and_keeps_no_half_of_it() {
    use egdb_db_format::{CellEncoding, Packing};
    use egdb_proto::{SliceId, Task};
    use egdb_worker::shard::encode_shard;
    use egdb_worker::{ShardCache, WorkerError};
    let Some((_dir, disk)) = small_disk() else {
        return;
    };
    let shard = |id: &str, len: usize| {
        // Noise: stored at about its raw size.
        let raw = build_noise::noise(7, len);
        encode_shard(
            &SliceId::new(id),
            CellEncoding::ValueDepth8,
            &raw,
            64 << 10,
            Packing::Small(1),
        )
        .unwrap()
    };
    let task = Task {
        game: "nim:triangle:6:normal".to_string(),
        depth: true,
        game_definition: None,
        slice_id: SliceId::new("next"),
        dependencies: Vec::new(),
        verify: false,
        zstd_only: false,
        memory: 0,
    };
    let cache = ShardCache::open(&disk.0).unwrap();
    match cache.put(&task, &shard("large", 2 << 20)) {
        Err(WorkerError::Cache { reason, .. }) => {
            assert!(reason.contains("No space left on device"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    let left: Vec<String> = walk(&disk.0);
    assert!(left.iter().all(|f| !f.contains("large")), "{left:?}");
    let small = shard("small", 100 << 10);
    cache.put(&task, &small).unwrap();
    assert_eq!(
        cache.get(&task, &SliceId::new("small")).unwrap(),
        Some(small)
    );
}

/// Every file's path under `dir`.
fn walk(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flat_map(|entry| {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path)
            } else {
                vec![path.display().to_string()]
            }
        })
        .collect()
}

/// A disk of 1 MiB (a tmpfs in a directory of its own), or `None`, said,
/// without root.
fn small_disk() -> Option<(tempfile::TempDir, Tmpfs)> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip("root", "mounting a small disk needs root");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let disk = Tmpfs::mount(&dir.path().join("disk"), "1M");
    Some((dir, disk))
}

/// A tmpfs mounted for one test, unmounted when dropped.
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    fn mount(at: &std::path::Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(at).unwrap();
        let options = format!("size={size}");
        run_mount(&["-t", "tmpfs", "-o", &options, "tmpfs", at.to_str().unwrap()]);
        Tmpfs(at.to_path_buf())
    }

    fn resize(&self, size: &str) {
        let options = format!("remount,size={size}");
        run_mount(&["-o", &options, self.0.to_str().unwrap()]);
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn run_mount(args: &[&str]) {
    let status = Command::new("mount").args(args).status().unwrap();
    assert!(status.success(), "mount {args:?}");
}

/// Interrupts `egdb build GAME` after `after_seconds` and a first slice,
/// then goes on for one more slice.
fn interrupt_and_resume(game: &str, extra: &[&str], slices: usize, after_seconds: u64) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let s = store.to_str().unwrap();
    let child = common::egdb_command()
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
