//! The Morris engines against the plain solver: every value and depth of
//! every position of whole small games and of all small movement slices.

use egdb_games::morris::moves::terminal_value;
use egdb_games::morris::oracle::Oracle;
use egdb_games::morris::{Color, MorrisGame, MorrisRules, PointSet, Position, Variant};
use egdb_games::{GameSpec, Value};
use egdb_worker::morris::{probe, Dependencies, MorrisEngine};

fn check(variant: Variant, pieces: u8) {
    check_game(MorrisGame::new(variant, pieces));
}

/// Every position the oracle solved against the engine's tables; how many.
fn agreeing(game: &MorrisGame, solved: &Dependencies, oracle: &Oracle) -> u64 {
    let rules = game.rules();
    let mut checked = 0u64;
    for (position, (value, depth)) in oracle.solutions() {
        let (v, d) = probe(rules, solved, &position);
        assert_eq!(
            (v, u32::from(d)),
            (value, if value == Value::Draw { 0 } else { depth }),
            "{} {position}",
            game.name()
        );
        checked += 1;
    }
    checked
}

fn check_game(game: MorrisGame) {
    let pieces = game.rules().pieces;
    let rules: MorrisRules = *game.rules();
    let solved = MorrisEngine::new(game.clone()).solve_all();
    for oracle in [
        Oracle::whole_game(&rules),
        Oracle::movement(&rules, u32::from(pieces)),
    ] {
        let checked = agreeing(&game, &solved, &oracle);
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

#[test]
fn morabaraba_three_agrees_with_the_plain_solver() {
    check(Variant::Morabaraba, 3);
}

#[test]
fn morabaraba_four_agrees_with_the_plain_solver() {
    check(Variant::Morabaraba, 4);
}

/// Where placing and moving mix (RULES.md §3a): every position reached
/// from every start up to the game's (either side to move), engine against
/// plain solver. A game's stores hold every smaller start, and a start
/// with the colours' hands swapped is the same cells with the colours
/// swapped, so that one game covers several; the starts `[K, L]` listed
/// are probed and printed.
fn check_mixed(game: MorrisGame, starts: &[[u8; 2]]) {
    let rules: MorrisRules = *game.rules();
    let solved = MorrisEngine::new(game.clone()).solve_all();
    let oracle = Oracle::every_start(&rules);
    let checked = agreeing(&game, &solved, &oracle);
    assert!(checked > 100_000, "{}: {checked} positions", game.name());
    for &[k, l] in starts {
        // The first player to move with K against L; where K does not fit
        // the first player's start, the same cells with the colours swapped.
        let empty = PointSet::EMPTY;
        let position = Position::new(&rules, empty, empty, Color::First, [k, l])
            .or_else(|_| Position::new(&rules, empty, empty, Color::Second, [l, k]))
            .expect("a start within the game's");
        let (value, depth) = oracle
            .value(&position)
            .expect("the oracle solved every start");
        let (v, d) = probe(&rules, &solved, &position);
        let depth = if value == Value::Draw { 0 } else { depth };
        assert_eq!((v, u32::from(d)), (value, depth), "{position}");
        eprintln!("{} start {k}:{l}: {v:?} {d}", game.name());
    }
}

#[test]
fn lasker_three_and_four_agree_with_the_plain_solver() {
    check_mixed(MorrisGame::new(Variant::Lasker, 4), &[[3, 3], [4, 4]]);
}

#[test]
fn unequal_starts_agree_with_the_plain_solver() {
    for variant in [Variant::Standard, Variant::Morabaraba, Variant::Lasker] {
        let starts = [[3, 4], [4, 3], [5, 3], [3, 5]];
        check_mixed(MorrisGame::with_hands(variant, 5, 3).unwrap(), &starts);
    }
}

/// Pieces in hand while moving under rules whose captures need fewer than
/// three of the mover's pieces (槓: two, 擔: one): a rules file with
/// Taiwan's captures and the loss rule that counts pieces in hand.
#[test]
fn hands_with_gang_and_dan_agree_with_the_plain_solver() {
    let spec: GameSpec = "morris:file:gang-dan-hands.toml".parse().unwrap();
    let text = "pieces = [3, 4]\ndiagonals = true\nmill_takes = \"any\"\ngang = true\n\
                dan = true\nflying = false\nlose_below_three = \"board-and-hand\"\n";
    let game = MorrisGame::from_rules_file(spec, text).unwrap();
    check_mixed(game, &[[3, 4], [3, 3]]);
}

/// A rules file's game, at 3 pieces.
fn from_file(rules: &str) -> MorrisGame {
    let spec: GameSpec = "morris:file:mixed.toml".parse().unwrap();
    MorrisGame::from_rules_file(spec, &format!("pieces = 3\n{rules}")).unwrap()
}

/// Every rules option in combinations no preset has: 槓 without 擔 or
/// diagonals, flying under Taiwan's count of pieces, 擔 with protected
/// mills and the standard count.
#[test]
fn mixed_rules_files_agree_with_the_plain_solver() {
    check_game(from_file(
        "diagonals = false\nmill_takes = \"any\"\ngang = true\ndan = false\n\
         flying = true\nlose_below_three = \"board-in-movement\"",
    ));
    check_game(from_file(
        "diagonals = true\nmill_takes = \"not-in-mill-while-placing\"\ngang = false\n\
         dan = true\nflying = false\nlose_below_three = \"board-and-hand\"",
    ));
}

/// The two options that change what a capture is: 擔 taking one corner,
/// and captures the mover may decline. Each alone at 3 pieces, both
/// together on Taiwan's board at 4.
#[test]
fn dan_taking_one_and_optional_captures_agree_with_the_plain_solver() {
    let taiwan = "diagonals = true\nmill_takes = \"any\"\ngang = true\ndan = true\n\
                  flying = false\nlose_below_three = \"board-in-movement\"";
    check_game(from_file(&format!("{taiwan}\ndan_takes = \"one\"")));
    check_game(from_file(&format!("{taiwan}\ncapture = \"optional\"")));
    let spec: GameSpec = "morris:file:both.toml".parse().unwrap();
    let text = format!("pieces = 4\n{taiwan}\ndan_takes = \"one\"\ncapture = \"optional\"");
    check_game(MorrisGame::from_rules_file(spec, &text).unwrap());
}

/// A move that takes every capture it opens: up to three pieces at once
/// (a 擔 and a 槓 from a side's midpoint) from 3 pieces on, with optional
/// captures too at 4. (Two mills at once need 5 pieces; the unit tests of
/// `moves.rs` and the P = 6 reading's verify cover those.)
#[test]
fn taking_every_capture_agrees_with_the_plain_solver() {
    let taiwan = "diagonals = true\nmill_takes = \"any\"\ngang = true\ndan = true\n\
                  flying = false\nlose_below_three = \"board-in-movement\"";
    check_game(from_file(&format!("{taiwan}\nseveral_captures = \"all\"")));
    let spec: GameSpec = "morris:file:all.toml".parse().unwrap();
    let text = format!("pieces = 4\n{taiwan}\nseveral_captures = \"all\"\ncapture = \"optional\"");
    check_game(MorrisGame::from_rules_file(spec, &text).unwrap());
}

/// A blocked side draws (a stalemate rule), on the board without
/// diagonals or flying at 3 and 4 pieces: blocking takes too many pieces
/// for games this small on Taiwan's board (the P = 6 reading's verify
/// covers that). Both games hold blocked positions.
#[test]
fn a_blocked_side_drawing_agrees_with_the_plain_solver() {
    let rules = "diagonals = false\nmill_takes = \"any\"\ngang = false\ndan = false\n\
                 flying = false\nlose_below_three = \"board-in-movement\"\nblocked = \"draws\"";
    let spec: GameSpec = "morris:file:blocked.toml".parse().unwrap();
    let games = [
        from_file(rules),
        MorrisGame::from_rules_file(spec, &format!("pieces = 4\n{rules}")).unwrap(),
    ];
    for game in games {
        let rules = *game.rules();
        let oracle = Oracle::movement(&rules, u32::from(rules.pieces));
        let blocked = oracle
            .solutions()
            .filter(|(p, _)| {
                let (mover, opponent) = p.sides();
                terminal_value(&rules, p) == Some(Value::Draw) && mover.len() + opponent.len() < 24
            })
            .count();
        assert!(blocked > 0, "{}: no blocked position", game.name());
        check_game(game);
    }
}
