//! Morris rules: captures on hand-made positions, notation round trips, and
//! move/un-move agreement on random games.

use egdb_games::morris::moves::{
    count_quiet_steps, for_each_move, for_each_move_with_hands, for_each_step_split,
    for_each_step_split_with_hands, for_each_step_with_hands, for_each_unmove,
    for_each_unmove_with_hands, legal_moves, play, quiet_placements, terminal_value,
    PlacementCaptures, Successor,
};
use egdb_games::morris::placements::PlacementsAgainst;
use egdb_games::morris::rules::{Blocked, CaptureRule, DanTakes, SeveralCaptures};
use egdb_games::morris::{MorrisRules, Move, Phase, Point, PointSet, Position};
use egdb_games::{GameError, Value};
use proptest::prelude::*;

/// A position text from the points of each side and the tail (`b 1 1`).
fn setup(first: &[&str], second: &[&str], tail: &str) -> String {
    const ORDER: [&str; 24] = [
        "a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4", "e4", "f4", "g4",
        "c5", "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7",
    ];
    let board: String = ORDER
        .iter()
        .map(|p| {
            if first.contains(p) {
                'B'
            } else if second.contains(p) {
                'W'
            } else {
                '.'
            }
        })
        .collect();
    format!("{board} {tail}")
}

fn moves_from(rules: &MorrisRules, text: &str, from: Option<&str>, to: &str) -> Vec<String> {
    let position = Position::parse(rules, text).unwrap();
    let mut found: Vec<String> = legal_moves(rules, &position)
        .into_iter()
        .map(|(m, _)| m.to_string())
        .filter(|m| {
            let head = m.split('x').next().unwrap();
            match from {
                Some(f) => head == format!("{f}-{to}"),
                None => head == to,
            }
        })
        .collect();
    found.sort();
    found
}

#[test]
fn taiwan_dan_takes_both_corners_and_gang_the_middle() {
    let rules = MorrisRules::taiwan(3);
    // B a1 g7, W b2 f2; B places.
    let text = "B..W.W.................B b 1 1";
    assert_eq!(moves_from(&rules, text, None, "d2"), ["d2xb2xf2"]);
    // c3 ends the diagonal a1-b2-c3 whose middle is W and far end B.
    assert_eq!(moves_from(&rules, text, None, "c3"), ["c3xb2"]);
    // g1 ends g1-f2-e3, but e3 is not B's.
    assert_eq!(moves_from(&rules, text, None, "g1"), ["g1"]);
    let position = Position::parse(&rules, text).unwrap();
    assert_eq!(legal_moves(&rules, &position).len(), 20);
}

#[test]
fn taiwan_mill_and_gang_offering_the_same_piece_are_one_move() {
    let rules = MorrisRules::taiwan(4);
    // B a1 d1 e3, W f2 e4 a7; B places g1: mill a1-d1-g1 and gang g1-f2-e3.
    let text = "BB...W..B...W........W.. b 1 1";
    assert_eq!(
        moves_from(&rules, text, None, "g1"),
        ["g1xa7", "g1xe4", "g1xf2"]
    );
}

#[test]
fn standard_mills_spare_pieces_in_mills_unless_all_are() {
    let rules = MorrisRules::standard(5);
    // W a7 d7 g7 stand in a mill, b4 does not.
    let text = setup(&["a1", "d1", "c4"], &["a7", "d7", "g7", "b4"], "b 1 1");
    assert_eq!(moves_from(&rules, &text, None, "g1"), ["g1xb4"]);
    // Without b4, every W piece stands in a mill: any may go.
    let text = setup(&["a1", "d1", "c4"], &["a7", "d7", "g7"], "b 1 1");
    assert_eq!(
        moves_from(&rules, &text, None, "g1"),
        ["g1xa7", "g1xd7", "g1xg7"]
    );
}

#[test]
fn standard_has_no_gang_or_dan() {
    let rules = MorrisRules::standard(3);
    let text = "B..W.W.................B b 1 1";
    assert_eq!(moves_from(&rules, text, None, "d2"), ["d2"]);
    assert_eq!(moves_from(&rules, text, None, "c3"), ["c3"]);
}

#[test]
fn three_pieces_fly_in_standard_only() {
    // B a1 d1 g7, W b2 d2 f2 d6 ... movement, B to move.
    let text = "BB.WWW.............W...B b 0 0";
    let standard = MorrisRules::standard(4);
    let taiwan = MorrisRules::taiwan(4);
    assert_eq!(moves_from(&standard, text, Some("a1"), "c5"), ["a1-c5"]);
    assert!(moves_from(&taiwan, text, Some("a1"), "c5").is_empty());
    assert_eq!(moves_from(&taiwan, text, Some("a1"), "a4"), ["a1-a4"]);
}

#[test]
fn terminal_positions() {
    let taiwan = MorrisRules::taiwan(5);
    let at = |rules: &MorrisRules, text: String| Position::parse(rules, &text).unwrap();
    // Movement, B to move with 2 pieces: lost.
    let two = at(
        &taiwan,
        setup(&["a1", "d1"], &["b2", "d2", "f2", "g7"], "b 0 0"),
    );
    assert_eq!(terminal_value(&taiwan, &two), Some(Value::Loss));
    // ... and W with 2 when B is to move: B has won.
    let won = at(&taiwan, setup(&["a1", "d1", "g7"], &["b2", "d2"], "b 0 0"));
    assert_eq!(terminal_value(&taiwan, &won), Some(Value::Win));
    // Placement never ends in Taiwan, even with 2 pieces on the board.
    let placing = at(&taiwan, setup(&["a1", "d1"], &["b2", "d2"], "b 1 1"));
    assert_eq!(terminal_value(&taiwan, &placing), None);
    // Standard: below 3 on the board and in hand together loses at once.
    let standard = MorrisRules::standard(3);
    let short = at(&standard, setup(&["a1"], &["b2", "d2"], "w 0 1"));
    assert_eq!(short.phase(&standard), Phase::Placement { ply: 5 });
    assert_eq!(terminal_value(&standard, &short), Some(Value::Win));
    let short = at(&standard, setup(&["a1"], &["b2", "d2"], "b 0 0"));
    assert_eq!(terminal_value(&standard, &short), Some(Value::Loss));
    // Blocked: B on a1 d1 g1 hemmed in by W (no flying in Taiwan).
    let hemmed_in = |to_move: &str| {
        let black = ["a1", "d1", "g1"];
        at(
            &taiwan,
            setup(&black, &["a4", "b2", "d2", "f2", "g4"], to_move),
        )
    };
    let blocked = hemmed_in("b 0 0");
    assert_eq!(terminal_value(&taiwan, &blocked), Some(Value::Loss));
    // Under a stalemate rule the same position is a drawn end, and the
    // side that can still move plays on.
    let stalemate = MorrisRules {
        blocked: Blocked::Draws,
        ..taiwan
    };
    assert_eq!(terminal_value(&stalemate, &blocked), Some(Value::Draw));
    assert!(legal_moves(&stalemate, &blocked).is_empty());
    assert_eq!(terminal_value(&stalemate, &hemmed_in("w 0 0")), None);
    // A full board is a draw.
    let rules = MorrisRules::taiwan(12);
    let full = at(&rules, "BWBWBWBWBWBWWBWBWBWBWBWB b 0 0".to_string());
    assert_eq!(terminal_value(&rules, &full), Some(Value::Draw));
}

#[test]
fn malformed_positions_and_moves_are_named() {
    let rules = MorrisRules::taiwan(6);
    for (text, needle) in [
        ("B.W", "24 points"),
        ("B.W..................... b 6", "4 fields"),
        ("X....................... b 6 6", "`X`"),
        ("........................ x 6 6", "b or w"),
        ("........................ b six 6", "must be a number"),
        ("........................ b +6 6", "not `+6`"),
        ("........................ b 7 6", "has 7 pieces in hand"),
        ("BBBBBB.................. b 1 6", "more than the 6"),
        ("B....................... b 5 6", "W's turn"),
        ("........................ b 3 6", "alternate"),
    ] {
        let err = Position::parse(&rules, text).unwrap_err();
        assert!(matches!(err, GameError::MalformedPosition { .. }));
        assert!(err.to_string().contains(needle), "{text}: {err}");
    }
    let start = Position::start(&rules);
    for (text, needle) in [
        ("z9", "not a point"),
        ("d2xd2xd2", "removed twice"),
        ("d2-", "not a point"),
    ] {
        let err = play(&rules, &start, text).unwrap_err().to_string();
        assert!(err.contains(needle), "{text}: {err}");
    }
    let err = play(&rules, &start, "d2-d3").unwrap_err().to_string();
    assert!(err.contains("not legal"), "{err}");
}

/// A random game: the positions met and the moves played.
fn random_game(rules: &MorrisRules, choices: &[u16]) -> Vec<Position> {
    let mut position = Position::start(rules);
    let mut seen = vec![position];
    for &c in choices {
        let moves = legal_moves(rules, &position);
        if moves.is_empty() {
            break;
        }
        position = moves[c as usize % moves.len()].1;
        seen.push(position);
    }
    seen
}

/// The successor of a step from `from` to `to` that captures nothing.
fn quiet_step(from: Point, to: Point, mover: PointSet, opponent: PointSet) -> Successor {
    Successor {
        mv: Move {
            from: Some(from),
            to,
            removed: PointSet::EMPTY,
        },
        mover: mover.without(from).with(to),
        opponent,
    }
}

/// The rules of a family whose loss rule counts pieces in hand, with an
/// unequal start K:L (RULES.md §3a).
fn any_hand_rules() -> impl Strategy<Value = MorrisRules> {
    (any::<bool>(), any::<bool>(), 3u8..=12, 3u8..=12).prop_map(|(lasker, morabaraba, k, l)| {
        let base = match (lasker, morabaraba) {
            (true, _) => MorrisRules::lasker(k),
            (false, true) => MorrisRules::morabaraba(k),
            (false, false) => MorrisRules::standard(k),
        };
        base.with_hands(k, l).unwrap()
    })
}

fn any_rules() -> impl Strategy<Value = MorrisRules> {
    // (Which capture option: 0 none, 1 擔 takes one, 2 a move takes every
    // capture; the last two do not go together.)
    (
        3u8..=12,
        any::<bool>(),
        0u8..3,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(p, taiwan, option, optional, draws)| {
            let rules = if taiwan {
                MorrisRules::taiwan(p)
            } else {
                MorrisRules::standard(p)
            };
            MorrisRules {
                dan_takes: if option == 1 && rules.dan {
                    DanTakes::One
                } else {
                    DanTakes::Both
                },
                several_captures: if option == 2 {
                    SeveralCaptures::All
                } else {
                    SeveralCaptures::One
                },
                capture: if optional {
                    CaptureRule::Optional
                } else {
                    CaptureRule::Compulsory
                },
                blocked: if draws {
                    Blocked::Draws
                } else {
                    Blocked::Loses
                },
                ..rules
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn notation_round_trips(rules in any_rules(), choices in prop::collection::vec(any::<u16>(), 0..60)) {
        for position in random_game(&rules, &choices) {
            let text = position.to_string();
            prop_assert_eq!(Position::parse(&rules, &text).unwrap(), position);
            for (mv, next) in legal_moves(&rules, &position) {
                prop_assert_eq!(play(&rules, &position, &mv.to_string()).unwrap(), next);
            }
        }
    }

    #[test]
    fn quiet_steps_and_captures_split_the_moves(rules in any_rules(), choices in prop::collection::vec(any::<u16>(), 0..80)) {
        for position in random_game(&rules, &choices) {
            if position.phase(&rules) != Phase::Movement {
                continue;
            }
            let (mover, opponent) = position.sides();
            let (mut quiet, mut captures) = (0, Vec::new());
            for_each_move(&rules, false, mover, opponent, |s| {
                if s.mv.removed.is_empty() {
                    quiet += 1;
                } else {
                    captures.push(s);
                }
            });
            let mut visited = Vec::new();
            let counted = count_quiet_steps(&rules, mover, opponent, |s| visited.push(s));
            assert_eq!(counted, quiet, "{position}");
            assert_eq!(visited, captures, "{position}");
            // Each move once, in the generator's order.
            let (split, mut in_order) = (std::cell::RefCell::new(Vec::new()), Vec::new());
            for_each_move(&rules, false, mover, opponent, |s| in_order.push(s));
            for_each_step_split(
                &rules,
                mover,
                opponent,
                |from, to| split.borrow_mut().push(quiet_step(from, to, mover, opponent)),
                |s| split.borrow_mut().push(s),
            );
            assert_eq!(split.into_inner(), in_order, "{position}");
        }
    }

    #[test]
    fn quiet_placements_and_captures_split_the_placements(rules in any_rules(), choices in prop::collection::vec(any::<u16>(), 0..40)) {
        for position in random_game(&rules, &choices) {
            if position.phase(&rules) == Phase::Movement {
                continue;
            }
            let (mover, opponent) = position.sides();
            let (mut quiet, mut captures) = (Vec::new(), Vec::new());
            for_each_move(&rules, true, mover, opponent, |s| {
                if s.mv.removed.is_empty() {
                    quiet.push(s.mv.to);
                } else {
                    captures.push(s);
                }
            });
            let mut captures_seen = Vec::new();
            let quiet_seen: Vec<_> = quiet_placements(mover, &PlacementCaptures::new(&rules, opponent), |s| captures_seen.push(s)).iter().collect();
            assert_eq!(quiet_seen, quiet, "{position}");
            assert_eq!(captures_seen, captures, "{position}");
            // The same, with what depends on the opponent alone worked out first.
            let (mut quiet_seen, mut captures_seen) = (Vec::new(), Vec::new());
            PlacementsAgainst::new(&rules, opponent).for_each(mover, |to| quiet_seen.push(to), |s| captures_seen.push(s));
            assert_eq!(quiet_seen, quiet, "{position}");
            assert_eq!(captures_seen, captures, "{position}");
        }
    }

    #[test]
    fn moves_and_unmoves_agree(rules in any_rules(), choices in prop::collection::vec(any::<u16>(), 0..80)) {
        for position in random_game(&rules, &choices) {
            if position.phase(&rules) != Phase::Movement || terminal_value(&rules, &position).is_some() {
                continue;
            }
            let (mover, opponent) = position.sides();
            // Every capture-free step is undone by an un-move of its result.
            for_each_move(&rules, false, mover, opponent, |s| {
                if s.opponent == opponent {
                    let mut back = false;
                    for_each_unmove(&rules, s.opponent, s.mover, |u| back |= (u.mover, u.opponent) == (mover, opponent));
                    assert!(back, "{position}: {} has no un-move", s.mv);
                }
            });
            // Every un-move leads to a position with a capture-free step back here.
            for_each_unmove(&rules, mover, opponent, |u| {
                assert_eq!(u.mover, opponent.without(u.to).with(u.from));
                let mut forward = false;
                for_each_move(&rules, false, u.mover, u.opponent, |s| forward |= (s.opponent, s.mover) == (mover, opponent) && s.mv.removed.is_empty());
                assert!(forward, "{position}: an un-move without its move");
            });
        }
    }

    /// Where placing and moving mix (RULES.md §3a), the placements split
    /// by [`quiet_placements`] are the rules' generator's, and its moves
    /// on the board those of `for_each_step_with_hands`; but against an
    /// empty board, where a mill is no move and the split would count it a
    /// placement that takes nothing (the hand check walks those moves by
    /// the generator).
    #[test]
    fn placements_and_steps_split_the_moves_where_hands_mix(
        rules in any_hand_rules(),
        choices in prop::collection::vec(any::<u16>(), 0..80),
    ) {
        for position in random_game(&rules, &choices) {
            let (mover, opponent) = position.sides();
            let me = position.to_move();
            let hands = [position.hand(me), position.hand(me.other())].map(u32::from);
            let (mut quiet, mut captures, mut steps) = (Vec::new(), Vec::new(), Vec::new());
            for_each_move_with_hands(&rules, mover, opponent, hands, |s, placed| {
                match (placed, s.mv.removed.is_empty()) {
                    (true, true) => quiet.push(s.mv.to),
                    (true, false) => captures.push(s),
                    (false, _) => steps.push(s),
                }
            });
            let mut steps_seen = Vec::new();
            for_each_step_with_hands(&rules, mover, opponent, hands, |s| steps_seen.push(s));
            prop_assert_eq!(&steps_seen, &steps, "{}", position);
            if opponent.is_empty() {
                continue;
            }
            let split = std::cell::RefCell::new(Vec::new());
            for_each_step_split_with_hands(
                &rules,
                mover,
                opponent,
                hands,
                |from, to| split.borrow_mut().push(quiet_step(from, to, mover, opponent)),
                |s| split.borrow_mut().push(s),
            );
            prop_assert_eq!(split.into_inner(), steps, "{}", position);
            if hands[0] == 0 {
                continue;
            }
            let mut captures_seen = Vec::new();
            let split = PlacementCaptures::new(&rules, opponent);
            let quiet_seen: Vec<_> = quiet_placements(mover, &split, |s| captures_seen.push(s)).iter().collect();
            prop_assert_eq!(quiet_seen, quiet, "{}", position);
            prop_assert_eq!(captures_seen, captures, "{}", position);
        }
    }

    /// Where placing and moving mix (RULES.md §3a): each move on the board
    /// that takes nothing is undone by an un-move, and each un-move by such
    /// a move, with the hands of both sides as they are.
    #[test]
    fn moves_and_unmoves_agree_where_hands_mix(
        rules in any_hand_rules(),
        choices in prop::collection::vec(any::<u16>(), 0..80),
    ) {
        for position in random_game(&rules, &choices) {
            if terminal_value(&rules, &position).is_some() {
                continue;
            }
            let (mover, opponent) = position.sides();
            let me = position.to_move();
            let [mine, theirs] = [position.hand(me), position.hand(me.other())].map(u32::from);
            for_each_move_with_hands(&rules, mover, opponent, [mine, theirs], |s, placed| {
                if !placed && s.mv.removed.is_empty() {
                    let mut back = false;
                    for_each_unmove_with_hands(&rules, s.opponent, s.mover, [theirs, mine], |u| {
                        back |= (u.mover, u.opponent) == (mover, opponent);
                    });
                    assert!(back, "{position}: {} has no un-move", s.mv);
                }
            });
            for_each_unmove_with_hands(&rules, mover, opponent, [mine, theirs], |u| {
                let mut forward = false;
                for_each_move_with_hands(&rules, u.mover, u.opponent, [theirs, mine], |s, placed| {
                    forward |= !placed
                        && s.mv.removed.is_empty()
                        && (s.opponent, s.mover) == (mover, opponent);
                });
                assert!(forward, "{position}: an un-move without its move");
            });
        }
    }
}
