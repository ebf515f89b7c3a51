//! Morris through `egdb build`, `stats` and `query`: real stores, real
//! binary, checked against the plain solver.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use egdb_games::morris::oracle::Oracle;
use egdb_games::morris::{MorrisGame, Variant};
use egdb_games::{Game, Value};
use egdb_tablebase::Tablebase;

/// Every position the plain solver reaches in the whole game, probed in the
/// store `egdb build` wrote.
fn store_agrees_with_the_plain_solver(variant: Variant, pieces: u8, spec: &str) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("m");
    build(spec, &store, &["--workers", "2"]);
    store_holds_the_plain_solution(&store, &MorrisGame::new(variant, pieces), spec);
}

/// The store passes `egdb verify`, holds the plain solver's value and depth
/// of every position of the whole game, and its stats add up.
fn store_holds_the_plain_solution(store: &std::path::Path, game: &MorrisGame, spec: &str) {
    assert_verified(store);
    let tablebase = Tablebase::open(store).unwrap();
    let mut checked = 0;
    // Where placing and moving mix, a store holds every start up to its
    // game's.
    let oracle = if game.rules().mixes_hands() {
        Oracle::every_start(game.rules())
    } else {
        Oracle::whole_game(game.rules())
    };
    for (position, (value, depth)) in oracle.solutions() {
        let probe = tablebase.probe(&position.to_string()).unwrap();
        let expected = (value != Value::Draw).then_some(depth);
        assert_eq!((probe.value, probe.depth), (value, expected), "{position}");
        checked += 1;
    }
    assert!(checked > 10_000, "{checked} positions");

    let slices = stats_json(store);
    assert_eq!(slices.len(), game.slices().len(), "{spec}");
    for s in &slices {
        let n = |field: &str| s[field].as_u64().unwrap();
        assert_eq!(n("win") + n("loss") + n("draw"), n("positions"), "{s}");
        assert_eq!(
            n("canonical_win") + n("canonical_loss") + n("canonical_draw"),
            n("canonical_positions"),
            "{s}"
        );
        // A class holds 1 to 16 arrangements.
        assert!(n("canonical_positions") <= n("positions"));
        assert!(n("canonical_positions") * 16 >= n("positions"));
        let phase = s["phase"].as_str().unwrap();
        assert!(["movement", "placement", "hands"].contains(&phase), "{s}");
        assert_eq!(s["ply"].is_null(), phase != "placement", "{s}");
    }
}

#[test]
fn standard_three_store_agrees_with_the_plain_solver() {
    store_agrees_with_the_plain_solver(Variant::Standard, 3, "morris:standard:3");
}

#[test]
fn taiwan_three_store_agrees_with_the_plain_solver() {
    store_agrees_with_the_plain_solver(Variant::Taiwan, 3, "morris:taiwan:3");
}

#[test]
fn morabaraba_three_store_agrees_with_the_plain_solver() {
    store_agrees_with_the_plain_solver(Variant::Morabaraba, 3, "morris:morabaraba:3");
}

/// Placing and moving mixed (RULES.md §3a): Lasker Morris and an unequal
/// start's spec, built by the binary with every slice checked as stored.
#[test]
fn lasker_and_unequal_start_stores_agree_with_the_plain_solver() {
    let empty = ".".repeat(24);
    for (spec, game, start) in [
        (
            "morris:lasker:3",
            MorrisGame::new(Variant::Lasker, 3),
            "b 3 3",
        ),
        (
            "morris:morabaraba:3:4",
            MorrisGame::with_hands(Variant::Morabaraba, 3, 4).unwrap(),
            "b 3 4",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("m");
        build(spec, &store, &["--workers", "2", "--verify-as-built"]);
        store_holds_the_plain_solution(&store, &game, spec);
        let answer = query_json(&store, "start");
        assert_eq!(answer["position"], format!("{empty} {start}"), "{answer}");
    }
}

/// Hand slices are named by what they hold: a build of a larger start
/// takes every slice of a smaller one's store of the same rules, and its
/// tables are those of a build from nothing. The smaller store's checksum
/// list vouches for every slice taken, hand slices as movement ones.
#[test]
fn a_larger_start_takes_every_slice_of_a_smaller_ones_store() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("l3");
    build("morris:lasker:3", &small, &[]);
    let taken = checksums(&small).len();
    let list = dir.path().join("l3.crc");
    write_crc_list(&small, &list);
    let reusing = dir.path().join("l43");
    let out = build(
        "morris:lasker:4:3",
        &reusing,
        &[
            "--reuse",
            small.to_str().unwrap(),
            "--verify-as-built",
            "--verified-crc",
            list.to_str().unwrap(),
        ],
    );
    assert!(
        stderr(&out).contains(&format!("took {taken} slices")),
        "{}",
        stderr(&out)
    );
    let vouched = format!(
        "every slice verified as it was stored ({taken} of them by their checksums in {}",
        list.display()
    );
    assert!(stdout(&out).contains(&vouched), "{}", stdout(&out));
    let fresh = dir.path().join("l43-fresh");
    build("morris:lasker:4:3", &fresh, &[]);
    let (mut same, mut built) = (checksums(&reusing), checksums(&fresh));
    same.sort();
    built.sort();
    assert_eq!(same, built, "the same tables as a build from nothing");
}

/// A rules file builds like a preset (in two runs: it resumes), and its
/// store keeps the rules: with the file gone it still answers and verifies.
#[test]
fn a_rules_file_builds_resumes_and_its_store_outlives_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("mixed.toml");
    let text = "name = \"Mixed rules\"\npieces = 3\ndiagonals = false\n\
                mill_takes = \"any\"\ngang = true\ndan = false\nflying = true\n\
                lose_below_three = \"board-in-movement\"\n";
    std::fs::write(&rules, text).unwrap();
    let spec = format!("morris:file:{}", rules.display());
    let store = dir.path().join("f");
    let first = build(&spec, &store, &["--max-slices", "3"]);
    assert!(
        stdout(&first).contains("stopped as asked: 3 of"),
        "{}",
        stdout(&first)
    );
    build(&spec, &store, &[]);
    let Game::Morris(game) = Game::from_spec(&spec.parse().unwrap()).unwrap() else {
        unreachable!()
    };
    assert_eq!(game.name(), "Mixed rules");
    std::fs::remove_file(&rules).unwrap();
    store_holds_the_plain_solution(&store, &game, &spec);
    let start = query_json(&store, "start");
    assert!(start["value"].is_string(), "{start}");

    // A preset's rules from a file: the same tables as the preset.
    let morabaraba = dir.path().join("morabaraba.toml");
    std::fs::write(
        &morabaraba,
        "pieces = 3\ndiagonals = true\nmill_takes = \"not-in-mill-unless-all\"\n\
         gang = false\ndan = false\nflying = true\nlose_below_three = \"board-and-hand\"\n",
    )
    .unwrap();
    let from_file = dir.path().join("m-file");
    let preset = dir.path().join("m-preset");
    build(
        &format!("morris:file:{}", morabaraba.display()),
        &from_file,
        &[],
    );
    build("morris:morabaraba:3", &preset, &[]);
    assert_eq!(checksums(&from_file), checksums(&preset));

    let out = egdb(&["plan", &format!("morris:file:{}", rules.display())]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("mixed.toml"), "{}", stderr(&out));
}

/// The value and depth a query's moves give its position: the fastest win,
/// else a draw, else the slowest loss.
fn best_of_moves(answer: &serde_json::Value) -> (serde_json::Value, serde_json::Value) {
    let moves = answer["moves"].as_array().unwrap();
    let depths = |value: &'static str| {
        moves
            .iter()
            .filter(move |m| m["value"] == value)
            .map(|m| m["depth"].as_u64().unwrap() + 1)
    };
    if let Some(d) = depths("loss").min() {
        ("win".into(), d.into())
    } else if moves.iter().any(|m| m["value"] == "draw") {
        ("draw".into(), serde_json::Value::Null)
    } else {
        ("loss".into(), depths("win").max().unwrap().into())
    }
}

#[test]
fn query_lists_moves_and_a_rebuild_does_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s3");
    let out = build("morris:standard:3", &store, &[]);
    assert!(
        stdout(&out).contains("start position: win in 23 plies"),
        "{}",
        stdout(&out)
    );
    let start = query_json(&store, "start");
    assert_eq!(
        (start["value"].as_str(), start["depth"].as_u64()),
        (Some("win"), Some(23))
    );
    let moves = start["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 24, "a first placement on any point");
    // The best replies are the opponent's slowest losses, one ply shorter.
    assert!(moves.iter().all(|m| m["value"] == "loss"));
    assert_eq!(
        moves.iter().filter_map(|m| m["depth"].as_u64()).min(),
        Some(22)
    );
    let placed = query_json(&store, "B....................... w 2 3");
    assert_eq!(placed["moves"].as_array().unwrap().len(), 23);
    for answer in [&start, &placed] {
        assert_eq!(
            best_of_moves(answer),
            (answer["value"].clone(), answer["depth"].clone())
        );
    }

    let before = checksums(&store);
    let again = build("morris:standard:3", &store, &[]);
    assert!(
        stdout(&again).contains("nothing to do"),
        "{}",
        stdout(&again)
    );
    assert_eq!(checksums(&store), before);
}

#[test]
fn malformed_morris_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t3");
    build("morris:taiwan:3", &store, &[]);
    let s = store.to_str().unwrap();
    for (position, needle) in [
        ("B..B", "24"),
        ("BBBB.................... w 0 0", "more than the 3"),
        ("........................ x 3 3", "b or w"),
        ("........................ b 9 3", "in hand"),
    ] {
        let out = egdb(&["query", "--store", s, position]);
        assert_eq!(out.status.code(), Some(2), "{position}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(needle),
            "{position}: {}",
            stderr(&out)
        );
    }
    let out = egdb(&["build", "morris:taiwan:13", "--store", s]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = egdb(&["build", "morris:standard:3", "--store", s]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("holds morris:taiwan:3"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn nine_and_twelve_pieces_are_planned_within_twenty_gib() {
    for spec in [
        "morris:taiwan:9",
        "morris:standard:9",
        "morris:taiwan:12",
        "morris:standard:12",
    ] {
        let out = egdb(&["plan", spec, "--memory", "20GiB", "--json"]);
        assert!(out.status.success(), "{spec}: {}", stderr(&out));
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(plan["fits"], true, "{spec}");
        let slices = plan["slices"].as_array().unwrap();
        assert!(slices.len() > 100, "{spec}: {} slices", slices.len());
        let positions: u64 = slices
            .iter()
            .map(|s| s["positions"].as_u64().unwrap())
            .sum();
        assert_eq!(positions, plan["positions"].as_u64().unwrap());
        assert!(slices
            .iter()
            .all(|s| s["memory_need"].as_u64().unwrap() <= 20 << 30));
    }
}

#[test]
fn a_plan_names_what_each_slice_reads_and_it_comes_earlier() {
    let out = egdb(&["plan", "morris:taiwan:6", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut earlier = std::collections::HashSet::new();
    let mut reading = 0;
    for slice in plan["slices"].as_array().unwrap() {
        let id = slice["slice"].as_str().unwrap();
        let reads = slice["reads"].as_array().unwrap();
        for read in reads {
            let read = read.as_str().unwrap();
            assert!(
                earlier.contains(read),
                "{id} reads {read}, not planned before it"
            );
        }
        // A placement before the last leads to a placement slice; the last
        // may end the game (fewer than three pieces) and read nothing.
        let before_last = id.starts_with("place-") && !id.starts_with("place-11-");
        assert!(!before_last || !reads.is_empty(), "{id} reads nothing");
        reading += usize::from(!reads.is_empty());
        earlier.insert(id.to_string());
    }
    assert!(
        reading > earlier.len() / 2,
        "{reading} of {} slices read others",
        earlier.len()
    );
}

#[test]
fn a_plan_with_the_rates_of_its_own_build_in_progress_projects_what_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw4");
    build("morris:taiwan:4", &store, &["--max-slices", "30"]);
    let plan = |spec: &str| {
        let out = egdb(&[
            "plan",
            spec,
            "--rates-from",
            store.to_str().unwrap(),
            "--json",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let own = plan("morris:taiwan:4");
    let slices = own["slices"].as_array().unwrap();
    assert_eq!(own["slices_left"], slices.len() - 30);
    let built: std::collections::HashSet<String> = stats_json(&store)
        .iter()
        .map(|s| s["slice"].as_str().unwrap().to_string())
        .collect();
    let left: f64 = slices
        .iter()
        .filter(|s| !built.contains(s["slice"].as_str().unwrap()))
        .map(|s| s["projected_seconds"].as_f64().unwrap())
        .sum();
    let said = own["projected_seconds_left"].as_f64().unwrap();
    assert!(
        (said - left).abs() <= 1e-9 * left.max(1.0),
        "{said} vs {left}"
    );
    // Its disk at the store's own compression: under the raw bytes.
    let disk = own["projected_disk_bytes"].as_u64().unwrap();
    let raw = own["stored_bytes"].as_u64().unwrap();
    assert!(disk > 0 && disk < raw, "{disk} of {raw}");
    // Another game's store lends its rates, but nothing of it is "left".
    let other = plan("morris:standard:4");
    assert!(other["projected_seconds"].as_f64().is_some());
    assert!(other["slices_left"].is_null() && other["projected_seconds_left"].is_null());
    // Built without checks: no check is projected.
    assert!(own["projected_check_seconds"].is_null());
    assert!(own["projected_seconds_left_with_checks"].is_null());
    assert!(stats_json(&store)
        .iter()
        .all(|s| s["check_seconds"].is_null()));
}

#[test]
fn a_build_that_checks_as_it_goes_records_each_check_and_plans_project_checks() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw3");
    let out = build("morris:taiwan:3", &store, &["--verify-as-built"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stats = stats_json(&store);
    let checked = stats
        .iter()
        .filter(|s| s["check_seconds"].as_f64().is_some_and(|t| t > 0.0))
        .count();
    assert_eq!(checked, stats.len(), "every slice's check has its time");
    let out = egdb(&[
        "plan",
        "morris:taiwan:5",
        "--rates-from",
        store.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (solve, checks) = (
        plan["projected_seconds"].as_f64().unwrap(),
        plan["projected_check_seconds"].as_f64().unwrap(),
    );
    assert!(checks > 0.0, "{plan}");
    let both = plan["projected_seconds_with_checks"].as_f64().unwrap();
    assert!(
        (both - solve - checks).abs() <= 1e-9 * both,
        "{both} vs {solve} + {checks}"
    );
    let per_slice: f64 = plan["slices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["projected_check_seconds"].as_f64().unwrap())
        .sum();
    assert!(
        (per_slice - checks).abs() <= 1e-9 * checks,
        "{per_slice} vs {checks}"
    );
}

#[test]
fn bench_store_measures_every_codec_and_refuses_damaged_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t3");
    build("morris:taiwan:3", &store, &[]);
    let s = store.to_str().unwrap();
    let out = egdb(&["bench-store", "--store", s, "--levels", "1,3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stdout(&out);
    let rows: Vec<(&str, i32, f64)> = report
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            match cells.as_slice() {
                [codec, level, bytes, _, _] => {
                    Some((*codec, level.parse().ok()?, bytes.parse().ok()?))
                }
                _ => None,
            }
        })
        .collect();
    let codecs: Vec<(&str, i32)> = rows.iter().map(|&(c, l, _)| (c, l)).collect();
    assert_eq!(
        codecs,
        [
            ("two-byte", 1),
            ("symbols", 1),
            ("two-byte", 3),
            ("symbols", 3)
        ],
        "{report}"
    );
    assert!(rows.iter().all(|&(_, _, bytes)| bytes > 0.0), "{report}");
    assert!(report.contains("as stored:"), "{report}");
    assert!(
        report.contains("as written today (tabled")
            && report.contains("as format 3 wrote them (ranked"),
        "{report}"
    );

    let out = egdb(&["bench-store", "--store", s, "--every", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    damage_first_blocks(&store);
    let out = egdb(&["bench-store", "--store", s]);
    assert_ne!(out.status.code(), Some(0), "a damaged block is measured");
    assert!(stderr(&out).contains("block"), "{}", stderr(&out));
}

#[test]
fn a_build_takes_the_movement_slices_of_a_store_with_fewer_pieces() {
    let dir = tempfile::tempdir().unwrap();
    let three = dir.path().join("t3");
    build("morris:taiwan:3", &three, &[]);
    let fresh = dir.path().join("t4");
    build("morris:taiwan:4", &fresh, &[]);
    let movement = |store: &std::path::Path| -> Vec<(String, u64)> {
        checksums(store)
            .into_iter()
            .filter(|(slice, _)| slice.starts_with("move-"))
            .collect()
    };
    let taken = movement(&three);
    assert!(!taken.is_empty());

    let reusing = dir.path().join("t4-reusing");
    let out = build(
        "morris:taiwan:4",
        &reusing,
        &["--reuse", three.to_str().unwrap(), "--verify-as-built"],
    );
    assert!(
        stderr(&out).contains(&format!("took {} slices", taken.len())),
        "{}",
        stderr(&out)
    );
    let mut same = checksums(&reusing);
    let mut built = checksums(&fresh);
    same.sort();
    built.sort();
    assert_eq!(same, built, "the same tables as a build from nothing");
    // The records say which slices were taken, and from where.
    let from = serde_json::json!({"path": "reused", "from": three.to_str().unwrap()});
    for slice in stats_json(&reusing) {
        let id = slice["slice"].as_str().unwrap();
        let reused = taken.iter().any(|(s, _)| s == id);
        assert_eq!(
            slice["solved_by"] == from,
            reused,
            "{id}: {}",
            slice["solved_by"]
        );
    }
    let results = egdb(&["results", "--store", reusing.to_str().unwrap()]);
    assert!(results.status.success(), "{}", stderr(&results));
    let page = stdout(&results);
    let n = taken.len();
    assert!(
        page.contains(&format!("not counting the {n} slices reused")),
        "{page}"
    );
    let row = format!("| reused from `{}` | {n} |", three.display());
    assert!(page.contains(&row), "{page}");
    let again = build(
        "morris:taiwan:4",
        &reusing,
        &["--reuse", three.to_str().unwrap()],
    );
    assert!(
        stdout(&again).contains("nothing to do"),
        "{}",
        stdout(&again)
    );

    // Other rules are refused before anything is taken.
    let reuse_into = |game: &str, store: &str| {
        let store = dir.path().join(store);
        let from = three.to_str().unwrap();
        egdb(&[
            "build",
            game,
            "--store",
            store.to_str().unwrap(),
            "--reuse",
            from,
        ])
    };
    let out = reuse_into("morris:standard:4", "s4");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("morris:taiwan:3"), "{}", stderr(&out));
    // ... and leave no store behind that a later build would stumble on.
    assert!(!dir.path().join("s4").exists());

    // Rules that differ only while placing move alike: their movement
    // slices are taken, and the store is what a build from nothing makes.
    let protected = dir.path().join("p4");
    build("morris:taiwan-protected:4", &protected, &[]);
    let protected_reusing = dir.path().join("p4-reusing");
    let out = build(
        "morris:taiwan-protected:4",
        &protected_reusing,
        &["--reuse", three.to_str().unwrap()],
    );
    assert!(
        stderr(&out).contains(&format!("took {} slices", taken.len())),
        "{}",
        stderr(&out)
    );
    let mut same = checksums(&protected_reusing);
    let mut built = checksums(&protected);
    same.sort();
    built.sort();
    assert_eq!(same, built, "the same tables as a build from nothing");

    // A damaged block is found, and nothing of that slice is taken.
    damage_first_blocks(&three);
    let out = reuse_into("morris:taiwan:4", "t4-damaged");
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stderr(&out).contains("block 0"), "{}", stderr(&out));
    // The damage is named with the store it is in, not only its file.
    let named = format!("the store slices are taken from, {}", three.display());
    assert!(stderr(&out).contains(&named), "{}", stderr(&out));
}

/// A verified store's checksum list stands for the checks of the movement
/// slices a build takes from a store of the same rules with those bytes
/// (P = 12 takes P = 9's, already verified): they are not checked again;
/// every slice solved here is, even where its bytes equal a listed slice
/// of another game's (taiwan:3 and taiwan:4 agree on some placement
/// slices), and so is a taken slice listed with other bytes. The build
/// says how many the list stood for, over a stop and a resume.
#[test]
fn a_verified_stores_checksums_stand_for_the_checks_of_the_slices_taken_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let three = dir.path().join("t3");
    build("morris:taiwan:3", &three, &[]);
    assert_verified(&three);
    let list = dir.path().join("t3.crc");
    write_crc_list(&three, &list);
    let taken: Vec<String> = checksums(&three)
        .into_iter()
        .map(|(slice, _)| slice)
        .filter(|slice| slice.starts_with("move-"))
        .collect();
    let fresh = dir.path().join("t4-fresh");
    build("morris:taiwan:4", &fresh, &[]);
    let listed = std::fs::read_to_string(&list).unwrap();
    let same_bytes_solved_here = checksums(&fresh)
        .iter()
        .filter(|(slice, crc)| {
            !taken.contains(slice)
                && listed.lines().any(|l| {
                    l.starts_with(&format!("{slice} ")) && l.ends_with(&format!(" {crc:08x}"))
                })
        })
        .count();
    assert!(same_bytes_solved_here > 0, "the case this test is about");

    // Built in two runs (a stop after two slices, then the rest); the
    // slices checked are read from the build's log.
    let build_with = |store: &std::path::Path, list: &std::path::Path| {
        let (s, l, from) = (
            store.to_str().unwrap(),
            list.to_str().unwrap(),
            three.to_str().unwrap(),
        );
        let run = |max: &[&str]| {
            let mut args = vec![
                "-v",
                "build",
                "morris:taiwan:4",
                "--store",
                s,
                "--reuse",
                from,
                "--verify-as-built",
                "--verified-crc",
                l,
            ];
            args.extend_from_slice(max);
            let out = egdb(&args);
            assert!(out.status.success(), "{}", stderr(&out));
            out
        };
        let (first, second) = (run(&["--max-slices", "2"]), run(&[]));
        let checked: std::collections::BTreeSet<String> = [&first, &second]
            .iter()
            .flat_map(|out| stderr(out).lines().map(str::to_string).collect::<Vec<_>>())
            .filter(|line| line.contains("slice verified"))
            .map(|line| {
                let at = line.find("\"slice\":\"").unwrap() + 9;
                line[at..].split('"').next().unwrap().to_string()
            })
            .collect();
        assert_eq!(checksums(store), checksums(&fresh));
        (stdout(&second), checked)
    };
    let every_slice = checksums(&fresh);
    let (said, checked) = build_with(&dir.path().join("t4"), &list);
    let line = format!(
        "every slice verified as it was stored ({} of them by their checksums in {}",
        taken.len(),
        list.display()
    );
    assert!(said.contains(&line), "{said}");
    for (slice, _) in &every_slice {
        assert_eq!(checked.contains(slice), !taken.contains(slice), "{slice}");
    }

    // Listed with other bytes: checked after all.
    let altered: String = listed
        .lines()
        .map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                [slice, positions, crc] if taken.iter().any(|t| t == slice) => {
                    let crc = u32::from_str_radix(crc, 16).unwrap() ^ 1;
                    format!("{slice} {positions} {crc:08x}\n")
                }
                _ => format!("{line}\n"),
            },
        )
        .collect();
    let wrong = dir.path().join("wrong.crc");
    std::fs::write(&wrong, altered).unwrap();
    let (said, checked) = build_with(&dir.path().join("t4-wrong"), &wrong);
    assert!(said.contains("(0 of them by their checksums"), "{said}");
    assert_eq!(checked.len(), every_slice.len());

    // Refused before any build, exit 2: a file that is not a list (the
    // line named), and a list without --verify-as-built.
    let refused = |store: &str, list: &std::path::Path, verify: &[&str]| {
        let store = dir.path().join(store);
        let mut args = vec![
            "build",
            "morris:taiwan:4",
            "--store",
            store.to_str().unwrap(),
        ];
        args.extend_from_slice(verify);
        args.extend_from_slice(&["--verified-crc", list.to_str().unwrap()]);
        let out = egdb(&args);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        (stderr(&out), store.exists())
    };
    let garbage = dir.path().join("garbage.crc");
    std::fs::write(&garbage, "move-03-03 many bfffbae5\n").unwrap();
    let (said, made) = refused("t4-garbage", &garbage, &["--verify-as-built"]);
    assert!(said.contains("line 1"), "{said}");
    assert!(!made);
    refused("t4-unchecked", &list, &[]);
}

/// A fresh build of `game`'s `egdb stats --json`, written in `dir`.
fn fresh_stats(game: &str, dir: &Path) -> PathBuf {
    let store = dir.join("store");
    build(game, &store, &[]);
    let stats = dir.join("stats.json");
    write_stats(&store, &stats);
    stats
}

/// `store`'s `egdb stats --json`, written to `path`.
fn write_stats(store: &Path, path: &Path) {
    std::fs::write(path, serde_json::to_vec(&stats_json(store)).unwrap()).unwrap();
}

/// `deploy/compare-published.sh STATS TABLE`.
fn compare_movement(stats: &Path, table: &Path) -> Output {
    script("deploy/compare-published.sh", &[stats, table])
}

/// Asserts that the comparison passed with every one of `pairs` equal.
fn assert_all_pairs_equal(out: &Output, pairs: usize) {
    assert_passed_saying(
        out,
        &format!("{pairs} pairs compared, {pairs} equal, 0 differ."),
    );
}

/// Asserts that a comparison script passed and said `said`.
fn assert_passed_saying(out: &Output, said: &str) {
    assert!(
        out.status.success() && stdout(out).contains(said),
        "{}{}",
        stdout(out),
        stderr(out)
    );
}

/// `stats` beside `table` with `from` replaced by `to`: it must fail and
/// show `shown`.
fn assert_edit_reported(stats: &Path, table: &Path, edit: [&str; 3]) {
    let [from, to, shown] = edit;
    let text = std::fs::read_to_string(table).unwrap();
    let edited = text.replace(from, to);
    assert_ne!(edited, text, "the table holds {from:?}");
    let off = stats.with_file_name("off.tsv");
    std::fs::write(&off, edited).unwrap();
    let differed = compare_movement(stats, &off);
    assert!(!differed.status.success());
    assert!(stdout(&differed).contains(shown), "{}", stdout(&differed));
}

/// The script that sets a store beside the published movement table,
/// run on a fresh standard P = 5 build: every pair it holds (3 v 3 to
/// 5 v 5) agrees with the ninemm re-solve's counts and longest lines;
/// a table one win off is reported, with a failing status.
#[test]
fn a_fresh_standard_build_equals_the_published_movement_table() {
    let dir = tempfile::tempdir().unwrap();
    let stats = fresh_stats("morris:standard:5", dir.path());
    let published = repo_file("docs/results/published/ninemm-movement.tsv");
    assert_all_pairs_equal(&compare_movement(&stats, &published), 6);
    // 4 v 4 as published: 159 wins.
    let edit = [
        "4\t4\t159\t",
        "4\t4\t160\t",
        "| 4 v 4 | 3,225,597 | **159 / 160** |",
    ];
    assert_edit_reported(&stats, &published, edit);
}

/// Morabaraba's movement slices beside Malom's sectors, solved here by
/// Gévay and Danner's solver (`docs/results/peer/`): a fresh P = 5 build
/// and the published P = 6 store agree on every pair they hold, counts
/// and longest lines; one loss moved to a win is reported.
#[test]
fn morabaraba_movement_equals_malom_sectors() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = fresh_stats("morris:morabaraba:5", dir.path());
    let malom = repo_file("docs/results/peer/malom-morabaraba-movement.tsv");
    let published = repo_file("docs/results/morabaraba-6.stats.json");
    assert_all_pairs_equal(&compare_movement(&fresh, &malom), 6);
    assert_all_pairs_equal(&compare_movement(&published, &malom), 10);
    // 5 v 5 as Malom has it: 2,748,918 wins, 592,174 losses.
    let edit = [
        "5\t5\t2748918\t592174\t",
        "5\t5\t2748919\t592173\t",
        "| 5 v 5 | 30,914,424 | **2,748,918 / 2,748,919** | **592,174 / 592,173** |",
    ];
    assert_edit_reported(&fresh, &malom, edit);
}

/// The starts of three and four pieces a side, each family's from a fresh
/// `morris:FAMILY:4:4` store checked as built, and the published table of
/// starts, beside Malom's values and depths for the same starts, solved
/// here by Gévay and Danner's solver (`docs/results/peer/`); so are the
/// fresh stores' slices, beside the counts and longest lines of Malom's
/// sectors. One start given another depth is reported.
#[test]
fn starts_and_their_slices_equal_malom_re_solve() {
    let dir = tempfile::tempdir().unwrap();
    let empty = ".".repeat(24);
    let mut starts = Vec::new();
    // The slices Malom has of each 4:4 store: some of ours (a side to
    // move with an empty board and a full hand against one done placing)
    // cannot be reached from a start, and its sector graph leaves them out.
    for (family, slices) in [("standard", 30), ("morabaraba", 30), ("lasker", 31)] {
        let store = dir.path().join(family);
        build(
            &format!("morris:{family}:4:4"),
            &store,
            &["--verify-as-built"],
        );
        for (k, l) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
            let answer = query_json(&store, &format!("{empty} b {k} {l}"));
            starts.push(serde_json::json!({
                "game": format!("morris:{family}:{k}:{l}"),
                "value": answer["value"],
                "depth": answer["depth"],
            }));
        }
        let stats = dir.path().join(format!("{family}.json"));
        write_stats(&store, &stats);
        let beside = script("deploy/compare-slices.sh", &[&stats, Path::new(family)]);
        let said = format!("{family}: {slices} slices compared, {slices} equal, 0 differ.");
        assert_passed_saying(&beside, &said);
    }
    let fresh = dir.path().join("starts.json");
    std::fs::write(&fresh, serde_json::to_vec(&starts).unwrap()).unwrap();
    let malom = repo_file("docs/results/peer/malom-starts.tsv");
    let all_equal = |out: &Output, n: usize| {
        assert_passed_saying(out, &format!("{n} starts compared, {n} equal, 0 differ."));
    };
    let compare_starts =
        |ours: &Path, table: &Path| script("deploy/compare-starts.sh", &[ours, table]);
    all_equal(&compare_starts(&fresh, &malom), 12);
    let rows = std::fs::read_to_string(&malom).unwrap();
    let listed = rows.lines().filter(|l| !l.starts_with('#')).count() - 1;
    let published = repo_file("docs/results/starts.json");
    all_equal(&compare_starts(&published, &malom), listed);
    // Nine Men's Morris 3:3 as Malom has it: a first-player win in 23.
    let off = dir.path().join("off.tsv");
    let edited = rows.replace("standard\t3\t3\twin\t23", "standard\t3\t3\twin\t25");
    assert_ne!(edited, rows, "the table holds standard 3:3");
    std::fs::write(&off, edited).unwrap();
    let differed = compare_starts(&fresh, &off);
    assert!(!differed.status.success());
    assert!(
        stdout(&differed).contains("**W23 / W25**"),
        "{}",
        stdout(&differed)
    );
}

/// `bash SCRIPT ARGS…`, a script of the checkout's.
fn script(path: &str, args: &[&Path]) -> Output {
    std::process::Command::new("bash")
        .arg(repo_file(path))
        .args(args)
        .output()
        .expect("bash runs")
}

/// `deploy/malom-states.py` on `egdb plan GAME --json`.
fn malom_states(game: &str, plan: &[u8]) -> Output {
    use std::io::Write;
    let mut child = std::process::Command::new("python3")
        .arg(repo_file("deploy/malom-states.py"))
        .arg(game)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child.stdin.take().unwrap().write_all(plan).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn every_table_malom_stores_is_planned_at_its_size() {
    // Malom's sizes of Morabaraba P = 12 add up to its published 324 GB at
    // 3 bytes an entry; ours hold 99 more tables, where the side that has
    // just placed has nothing on the board.
    let plan = egdb(&["plan", "morris:morabaraba:12", "--json"]);
    assert!(plan.status.success(), "{}", stderr(&plan));
    let beside = malom_states("morris:morabaraba:12", &plan.stdout);
    assert_passed_saying(&beside, "in both: 1216 tables, 116,034,726,289 entries");
    assert_passed_saying(&beside, "egdb only: 99 tables, 432,262 entries");
    assert_passed_saying(&beside, "Malom only: 0 sectors");
    for game in ["morris:lasker:10", "morris:standard:5:4"] {
        let plan = egdb(&["plan", game, "--json"]);
        let beside = malom_states(game, &plan.stdout);
        assert_passed_saying(&beside, "Malom only: 0 sectors");
    }
    // One table's size off is named, and the script fails.
    let json = String::from_utf8(plan.stdout).unwrap();
    let edited = json.replacen("\"entries\":210140,", "\"entries\":210141,", 1);
    assert_ne!(edited, json, "move-03-03 has 210,140 entries");
    let off = malom_states("morris:morabaraba:12", edited.as_bytes());
    assert_eq!(off.status.code(), Some(1), "{}", stdout(&off));
    assert!(stdout(&off).contains("egdb 210,141 entries, Malom 210,140"));
    let wrong = malom_states("morris:taiwan:12", &[]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(stderr(&wrong).contains("Malom plays standard, morabaraba and lasker"));
}
