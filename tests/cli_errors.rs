//! Bad input gets a one-line error naming the problem, exit status 2, and
//! nothing written.

mod common;

use common::*;

fn assert_refused(args: &[&str], needle: &str) {
    let out = egdb(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
}

/// Writes the Nim game file `name` holding `text` in `dir`; planning it is
/// refused with `needle` (where `{path}` stands for the file's path).
fn assert_nim_file_refused(dir: &std::path::Path, name: &str, text: &str, needle: &str) {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let spec = format!("nim:file:{}", file.display());
    let needle = needle.replace("{path}", &file.display().to_string());
    assert_refused(&["plan", &spec], &needle);
}

#[test]
fn unknown_games_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    assert_refused(
        &["build", "nim:triangle:0:normal", "--store", s],
        "layers must be 1",
    );
    assert_refused(
        &["build", "nim:square:4", "--store", s],
        "unknown game `nim:square:4`",
    );
    assert_refused(
        &["build", "nim:triangle:4:sudden", "--store", s],
        "rule must be",
    );
    assert!(!store.exists());
}

/// Starts a family does not allow (RULES.md §3a): counts out of range, a
/// family whose loss rule does not count pieces in hand, in a spec or a
/// rules file.
#[test]
fn hand_shapes_a_family_does_not_allow_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let s = store.to_str().unwrap();
    assert_refused(
        &["build", "morris:standard:9:13", "--store", s],
        "pieces must be 3 to 12",
    );
    assert_refused(
        &["build", "morris:lasker:2:5", "--store", s],
        "pieces must be 3 to 12",
    );
    assert_refused(
        &["build", "morris:taiwan:6:5", "--store", s],
        "need a loss rule that counts them",
    );
    let rules = dir.path().join("hands.toml");
    std::fs::write(
        &rules,
        "pieces = [6, 5]\ndiagonals = true\nmill_takes = \"any\"\ngang = true\ndan = true\n\
         flying = false\nlose_below_three = \"board-in-movement\"\n",
    )
    .unwrap();
    let spec = format!("morris:file:{}", rules.display());
    assert_refused(
        &["build", &spec, "--store", s],
        "need a loss rule that counts them",
    );
    std::fs::write(&rules, "pieces = [6.5, 5]\n").unwrap();
    assert_refused(
        &["build", &spec, "--store", s],
        "pieces is a count for both sides (3 to 12) or [K, L]",
    );
    assert_refused(
        &["build", "morris:lasker:+3", "--store", s],
        "pieces must be a whole number, not `+3`",
    );
    // A spec is repeated escaped and cut, whatever it holds.
    assert_refused(
        &["build", "morris:lasker:3\n\u{1b}[31m", "--store", s],
        "unknown game `morris:lasker:3\\u{a}\\u{1b}[31m`",
    );
    assert!(!store.exists());
}

#[test]
fn broken_game_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let file = test_data("broken.toml");
    let spec = format!("nim:file:{}", file.display());
    assert_refused(
        &["build", &spec, "--store", store.to_str().unwrap()],
        "names cell 9",
    );
    assert_refused(
        &[
            "build",
            "nim:file:/no/such/game.toml",
            "--store",
            store.to_str().unwrap(),
        ],
        "/no/such/game.toml",
    );
    // A definition that parses but does not hold names its file too.
    assert_nim_file_refused(
        dir.path(),
        "asymmetric.toml",
        "cells = 3\nrule = \"normal\"\nmoves = [[0], [1]]\nsymmetries = [[2, 1, 0]]\n",
        "game file {path}: symmetry 0",
    );
    assert!(!store.exists());
}

#[test]
fn malformed_positions_and_foreign_stores_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t3");
    build("nim:triangle:3:normal", &store, &[]);
    let s = store.to_str().unwrap();
    let before = checksums(&store);
    assert_refused(&["query", "--store", s, "o/oo"], "2 rows given");
    assert_refused(&["query", "--store", s, "o/ox/ooo"], "`x` is neither");
    assert_refused(
        &["build", "nim:triangle:4:normal", "--store", s],
        "holds nim:triangle:3:normal",
    );
    assert_refused(
        &["build", "nim:triangle:3:normal", "--store", s, "--depth"],
        "without --depth",
    );
    // The same game file, changed since its store was built.
    let game = dir.path().join("strip.toml");
    let strip = std::fs::read_to_string(test_data("strip.toml")).unwrap();
    std::fs::write(&game, &strip).unwrap();
    let spec = format!("nim:file:{}", game.display());
    let file_store = dir.path().join("strip");
    build(&spec, &file_store, &[]);
    std::fs::write(&game, strip.replace("\"normal\"", "\"misere\"")).unwrap();
    let file_store = file_store.to_str().unwrap();
    assert_refused(
        &["build", &spec, "--store", file_store],
        "under other rules, not nim:file:",
    );
    assert_refused(
        &[
            "plan",
            "nim:hexagram",
            "--memory",
            "99999999999999999999GiB",
        ],
        "more bytes than a size can be",
    );
    // A port past 65535 is no port (the URL parser would drop it).
    assert_refused(
        &["query", "--server", "http://127.0.0.1:99999", "start"],
        "port `99999` is not 1 to 65535",
    );
    assert_refused(
        &["status", "--coordinator", "garbage"],
        "use http://host:port, or https://host:port",
    );
    assert_refused(
        &[
            "stats",
            "--store",
            dir.path().join("none").to_str().unwrap(),
        ],
        "no egdb store",
    );
    assert_eq!(checksums(&store), before);
    assert!(!dir.path().join("none").exists());
}

#[test]
fn durations_names_and_endless_game_files_are_refused() {
    for args in [
        &[
            "worker",
            "--coordinator",
            "http://127.0.0.1:9",
            "--patience",
            "inf",
        ][..],
        &[
            "worker",
            "--coordinator",
            "http://127.0.0.1:9",
            "--patience",
            "nan",
        ],
        &["coordinator", "nim:triangle:3:normal", "--lease-seconds=-1"],
        &[
            "coordinator",
            "nim:triangle:3:normal",
            "--lease-seconds=inf",
        ],
        &["coordinator", "nim:triangle:3:normal", "--lease-seconds=0"],
    ] {
        let out = egdb(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("seconds"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_refused(
        &[
            "worker",
            "--coordinator",
            "http://127.0.0.1:9",
            "--name",
            "evil\u{1b}[2J",
        ],
        "a worker name is",
    );
    let worker = ["worker", "--coordinator", "http://127.0.0.1:9"];
    assert_refused(
        &[&worker[..], &["--cache-limit", "1GiB"]].concat(),
        "--cache",
    );
    let out = egdb(&[&worker[..], &["--cache", "c", "--cache-limit", "lots"]].concat());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not a size"), "{}", stderr(&out));
    for (arg, needle) in [
        ("--zstd-level=23", "-7..=22"),
        ("--zstd-level=-8", "-7..=22"),
        ("--max-slices=0", "1.."),
        ("--workers=0", "1 to 256"),
    ] {
        let out = egdb(&["build", "nim:triangle:3:normal", arg]);
        assert_eq!(out.status.code(), Some(2), "{arg}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{arg}: {}", stderr(&out));
    }
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    assert_refused(
        &["plan", "nim:file:/dev/zero"],
        "not a regular file (a device)",
    );
    let store_arg = store.to_str().unwrap();
    for memory in [
        &[
            "build",
            "nim:triangle:3:normal",
            "--store",
            store_arg,
            "--memory",
            "0",
        ][..],
        &[
            "worker",
            "--coordinator",
            "http://127.0.0.1:9",
            "--memory=0B",
        ],
    ] {
        let out = egdb(memory);
        assert_eq!(out.status.code(), Some(2), "{memory:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("a memory budget of 0 bytes"));
    }
    assert!(!store.exists());
}

#[test]
fn the_binary_has_no_test_only_option() {
    let out = egdb(&[
        "worker",
        "--coordinator",
        "http://127.0.0.1:9",
        "--damage-transfers",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unexpected argument '--damage-transfers'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn zero_threads_and_zero_workers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let store = store.to_str().unwrap();
    for (args, what) in [
        (
            &[
                "build",
                "nim:triangle:3:normal",
                "--store",
                store,
                "--threads",
                "0",
            ][..],
            "threads",
        ),
        (
            &[
                "build",
                "nim:triangle:3:normal",
                "--store",
                store,
                "--workers",
                "0",
            ],
            "workers",
        ),
        (
            &[
                "worker",
                "--coordinator",
                "http://127.0.0.1:9",
                "--threads",
                "0",
            ],
            "threads",
        ),
    ] {
        let out = egdb(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("is not a number of {what}")),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(!dir.path().join("s").exists());
}

/// The budget is the command's own argument: a budget that some slice
/// does not fit is refused before the store is made.
#[test]
fn a_memory_budget_a_slice_does_not_fit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    assert_refused(
        &[
            "build",
            "morris:standard:3",
            "--store",
            store.to_str().unwrap(),
            "--memory",
            "1B",
        ],
        "the budget (--memory) is 1 bytes",
    );
    assert!(!store.exists());
}

#[test]
fn games_past_what_the_layout_holds_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g63.toml");
    let cells: Vec<String> = (0..63).map(|c| c.to_string()).collect();
    std::fs::write(
        &file,
        format!(
            "cells = 63\nrule = \"normal\"\nlines = [[{}]]\n",
            cells.join(", ")
        ),
    )
    .unwrap();
    let spec = format!("nim:file:{}", file.display());
    assert_refused(&["plan", &spec], "cells must be 1 to 45");
}

/// Files from outside are read with a bound and only when they are files:
/// a token of /dev/zero, an over-long token, a pipe nobody writes to and a
/// game file whose name would print terminal escapes are refused at once.
#[test]
fn endless_tokens_pipes_and_escaping_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("long-token");
    std::fs::write(&long, "t".repeat(5000)).unwrap();
    for command in [
        vec![
            "coordinator",
            "nim:triangle:3:normal",
            "--listen",
            "127.0.0.1:0",
        ],
        vec!["worker", "--coordinator", "http://127.0.0.1:9"],
        vec!["status", "--coordinator", "http://127.0.0.1:9"],
    ] {
        let store = dir.path().join("s");
        let mut zero = command.clone();
        if command[0] == "coordinator" {
            zero.extend(["--store", store.to_str().unwrap()]);
        }
        let mut long_args = zero.clone();
        zero.extend(["--token-file", "/dev/zero"]);
        long_args.extend(["--token-file", long.to_str().unwrap()]);
        assert_refused(&zero, "not a regular file (a device)");
        assert_refused(&long_args, "longer than 4096 bytes");
    }
    let fifo = dir.path().join("game.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let spec = format!("nim:file:{}", fifo.display());
    assert_refused(&["plan", &spec], "not a regular file (a pipe)");

    assert_nim_file_refused(
        dir.path(),
        "named.toml",
        "name = \"\\u001b]0;pwned\\u0007\"\ncells = 3\nrule = \"normal\"\nmoves = [[0]]\n",
        "without control characters",
    );

    // Rates of another family project nothing.
    let nim = dir.path().join("nim");
    common::build("nim:triangle:3:normal", &nim, &[]);
    assert_refused(
        &[
            "plan",
            "morris:taiwan:4",
            "--rates-from",
            nim.to_str().unwrap(),
        ],
        "another family",
    );
}

/// An argument clap refuses is one line too, in egdb's own form.
#[test]
fn arguments_the_parser_refuses_are_one_line() {
    assert_refused(
        &["book", "--store", "s", "--plies", "1000"],
        "egdb: invalid value '1000'",
    );
    assert_refused(&["frob"], "egdb: unrecognized subcommand 'frob'");
    assert_refused(
        &["status"],
        "egdb: the following required arguments were not provided: --coordinator <COORDINATOR>",
    );
}

/// Standard output that cannot be written (a full device) fails in one
/// line with status 1, not a panic; a book written to a device or a pipe
/// writes there and leaves it a device or a pipe.
#[test]
fn outputs_that_cannot_be_written_or_replaced_fail_cleanly() {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("n3");
    common::build("nim:triangle:3:normal", &store, &[]);
    let store = store.to_str().unwrap();
    let full = std::fs::File::create("/dev/full");
    if let Ok(full) = full {
        for args in [
            vec!["stats", "--store", store],
            vec!["query", "--store", store, "start"],
        ] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_egdb"))
                .args(&args)
                .stdout(full.try_clone().unwrap())
                .output()
                .unwrap();
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
            assert!(err.contains("cannot write standard output"), "{err}");
        }
    }
    let fifo = dir.path().join("book.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    // Held open both ways and never blocking: the book fits the pipe's
    // buffer, and a book that went elsewhere leaves it empty.
    let mut pipe = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let out = egdb(&[
        "book",
        "--store",
        store,
        "--plies",
        "1",
        "--out",
        fifo.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut read = vec![0; 1 << 16];
    let n = pipe.read(&mut read).unwrap_or(0);
    let book = String::from_utf8_lossy(&read[..n]);
    assert!(
        book.lines().count() > 1,
        "the book went through the pipe: {book}"
    );
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the pipe is still a pipe");
}

/// A store's place that cannot hold one is named in words: under a file,
/// or on a file system of no disk.
#[test]
fn places_that_hold_no_store_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let under = file.join("s");
    assert_refused(
        &[
            "build",
            "nim:triangle:3:normal",
            "--store",
            under.to_str().unwrap(),
        ],
        "file, not a directory",
    );
    assert_refused(
        &[
            "build",
            "nim:triangle:3:normal",
            "--store",
            "/proc/egdb-store",
        ],
        "on no disk",
    );
}
