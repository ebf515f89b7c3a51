//! A third game family goes through the whole machinery with no code of its
//! own outside `games`: the test-only rotor game (`toy:rotor:N`, feature
//! `toy`) is built by the plain solver, queried, verified and served.

mod common;

use std::collections::HashMap;

use common::*;
use egdb_proto::v1::query_client::QueryClient;
use egdb_proto::v1::{LineRequest, PositionRequest};

/// The rotor game with 8 tokens, solved by a separate program (a Python
/// fixpoint written while the family was made): value and depth of every
/// position `t/r`, `None` for draws.
const SOLVED: [(&str, &str, Option<u64>); 24] = [
    ("1/0", "win", Some(1)),
    ("1/1", "win", Some(3)),
    ("1/2", "loss", Some(2)),
    ("2/0", "win", Some(3)),
    ("2/1", "win", Some(1)),
    ("2/2", "loss", Some(4)),
    ("3/0", "win", Some(5)),
    ("3/1", "loss", Some(4)),
    ("3/2", "win", Some(1)),
    ("4/0", "win", Some(5)),
    ("4/1", "win", Some(5)),
    ("4/2", "loss", Some(6)),
    ("5/0", "win", Some(7)),
    ("5/1", "win", Some(9)),
    ("5/2", "loss", Some(8)),
    ("6/0", "draw", None),
    ("6/1", "draw", None),
    ("6/2", "draw", None),
    ("7/0", "draw", None),
    ("7/1", "win", Some(9)),
    ("7/2", "draw", None),
    ("8/0", "draw", None),
    ("8/1", "draw", None),
    ("8/2", "draw", None),
];

#[test]
fn the_rotor_game_is_built_queried_verified_and_served() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("rotor");
    build("toy:rotor:8", &store, &[]);
    assert_eq!(stats_json(&store).len(), 8, "one slice per heap size");

    for (position, value, depth) in SOLVED {
        let answer = query_json(&store, position);
        assert_eq!(answer["value"], value, "{position}: {answer}");
        assert_eq!(answer["depth"].as_u64(), depth, "{position}: {answer}");
    }
    let over = query_json(&store, "0/1");
    assert_eq!(
        (over["value"].as_str(), over["depth"].as_u64()),
        (Some("loss"), Some(0))
    );
    assert!(over["moves"].as_array().unwrap().is_empty());
    let bad = egdb(&["query", "--store", store.to_str().unwrap(), "9/0"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(
        stderr(&bad).contains("the game has 8 tokens"),
        "{}",
        stderr(&bad)
    );

    assert_verified(&store);
    // A value changed behind good checksums: 5/1 said lost instead of won.
    rewrite_slice(&store, "rotor-05", |_, raw| raw[3] = (raw[3] & 0x3f) | 0x40);
    let out = egdb(&["verify", "--store", store.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let said = stdout(&out);
    assert!(said.contains("slice rotor-05: FAILED"), "{said}");
    assert!(said.contains("5/1"), "{said}");
}

#[test]
fn a_served_rotor_game_answers_like_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("rotor");
    build("toy:rotor:8", &store, &[]);
    let server = serve(&store);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut client = runtime
        .block_on(QueryClient::connect(server.url.clone()))
        .unwrap();
    let solved: HashMap<&str, Option<u64>> = SOLVED.iter().map(|s| (s.0, s.2)).collect();
    let moves = runtime
        .block_on(client.moves(PositionRequest {
            position: "7/1".to_string(),
        }))
        .unwrap()
        .into_inner();
    let listed: Vec<(String, Option<u32>)> = moves
        .moves
        .iter()
        .map(|m| (m.r#move.clone(), m.depth))
        .collect();
    assert_eq!(
        listed,
        [("turn".to_string(), None), ("take".to_string(), Some(8))]
    );
    // The perfect-play line from a won position shortens by one a ply.
    let line = runtime
        .block_on(client.line(LineRequest {
            position: "7/1".to_string(),
            max_plies: 0,
        }))
        .unwrap()
        .into_inner();
    assert_eq!(line.steps.len(), 9);
    for (i, step) in line.steps.iter().enumerate() {
        let after = step.after.as_ref().unwrap();
        assert_eq!(after.depth, Some(8 - i as u32), "step {i}");
        if let Some(known) = solved.get(after.position.as_str()) {
            assert_eq!(known.map(|d| d as u32), after.depth, "{}", after.position);
        }
    }
}

/// The plain checker, which knows families only through the trait, passes
/// the Nim and Morris stores their own engines built: every cell the trait
/// locates is the one the engines wrote.
#[test]
fn the_plain_checker_passes_what_the_engines_build() {
    use egdb_check::cells::{check_cells, CellTable};
    use egdb_games::with_game;
    use std::sync::atomic::AtomicBool;

    let dir = tempfile::tempdir().unwrap();
    for (game, extra) in [
        ("nim:triangle:4:normal", &[][..]),
        ("nim:triangle:4:misere", &["--depth"][..]),
        ("morris:taiwan:3", &[][..]),
        ("morris:standard:3", &[][..]),
    ] {
        let store = dir.path().join(game.replace(':', "-"));
        build(game, &store, extra);
        let tablebase = egdb_tablebase::Tablebase::open(&store).unwrap();
        let plan = tablebase.game().slices();
        let tables: Vec<CellTable> = plan
            .iter()
            .enumerate()
            .map(|(place, slice)| {
                let (record, raw) = tablebase.store().read_slice(slice.id.as_str()).unwrap();
                CellTable {
                    place: place as u32,
                    encoding: record.encoding,
                    entries: slice.entries,
                    raw,
                }
            })
            .collect();
        let mut positions = 0;
        for (slice, own) in plan.iter().zip(&tables) {
            let check = with_game!(tablebase.game(), g => {
                check_cells(g, &slice.id, own, &AtomicBool::new(false), |p| {
                    tables.get(p as usize)
                })
            })
            .unwrap();
            assert!(check.passed(), "{game} {}: {check:?}", slice.id);
            positions += check.positions;
        }
        assert!(positions > 100, "{game}: {positions} positions checked");
    }
}
