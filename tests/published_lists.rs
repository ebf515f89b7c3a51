//! The published checksum lists (`docs/results/*.crc`) against the plans
//! of their games and against each other: each list names every slice of
//! `egdb plan GAME` with the plan's positions, and the movement slices
//! that two sizes (or two placement readings) of one rule set share hold
//! the same tables, as they must: a movement table does not depend on how
//! many pieces each side began with, nor on the rules of placing.

mod common;

use std::collections::BTreeMap;

use common::{egdb, repo_file, stderr, stdout};

/// Each published list, by its file's name, with its game.
const LISTS: [(&str, &str); 13] = [
    ("taiwan-6", "morris:taiwan:6"),
    ("taiwan-9", "morris:taiwan:9"),
    ("taiwan-12", "morris:taiwan:12"),
    ("taiwan-protected-9", "morris:taiwan-protected:9"),
    ("standard-6", "morris:standard:6"),
    ("standard-9", "morris:standard:9"),
    ("morabaraba-6", "morris:morabaraba:6"),
    // Placing and moving mixed (RULES.md §3a, `deploy/starts.sh 6`).
    ("starts-standard-6", "morris:standard:6:6"),
    ("starts-morabaraba-6", "morris:morabaraba:6:6"),
    ("starts-lasker-6", "morris:lasker:6"),
    ("starts-standard-7", "morris:standard:7:7"),
    ("starts-morabaraba-7", "morris:morabaraba:7:7"),
    ("starts-lasker-7", "morris:lasker:7"),
];

/// Stores of starts, smaller inside larger: every slice of the smaller
/// (hand slices are named by what they hold) is the larger's, with its
/// table. The 7:7 stores were built from nothing, not from the 6:6 ones.
const NESTED_STARTS: [(&str, &str); 3] = [
    ("starts-standard-6", "starts-standard-7"),
    ("starts-morabaraba-6", "starts-morabaraba-7"),
    ("starts-lasker-6", "starts-lasker-7"),
];

/// Lists whose movement slices of one name are one table: Lasker's
/// movement phase is the standard rules', and how pieces in hand came
/// into play does not change a movement table.
const FAMILIES: [&[&str]; 3] = [
    &["taiwan-6", "taiwan-9", "taiwan-12", "taiwan-protected-9"],
    &[
        "standard-6",
        "standard-9",
        "starts-standard-6",
        "starts-standard-7",
        "starts-lasker-6",
        "starts-lasker-7",
    ],
    &["morabaraba-6", "starts-morabaraba-6", "starts-morabaraba-7"],
];

/// A list's movement lines by slice: positions and CRC-32.
type Movement = BTreeMap<String, (u64, String)>;

/// A list's lines in its order: slice, positions, CRC-32.
fn list(name: &str) -> Vec<(String, u64, String)> {
    let path = repo_file(&format!("docs/results/{name}.crc"));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(fields.len(), 3, "{name}.crc: {line:?}");
            let positions = fields[1].parse().expect("positions");
            (fields[0].to_string(), positions, fields[2].to_string())
        })
        .collect()
}

/// The plan's slices in its order, with their positions.
fn plan(game: &str) -> Vec<(String, u64)> {
    let out = egdb(&["plan", game, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let plan: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    plan["slices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let slice = s["slice"].as_str().unwrap().to_string();
            (slice, s["positions"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn each_published_list_names_every_slice_of_its_plan() {
    for (name, game) in LISTS {
        let listed: Vec<(String, u64)> = list(name).into_iter().map(|(s, p, _)| (s, p)).collect();
        assert_eq!(listed, plan(game), "{name}.crc against `egdb plan {game}`");
    }
}

#[test]
fn movement_slices_shared_across_sizes_hold_one_table() {
    for family in FAMILIES {
        let movement: Vec<(&str, Movement)> = family
            .iter()
            .map(|name| {
                let lines = list(name)
                    .into_iter()
                    .filter(|(slice, _, _)| slice.starts_with("move-"))
                    .map(|(slice, positions, crc)| (slice, (positions, crc)))
                    .collect();
                (*name, lines)
            })
            .collect();
        for (i, (a, of_a)) in movement.iter().enumerate() {
            for (b, of_b) in &movement[i + 1..] {
                let shared: Vec<&String> = of_a.keys().filter(|s| of_b.contains_key(*s)).collect();
                // The smaller game's movement slices are all the larger's.
                let fewer = of_a.len().min(of_b.len());
                assert_eq!(shared.len(), fewer, "{a} and {b} share {}", shared.len());
                for slice in shared {
                    assert_eq!(of_a[slice], of_b[slice], "{slice} in {a}.crc and {b}.crc");
                }
            }
        }
    }
}

#[test]
fn a_smaller_store_of_starts_is_inside_the_larger() {
    for (smaller, larger) in NESTED_STARTS {
        let larger_lines: BTreeMap<String, (u64, String)> = list(larger)
            .into_iter()
            .map(|(slice, positions, crc)| (slice, (positions, crc)))
            .collect();
        let smaller_lines = list(smaller);
        assert!(smaller_lines.len() < larger_lines.len());
        for (slice, positions, crc) in smaller_lines {
            assert_eq!(
                larger_lines.get(&slice),
                Some(&(positions, crc)),
                "{slice} of {smaller}.crc in {larger}.crc"
            );
        }
    }
}
