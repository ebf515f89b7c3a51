//! The depth engine over kept rows gives, word for word, the tables of the
//! full depth engine.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use egdb_db_format::encoding::unpack_value_depth8;
use egdb_games::nim::NimGame;
use egdb_games::{GameSpec, Rule};
use egdb_worker::nim::depth::solve_depths;
use egdb_worker::nim::kept::solve_depths_kept;
use egdb_worker::nim::planes::Planes;
use egdb_worker::nim::symmetric::Kept;
use egdb_worker::nim::{solve_all, value_in, NimEngine};

fn check(spec: GameSpec) {
    let game = NimGame::from_spec(&spec).unwrap();
    let layout = game.layout().clone();
    let rows = Kept::new(&game).unwrap();
    let kept = &rows.kept;
    let engine = NimEngine::new(game.clone());
    let never = AtomicBool::new(false);
    let mut whole: HashMap<u32, Vec<Planes>> = HashMap::new();
    let mut tables: HashMap<u32, Vec<Planes>> = HashMap::new();
    for h in 0..layout.slice_count() {
        let lookup = |s: u32| whole.get(&s).map(|t| t.as_slice());
        let full = solve_depths(&game, engine.moves(), h, &lookup, &never).unwrap();
        let lookup = |s: u32| tables.get(&s).map(|t| t.as_slice());
        let table = solve_depths_kept(&game, engine.moves(), &rows, h, &lookup, &never).unwrap();
        for row in &kept.slice(h).rows {
            let at = layout.row_start(h, row.high) as usize;
            let first = row.first_word as usize;
            let len = row.len as usize;
            assert!(
                table[first..first + len] == full[at..at + len],
                "{spec}: slice {h}, row {:#x}",
                row.high
            );
        }
        whole.insert(h, full);
        tables.insert(h, table);
    }
    // The engine's own tables (kept rows) answer every position as the
    // full tables do, through the symmetry that maps its row.
    let solved = solve_all(&engine, true, &never).unwrap();
    for position in (0..game.position_count()).step_by(7) {
        let slot = layout.locate(position);
        let byte = whole[&slot.slice][slot.word as usize].byte(slot.bit);
        assert_eq!(
            value_in(&engine, &solved, position),
            {
                let (code, depth) = unpack_value_depth8(byte);
                (code, Some(depth))
            },
            "{spec}: position {position:#x}"
        );
    }
}

/// Up to 6 layers every outer cell is in the low half: one row a slice,
/// every symmetry unused.
#[test]
fn kept_rows_agree_with_the_full_tables_on_small_games() {
    for layers in 3..=6 {
        for rule in [Rule::Normal, Rule::Misere] {
            check(GameSpec::NimTriangle { layers, rule });
        }
    }
    check(GameSpec::NimHexagram);
}

/// 7 layers: 7 cells in the high half, rows read through every symmetry.
#[test]
fn kept_rows_agree_with_the_full_tables_on_seven_layers() {
    check(GameSpec::NimTriangle {
        layers: 7,
        rule: Rule::Misere,
    });
}
