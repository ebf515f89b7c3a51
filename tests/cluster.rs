//! A coordinator and workers as separate processes talking gRPC on loopback.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use egdb_proto::client::RemoteCoordinator;
use egdb_proto::v1::coordination_client::CoordinationClient;
use egdb_proto::v1::{Caller, RegisterRequest};
use egdb_worker::fault::DamagingLink;
use egdb_worker::{ShardCache, Worker, WorkerConfig};

/// `egdb coordinator GAME --store STORE --listen 127.0.0.1:0 [extra]` and the
/// URL it listens on.
fn start_coordinator(game: &str, store: &Path, extra: &[&str]) -> (Child, String) {
    let mut args = vec!["coordinator", game, "--store", store.to_str().unwrap()];
    args.extend(["--listen", "127.0.0.1:0"]);
    args.extend_from_slice(extra);
    spawn_listening(&args)
}

#[test]
fn three_workers_build_what_egdb_build_builds() {
    for game in [
        "nim:triangle:6:normal",
        "nim:triangle:6:misere",
        "morris:taiwan:4",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (cluster, single) = (dir.path().join("cluster"), dir.path().join("single"));
        let (coordinator, url) = start_coordinator(game, &cluster, &[]);
        let workers: Vec<Child> = (0..3)
            .map(|i| start_worker(&url, &format!("w{i}"), &[]))
            .collect();
        let limit = Duration::from_secs(600);
        let out = finish(coordinator, "coordinator", limit);
        assert!(out.status.success(), "{game}: {}", stderr(&out));
        let mut solved = 0;
        for (i, worker) in workers.into_iter().enumerate() {
            let out = finish(worker, "worker", limit);
            assert!(out.status.success(), "{game} worker {i}: {}", stderr(&out));
            solved += stdout(&out)
                .split_whitespace()
                .nth(2)
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(0);
        }
        build(game, &single, &[]);
        let expected = checksums(&single);
        assert_eq!(checksums(&cluster), expected, "{game}");
        assert_eq!(solved, expected.len(), "{game}: every slice solved once");
        assert_verified(&cluster);
        assert_ranked(&cluster);
        // What crossed: every shard came back once (what went out depends
        // on which worker holds what), stored as it came: workers across a
        // network rank Morris's two-byte cells themselves, so shards cross
        // at their stored size.
        let (_, received) = wire_bytes(&stderr(&out));
        let stored: u64 = stats_json(&cluster)
            .iter()
            .map(|s| s["stored_bytes"].as_u64().unwrap())
            .sum();
        assert_eq!(received, stored, "{game}");
    }
}

/// The bytes a coordinator's line at its end says went to and came from
/// workers.
fn wire_bytes(log: &str) -> (u64, u64) {
    let line = log
        .lines()
        .find_map(|l| l.strip_prefix("this run: "))
        .unwrap_or_else(|| panic!("no 'this run' line: {log}"));
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

#[test]
fn workers_of_another_cluster_game_or_protocol_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret\n").unwrap();
    let wrong = dir.path().join("wrong");
    std::fs::write(&wrong, "guess").unwrap();
    let store = dir.path().join("t5");
    let token_arg = ["--token-file", token.to_str().unwrap()];
    let mut token_and_logs = token_arg.to_vec();
    token_and_logs.push("-v");
    let (mut coordinator, url) =
        start_coordinator("nim:triangle:5:normal", &store, &token_and_logs);
    let log = collect_stderr(&mut coordinator);

    for (extra, needle) in [
        (vec![], "token"),
        (vec!["--token-file", wrong.to_str().unwrap()], "token"),
        (
            vec![
                "--token-file",
                token.to_str().unwrap(),
                "--game",
                "morris:taiwan:3",
            ],
            "builds nim:triangle:5:normal",
        ),
    ] {
        let out = finish(
            start_worker(&url, "stranger", &extra),
            "worker",
            Duration::from_secs(60),
        );
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{extra:?}: {}", stderr(&out));
    }

    // A client of another protocol version, straight through gRPC.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let status = runtime.block_on(async {
        let mut client = CoordinationClient::connect(url.clone()).await.unwrap();
        client
            .register(RegisterRequest {
                caller: Some(Caller {
                    protocol_version: 99,
                    token: Some("s3cret".to_string()),
                    worker: "future".to_string(),
                }),
                ..RegisterRequest::default()
            })
            .await
            .unwrap_err()
    });
    assert_eq!(format!("{:?}", status.code()), "FailedPrecondition");
    assert!(
        status.message().contains("protocol v99"),
        "{}",
        status.message()
    );

    // The coordinator's side says so too (its log is read as it comes).
    wait_for("three refusals logged", Duration::from_secs(10), || {
        lines_with(&log, "request refused") >= 3
    });

    // Another release of the same protocol joins, and the log says so,
    // without echoing a version that is not one.
    for (worker, version) in [("older", "0.0.1"), ("odd", "\u{1b}[2J")] {
        runtime.block_on(async {
            let mut client = CoordinationClient::connect(url.clone()).await.unwrap();
            client
                .register(RegisterRequest {
                    caller: Some(Caller {
                        protocol_version: egdb_proto::PROTOCOL_VERSION,
                        token: Some("s3cret".to_string()),
                        worker: worker.to_string(),
                    }),
                    version: version.to_string(),
                    ..RegisterRequest::default()
                })
                .await
                .unwrap()
        });
    }
    wait_for("two release warnings", Duration::from_secs(10), || {
        lines_with(&log, "another egdb release") >= 2
    });
    assert_eq!(lines_with(&log, "\"0.0.1\""), 1);
    assert_eq!(lines_with(&log, "(unreadable)"), 1);
    assert_eq!(lines_with(&log, "\u{1b}"), 0);

    // The right token still works, and nothing was built by the strangers.
    let worker = start_worker(&url, "member", &token_arg);
    assert!(finish(worker, "worker", Duration::from_secs(120))
        .status
        .success());
    let out = finish(coordinator, "coordinator", Duration::from_secs(60));
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The lines a child writes to standard error, collected as they come.
fn collect_stderr(child: &mut Child) -> std::sync::Arc<std::sync::Mutex<Vec<String>>> {
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = lines.clone();
    let stream = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(line);
        }
    });
    lines
}

/// Slices a coordinator's log says it stored.
fn slices_done(log: &std::sync::Mutex<Vec<String>>) -> Vec<String> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("\"slice done\""))
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            Some(v["fields"]["slice"].as_str()?.to_string())
        })
        .collect()
}

fn wait_for(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < limit, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Whether `egdb status` says the worker `name` holds a lease.
fn holds_a_slice(url: &str, name: &str) -> bool {
    let out = egdb(&["status", "--coordinator", url, "--json"]);
    let Ok(status) = serde_json::from_slice::<serde_json::Value>(&out.stdout) else {
        return false;
    };
    status["workers"].as_array().is_some_and(|workers| {
        workers
            .iter()
            .any(|w| w["name"] == name && w["slice"].is_string())
    })
}

fn kill_hard(child: &mut Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// 23 slices; the middle ones take a worker's one thread a second or two.
const LONG_GAME: &str = "nim:triangle:7:normal";

/// Kills `worker` (named `name`, of a `LONG_GAME` build) mid-slice once ten
/// slices are done: slices 10 to 13 take its one thread over a second
/// each, and it is killed once the coordinator says it holds one (on a
/// loaded machine the gap between two slices is long enough to land in).
fn kill_mid_slice(url: &str, log: &std::sync::Mutex<Vec<String>>, mut worker: Child, name: &str) {
    wait_for("ten slices", Duration::from_secs(120), || {
        slices_done(log).len() >= 10
    });
    wait_for(
        &format!("{name} to hold a slice"),
        Duration::from_secs(60),
        || holds_a_slice(url, name),
    );
    kill_hard(&mut worker);
}

#[test]
fn a_killed_workers_lease_expires_and_another_finishes_the_slice() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("cluster");
    let (mut coordinator, url) = start_coordinator(
        LONG_GAME,
        &store,
        &["--depth", "--lease-seconds", "2", "-v"],
    );
    let log = collect_stderr(&mut coordinator);
    kill_mid_slice(&url, &log, start_worker(&url, "doomed", &[]), "doomed");
    let second = start_worker(&url, "heir", &[]);
    let limit = Duration::from_secs(300);
    let out = finish(coordinator, "coordinator", limit);
    assert!(out.status.success());
    assert!(finish(second, "worker", limit).status.success());
    assert!(
        log.lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("lease expired")),
        "the killed worker's lease expired"
    );
    let single = dir.path().join("single");
    build(LONG_GAME, &single, &["--depth"]);
    assert_eq!(checksums(&store), checksums(&single));
}

#[test]
fn a_worker_started_again_on_its_cache_takes_its_name_and_slice_back_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (store, cache) = (dir.path().join("cluster"), dir.path().join("cache"));
    let cache_arg = ["--cache", cache.to_str().unwrap()];
    // A lease of ten minutes: far past the restarted worker's patience
    // (20 s), which it would run out of if it had to wait for the name.
    let (mut coordinator, url) = start_coordinator(
        LONG_GAME,
        &store,
        &["--depth", "--lease-seconds", "600", "-v"],
    );
    let log = collect_stderr(&mut coordinator);
    let first = start_worker(&url, "phoenix", &cache_arg);
    kill_mid_slice(&url, &log, first, "phoenix");
    // Asked after the kill: it may have handed its slice back just before.
    let held = usize::from(holds_a_slice(&url, "phoenix"));
    let again = start_worker(&url, "phoenix", &cache_arg);
    let limit = Duration::from_secs(300);
    let worker = finish(again, "worker", limit);
    assert!(worker.status.success(), "{}", stderr(&worker));
    assert!(finish(coordinator, "coordinator", limit).status.success());
    assert_eq!(
        lines_with(&log, "ready again"),
        held,
        "{:?}",
        log.lock().unwrap()
    );
    assert_eq!(lines_with(&log, "second worker process"), 0);
    let single = dir.path().join("single");
    build(LONG_GAME, &single, &["--depth"]);
    assert_eq!(checksums(&store), checksums(&single));
}

#[test]
fn a_killed_coordinator_resumes_without_solving_done_slices_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("cluster");
    let (mut first, url) = start_coordinator(LONG_GAME, &store, &["--depth", "-v"]);
    let first_log = collect_stderr(&mut first);
    let workers: Vec<Child> = (0..2)
        .map(|i| start_worker(&url, &format!("w{i}"), &[]))
        .collect();
    wait_for("six slices", Duration::from_secs(120), || {
        slices_done(&first_log).len() >= 6
    });
    kill_hard(&mut first);
    let before = slices_done(&first_log);
    let kept = checksums(&store);
    assert!(kept.len() >= before.len() && kept.len() < 23);

    // The same address again, so that the workers find it.
    let address = url.strip_prefix("http://").unwrap();
    let mut second = common::egdb_command()
        .args(["coordinator", LONG_GAME, "--store", store.to_str().unwrap()])
        .args(["--listen", address, "--depth", "-v"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let second_log = collect_stderr(&mut second);
    let limit = Duration::from_secs(300);
    assert!(finish(second, "coordinator", limit).status.success());
    for worker in workers {
        let out = finish(worker, "worker", limit);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let after = slices_done(&second_log);
    for slice in &after {
        assert!(
            !kept.iter().any(|(done, _)| done == slice),
            "{slice} was in the store before the restart and was stored again"
        );
    }
    assert_eq!(kept.len() + after.len(), 23);
    let single = dir.path().join("single");
    build(LONG_GAME, &single, &["--depth"]);
    assert_eq!(checksums(&store), checksums(&single));
}

/// Every block of every slice of a store, decompressed and checked, and
/// each slice's checksum.
fn assert_store_intact(store: &Path) {
    let opened = egdb_db_format::Store::open_read_only(store).unwrap();
    assert!(opened.is_complete().unwrap());
    for record in opened.slices().unwrap() {
        opened.read_slice(&record.slice).unwrap();
    }
}

fn lines_with(log: &std::sync::Mutex<Vec<String>>, needle: &str) -> usize {
    log.lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains(needle))
        .count()
}

#[test]
fn damaged_transfers_are_sent_again_and_a_restarted_worker_reads_its_cache() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("cluster");
    let cache = dir.path().join("cache");
    let (mut coordinator, url) = start_coordinator(
        LONG_GAME,
        &store,
        &["--depth", "--lease-seconds", "2", "-v"],
    );
    let log = collect_stderr(&mut coordinator);

    // A first worker solves a few slices, so that the next must fetch them.
    let mut first = start_worker(&url, "first", &[]);
    wait_for("four slices", Duration::from_secs(120), || {
        slices_done(&log).len() >= 4
    });
    kill_hard(&mut first);

    // Its shards reach the next worker damaged twice, and its first two
    // results reach the coordinator damaged: a worker in this process over
    // a damaging link (no binary has such an option).
    let cancel = Arc::new(AtomicBool::new(false));
    let second = {
        let (url, cache, cancel) = (url.clone(), cache.clone(), cancel.clone());
        std::thread::spawn(move || {
            let link = RemoteCoordinator::new(&url, None, Duration::from_secs(20), None).unwrap();
            let damaging = DamagingLink::new(&link, 2);
            let config = WorkerConfig {
                threads: 1,
                ..WorkerConfig::named("second", 4 << 30)
            };
            let report = Worker::new(config, &damaging)
                .with_cache(ShardCache::open(&cache).unwrap())
                .run(&cancel)
                .map_err(|e| e.to_string());
            (report, damaging.damaged())
        })
    };
    let done_before = slices_done(&log).len();
    wait_for("three more slices", Duration::from_secs(120), || {
        slices_done(&log).len() >= done_before + 3
    });

    let status = egdb(&["status", "--coordinator", &url, "--json"]);
    assert!(status.status.success(), "{}", stderr(&status));
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["slices"]["total"], 23);
    assert!(status["slices"]["done"].as_u64().unwrap() >= 7, "{status}");
    let second_status = status["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "second")
        .unwrap_or_else(|| panic!("{status}"))
        .clone();
    assert!(
        second_status["slices_done"].as_u64().unwrap() >= 1,
        "{status}"
    );
    assert!(
        second_status["bytes_sent"].as_u64().unwrap() > 0,
        "{status}"
    );
    assert!(status["eta_seconds"].as_f64().is_some(), "{status}");

    // Stopped: it gives its slice back. It went on past every damaged
    // shard (fetched again) and result (refused, solved again).
    cancel.store(true, Ordering::SeqCst);
    let (report, damaged) = second.join().unwrap();
    assert!(report.is_ok(), "{report:?}");
    assert!(damaged.0 >= 1 && damaged.1 == 2, "{damaged:?}");
    assert!(lines_with(&log, "result refused") >= 2);

    // Started again on its cache: what it fetched or solved comes from disk.
    let cache_arg = ["--cache", cache.to_str().unwrap(), "-vv"];
    let mut third = start_worker(&url, "second", &cache_arg);
    let third_log = collect_stderr(&mut third);
    let limit = Duration::from_secs(300);
    let out = finish(coordinator, "coordinator", limit);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(finish(third, "worker", limit).status.success());
    assert!(
        lines_with(&third_log, "dependency from the cache") >= 1,
        "{:?}",
        third_log.lock().unwrap()
    );
    // Each task says where its fetching went: the bytes read from disk
    // among them.
    let from_cache: u64 = third_log
        .lock()
        .unwrap()
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|event| event["fields"]["message"] == "slice solved")
        .map(|event| {
            let fields = &event["fields"];
            for seconds in ["wire", "decode", "cache_read", "cache_write"] {
                assert!(fields[seconds].as_f64().is_some(), "{seconds}: {event}");
            }
            assert!(fields["bytes_fetched"].as_u64().is_some(), "{event}");
            fields["bytes_from_cache"].as_u64().unwrap()
        })
        .sum();
    assert!(from_cache > 0, "{:?}", third_log.lock().unwrap());

    assert_store_intact(&store);
    let single = dir.path().join("single");
    build(LONG_GAME, &single, &["--depth"]);
    assert_eq!(checksums(&store), checksums(&single));
    // The other tests' stores of this game have the same checksums.
    assert_verified(&store);
}

#[test]
fn egdb_build_and_the_coordinator_resume_each_others_store() {
    // 134 slices, of a tenth of a second and more each.
    let game = "morris:taiwan:5";
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("shared");
    // One process first, stopped after 40 slices.
    build(game, &store, &["--max-slices", "40"]);
    let by_build = checksums(&store);
    assert_eq!(by_build.len(), 40);
    // The coordinator goes on with that store, and is killed on the way.
    let (mut coordinator, url) = start_coordinator(game, &store, &["-v"]);
    let log = collect_stderr(&mut coordinator);
    let mut worker = start_worker(&url, "w0", &[]);
    wait_for("five slices more", Duration::from_secs(300), || {
        slices_done(&log).len() >= 5
    });
    kill_hard(&mut coordinator);
    kill_hard(&mut worker);
    let by_coordinator = slices_done(&log);
    for slice in &by_coordinator {
        assert!(
            !by_build.iter().any(|(done, _)| done == slice),
            "{slice} was stored by egdb build and solved again"
        );
    }
    let kept = checksums(&store);
    assert!(kept.len() >= by_build.len() + by_coordinator.len() && kept.len() < 134);
    // One process again finishes it, solving none of what is kept.
    let out = build(game, &store, &[]);
    assert!(
        stderr(&out).contains(&format!("resuming {game}: {} of 134", kept.len())),
        "{}",
        stderr(&out)
    );
    let fresh = dir.path().join("fresh");
    build(game, &fresh, &[]);
    assert_eq!(checksums(&store), checksums(&fresh));
    assert_ranked(&store);
    // Each record names the path its slice took, and `egdb results`
    // sums them: the coordinator's slices came over the network from w0.
    // (One stored as the coordinator was killed, before its log line,
    // may be either.)
    let network = serde_json::json!({"path": "network", "worker": "w0"});
    let process = serde_json::json!({"path": "process", "worker": "local-0"});
    let mut over_network = 0;
    for slice in stats_json(&store) {
        let (id, path) = (slice["slice"].as_str().unwrap(), &slice["solved_by"]);
        over_network += usize::from(*path == network);
        if by_coordinator.iter().any(|s| s == id) {
            assert_eq!(path, &network, "{id}");
        } else if by_build.iter().any(|(s, _)| s == id) {
            assert_eq!(path, &process, "{id}");
        } else {
            assert!(*path == network || *path == process, "{id}: {path}");
        }
    }
    assert!(over_network >= by_coordinator.len());
    let results = egdb(&["results", "--store", store.to_str().unwrap()]);
    assert!(results.status.success(), "{}", stderr(&results));
    let row = format!("| over the network, worker w0 | {over_network} |");
    assert!(stdout(&results).contains(&row), "{}", stdout(&results));
}

#[test]
fn a_slice_no_worker_has_the_memory_for_is_named_in_the_coordinators_log() {
    let game = "nim:triangle:6:normal";
    let plan: serde_json::Value =
        serde_json::from_slice(&egdb(&["plan", game, "--json"]).stdout).unwrap();
    let largest = plan["slices"]
        .as_array()
        .unwrap()
        .iter()
        .max_by_key(|s| s["memory_need"].as_u64().unwrap())
        .unwrap();
    let need = largest["memory_need"].as_u64().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut coordinator, url) = start_coordinator(game, &dir.path().join("cluster"), &[]);
    let log = collect_stderr(&mut coordinator);
    // A byte short of the largest slice's need: the rest is solved, that
    // one waits, and the coordinator says so instead of waiting silently.
    let mut worker = common::egdb_command()
        .args(["worker", "--coordinator", &url, "--name", "small"])
        .args(["--threads", "1", "--memory", &(need - 1).to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let said = |log: &std::sync::Mutex<Vec<String>>| {
        log.lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains("no worker has the memory for this slice"))
            .cloned()
            .collect::<Vec<_>>()
    };
    wait_for("the stranded slice named", Duration::from_secs(120), || {
        !said(&log).is_empty()
    });
    // Said once, with the slice, its need and the most a worker has.
    std::thread::sleep(Duration::from_secs(2));
    let lines = said(&log);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let fields = &serde_json::from_str::<serde_json::Value>(&lines[0]).unwrap()["fields"];
    assert_eq!(fields["slice"], largest["slice"], "{lines:?}");
    assert_eq!(fields["need"].as_u64(), Some(need), "{lines:?}");
    assert_eq!(fields["most"].as_u64(), Some(need - 1), "{lines:?}");
    assert!(!slices_done(&log).contains(&largest["slice"].as_str().unwrap().to_string()));
    kill_hard(&mut worker);
    kill_hard(&mut coordinator);
}

#[test]
fn a_worker_started_by_a_test_dies_with_the_test_thread() {
    // Nothing listens on port 1: the worker would wait 20 s (--patience) for it.
    let mut worker = std::thread::spawn(|| start_worker("http://127.0.0.1:1", "orphan", &[]))
        .join()
        .unwrap();
    let started = Instant::now();
    let state = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(") ")
                    .and_then(|(_, rest)| rest.chars().next())
            })
    };
    // Killed, it stays a zombie until reaped.
    while state(worker.id()) != Some('Z') {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the worker outlived the thread that started it"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = worker.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGKILL));
}

#[test]
fn a_worker_runs_the_engine_threads_it_was_given() {
    // Three: on no machine of ours the number of cores, which a pool made
    // before the setting was read would have had instead.
    let dir = tempfile::tempdir().unwrap();
    let (mut coordinator, url) = start_coordinator(LONG_GAME, &dir.path().join("cluster"), &[]);
    let mut worker = common::egdb_command()
        .args(["worker", "--coordinator", &url, "--name", "three"])
        .args(["--threads", "3", "--memory", "1GiB"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let threads = || {
        let out = egdb(&["status", "--coordinator", &url, "--json"]);
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        status["workers"]
            .as_array()?
            .iter()
            .find(|w| w["name"] == "three")
            .and_then(|w| w["threads"].as_u64())
    };
    wait_for("the worker to register", Duration::from_secs(60), || {
        threads().is_some()
    });
    assert_eq!(threads(), Some(3));
    kill_hard(&mut worker);
    kill_hard(&mut coordinator);
}

#[test]
fn a_finished_coordinator_exits_while_a_stopped_worker_holds_its_connection() {
    let dir = tempfile::tempdir().unwrap();
    let (coordinator, url) = start_coordinator(
        "nim:triangle:6:normal",
        &dir.path().join("cluster"),
        &["--lease-seconds", "2"],
    );
    // Registered, then stopped (SIGSTOP): its connection stays open and
    // it never hangs up. A slice it may hold comes back when its lease ends.
    let mut frozen = start_worker(&url, "frozen", &[]);
    wait_for("the worker to register", Duration::from_secs(60), || {
        let out = egdb(&["status", "--coordinator", &url, "--json"]);
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|s| s["workers"].as_array().map(|w| !w.is_empty()))
            .unwrap_or(false)
    });
    // SAFETY: stops our own child, which has not been reaped.
    unsafe { libc::kill(frozen.id() as libc::pid_t, libc::SIGSTOP) };
    let worker = start_worker(&url, "awake", &[]);
    // Its build done, the coordinator waits for connections at most a few
    // seconds (before, up to its 15-minute idle timeout).
    let out = finish(coordinator, "coordinator", Duration::from_secs(180));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(finish(worker, "worker", Duration::from_secs(60))
        .status
        .success());
    kill_hard(&mut frozen);
}
