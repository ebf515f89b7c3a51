//! The Morris engines against the plain solver: every value and depth of
//! every position of whole small games and of all small movement slices.

use egdb_games::morris::oracle::Oracle;
use egdb_games::morris::{MorrisGame, MorrisRules, Position, Variant};
use egdb_games::Value;
use egdb_worker::morris::{probe, MorrisEngine};

fn check(variant: Variant, pieces: u8) {
    let game = MorrisGame::new(variant, pieces);
    let rules: MorrisRules = *game.rules();
    let solved = MorrisEngine::new(game.clone()).solve_all();
    for oracle in [
        Oracle::whole_game(&rules),
        Oracle::movement(&rules, u32::from(pieces)),
    ] {
        let mut checked = 0u64;
        for (position, (value, depth)) in oracle.solutions() {
            let (v, d) = probe(&rules, &solved, &position);
            assert_eq!(
                (v, u32::from(d)),
                (value, if value == Value::Draw { 0 } else { depth }),
                "{} {position}",
                game.name()
            );
            checked += 1;
        }
        assert!(checked > 100_000, "{checked} positions checked");
    }
    let start = probe(&rules, &solved, &Position::start(&rules));
    eprintln!("{}: start {:?}", game.name(), start);
}

#[test]
fn taiwan_three_agrees_with_the_plain_solver() {
    check(Variant::Taiwan, 3);
}

#[test]
fn standard_three_agrees_with_the_plain_solver() {
    check(Variant::Standard, 3);
}

#[test]
fn taiwan_four_agrees_with_the_plain_solver() {
    check(Variant::Taiwan, 4);
}

#[test]
fn standard_four_agrees_with_the_plain_solver() {
    check(Variant::Standard, 4);
}

#[test]
fn taiwan_protected_four_agrees_with_the_plain_solver() {
    check(Variant::TaiwanProtected, 4);
}
