//! `egdb book`: a book holds every class reachable within its plies once,
//! each at its first ply, its moves point at their classes' entries, and
//! it says of every position and move exactly what `egdb query` says.

mod common;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use common::{build, egdb, query_json, stderr};
use egdb_games::morris::{MorrisGame, Position, Variant};
use egdb_games::{Cell, Family};
use serde_json::Value;

fn book(store: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["book", "--store", store.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = egdb(&args);
    assert!(out.status.success(), "book failed: {}", stderr(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Each class (named by its cell, as the store locates it: not by the
/// book's canonical form) reachable from the start, with its fewest plies.
fn reachable(game: &MorrisGame, plies: u32) -> HashMap<Cell, u32> {
    let mut first = HashMap::new();
    let mut frontier = vec![game.start()];
    for ply in 0..=plies {
        let mut next = Vec::new();
        for position in frontier {
            let cell = game
                .locate(&position)
                .expect("placement positions are stored");
            if first.contains_key(&cell) {
                continue;
            }
            first.insert(cell, ply);
            next.extend(game.moves(&position).into_iter().map(|(_, p)| p));
        }
        frontier = next;
    }
    first
}

fn cell_of(game: &MorrisGame, text: &str) -> Cell {
    let position: Position = game.parse_position(text).unwrap();
    game.locate(&position).unwrap()
}

#[test]
fn a_book_holds_each_reachable_class_once_and_agrees_with_query() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw4");
    build("morris:taiwan:4", &store, &[]);
    let game = MorrisGame::new(Variant::Taiwan, 4);
    let plies = 3;
    let entries = book(&store, &["--plies", "3"]);
    // Every position of a two-ply book, asked of `egdb query` one by one
    // (a process each: 51 of them, where the three-ply book has 479).
    let asked = book(&store, &["--plies", "2"]);
    // A shorter book is the longer one's beginning.
    for (short, long) in asked.iter().zip(&entries) {
        for field in ["id", "ply", "line", "position", "class", "value", "depth"] {
            assert_eq!(short[field], long[field], "{field}");
        }
    }
    for entry in &asked {
        let answer = query_json(&store, entry["position"].as_str().unwrap());
        assert_eq!(
            (&entry["value"], &entry["depth"]),
            (&answer["value"], &answer["depth"])
        );
        let moves = entry["moves"].as_array().unwrap();
        let told = answer["moves"].as_array().unwrap();
        assert_eq!(moves.len(), told.len(), "{}", entry["position"]);
        for (m, a) in moves.iter().zip(told) {
            for field in ["move", "after", "value", "depth"] {
                assert_eq!(m[field], a[field], "{} {}", entry["position"], m["move"]);
            }
        }
    }

    // Classes: exactly the reachable ones, once each, at their first ply.
    let expected = reachable(&game, plies);
    let mut seen = HashSet::new();
    for (i, entry) in entries.iter().enumerate() {
        assert_eq!(entry["id"].as_u64(), Some(i as u64), "ids in order");
        let cell = cell_of(&game, entry["position"].as_str().unwrap());
        assert!(seen.insert(cell), "{} twice", entry["position"]);
        assert_eq!(
            entry["ply"].as_u64(),
            expected.get(&cell).map(|&p| u64::from(p)),
            "{}",
            entry["position"]
        );
        assert_eq!(cell_of(&game, entry["class"].as_str().unwrap()), cell);
    }
    assert_eq!(seen.len(), expected.len(), "every reachable class");

    for entry in &entries {
        // The line from the start reaches the position as printed.
        let mut position = game.start();
        for mv in entry["line"].as_str().unwrap().split_whitespace() {
            position = game
                .moves(&position)
                .into_iter()
                .find(|(m, _)| game.format_move(m) == mv)
                .expect("a legal move")
                .1;
        }
        assert_eq!(game.format_position(&position), entry["position"]);

        let moves = entry["moves"].as_array().unwrap();
        assert_eq!(moves.len(), game.moves(&position).len());
        for m in moves {
            // `next` names the entry of the class the move leads to.
            let ply = entry["ply"].as_u64().unwrap();
            match m["next"].as_u64() {
                Some(next) => assert_eq!(
                    cell_of(&game, entries[next as usize]["position"].as_str().unwrap()),
                    cell_of(&game, m["after"].as_str().unwrap())
                ),
                None => assert_eq!(ply, u64::from(plies), "only the last ply leads out"),
            }
        }
        assert!(
            moves.iter().any(|m| m["best"] == true),
            "perfect play takes some move"
        );
    }
}

#[test]
fn along_follows_a_line_and_names_an_illegal_move() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw3");
    build("morris:taiwan:3", &store, &[]);
    let summary = dir.path().join("along.md");
    let entries = book(
        &store,
        &[
            "--along",
            "b2 a1 c3",
            "--summary",
            summary.to_str().unwrap(),
        ],
    );
    assert_eq!(entries.len(), 4, "the root and three positions");
    let lines: Vec<&str> = entries
        .iter()
        .map(|e| e["line"].as_str().unwrap())
        .collect();
    assert_eq!(lines, ["", "b2", "b2 a1", "b2 a1 c3"]);
    for pair in entries.windows(2) {
        let played = pair[1]["line"]
            .as_str()
            .unwrap()
            .rsplit(' ')
            .next()
            .unwrap();
        let mv = pair[0]["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["move"] == played)
            .unwrap();
        assert_eq!(mv["after"], pair[1]["position"]);
        assert_eq!(mv["next"], pair[1]["id"]);
    }
    let markdown = std::fs::read_to_string(&summary).unwrap();
    assert!(markdown.contains("| 3 | b2 a1 c3 |"), "{markdown}");

    let out = egdb(&[
        "book",
        "--store",
        store.to_str().unwrap(),
        "--along",
        "b2 b2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("move 1, `b2`, is not legal"),
        "{}",
        stderr(&out)
    );
    // A line longer than any game is refused before it is followed.
    let long = vec!["b2"; 1001].join(" ");
    let out = egdb(&["book", "--store", store.to_str().unwrap(), "--along", &long]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--along holds 1001 moves; at most 1000"),
        "{}",
        stderr(&out)
    );
    let out = egdb(&[
        "book",
        "--store",
        store.to_str().unwrap(),
        "--plies",
        "3",
        "--max-positions",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("passes 10 positions"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_failed_book_leaves_its_files_as_they_were_and_quotes_input_safely() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw3");
    build("morris:taiwan:3", &store, &[]);
    let (out_file, summary) = (dir.path().join("book.jsonl"), dir.path().join("book.md"));
    std::fs::write(&out_file, "the book before\n").unwrap();
    std::fs::write(&summary, "the summary before\n").unwrap();
    let store = store.to_str().unwrap();
    let files = [
        "--out",
        out_file.to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
    ];
    // An illegal second move is found only after the first is written.
    let mut args = vec!["book", "--store", store, "--along", "b2 b2"];
    args.extend(files);
    let out = egdb(&args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&out_file).unwrap(),
        "the book before\n"
    );
    assert_eq!(
        std::fs::read_to_string(&summary).unwrap(),
        "the summary before\n"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // Control characters, a right-to-left mark and a huge position come
    // back escaped and cut.
    let hostile = format!("b2 \u{1b}[2J\u{200f}{}", "x".repeat(100_000));
    let out = egdb(&["book", "--store", store, "--along", &hostile]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(said.contains("\\u{1b}[2J\\u{200f}x"), "{said}");
    assert!(
        !said.contains('\u{1b}') && !said.contains('\u{200f}'),
        "{said}"
    );
    assert!(said.len() < 2_000, "{} bytes", said.len());
    let position = format!("{}\u{7} b 3 3", ".".repeat(100_000));
    let out = egdb(&["book", "--store", store, "--from", &position]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(!said.contains('\u{7}') && said.len() < 2_000, "{said}");

    // One file for both is refused before anything is written.
    let same = out_file.to_str().unwrap();
    let out = egdb(&["book", "--store", store, "--out", same, "--summary", same]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("give each a file of its own"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&out_file).unwrap(),
        "the book before\n"
    );

    // A book that succeeds replaces both.
    let mut args = vec!["book", "--store", store, "--along", "b2"];
    args.extend(files);
    assert!(egdb(&args).status.success());
    assert_eq!(
        std::fs::read_to_string(&out_file).unwrap().lines().count(),
        2
    );
    assert!(std::fs::read_to_string(&summary)
        .unwrap()
        .contains("| 1 | b2 |"));
}
