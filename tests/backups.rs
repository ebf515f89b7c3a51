//! Backups taken while a build runs (`--backup`), and `egdb restore`: a
//! store lost with its disk comes back from its newest sound backup, and
//! the same build command goes on from there.

mod common;

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use common::*;

/// 23 slices; the middle ones take a worker's one thread a second or two.
const LONG_GAME: &str = "nim:triangle:7:normal";

/// `egdb restore --backup DIR --list`, a line per backup.
fn listed(backups: &Path) -> Vec<String> {
    let out = egdb(&["restore", "--backup", backups.to_str().unwrap(), "--list"]);
    stdout(&out).lines().map(str::to_string).collect()
}

/// The slices the newest listed backup holds (at least).
fn newest_slices(backups: &Path) -> usize {
    listed(backups)
        .first()
        .and_then(|line| {
            let (head, _) = line.split_once(" slices")?;
            head.rsplit(' ').next()?.parse().ok()
        })
        .unwrap_or(0)
}

/// `egdb restore --backup DIR --store STORE`.
fn restore(backups: &Path, store: &Path) -> std::process::Output {
    let (backups, store) = (backups.to_str().unwrap(), store.to_str().unwrap());
    egdb(&["restore", "--backup", backups, "--store", store])
}

fn kill_hard(child: &mut Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_store_lost_mid_build_is_restored_from_its_backup_and_the_build_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (store, backups) = (dir.path().join("store"), dir.path().join("backups"));
    let (mut coordinator, url) = spawn_listening(&[
        "coordinator",
        LONG_GAME,
        "--depth",
        "--store",
        store.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--backup",
        backups.to_str().unwrap(),
        "--backup-every",
        "1",
    ]);
    let mut worker = start_worker(&url, "w", &[]);
    // A backup with some slices, taken while the build runs.
    let started = Instant::now();
    while newest_slices(&backups) < 5 {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "no backup of 5 slices: {:?}",
            listed(&backups)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // The coordinator first, then the disk: the whole store is gone.
    kill_hard(&mut coordinator);
    kill_hard(&mut worker);
    let kept = newest_slices(&backups);
    std::fs::remove_dir_all(&store).unwrap();

    let restored = restore(&backups, &store);
    assert!(restored.status.success(), "{}", stderr(&restored));
    assert!(
        stdout(&restored).contains("restored"),
        "{}",
        stdout(&restored)
    );
    // Onto a store that is there, nothing is restored, nothing touched.
    let again = restore(&backups, &store);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    let resumed = build(LONG_GAME, &store, &["--depth"]);
    let said = stderr(&resumed);
    let done = said
        .split("resuming nim:triangle:7:normal: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("not resumed: {said}"));
    assert!(done >= kept, "{done} slices back, the backup held {kept}");
    let clean = dir.path().join("clean");
    build(LONG_GAME, &clean, &["--depth"]);
    assert_eq!(checksums(&store), checksums(&clean));
    // A backup of another game is refused when the build is resumed.
    let other = egdb(&[
        "build",
        "nim:triangle:7:misere",
        "--store",
        store.to_str().unwrap(),
    ]);
    assert_eq!(other.status.code(), Some(2), "{}", stderr(&other));
}

#[test]
fn a_damaged_backup_is_refused_by_name_and_the_one_before_restored() {
    let dir = tempfile::tempdir().unwrap();
    let (store, backups) = (dir.path().join("tw3"), dir.path().join("backups"));
    let with_backups = ["--backup", backups.to_str().unwrap()];
    let mut first_run = vec!["--max-slices", "5"];
    first_run.extend(with_backups);
    build("morris:taiwan:3", &store, &first_run);
    build("morris:taiwan:3", &store, &with_backups);
    let list = listed(&backups);
    assert_eq!(list.len(), 2, "{list:?}");
    assert!(list[1].contains(", 5 slices"), "{list:?}");
    let newest: String = list[0].split(' ').nth(1).unwrap().to_string();
    // A byte of the newest backup's own files (its manifest) flipped.
    let private = backups.join("private").join(&newest);
    let manifest = std::fs::read_dir(&private)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("MANIFEST")
        })
        .unwrap_or_else(|| panic!("no manifest in {}", private.display()));
    let mut bytes = std::fs::read(&manifest).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&manifest, bytes).unwrap();

    let restored_at = dir.path().join("restored");
    let out = restore(&backups, &restored_at);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("backup {newest} refused")),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains(", 5 slices"), "{}", stdout(&out));
    assert_eq!(stored_slices(&restored_at).len(), 5);
    assert!(!dir.path().join("restored.restoring").exists());
}

#[test]
fn a_backup_that_cannot_be_written_never_stops_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let (store, not_a_dir) = (dir.path().join("tw3"), dir.path().join("file"));
    std::fs::write(&not_a_dir, "in the way").unwrap();
    let out = build(
        "morris:taiwan:3",
        &store,
        &[
            "--backup",
            not_a_dir.to_str().unwrap(),
            "--backup-every",
            "1",
        ],
    );
    let said = stderr(&out);
    assert!(said.contains("no backup this time"), "{said}");
    assert!(said.contains("it is not a directory"), "{said}");
    assert_eq!(std::fs::read_to_string(&not_a_dir).unwrap(), "in the way");
    assert_verified(&store);
}

/// RocksDB gives a restored store an identity of its own, and the verify
/// journal names the identity of the store it checked: the backup keeps
/// the store's, so a restored store's checks are not made again.
#[test]
fn a_restored_store_keeps_its_identity_and_its_checks() {
    let dir = tempfile::tempdir().unwrap();
    let (store, backups) = (dir.path().join("tw3"), dir.path().join("backups"));
    // Eight slices built and checked, then a run that checks as it goes,
    // stopped early, takes the backup.
    build("morris:taiwan:3", &store, &["--max-slices", "8"]);
    let checked = egdb(&["verify", "--built", "--store", store.to_str().unwrap()]);
    assert!(checked.status.success(), "{}", stderr(&checked));
    let backup = ["--backup", backups.to_str().unwrap()];
    let mut second_run = vec!["--verify-as-built", "--max-slices", "4"];
    second_run.extend(backup);
    build("morris:taiwan:3", &store, &second_run);
    let identity = std::fs::read_to_string(store.join("IDENTITY")).unwrap();
    let newest: String = listed(&backups)[0].split(' ').nth(1).unwrap().to_string();
    let journal =
        std::fs::read_to_string(backups.join("journals").join(format!("{newest}.journal")))
            .unwrap();
    // The header, then a line per slice that passed.
    let passed = journal.lines().count() - 1;
    assert!(passed > 0, "{journal}");
    std::fs::remove_dir_all(&store).unwrap();

    let restored = restore(&backups, &store);
    assert!(restored.status.success(), "{}", stderr(&restored));
    assert_eq!(
        std::fs::read_to_string(store.join("IDENTITY")).unwrap(),
        identity
    );
    let resumed = build("morris:taiwan:3", &store, &["-v", "--verify-as-built"]);
    let checked = stderr(&resumed).matches("slice checked").count();
    let plan: serde_json::Value =
        serde_json::from_slice(&egdb(&["plan", "morris:taiwan:3", "--json"]).stdout).unwrap();
    let planned = plan["slices"].as_array().unwrap().len();
    assert_eq!(checked, planned - passed, "{}", stderr(&resumed));
    assert_verified(&store);
}
