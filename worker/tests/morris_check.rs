//! The checker against the engines, on whole small games: every slice the
//! engines solved passes its check, and one class entry changed, or one
//! duplicate given a value, in a slice of either phase or in a hand slice
//! (placing and moving mixed), is found. (The
//! checker walks tables by the class of the side that moves next; this
//! pins that every class is checked, and checked against the right cells.)

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use egdb_check::morris::{check_morris, MorrisTables};
use egdb_check::SliceCheck;
use egdb_db_format::encoding::{pack_value_depth16, unpack_value_depth16, ValueCode};
use egdb_games::morris::{MorrisGame, MorrisSlice, Variant};
use egdb_worker::morris::task::stored_bytes;
use egdb_worker::morris::MorrisEngine;
use proptest::prelude::*;
use proptest::sample::{select, Index};

/// A game's slices as the checker reads them, in plan order.
struct Solved {
    game: MorrisGame,
    slices: Vec<MorrisSlice>,
    tables: HashMap<MorrisSlice, MorrisTables>,
}

fn solved(variant: Variant, pieces: u8) -> Solved {
    solved_game(MorrisGame::new(variant, pieces))
}

fn solved_game(game: MorrisGame) -> Solved {
    let engine = MorrisEngine::new(game.clone());
    let tables = engine
        .solve_all()
        .iter()
        .map(|(&slice, done)| {
            let tables = MorrisTables::from_bytes(slice, &stored_bytes(done)).expect("fits");
            (slice, tables)
        })
        .collect();
    let slices = game.plan().into_iter().map(|(slice, _)| slice).collect();
    Solved {
        game,
        slices,
        tables,
    }
}

fn taiwan_four() -> &'static Solved {
    static SOLVED: OnceLock<Solved> = OnceLock::new();
    SOLVED.get_or_init(|| solved(Variant::Taiwan, 4))
}

/// Lasker Morris with 4 pieces: hand slices in both orientations.
fn lasker_four() -> &'static Solved {
    static SOLVED: OnceLock<Solved> = OnceLock::new();
    SOLVED.get_or_init(|| solved(Variant::Lasker, 4))
}

/// `own` checked, the other slices read from `solved`.
fn check(solved: &Solved, own: &MorrisTables) -> SliceCheck {
    check_morris(solved.game.rules(), own, &AtomicBool::new(false), |s| {
        solved.tables.get(&s)
    })
    .expect("every slice is given")
}

#[test]
fn every_slice_the_engines_solved_passes() {
    let games = [
        MorrisGame::new(Variant::Taiwan, 4),
        MorrisGame::new(Variant::Standard, 4),
        MorrisGame::with_hands(Variant::Morabaraba, 5, 3).unwrap(),
        // Placing or moving on every turn; a mill against an empty board.
        MorrisGame::new(Variant::Lasker, 4),
        MorrisGame::with_hands(Variant::Standard, 3, 5).unwrap(),
        // Captures with fewer than three pieces on the board (槓, 擔).
        MorrisGame::from_rules_file(
            "morris:file:gang-dan-hands.toml".parse().unwrap(),
            "pieces = [3, 4]\ndiagonals = true\nmill_takes = \"any\"\ngang = true\n\
             dan = true\nflying = false\nlose_below_three = \"board-and-hand\"\n",
        )
        .unwrap(),
    ];
    for game in games {
        let solved = solved_game(game);
        let mut positions = 0;
        for slice in &solved.slices {
            let found = check(&solved, &solved.tables[slice]);
            assert_eq!(found.mismatches, 0, "{slice}: {found:?}");
            assert_eq!(found.duplicates_with_values, 0, "{slice}");
            positions += found.positions;
        }
        // Every class of every table is checked, once.
        let classes: u64 = solved
            .tables
            .values()
            .flat_map(|t| &t.tables)
            .map(|t| {
                let mut canonical = 0;
                t.index
                    .for_each_entry(|_, e| canonical += u64::from(e.canonical));
                canonical
            })
            .sum();
        assert_eq!(positions, classes, "{}", solved.game.name());
    }
}

/// What is done to one entry of a slice.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// A decided class entry one ply deeper.
    Deeper,
    /// A class entry given another value.
    OtherValue,
    /// A class entry emptied ("don't care").
    Emptied,
    /// A duplicate entry given a class's value.
    DuplicateValued,
}

fn faulty(cell: u16, fault: Fault) -> Option<u16> {
    let (code, depth) = unpack_value_depth16(cell);
    let decided = matches!(code, ValueCode::Win | ValueCode::Loss);
    match fault {
        Fault::Deeper => decided.then(|| cell + 1),
        Fault::OtherValue => Some(match code {
            ValueCode::Win => pack_value_depth16(ValueCode::Draw, 0),
            ValueCode::Draw => pack_value_depth16(ValueCode::Loss, depth),
            _ => pack_value_depth16(ValueCode::Win, depth + 1),
        }),
        Fault::Emptied => Some(0),
        Fault::DuplicateValued => None,
    }
}

/// Plants `fault` in one entry of `slice` (a table and entry picked by
/// `table` and `entry`) and checks that the checker names it.
fn planted_fault_is_found(
    solved: &Solved,
    slice: MorrisSlice,
    table: Index,
    entry: Index,
    fault: Fault,
) -> Result<(), TestCaseError> {
    let own = &solved.tables[&slice];
    let t = table.index(own.tables.len());
    let index = &own.tables[t].index;
    prop_assume!(!index.is_empty());
    // The first entry from a random one on that the fault applies to.
    let start = entry.index(index.len() as usize) as u64;
    let mut changed = None;
    for k in 0..index.len() {
        let i = (start + k) % index.len();
        let cell = own.tables[t].cells[i as usize];
        let canonical = index.entry(i).canonical;
        let new = match (fault, canonical) {
            (Fault::DuplicateValued, false) => Some(pack_value_depth16(ValueCode::Draw, 0)),
            (Fault::DuplicateValued, true) | (_, false) => None,
            (_, true) => faulty(cell, fault),
        };
        if let Some(new) = new {
            changed = Some((i as usize, new));
            break;
        }
    }
    let Some((at, new)) = changed else {
        // No entry of that kind in this table (a table without
        // duplicates, or without decided entries).
        return Ok(());
    };
    let mut bad = copy(own);
    bad.tables[t].cells[at] = new;
    let found = check(solved, &bad);
    match fault {
        Fault::DuplicateValued => {
            prop_assert_eq!(found.duplicates_with_values, 1, "{} {:?}", slice, found);
            prop_assert_eq!(found.mismatches, 0);
        }
        _ => prop_assert!(
            found.mismatches >= 1,
            "{} entry {} {:?}: {:?}",
            slice,
            at,
            fault,
            found
        ),
    }
    Ok(())
}

fn any_fault() -> impl Strategy<Value = Fault> {
    select(vec![
        Fault::Deeper,
        Fault::OtherValue,
        Fault::Emptied,
        Fault::DuplicateValued,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn one_entry_changed_in_either_phase_is_found(
        slice in any::<Index>(),
        table in any::<Index>(),
        entry in any::<Index>(),
        fault in any_fault(),
    ) {
        let solved = taiwan_four();
        planted_fault_is_found(solved, *slice.get(&solved.slices), table, entry, fault)?;
    }

    #[test]
    fn one_entry_changed_in_a_hand_slice_is_found(
        slice in any::<Index>(),
        table in any::<Index>(),
        entry in any::<Index>(),
        fault in any_fault(),
    ) {
        let solved = lasker_four();
        let hand: Vec<MorrisSlice> = solved
            .slices
            .iter()
            .copied()
            .filter(|s| matches!(s, MorrisSlice::Hand { .. }))
            .collect();
        planted_fault_is_found(solved, *slice.get(&hand), table, entry, fault)?;
    }
}

fn copy(tables: &MorrisTables) -> MorrisTables {
    let raw: Vec<u8> = tables
        .tables
        .iter()
        .flat_map(|t| t.cells.iter().flat_map(|c| c.to_le_bytes()))
        .collect();
    MorrisTables::from_bytes(tables.slice, &raw).expect("its own bytes fit")
}
