//! `egdb build`, `stats` and `query` end to end, through the real binary and
//! real RocksDB stores.

mod common;

use common::*;

#[test]
fn build_stats_and_query_a_small_triangle() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t4");
    let out = build("nim:triangle:4:normal", &store, &[]);
    assert_verified(&store);
    assert!(
        stdout(&out).contains("start position: win"),
        "{}",
        stdout(&out)
    );

    let slices = stats_json(&store);
    let total: u64 = slices
        .iter()
        .map(|s| s["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 1 << 10);
    for s in &slices {
        assert_eq!(s["phase"], "nim");
        let (w, l, d) = (
            s["win"].as_u64().unwrap(),
            s["loss"].as_u64().unwrap(),
            s["draw"].as_u64().unwrap(),
        );
        assert_eq!(w + l + d, s["positions"].as_u64().unwrap());
        let classes = s["canonical_positions"].as_u64().unwrap();
        assert!(
            classes * 6 >= s["positions"].as_u64().unwrap()
                && classes <= s["positions"].as_u64().unwrap()
        );
    }

    let start = query_json(&store, "start");
    assert_eq!(start["value"], "win");
    let moves = start["moves"].as_array().unwrap();
    // 10 singles, and runs of 2 to 4 on 3 directions: 3 * (1 + 3 + 6) = 30.
    assert_eq!(moves.len(), 40);
    assert!(
        moves.iter().any(|m| m["value"] == "loss"),
        "a winning move exists"
    );
    let position = query_json(&store, "./../.../o..o");
    assert_eq!(position["position"], "./../.../o..o");
    assert_eq!(position["moves"].as_array().unwrap().len(), 2);
    assert_eq!(
        position["value"], "loss",
        "two stones far apart: whoever moves first loses"
    );
}

#[test]
fn a_finished_store_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("hex");
    build("nim:hexagram", &store, &[]);
    assert_verified(&store);
    let before = checksums(&store);
    let again = build("nim:hexagram", &store, &[]);
    assert!(
        stdout(&again).contains("nothing to do"),
        "{}",
        stdout(&again)
    );
    assert_eq!(checksums(&store), before);
    assert_eq!(query_json(&store, "2088")["value"], "loss");
    assert_eq!(query_json(&store, "1664")["value"], "win");
}

#[test]
fn a_halted_build_resumes_without_redoing_slices() {
    let dir = tempfile::tempdir().unwrap();
    let (partial, whole) = (dir.path().join("partial"), dir.path().join("whole"));
    let first = build("nim:triangle:6:misere", &partial, &["--max-slices", "4"]);
    assert!(
        stdout(&first).contains("4 of 16 slices done"),
        "{}",
        stdout(&first)
    );
    assert_eq!(stats_json(&partial).len(), 4);
    let status = |store: &std::path::Path| {
        let out = egdb(&["status", "--store", store.to_str().unwrap(), "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()
    };
    let halted = status(&partial);
    assert_eq!(halted["complete"], false);
    assert_eq!(halted["slices"]["stored"], 4);
    assert_eq!(halted["slices"]["total"], 16);
    let stored: u64 = stats_json(&partial)
        .iter()
        .map(|s| s["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(halted["positions_done"], stored);
    assert!(stored < halted["positions_total"].as_u64().unwrap());
    let kept = checksums(&partial);
    let second = build("nim:triangle:6:misere", &partial, &["-v"]);
    assert!(
        stderr(&second).contains("4 of 16 slices already in"),
        "{}",
        stderr(&second)
    );
    // Each slice's log line says how far the whole build is.
    let progress: Vec<(u64, u64)> = stderr(&second)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|l| l["fields"]["message"] == "slice done")
        .map(|l| {
            let f = &l["fields"];
            (f["done"].as_u64().unwrap(), f["of"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(progress, (5..=16).map(|d| (d, 16)).collect::<Vec<_>>());
    assert!(
        stdout(&second).contains("16 slices (12 new)"),
        "{}",
        stdout(&second)
    );
    build("nim:triangle:6:misere", &whole, &[]);
    let resumed = checksums(&partial);
    assert_eq!(resumed, checksums(&whole));
    assert_verified(&partial);
    assert!(kept.iter().all(|k| resumed.contains(k)));
    let done = status(&partial);
    assert_eq!(done["complete"], true);
    assert_eq!(done["slices"]["stored"], 16);
    assert_eq!(done["positions_done"], done["positions_total"]);
}

#[test]
fn depth_builds_answer_with_depths() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t5d");
    build("nim:triangle:5:normal", &store, &["--depth"]);
    assert_verified(&store);
    let start = query_json(&store, "start");
    assert_eq!(start["value"], "win");
    let depth = start["depth"].as_u64().unwrap();
    let moves = start["moves"].as_array().unwrap();
    let best = moves
        .iter()
        .filter(|m| m["value"] == "loss")
        .map(|m| m["depth"].as_u64().unwrap())
        .min()
        .unwrap();
    assert_eq!(depth, best + 1);
    let slices = stats_json(&store);
    assert!(slices.iter().all(|s| s["max_depth"].is_u64()));
}

#[test]
fn custom_games_build_from_a_file_and_query_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("strip.toml");
    std::fs::copy(test_data("strip.toml"), &file).unwrap();
    let store = dir.path().join("strip");
    let spec = format!("nim:file:{}", file.display());
    build(&spec, &store, &["--depth"]);
    assert_verified(&store);
    // The store keeps the definition: the file may go.
    std::fs::remove_file(&file).unwrap();
    // A strip of 9 under take-1-to-3-adjacent: the first player wins by
    // taking the middle stone and mirroring.
    let start = query_json(&store, "start");
    assert_eq!(start["value"], "win");
    let mirror = start["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "4")
        .unwrap()
        .clone();
    assert_eq!(mirror["value"], "loss");
    let two = query_json(&store, "o.......o");
    assert_eq!(two["value"], "loss");
    assert_eq!(two["depth"], 2);
}

#[test]
fn two_local_workers_build_the_same_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    build("nim:triangle:5:misere", &one, &["--depth"]);
    build(
        "nim:triangle:5:misere",
        &two,
        &["--depth", "--workers", "2", "--threads", "1"],
    );
    assert_eq!(checksums(&one), checksums(&two));
    assert_verified(&two);
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t3");
    build("nim:triangle:3:normal", &store, &[]);
    assert_verified(&store);
    let mut child = common::egdb_command()
        .args(["query", "--store", store.to_str().unwrap(), "start"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before egdb writes.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn bench_cache_puts_reads_back_within_its_limit_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let hits = |limit: &str| {
        let out = egdb(&[
            "bench-cache",
            "--dir",
            d,
            "--shard-bytes",
            "1MiB",
            "--shards",
            "6",
            "--limit",
            limit,
            "--reads",
            "2",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report = stdout(&out);
        assert!(
            report.contains("6 shards of 1 MiB") && report.contains("disk:"),
            "{report}"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "left behind"
        );
        report
            .split_once(" hits)")
            .and_then(|(head, _)| head.rsplit_once('(')?.1.parse::<u32>().ok())
            .unwrap_or_else(|| panic!("{report}"))
    };
    // Room for two shards of noise: the two put before each task are
    // read back (one before the second put, two before each of the four
    // others).
    assert_eq!(hits("2.5MiB"), 9);
    // Room for none but the shard put last.
    assert_eq!(hits("1MiB"), 5);

    let out = egdb(&["bench-cache", "--dir", d, "--shard-bytes", "5GiB"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--shard-bytes"), "{}", stderr(&out));

    // bench-query's count of probes is bounded before the store is opened
    // (one past the last usize overflowed the sample and panicked).
    for probes in ["0", "18446744073709551615"] {
        let out = egdb(&["bench-query", "--store", d, "--probes", probes]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("--probes"), "{}", stderr(&out));
    }
}
