//! The engines against the plain oracle, position by position, and the
//! published results.

use std::sync::atomic::AtomicBool;

use egdb_db_format::ValueCode;
use egdb_games::nim::{custom, oracle, NimGame};
use egdb_games::{GameSpec, Rule, Value};
use egdb_worker::nim::scan::scan_values;
use egdb_worker::nim::{solve_all, value_in, NimEngine};

fn code(value: Value) -> ValueCode {
    match value {
        Value::Win => ValueCode::Win,
        Value::Loss => ValueCode::Loss,
        Value::Draw => ValueCode::Draw,
    }
}

/// Every position's value, and depth, agrees with the oracle; so does the scan.
fn check_against_oracle(game: NimGame) {
    let truth = oracle::solve(&game);
    let engine = NimEngine::new(game);
    let never = AtomicBool::new(false);
    let values = solve_all(&engine, false, &never).unwrap();
    let depths = solve_all(&engine, true, &never).unwrap();
    let scan = scan_values(engine.game());
    for (p, &(value, depth)) in truth.iter().enumerate() {
        let p = p as u64;
        assert_eq!(
            value_in(&engine, &values, p).0,
            code(value),
            "value of {p:#x}"
        );
        assert_eq!(
            value_in(&engine, &depths, p),
            (code(value), Some(depth as u8)),
            "depth of {p:#x}"
        );
        let scan_win = scan[(p >> 6) as usize] >> (p & 63) & 1 == 1;
        assert_eq!(scan_win, value == Value::Win, "scan of {p:#x}");
    }
}

fn triangle(layers: u32, rule: Rule) -> NimGame {
    NimGame::from_spec(&GameSpec::NimTriangle { layers, rule }).unwrap()
}

#[test]
fn triangles_up_to_five_layers_agree_with_the_oracle() {
    for layers in 1..=5 {
        for rule in [Rule::Normal, Rule::Misere] {
            check_against_oracle(triangle(layers, rule));
        }
    }
}

#[test]
fn hexagram_agrees_with_the_oracle() {
    check_against_oracle(NimGame::from_spec(&GameSpec::NimHexagram).unwrap());
}

fn zigzag(rule: Rule) -> NimGame {
    // Read where the test runs: the binary may come from another clone's build.
    let root = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo test sets it");
    let text = std::fs::read_to_string(std::path::Path::new(&root).join("tests/data/zigzag.toml"))
        .unwrap();
    let mut def = custom::parse(&text, "zigzag.toml").unwrap();
    def.rule = rule;
    NimGame::from_definition(
        GameSpec::NimFile {
            path: "zigzag.toml".into(),
        },
        def,
    )
    .unwrap()
}

#[test]
fn custom_game_agrees_with_the_oracle() {
    check_against_oracle(zigzag(Rule::Normal));
    check_against_oracle(zigzag(Rule::Misere));
}

#[test]
fn published_triangle_results() {
    let text = include_str!("data/triangle_results.csv");
    let never = AtomicBool::new(false);
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split(',').collect();
        let layers: u32 = fields[0].parse().unwrap();
        // Eight layers is the benchmark's job (minutes, 8 GiB).
        if layers > 7 {
            continue;
        }
        for (rule, expected) in [(Rule::Normal, fields[1]), (Rule::Misere, fields[2])] {
            let engine = NimEngine::new(triangle(layers, rule));
            let tables = solve_all(&engine, false, &never).unwrap();
            let start = value_in(&engine, &tables, engine.game().start()).0;
            let expected = if expected == "win" {
                ValueCode::Win
            } else {
                ValueCode::Loss
            };
            assert_eq!(start, expected, "{layers} layers, {rule:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 14);
}

#[test]
fn published_hexagram_results() {
    let game = NimGame::from_spec(&GameSpec::NimHexagram).unwrap();
    let engine = NimEngine::new(game);
    let tables = solve_all(&engine, true, &AtomicBool::new(false)).unwrap();
    let probe = |text: &str| {
        value_in(
            &engine,
            &tables,
            engine.game().parse_position(text).unwrap(),
        )
        .0
    };
    assert_eq!(
        probe("2088"),
        ValueCode::Loss,
        "2088 is a second-player win"
    );
    assert_eq!(probe("1664"), ValueCode::Win, "1664 is a first-player win");
}

#[test]
fn class_counts_match_brute_force_counting() {
    for game in [
        triangle(5, Rule::Misere),
        NimGame::from_spec(&GameSpec::NimHexagram).unwrap(),
        zigzag(Rule::Normal),
    ] {
        let truth = oracle::solve(&game);
        let engine = NimEngine::new(game);
        let tables = solve_all(&engine, true, &AtomicBool::new(false)).unwrap();
        let game = engine.game();
        for (h, table) in tables.iter().enumerate() {
            let counts = engine.counts(h as u32, table).unwrap();
            let in_slice = |p: &u64| game.layout().locate(*p).slice == h as u32;
            let canonical: Vec<u64> = (0..game.position_count())
                .filter(in_slice)
                .filter(|&p| game.symmetry().is_canonical(p))
                .collect();
            let wins = canonical
                .iter()
                .filter(|&&p| truth[p as usize].0 == Value::Win)
                .count() as u64;
            assert_eq!(
                counts.canonical_positions,
                Some(canonical.len() as u64),
                "slice {h}"
            );
            assert_eq!(counts.canonical_win, Some(wins), "slice {h}");
            assert_eq!(
                counts.positions,
                (0..game.position_count()).filter(in_slice).count() as u64
            );
        }
    }
}

#[test]
fn stored_depth_tables_restore_to_the_full_table() {
    let engine = NimEngine::new(triangle(5, Rule::Normal));
    let tables = solve_all(&engine, true, &AtomicBool::new(false)).unwrap();
    for (h, table) in tables.iter().enumerate() {
        let (encoding, stored) = engine.stored_bytes(h as u32, table);
        let restored = engine
            .table_from_stored(h as u32, encoding, stored.into_owned())
            .unwrap();
        assert_eq!(&restored, table.as_ref(), "slice {h}");
    }
}
