//! `egdb verify` passes on what egdb builds, and names the slice when a
//! block is damaged or a value is changed behind its checksums.

mod common;

use std::path::Path;

use common::*;
use egdb_db_format::Store;

fn verify(store: &Path) -> std::process::Output {
    egdb(&["verify", "--store", store.to_str().unwrap()])
}

#[test]
fn stores_egdb_builds_pass() {
    let dir = tempfile::tempdir().unwrap();
    for (game, extra) in [
        ("nim:triangle:5:normal", &[][..]),
        ("nim:triangle:5:misere", &["--depth"][..]),
        ("nim:hexagram", &["--depth"][..]),
        ("morris:taiwan:3", &[][..]),
        ("morris:standard:3", &[][..]),
    ] {
        let store = dir.path().join(game.replace(':', "-"));
        build(game, &store, extra);
        let out = verify(&store);
        assert!(
            out.status.success(),
            "{game}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        let slices = stats_json(&store).len();
        assert!(
            stdout(&out).contains(&format!("{slices} of {slices} slices passed")),
            "{game}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn a_flipped_byte_in_a_block_names_the_slice() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t5");
    build("nim:triangle:5:normal", &store, &[]);
    let slice = largest_slice(&store);
    {
        let opened = Store::open(&store).unwrap();
        let record = opened.slice(&slice).unwrap().unwrap();
        let mut blocks: Vec<Vec<u8>> = (0..record.blocks)
            .map(|i| opened.block_record(&slice, i).unwrap())
            .collect();
        let middle = blocks[0].len() / 2;
        blocks[0][middle] ^= 0x10;
        opened.put_slice(&record, &blocks).unwrap();
    }
    let out = verify(&store);
    assert_eq!(out.status.code(), Some(1));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(said.contains(&format!("slice {slice}: FAILED")), "{said}");
    assert!(said.contains("corrupt block 0"), "{said}");
}

#[test]
fn a_changed_value_with_good_checksums_names_slice_and_position() {
    let dir = tempfile::tempdir().unwrap();
    for (game, extra) in [
        ("nim:triangle:5:normal", &[][..]),
        ("nim:triangle:5:misere", &["--depth"][..]),
        ("morris:taiwan:3", &[][..]),
    ] {
        let store = dir.path().join(game.replace(':', "-"));
        let reference = dir
            .path()
            .join(format!("{}-reference", game.replace(':', "-")));
        build(game, &store, extra);
        build(game, &reference, extra);
        let slice = largest_slice(&store);
        rewrite_slice(&store, &slice, |record, raw| {
            let cell_bytes = match record.encoding {
                egdb_db_format::CellEncoding::WinBits => 1,
                egdb_db_format::CellEncoding::ValueDepth8 => 1,
                egdb_db_format::CellEncoding::ValueDepth16 => 2,
            };
            // A stored cell in the middle: a value bit, or a depth one up.
            let mut at = raw.len() / 2 / cell_bytes * cell_bytes;
            while cell_bytes > 1 && raw[at] == 0 && raw[at + 1] == 0 {
                at += cell_bytes;
            }
            if record.encoding == egdb_db_format::CellEncoding::WinBits {
                raw[at] ^= 1;
            } else {
                while raw[at] == 0 {
                    at += cell_bytes;
                }
                raw[at] = raw[at].wrapping_add(1);
            }
        });
        let out = verify(&store);
        assert_eq!(out.status.code(), Some(1), "{game}: {}", stdout(&out));
        let said = stdout(&out);
        assert!(
            said.contains(&format!("slice {slice}: FAILED")),
            "{game}: {said}"
        );
        assert!(said.contains("its moves say"), "{game}: {said}");
        // Its examples name the changed position: one whose stored answer,
        // as the report gives it, is not the untouched store's (the others
        // named disagree with their moves only through it).
        let named: Vec<(&str, &str)> = said
            .lines()
            .filter_map(|l| l.strip_prefix("  ")?.split_once(": stored "))
            .filter_map(|(position, rest)| Some((position, rest.split_once(", its moves say")?.0)))
            .collect();
        assert!(!named.is_empty(), "{game}: {said}");
        let true_answer = |position: &str| {
            let out = egdb(&[
                "query",
                "--store",
                reference.to_str().unwrap(),
                position,
                "--plain",
            ]);
            let said = stdout(&out);
            let first = said.lines().next().unwrap_or_default();
            first
                .rsplit_once(": ")
                .map(|(_, answer)| answer.to_string())
        };
        assert!(
            named
                .iter()
                .any(|&(position, stored)| true_answer(position).is_some_and(|a| a != stored)),
            "{game}: {said}"
        );
    }
}

#[test]
fn a_class_without_a_value_and_a_duplicate_with_one_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw3");
    build("morris:taiwan:3", &store, &[]);
    let slice = largest_slice(&store);
    // A class entry emptied ("don't care").
    rewrite_slice(&store, &slice, |_, raw| {
        let mut cells = morris_cells(raw);
        let at = cells.iter().position(|&c| c != 0).unwrap();
        cells[at] = 0;
        put_cells(raw, &cells);
    });
    let out = verify(&store);
    assert_eq!(out.status.code(), Some(1));
    let said = stdout(&out);
    assert!(said.contains(&format!("slice {slice}: FAILED")), "{said}");
    assert!(said.contains("stored no value, its moves say"), "{said}");

    let store = dir.path().join("tw3b");
    build("morris:taiwan:3", &store, &[]);
    // A duplicate entry given a value: the positions all still agree.
    rewrite_slice(&store, &slice, |_, raw| {
        let mut cells = morris_cells(raw);
        let at = cells.iter().position(|&c| c == 0).unwrap();
        cells[at] = cells.iter().copied().find(|&c| c != 0).unwrap();
        put_cells(raw, &cells);
    });
    let out = verify(&store);
    assert_eq!(out.status.code(), Some(1));
    let said = stdout(&out);
    assert!(
        said.contains(&format!(
            "slice {slice}: FAILED: 1 entries that only repeat a symmetry class hold a value"
        )),
        "{said}"
    );
}

/// Placement slices are checked in the engines' layout (each class from
/// the side that moves next): a depth one off, a class emptied and a
/// duplicate given a value are each named there too.
#[test]
fn faults_in_a_placement_slice_are_named() {
    use egdb_db_format::encoding::{unpack_value_depth16, ValueCode};
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference");
    build("morris:taiwan:4", &reference, &[]);
    let slice = stats_json(&reference)
        .iter()
        .filter(|s| s["phase"] == "placement")
        .max_by_key(|s| s["positions"].as_u64().unwrap())
        .map(|s| s["slice"].as_str().unwrap().to_string())
        .unwrap();
    let decided = |c: u16| matches!(unpack_value_depth16(c).0, ValueCode::Win | ValueCode::Loss);
    type Fault = fn(&mut Vec<u16>, &dyn Fn(u16) -> bool);
    let faults: [(&str, Fault, &str); 3] = [
        (
            "depth",
            |cells, decided| {
                let at = cells.len() / 2
                    + cells[cells.len() / 2..]
                        .iter()
                        .position(|&c| decided(c))
                        .unwrap();
                cells[at] += 1;
            },
            "its moves say",
        ),
        (
            "emptied",
            |cells, decided| {
                let at = cells.iter().position(|&c| decided(c)).unwrap();
                cells[at] = 0;
            },
            "stored no value, its moves say",
        ),
        (
            "duplicate",
            |cells, _| {
                let value = cells.iter().copied().find(|&c| c != 0).unwrap();
                let at = cells.iter().position(|&c| c == 0).unwrap();
                cells[at] = value;
            },
            "1 entries that only repeat a symmetry class hold a value",
        ),
    ];
    for (name, fault, said_of_it) in faults {
        let store = dir.path().join(name);
        build("morris:taiwan:4", &store, &[]);
        rewrite_slice(&store, &slice, |_, raw| {
            let mut cells = morris_cells(raw);
            fault(&mut cells, &decided);
            put_cells(raw, &cells);
        });
        let out = verify(&store);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stdout(&out));
        let said = stdout(&out);
        assert!(
            said.contains(&format!("slice {slice}: FAILED")),
            "{name}: {said}"
        );
        assert!(said.contains(said_of_it), "{name}: {said}");
    }
}

#[test]
fn a_verify_run_again_skips_the_slices_that_passed() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw3");
    build("morris:taiwan:3", &store, &[]);
    let slices = stats_json(&store).len();
    let slice = largest_slice(&store);
    rewrite_slice(&store, &slice, |_, raw| turn_a_value(raw));
    let first = verify(&store);
    assert_eq!(first.status.code(), Some(1));
    let said = stdout(&first);
    assert!(!said.contains("earlier"), "{said}");
    // The slice and those whose moves read it fail; the others pass.
    let passed: usize = said
        .split(&format!(" of {slices} slices passed"))
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(0 < passed && passed < slices, "{said}");
    // The failed slices are checked again; the others passed before.
    let again = verify(&store);
    assert_eq!(again.status.code(), Some(1));
    let said = stdout(&again);
    assert!(said.contains(&format!("slice {slice}: FAILED")), "{said}");
    assert!(
        said.contains(&format!(
            "{passed} of {slices} slices passed ({passed} passed in an earlier verify, kept in its journal, their bytes read again)"
        )),
        "{said}"
    );
    let fresh = egdb(&["verify", "--fresh", "--store", store.to_str().unwrap()]);
    assert_eq!(fresh.status.code(), Some(1));
    assert!(!stdout(&fresh).contains("earlier"), "{}", stdout(&fresh));
}

#[test]
fn a_record_that_does_not_fit_its_slice_is_refused_by_results_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("std3");
    build("morris:standard:3", &store, &[]);
    let results = |store: &Path| egdb(&["results", "--store", store.to_str().unwrap()]);
    assert!(results(&store).status.success());
    {
        // An empty slice whose record agrees with itself (the CRC-32 of
        // nothing is 0) and claims the game's deepest position.
        let db = Store::open(&store).unwrap();
        let mut record = db.slice("move-03-03").unwrap().expect("a movement slice");
        record.raw_len = 0;
        record.raw_crc32 = 0;
        record.blocks = 0;
        record.stored_bytes = 0;
        record.counts.max_depth = Some(60_000);
        db.put_slice(&record, &[] as &[Vec<u8>]).unwrap();
    }
    for out in [results(&store), verify(&store)] {
        // A failure with a reason, not a panic (101).
        assert!(
            !out.status.success() && out.status.code() != Some(101),
            "{:?}: {}",
            out.status,
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("move-03-03") || stdout(&out).contains("move-03-03"),
            "the slice is named: {}",
            stderr(&out)
        );
    }
}

#[test]
fn compare_holds_a_store_finished_or_building_to_a_published_checksum_list() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let (store, list) = (path("tw4"), path("tw4.crc"));
    build("morris:taiwan:4", &store, &[]);
    write_crc_list(&store, &list);
    let slices = stats_json(&store).len();

    let same = compare(&store, &list, false);
    assert!(same.status.success(), "{}", stderr(&same));
    assert!(
        stdout(&same).contains(&format!("{slices} of {slices} slices built"))
            && stdout(&same).ends_with("every slice agrees\n"),
        "{}",
        stdout(&same)
    );

    // A rebuild still running agrees on what it has.
    let partial = path("partial");
    build("morris:taiwan:4", &partial, &["--max-slices", "5"]);
    let building = compare(&partial, &list, false);
    assert!(building.status.success(), "{}", stderr(&building));
    assert!(
        stdout(&building).contains(&format!("5 of {slices} slices built"))
            && stdout(&building).ends_with("every slice built so far agrees\n"),
        "{}",
        stdout(&building)
    );

    // The other reading of the rules: its placement slices differ where a
    // piece in a mill could be taken, its movement slices do not.
    let protected = path("twp4");
    build("morris:taiwan-protected:4", &protected, &[]);
    let readings = compare(&protected, &list, true);
    assert_eq!(readings.status.code(), Some(1), "{}", stderr(&readings));
    let report: serde_json::Value = serde_json::from_slice(&readings.stdout).unwrap();
    let differ: Vec<&str> = report["differ"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["slice"].as_str().unwrap())
        .collect();
    assert!(!differ.is_empty(), "{report}");
    assert!(differ.iter().all(|s| s.starts_with("place-")), "{report}");
    assert!(report["same"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s.as_str().unwrap().starts_with("move-")));
    assert_eq!(report["agrees"], false);

    // The movement lines alone, `--listed-only`: the readings agree on
    // them, the placement slices neither count nor are read (damage to
    // every slice's first block is found in the movement slices only).
    let movement = path("move.crc");
    let lines: String = std::fs::read_to_string(&list)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("move-"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&movement, &lines).unwrap();
    let listed_only = |store: &std::path::Path, json: bool| {
        let (s, m) = (store.to_str().unwrap(), movement.to_str().unwrap());
        let mut args = vec!["compare", "--store", s, "--crc", m, "--listed-only"];
        if json {
            args.push("--json");
        }
        egdb(&args)
    };
    let moves = lines.lines().count();
    let agreed = listed_only(&protected, false);
    assert!(agreed.status.success(), "{}", stdout(&agreed));
    assert!(
        stdout(&agreed).contains(&format!("same:      {moves}\n"))
            && stdout(&agreed).contains(&format!("not listed: {}", slices - moves))
            && stdout(&agreed).ends_with("every listed slice agrees\n"),
        "{}",
        stdout(&agreed)
    );
    assert_eq!(compare(&protected, &movement, false).status.code(), Some(1));
    // A list that lists nothing (a grep that found no line) compares
    // nothing, and says so.
    let empty = path("empty.crc");
    std::fs::write(&empty, "").unwrap();
    let (s, e) = (protected.to_str().unwrap(), empty.to_str().unwrap());
    let out = egdb(&[
        "compare",
        "--store",
        s,
        "--crc",
        e,
        "--listed-only",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("no slice is listed"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
    damage_first_blocks(&protected);
    let damaged = listed_only(&protected, true);
    assert_eq!(damaged.status.code(), Some(1), "{}", stderr(&damaged));
    let report: serde_json::Value = serde_json::from_slice(&damaged.stdout).unwrap();
    let found = report["damaged"].as_array().unwrap();
    assert_eq!(found.len(), moves, "{report}");
    assert!(found
        .iter()
        .all(|d| d["slice"].as_str().unwrap().starts_with("move-")));

    // One digit changed in the list: that slice is named, exit 1.
    let text = std::fs::read_to_string(&list).unwrap();
    let line = text.lines().nth(3).unwrap();
    let slice = line.split(' ').next().unwrap();
    let flipped = if line.ends_with('0') { '1' } else { '0' };
    let edited = text.replacen(line, &format!("{}{flipped}", &line[..line.len() - 1]), 1);
    let forged = path("forged.crc");
    std::fs::write(&forged, &edited).unwrap();
    let out = compare(&store, &forged, false);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("differs {slice}:")),
        "{}",
        stdout(&out)
    );
    assert!(stderr(&out).contains("does not hold the tables"));

    // Lines the game does not have, or lacks, fail the comparison too.
    std::fs::write(&forged, format!("{text}move-09-09 1 00000000\n")).unwrap();
    let stray = compare(&store, &forged, false);
    assert_eq!(stray.status.code(), Some(1));
    assert!(stdout(&stray).contains("not the game's (1): move-09-09"));
    let shorter: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&forged, shorter).unwrap();
    let lacking = compare(&store, &forged, false);
    assert_eq!(lacking.status.code(), Some(1));
    assert!(stdout(&lacking).contains("the list lacks (1): move-03-03"));

    // A list that is not one is bad input, named by line; nothing is read
    // of a file too long to be one.
    for (content, said) in [
        (
            format!("{text}move-03-03 12\n"),
            format!("line {}:", slices + 1),
        ),
        (
            "x 1 0000000z\n".to_string(),
            "line 1: the CRC-32".to_string(),
        ),
        ("a".repeat(5 << 20), "not a checksum list".to_string()),
    ] {
        std::fs::write(&forged, content).unwrap();
        let out = compare(&store, &forged, false);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(&said), "{said}: {}", stderr(&out));
    }
    // A pipe that nobody writes to is refused, not waited on.
    let pipe = path("pipe.crc");
    let made = std::process::Command::new("mkfifo").arg(&pipe).status();
    assert!(made.unwrap().success());
    let out = compare(&store, &pipe, false);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_store_still_being_built_is_checked_as_far_as_it_goes_and_the_rest_later() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw4");
    let whole = stats_json(&{
        let reference = dir.path().join("reference");
        build("morris:taiwan:4", &reference, &[]);
        reference
    })
    .len();
    build("morris:taiwan:4", &store, &["--max-slices", "5"]);
    let refused = verify(&store);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--built"), "{}", stderr(&refused));

    let so_far = egdb(&["verify", "--built", "--store", store.to_str().unwrap()]);
    assert!(so_far.status.success(), "{}", stderr(&so_far));
    assert!(
        stdout(&so_far).contains(&format!(
            "5 of the 5 slices built so far passed; {} of {whole} not built yet",
            whole - 5
        )),
        "{}",
        stdout(&so_far)
    );
    // Its journal copied beside another store of the game is not that
    // store's: every slice there is checked.
    let other = dir.path().join("other");
    build("morris:taiwan:4", &other, &["--max-slices", "5"]);
    std::fs::copy(store.join("verify.journal"), other.join("verify.journal")).unwrap();
    let there = egdb(&["verify", "--built", "--store", other.to_str().unwrap()]);
    assert!(there.status.success(), "{}", stderr(&there));
    assert!(!stdout(&there).contains("earlier"), "{}", stdout(&there));

    build("morris:taiwan:4", &store, &[]);
    let rest = verify(&store);
    assert!(rest.status.success(), "{}", stderr(&rest));
    assert!(
        stdout(&rest).contains(&format!(
            "{whole} of {whole} slices passed (5 passed in an earlier verify"
        )),
        "{}",
        stdout(&rest)
    );

    // A block damaged after its slice passed: the slice's bytes are read
    // again before its pass counts, and the damage is named.
    build("morris:taiwan:4", &other, &[]);
    damage_first_blocks(&other);
    let damaged = verify(&other);
    assert_eq!(damaged.status.code(), Some(1), "{}", stdout(&damaged));
    assert!(
        !stdout(&damaged).contains("earlier"),
        "{}",
        stdout(&damaged)
    );
    assert!(stdout(&damaged).contains("FAILED"), "{}", stdout(&damaged));
}

fn follow(store: &Path) -> std::process::Child {
    follow_every(store, 1)
}

/// `egdb verify --follow`, a round every `poll` seconds.
fn follow_every(store: &Path, poll: u32) -> std::process::Child {
    common::egdb_command()
        .args([
            "verify",
            "--follow",
            "--poll-seconds",
            &poll.to_string(),
            "--store",
        ])
        .arg(store)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn follow_checks_a_build_as_it_runs_and_stops_at_the_first_bad_slice() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw4");
    build("morris:taiwan:4", &store, &["--max-slices", "3"]);
    let following = follow(&store);
    // The build goes on in steps while the verify follows it.
    for _ in 0..4 {
        std::thread::sleep(std::time::Duration::from_millis(700));
        build("morris:taiwan:4", &store, &["--max-slices", "15"]);
    }
    build("morris:taiwan:4", &store, &[]);
    let slices = stats_json(&store).len();
    let out = finish(
        following,
        "verify --follow",
        std::time::Duration::from_secs(120),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("{slices} of {slices} slices passed (")),
        "the last round finds the earlier rounds' passes: {}",
        stdout(&out)
    );

    // A bad slice stops the following verify without waiting for the end.
    let bad = dir.path().join("bad");
    build("morris:taiwan:4", &bad, &["--max-slices", "20"]);
    let slice = largest_slice(&bad);
    rewrite_slice(&bad, &slice, |_, raw| turn_a_value(raw));
    let out = finish(
        follow(&bad),
        "verify --follow",
        std::time::Duration::from_secs(60),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("slice {slice}: FAILED")),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("slices built so far"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn follow_checks_a_failed_slice_again_on_a_fresh_open_before_reporting_it() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw4");
    build("morris:taiwan:4", &store, &["--max-slices", "20"]);
    // A slice that looks damaged on one open and whole on the next, as a
    // store read while its build flushes can.
    let slice = largest_slice(&store);
    let mut whole = Vec::new();
    rewrite_slice(&store, &slice, |_, raw| {
        whole = raw.clone();
        turn_a_value(raw);
    });
    let mut following = follow_every(&store, 15);
    let mut said = std::io::BufReader::new(following.stderr.take().unwrap()).lines();
    let warned = said
        .by_ref()
        .map_while(Result::ok)
        .any(|line| line.contains("checking the failed slices again"));
    assert!(warned, "the follower ended without checking again");
    rewrite_slice(&store, &slice, |_, raw| *raw = whole);
    build("morris:taiwan:4", &store, &[]);
    let slices = stats_json(&store).len();
    std::thread::spawn(move || said.for_each(drop));
    let out = finish(
        following,
        "verify --follow",
        std::time::Duration::from_secs(120),
    );
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(&format!("{slices} of {slices} slices passed (")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn build_verify_as_built_checks_every_slice_and_stops_at_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let (store, reference) = (dir.path().join("tw4"), dir.path().join("reference"));
    build("morris:taiwan:4", &reference, &[]);
    let checked = build("morris:taiwan:4", &store, &["--verify-as-built"]);
    assert!(
        stdout(&checked).contains("every slice verified as it was stored"),
        "{}",
        stdout(&checked)
    );
    assert_eq!(checksums(&store), checksums(&reference));
    // The same command again checks nothing: the passes are kept, as a
    // build's, which `egdb verify` does not take (it checks all, and
    // removes its journal); then the records' check times say the same
    // (all that a binary that removed its journal at the end left).
    let again = || {
        let again = build("morris:taiwan:4", &store, &["--verify-as-built"]);
        let said = stdout(&again);
        let nothing = "(74 slices, every slice verified as it was stored); nothing to do";
        assert!(said.contains(nothing), "{said}");
    };
    again();
    let checked = verify(&store);
    assert!(
        stdout(&checked).contains("74 of 74 slices passed;"),
        "{}",
        stdout(&checked)
    );
    assert!(!store.join("verify.journal").exists());
    again();

    // A slice changed behind good checksums in a build half done: going on
    // with --verify-as-built checks it first and stops there.
    let half = dir.path().join("half");
    build("morris:taiwan:4", &half, &["--max-slices", "30"]);
    let ids = |store: &Path| -> std::collections::HashSet<String> {
        stored_slices(store).into_iter().collect()
    };
    let before = ids(&half);
    let plan: serde_json::Value =
        serde_json::from_slice(&egdb(&["plan", "morris:taiwan:4", "--json"]).stdout).unwrap();
    let planned = plan["slices"].as_array().unwrap();
    let reads_of = |s: &serde_json::Value| -> Vec<String> {
        let reads = s["reads"].as_array().unwrap();
        reads.iter().map(|r| r.as_str().unwrap().into()).collect()
    };
    // The largest stored slice that a slice still to build reads.
    let slice = planned
        .iter()
        .filter(|s| before.contains(s["slice"].as_str().unwrap()))
        .filter(|s| {
            planned.iter().any(|later| {
                !before.contains(later["slice"].as_str().unwrap())
                    && reads_of(later).contains(&s["slice"].as_str().unwrap().to_string())
            })
        })
        .max_by_key(|s| s["positions"].as_u64().unwrap())
        .map(|s| s["slice"].as_str().unwrap().to_string())
        .expect("a stored slice that slices still to build read");
    rewrite_slice(&half, &slice, |_, raw| turn_a_value(raw));
    let stopped = egdb(&[
        "build",
        "morris:taiwan:4",
        "--store",
        half.to_str().unwrap(),
        "--verify-as-built",
    ]);
    assert_eq!(stopped.status.code(), Some(1), "{}", stderr(&stopped));
    assert!(
        stdout(&stopped).contains(&format!("slice {slice}: FAILED")),
        "{}",
        stdout(&stopped)
    );
    assert!(
        stderr(&stopped).contains("failed its check"),
        "{}",
        stderr(&stopped)
    );
    // Nothing stored since reads the bad slice: the build stopped there.
    let after = ids(&half);
    for later in planned {
        let id = later["slice"].as_str().unwrap();
        assert!(
            before.contains(id) || !after.contains(id) || !reads_of(later).contains(&slice),
            "{id} was built on the bad {slice}"
        );
    }
    assert!(after.len() < checksums(&reference).len());
    let refused = verify(&half);
    assert_eq!(refused.status.code(), Some(2), "still not complete");
}
