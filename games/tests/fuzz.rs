//! Fuzzing the parsers of outside text: game specs, game and rules files (and the
//! definitions stores and tasks carry), slice ids, and the position and move
//! notation of both families. Each is fed arbitrary text and valid text with
//! a few edits (what reaches the checks past the first one); it must answer
//! Ok or Err, never panic, and what it accepts must print back to itself.
//!
//! `PROPTEST_CASES` sets the cases per target: 256 unless set,
//! `deploy/fuzz.sh` runs a million.

use std::sync::OnceLock;

use egdb_games::morris::moves::{legal_moves, play, terminal_value};
use egdb_games::morris::slices::{plan, table_of_position, Side};
use egdb_games::morris::{file, MorrisGame, MorrisRules, MorrisSlice, Move, Position, Variant};
use egdb_games::nim::{custom, slice_id, NimGame};
use egdb_games::{Game, GameSpec, Rule, SliceId};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::strategy::ValueTree;

fn config() -> ProptestConfig {
    // No regression files written into the tree: a failure prints its
    // shrunk input, to be kept here as a test of its own.
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---- Text and edits ----

/// Characters the notations give meaning to, and a few that break things.
const NOISE: &str = "o./[],-+x: 01359acdgBWbw=\"\n\t\0é\u{301}\u{1F600}";

fn noise_char() -> impl Strategy<Value = char> {
    prop_oneof![3 => select(NOISE.chars().collect::<Vec<char>>()), 1 => any::<char>()]
}

/// Arbitrary text, and text over the notations' alphabet.
fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(noise_char(), 0..48).prop_map(|c| c.into_iter().collect()),
    ]
}

#[derive(Debug, Clone)]
enum Edit {
    Replace(Index, char),
    Insert(Index, char),
    Delete(Index),
    Truncate(Index),
    Repeat(Index),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (any::<Index>(), noise_char()).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<Index>(), noise_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<Index>().prop_map(Edit::Delete),
        any::<Index>().prop_map(Edit::Truncate),
        any::<Index>().prop_map(Edit::Repeat),
    ];
    prop::collection::vec(edit, 0..4)
}

/// `text` after `edits`, character by character.
fn edited(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for edit in edits {
        let n = chars.len();
        match *edit {
            Edit::Replace(i, c) if n > 0 => chars[i.index(n)] = c,
            Edit::Insert(i, c) => chars.insert(i.index(n + 1), c),
            Edit::Delete(i) if n > 0 => {
                chars.remove(i.index(n));
            }
            Edit::Truncate(i) => chars.truncate(i.index(n + 1)),
            Edit::Repeat(i) if n > 0 => {
                let i = i.index(n);
                chars.insert(i, chars[i]);
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

// ---- Game specs ----

fn spec_text() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        4 => select(&[
            "nim", "morris", "triangle", "hexagram", "file", "taiwan", "standard", "normal",
            "morabaraba", "taiwan-protected", "lasker",
            "misere", "misère", "0", "1", "3", "6", "9", "10", "12", "13", "-1", "+4", " 5",
            "4294967296", "", "x.toml",
        ][..])
        .prop_map(String::from),
        1 => any_text(),
    ];
    prop_oneof![
        prop::collection::vec(part, 0..6).prop_map(|p| p.join(":")),
        any_text(),
        spec_shaped(),
    ]
}

/// Specs of the shapes the parser takes, with numbers and rules in and
/// out of range: random parts alone almost never make one.
fn spec_shaped() -> impl Strategy<Value = String> {
    let number = select(&["0", "1", "2", "3", "4", "6", "9", "13", "-1", "99999999999"][..]);
    prop_oneof![
        (
            select(
                &[
                    "taiwan",
                    "standard",
                    "morabaraba",
                    "taiwan-protected",
                    "nine"
                ][..]
            ),
            number.clone()
        )
            .prop_map(|(variant, pieces)| format!("morris:{variant}:{pieces}")),
        (number, select(&["normal", "misere", "misère", "other"][..]))
            .prop_map(|(layers, rule)| format!("nim:triangle:{layers}:{rule}")),
        select(&["nim:hexagram", "nim:file:a.toml", "morris:file:r.toml"][..])
            .prop_map(String::from),
    ]
}

fn check_spec(text: &str) -> Result<(), TestCaseError> {
    let Ok(spec) = text.parse::<GameSpec>() else {
        return Ok(());
    };
    let again = spec.to_string().parse::<GameSpec>();
    prop_assert_eq!(again.as_ref(), Ok(&spec), "{:?} printed as {}", text, spec);
    match spec {
        // A file spec reads its file: not fuzzed text's business.
        GameSpec::NimFile { .. } | GameSpec::MorrisFile { .. } => {}
        // Layouts of the big triangles take a while; the specs are alike.
        GameSpec::NimTriangle { layers, .. } if layers > 6 => {}
        _ => {
            let game = Game::from_spec(&spec);
            prop_assert!(
                game.is_ok(),
                "{} parses but builds no game: {:?}",
                spec,
                game.err()
            );
        }
    }
    Ok(())
}

#[test]
fn spec_seeds_parse() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut parsed = 0;
    for _ in 0..300 {
        let text = spec_text().new_tree(&mut runner).unwrap().current();
        parsed += usize::from(text.parse::<GameSpec>().is_ok());
    }
    // The generator must reach specs, not only errors.
    assert!(parsed >= 40, "only {parsed} of 300 generated specs parse");
}

#[test]
fn valid_specs_parse() {
    for text in [
        "nim:triangle:5:normal",
        "nim:hexagram",
        "nim:file:a.toml",
        "morris:taiwan:3",
        "morris:lasker:10",
        "morris:standard:9:3",
    ] {
        assert!(text.parse::<GameSpec>().is_ok(), "{text}");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn game_specs(text in spec_text()) {
        check_spec(&text)?;
    }

    #[test]
    fn game_specs_edited(text in spec_text(), edits in edits()) {
        check_spec(&edited(&text, &edits))?;
    }
}

// ---- Slice ids ----

fn slice_text() -> impl Strategy<Value = String> {
    let valid = prop_oneof![
        (0u32..=50).prop_map(|h| slice_id(h).to_string()),
        (0u32..14, 0u32..14, prop::option::of(0u32..3))
            .prop_map(|(a, b, p)| { MorrisSlice::Movement { a, b, parity: p }.to_string() }),
        (0u32..26, 0u32..13, 0u32..13).prop_map(|(ply, mover, opponent)| {
            MorrisSlice::Placement {
                ply,
                mover,
                opponent,
            }
            .to_string()
        }),
        (
            0u32..14,
            0u32..14,
            0u32..14,
            0u32..14,
            prop::option::of(0u32..3)
        )
            .prop_map(|(h1, b1, h2, b2, parity)| {
                MorrisSlice::Hand {
                    first: Side::new(h1, b1),
                    second: Side::new(h2, b2),
                    parity,
                }
                .to_string()
            }),
    ];
    prop_oneof![
        (valid, edits()).prop_map(|(t, e)| edited(&t, &e)),
        any_text(),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn slice_ids(text in slice_text(), pick in any::<Index>()) {
        if let Some(slice) = MorrisSlice::parse(&text) {
            prop_assert_eq!(MorrisSlice::parse(&slice.to_string()), Some(slice));
        }
        let game = &nim_games()[pick.index(nim_games().len())];
        if let Some(h) = game.slice_number(&SliceId::new(text.as_str())) {
            prop_assert!(h < game.layout().slice_count());
            prop_assert_eq!(game.slice_number(&slice_id(h)), Some(h));
        }
    }
}

// ---- Nim positions and moves ----

/// A custom game's file: ten cells, runs along two lines, a mirror.
const CUSTOM: &str = "name = \"fuzz\"\ncells = 10\nrule = \"misere\"\n\
    lines = [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]\nmoves = [[0, 5], [4, 9]]\n\
    start = [0, 1, 2, 3, 4, 5, 6, 7, 8]\n\
    symmetries = [[4, 3, 2, 1, 0, 9, 8, 7, 6, 5]]\n";

/// Games of every notation: triangles of 1 to 6 layers, the hexagram, a
/// custom game.
fn nim_games() -> &'static [NimGame] {
    static GAMES: OnceLock<Vec<NimGame>> = OnceLock::new();
    GAMES.get_or_init(|| {
        let mut games: Vec<NimGame> = (1..=6)
            .map(|layers| {
                NimGame::from_spec(&GameSpec::NimTriangle {
                    layers,
                    rule: Rule::Normal,
                })
                .expect("triangles build")
            })
            .collect();
        games.push(NimGame::from_spec(&GameSpec::NimHexagram).expect("the hexagram builds"));
        let spec = GameSpec::NimFile {
            path: "fuzz.toml".into(),
        };
        let def = custom::parse(CUSTOM, "fuzz.toml").expect("the custom game parses");
        games.push(NimGame::from_definition(spec, def).expect("the custom game builds"));
        games
    })
}

/// A position of `game` as the user may write it: printed, as a list of
/// cells, or as an integer.
fn nim_position_text(game: &NimGame, position: u64, form: u8) -> String {
    let cells: Vec<String> = (0..64)
        .filter(|c| position & (1u64 << c) != 0)
        .map(|c: u32| c.to_string())
        .collect();
    match form % 4 {
        0 => "start".to_string(),
        1 => format!("[{}]", cells.join(",")),
        2 => position.to_string(),
        _ => game.format_position(position),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn nim_positions(
        pick in any::<Index>(),
        bits in any::<u64>(),
        form in any::<u8>(),
        edits in edits(),
        arbitrary in prop::option::weighted(0.3, any_text()),
    ) {
        let game = &nim_games()[pick.index(nim_games().len())];
        let position = bits & ((1u64 << game.cells()) - 1);
        let text = arbitrary.unwrap_or_else(|| edited(&nim_position_text(game, position, form), &edits));
        if let Ok(parsed) = game.parse_position(&text) {
            prop_assert!(game.contains(parsed));
            prop_assert_eq!(game.parse_position(&game.format_position(parsed)), Ok(parsed));
        }
    }

    #[test]
    fn nim_moves(
        pick in any::<Index>(),
        bits in any::<u64>(),
        which in any::<Index>(),
        edits in edits(),
        arbitrary in prop::option::weighted(0.3, any_text()),
    ) {
        let game = &nim_games()[pick.index(nim_games().len())];
        let position = bits & ((1u64 << game.cells()) - 1);
        let mv = game.moves()[which.index(game.moves().len())];
        let text = arbitrary.unwrap_or_else(|| edited(&game.format_move(mv), &edits));
        if let Ok(parsed) = game.parse_move(position, &text) {
            prop_assert!(game.moves().contains(&parsed));
            prop_assert_eq!(parsed & position, parsed);
        }
    }
}

#[test]
fn nim_notation_seeds_parse() {
    for game in nim_games() {
        let start = game.start();
        let triangle = matches!(
            game.definition().board,
            egdb_games::nim::Board::Triangle { .. }
        );
        for form in 0..4 {
            // Triangles are written in rows only.
            if !triangle || form % 3 == 0 {
                let text = nim_position_text(game, start, form);
                assert_eq!(game.parse_position(&text), Ok(start), "{text}");
            }
        }
        for &mv in game.moves() {
            assert_eq!(game.parse_move(start | mv, &game.format_move(mv)), Ok(mv));
        }
    }
}

// ---- Morris positions and moves ----

fn rules() -> impl Strategy<Value = MorrisRules> {
    const COUNTING_HANDS: [Variant; 3] = [Variant::Standard, Variant::Morabaraba, Variant::Lasker];
    prop_oneof![
        3 => (select(&Variant::ALL[..]), 3u8..=12)
            .prop_map(|(variant, pieces)| MorrisRules::preset(variant, pieces)),
        // Unequal starts (RULES.md §3a).
        1 => (select(&COUNTING_HANDS[..]), 3u8..=12, 3u8..=12).prop_map(|(variant, k, l)| {
            MorrisRules::preset(variant, k)
                .with_hands(k, l)
                .expect("these families count pieces in hand")
        }),
    ]
}

/// Position text near the notation (24 points, side, two hands), mostly
/// a position the rules allow, with edits.
fn morris_text(rules: MorrisRules) -> impl Strategy<Value = String> {
    let p = rules.pieces;
    let valid = (0..=p, any::<bool>(), any::<bool>(), any::<[Index; 2]>())
        .prop_flat_map(move |(placed, second, movement, counts)| {
            // Hands as a game leaves them: B has placed one more when W moves.
            let (hands, w) = if movement {
                ([0, 0], second)
            } else {
                let placed = placed.min(p - u8::from(second));
                ([p - placed - u8::from(second), p - placed], second)
            };
            let on = |i: usize| counts[i].index(usize::from(p - hands[i]) + 1);
            let board = Just(
                std::iter::repeat_n('B', on(0))
                    .chain(std::iter::repeat_n('W', on(1)))
                    .chain(std::iter::repeat('.'))
                    .take(24)
                    .collect::<Vec<char>>(),
            )
            .prop_shuffle();
            (board, Just(hands), Just(w))
        })
        .prop_map(|(board, [h1, h2], w)| {
            let board: String = board.into_iter().collect();
            format!("{board} {} {h1} {h2}", if w { 'w' } else { 'b' })
        });
    prop_oneof![
        8 => (valid, edits()).prop_map(|(t, e)| edited(&t, &e)),
        1 => Just("start".to_string()),
        2 => any_text(),
    ]
}

fn rules_and_text() -> impl Strategy<Value = (MorrisRules, String)> {
    rules().prop_flat_map(|rules| (Just(rules), morris_text(rules)))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn morris_positions((rules, text) in rules_and_text()) {
        let Ok(position) = Position::parse(&rules, &text) else {
            return Ok(());
        };
        prop_assert_eq!(Position::parse(&rules, &position.to_string()), Ok(position));
        // A game not over lies in a slice of the plan (queries take it so).
        if terminal_value(&rules, &position).is_none() {
            let found = table_of_position(&rules, &position);
            prop_assert!(found.is_some(), "no table holds {}", position);
            if let Some((slice, table)) = found {
                prop_assert!(table < slice.tables().len());
                prop_assert!(plan(&rules).iter().any(|(s, _)| *s == slice), "{} is not planned", slice);
            }
        }
        // Every move leads to a position the notation takes back.
        for (mv, next) in legal_moves(&rules, &position) {
            prop_assert_eq!(Position::parse(&rules, &next.to_string()), Ok(next), "after {}", mv);
        }
    }

    #[test]
    fn morris_moves(
        (rules, text) in rules_and_text(),
        which in any::<Index>(),
        edits in edits(),
        arbitrary in prop::option::weighted(0.3, any_text()),
    ) {
        let Ok(position) = Position::parse(&rules, &text) else {
            return Ok(());
        };
        let moves = legal_moves(&rules, &position);
        let chosen = (!moves.is_empty()).then(|| moves[which.index(moves.len())]);
        let move_text = match (&arbitrary, chosen) {
            (Some(text), _) => text.clone(),
            (None, Some((mv, _))) => edited(&mv.to_string(), &edits),
            (None, None) => edited("d2-d3xa1", &edits),
        };
        if let Ok(mv) = Move::parse(&move_text) {
            prop_assert_eq!(Move::parse(&mv.to_string()), Ok(mv));
        }
        if let Ok(next) = play(&rules, &position, &move_text) {
            prop_assert!(moves.iter().any(|(_, p)| *p == next));
        }
        if let (Some((mv, next)), true) = (chosen, edits.is_empty() && arbitrary.is_none()) {
            prop_assert_eq!(play(&rules, &position, &mv.to_string()), Ok(next));
        }
    }
}

#[test]
fn morris_seeds_parse() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut parsed = 0;
    for _ in 0..200 {
        let (rules, text) = rules_and_text().new_tree(&mut runner).unwrap().current();
        parsed += usize::from(Position::parse(&rules, &text).is_ok());
    }
    // The generator must reach positions, not only errors.
    assert!(
        parsed >= 30,
        "only {parsed} of 200 generated positions parse"
    );
    let rules = MorrisRules::taiwan(3);
    let start = Position::parse(&rules, "start").unwrap();
    assert_eq!(
        Position::parse(&rules, "........................ b 3 3"),
        Ok(start)
    );
    assert!(!legal_moves(&rules, &start).is_empty());
}

// ---- Game files and the definitions stores and tasks carry ----

/// A valid game file, and at most one fault put into it.
#[derive(Debug, Clone)]
struct FileParts {
    name: Option<String>,
    cells: u32,
    misere: bool,
    moves: Vec<Vec<i64>>,
    lines: Vec<Vec<i64>>,
    start: Option<Vec<i64>>,
    /// A permutation whose images of the moves are added to them: a valid
    /// symmetry, so that symmetric games are reached too.
    mirror: Option<Vec<u32>>,
    fault: Option<Fault>,
}

#[derive(Debug, Clone)]
enum Fault {
    Rule(&'static str),
    Cells(i64),
    /// One cell of the lists (moves, lines, start) set to this value.
    Cell(Index, i64),
    /// One cell of the lists named twice.
    Twice(Index),
    EmptyMove,
    NoMoves,
    Symmetry(Vec<i64>),
    Extra(&'static str),
}

/// A TOML basic string.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn lists(items: &[Vec<i64>]) -> String {
    let items: Vec<String> = items.iter().map(|i| format!("{i:?}")).collect();
    format!("[{}]", items.join(", "))
}

impl FileParts {
    fn text(&self) -> String {
        let mut moves = self.moves.clone();
        let mut symmetries = Vec::new();
        if let Some(perm) = &self.mirror {
            // The moves' orbits under `perm`, bounded.
            let key = |m: &[i64]| {
                let mut m = m.to_vec();
                m.sort_unstable();
                m
            };
            let mut i = 0;
            while i < moves.len() && moves.len() < 512 {
                let image: Vec<i64> = moves[i]
                    .iter()
                    .map(|&c| i64::from(perm[c as usize]))
                    .collect();
                if !moves.iter().any(|m| key(m) == key(&image)) {
                    moves.push(image);
                }
                i += 1;
            }
            symmetries.push(perm.iter().map(|&c| i64::from(c)).collect::<Vec<i64>>());
        }
        let mut lines = self.lines.clone();
        let mut start = self.start.clone();
        let mut cells = i64::from(self.cells);
        let mut rule = if self.misere { "misere" } else { "normal" };
        let mut extra = "";
        match &self.fault {
            None => {}
            Some(Fault::Rule(r)) => rule = r,
            Some(Fault::Cells(c)) => cells = *c,
            Some(Fault::Cell(at, value)) => {
                let mut all: Vec<&mut i64> = moves
                    .iter_mut()
                    .chain(lines.iter_mut())
                    .chain(start.iter_mut())
                    .flatten()
                    .collect();
                if !all.is_empty() {
                    let i = at.index(all.len());
                    *all[i] = *value;
                }
            }
            Some(Fault::Twice(at)) => {
                let i = at.index(moves.len());
                let first = moves[i][0];
                moves[i].push(first);
            }
            Some(Fault::EmptyMove) => moves.push(Vec::new()),
            Some(Fault::NoMoves) => {
                moves.clear();
                lines.clear();
            }
            Some(Fault::Symmetry(perm)) => symmetries.push(perm.clone()),
            Some(Fault::Extra(text)) => extra = text,
        }
        let mut text = String::new();
        if let Some(name) = &self.name {
            text += &format!("name = {}\n", quoted(name));
        }
        text += &format!(
            "cells = {cells}\nrule = \"{rule}\"\nmoves = {}\n",
            lists(&moves)
        );
        if !lines.is_empty() {
            text += &format!("lines = {}\n", lists(&lines));
        }
        if let Some(start) = &start {
            text += &format!("start = {start:?}\n");
        }
        if !symmetries.is_empty() {
            text += &format!("symmetries = {}\n", lists(&symmetries));
        }
        text + extra
    }
}

fn file_parts() -> impl Strategy<Value = FileParts> {
    // Past 36 cells a layout takes up to half a second and 150 MB: rare.
    let cells = prop_oneof![
        160 => 1u32..=12,
        60 => 13u32..=24,
        20 => 25u32..=36,
        1 => 37u32..=45,
    ];
    cells.prop_flat_map(|n| {
        let all = (1u64 << n) - 1;
        let set = move |mask: u64| -> Vec<i64> {
            (0..n)
                .filter(|c| mask & all & (1 << c) != 0)
                .map(i64::from)
                .collect()
        };
        let moves = prop::collection::vec(1..=all, 1..8)
            .prop_map(move |masks| masks.into_iter().map(set).collect::<Vec<_>>());
        let perm = Just((0..n).collect::<Vec<u32>>()).prop_shuffle();
        let line = (perm.clone(), 1..=n.min(8) as usize)
            .prop_map(|(p, k)| p[..k].iter().map(|&c| i64::from(c)).collect::<Vec<i64>>());
        let n = i64::from(n);
        let fault = prop_oneof![
            select(&["misère", "sudden", "", "Normal"][..]).prop_map(Fault::Rule),
            prop_oneof![Just(0i64), Just(-1), 46i64..=70, Just(1 << 32)].prop_map(Fault::Cells),
            (
                any::<Index>(),
                prop_oneof![Just(-1i64), n..n + 3, Just(1 << 32)]
            )
                .prop_map(|(at, v)| Fault::Cell(at, v)),
            any::<Index>().prop_map(Fault::Twice),
            Just(Fault::EmptyMove),
            Just(Fault::NoMoves),
            prop::collection::vec(0i64..=n, 0..(n as usize + 2)).prop_map(Fault::Symmetry),
            select(
                &[
                    "colour = 1\n",
                    "cells = 3\n",
                    "[table]\n",
                    "moves = 5\n",
                    "x"
                ][..]
            )
            .prop_map(Fault::Extra),
        ];
        (
            prop::option::weighted(0.3, any::<String>()),
            Just(n as u32),
            any::<bool>(),
            moves,
            prop::collection::vec(line, 0..3),
            prop::option::weighted(0.3, (0..=all).prop_map(set)),
            prop::option::weighted(0.4, perm),
            prop::option::weighted(0.5, fault),
        )
            .prop_map(
                |(name, cells, misere, moves, lines, start, mirror, fault)| FileParts {
                    name,
                    cells,
                    misere,
                    moves,
                    lines,
                    start,
                    mirror,
                    fault,
                },
            )
    })
}

/// A game file's text as a store or a task carries it: what it accepts
/// must build a game whose own definition reads back to the same game.
fn check_game_file(text: &str) -> Result<(), TestCaseError> {
    let spec = GameSpec::NimFile {
        path: "fuzz.toml".into(),
    };
    let parsed = custom::parse(text, "fuzz.toml");
    let game = Game::from_spec_with_definition(&spec, Some(text));
    let (Ok(def), Ok(game)) = (parsed, game) else {
        return Ok(());
    };
    let Game::Nim(nim) = &game else {
        return Err(TestCaseError::fail("a file spec built a Morris game"));
    };
    let slices = game.slices();
    prop_assert_eq!(slices.len() as u32, nim.layout().slice_count());
    let _ = nim.row_symmetry();
    for position in [nim.start(), 0, nim.start() >> 1] {
        prop_assert_eq!(
            nim.parse_position(&nim.format_position(position)),
            Ok(position)
        );
        for mv in nim.legal_moves(position).take(16) {
            prop_assert_eq!(nim.parse_move(position, &nim.format_move(mv)), Ok(mv));
        }
    }
    let again = custom::parse(&custom::to_toml(&def), "fuzz.toml");
    prop_assert_eq!(again.as_ref(), Ok(&def), "to_toml does not read back");
    let stored = game
        .definition()
        .expect("custom games carry their definition");
    let reopened = Game::from_spec_with_definition(&spec, Some(&stored));
    prop_assert_eq!(
        reopened.as_ref().map(Game::fingerprint).ok(),
        Some(game.fingerprint()),
        "the stored definition builds another game: {:?}",
        reopened.err()
    );
    Ok(())
}

/// Found by `game_files`: a store keeps `to_toml`'s text as the game's
/// definition, and workers get it in their tasks; written with Rust's
/// `{:?}` escapes (`\0`, `\u{11d3c}`) such a game's store did not open
/// again and its workers refused every task. Control characters in a name
/// are refused since (a name is printed to terminals).
#[test]
fn names_with_escaped_characters_read_back() {
    let file =
        |name: &str| format!("name = \"{name}\"\ncells = 1\nrule = \"normal\"\nmoves = [[0]]\n");
    for name in ["\\U00011D3C", "\\\"quoted\\\"", "back\\\\slash", "\\u00e9"] {
        let def = custom::parse(&file(name), "g.toml").unwrap();
        assert_eq!(
            custom::parse(&custom::to_toml(&def), "g.toml"),
            Ok(def),
            "{name}"
        );
    }
    for name in ["\\u0000", "\\u0007", "\\u001b[2J"] {
        let refused = custom::parse(&file(name), "g.toml").expect_err(name);
        assert!(
            refused.to_string().contains("control characters"),
            "{refused}"
        );
    }
}

#[test]
fn game_file_seeds_build() {
    let spec = GameSpec::NimFile {
        path: "fuzz.toml".into(),
    };
    assert!(Game::from_spec_with_definition(&spec, Some(CUSTOM)).is_ok());
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut built = 0;
    for _ in 0..200 {
        let parts = file_parts().new_tree(&mut runner).unwrap().current();
        built += usize::from(Game::from_spec_with_definition(&spec, Some(&parts.text())).is_ok());
    }
    // The generator must reach games that build, not only errors.
    assert!(built >= 20, "only {built} of 200 generated files build");
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn game_files(parts in file_parts()) {
        check_game_file(&parts.text())?;
    }

    #[test]
    fn game_files_edited(parts in file_parts(), edits in edits()) {
        check_game_file(&edited(&parts.text(), &edits))?;
    }

    #[test]
    fn game_files_arbitrary(text in any_text()) {
        check_game_file(&text)?;
    }
}

// ---- Morris rules files ----

/// A rules file near the format: every key most of the time, values mostly
/// in range, a name with noise.
fn rules_file() -> impl Strategy<Value = String> {
    let word = |names: &'static [&'static str]| prop_oneof![8 => select(names).prop_map(String::from), 1 => any_text()];
    (
        prop::option::of(any_text()),
        prop_oneof![8 => 3u32..=12, 1 => any::<u32>()],
        any::<[bool; 4]>(),
        word(&["any", "not-in-mill-unless-all", "not-in-mill-while-placing"]),
        word(&["board-and-hand", "board-in-movement"]),
        prop::option::weighted(0.1, any::<Index>()),
    )
        .prop_map(|(name, pieces, flags, takes, loss, drop)| {
            let mut lines = vec![
                format!("pieces = {pieces}"),
                format!("diagonals = {}", flags[0]),
                format!("mill_takes = {}", quoted(&takes)),
                format!("gang = {}", flags[1]),
                format!("dan = {}", flags[2]),
                format!("flying = {}", flags[3]),
                format!("lose_below_three = {}", quoted(&loss)),
            ];
            if let Some(name) = name {
                lines.push(format!("name = {}", quoted(&name)));
            }
            if let Some(at) = drop {
                lines.remove(at.index(lines.len()));
            }
            lines.join("\n")
        })
}

/// A rules file is refused or read; what is read prints back to itself and
/// makes a game whose plan starts.
fn check_rules_file(text: &str) -> Result<(), TestCaseError> {
    let Ok(def) = file::parse(text, "fuzz.toml") else {
        return Ok(());
    };
    prop_assert_eq!(
        file::parse(&file::to_toml(&def), "again.toml"),
        Ok(def.clone())
    );
    let spec = GameSpec::MorrisFile {
        path: "fuzz.toml".into(),
    };
    let game = MorrisGame::from_rules_file(spec, text).expect("parsed once");
    prop_assert_eq!(*game.rules(), def.rules);
    prop_assert!(!game.slices().is_empty());
    Ok(())
}

#[test]
fn rules_file_seeds_parse() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let read = (0..200)
        .filter(|_| {
            let text = rules_file().new_tree(&mut runner).unwrap().current();
            file::parse(&text, "seed.toml").is_ok()
        })
        .count();
    // The generator must reach files that parse, not only errors.
    assert!(read >= 40, "only {read} of 200 generated files parse");
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn rules_files(text in rules_file()) {
        check_rules_file(&text)?;
    }

    #[test]
    fn rules_files_edited(text in rules_file(), edits in edits()) {
        check_rules_file(&edited(&text, &edits))?;
    }

    #[test]
    fn rules_files_arbitrary(text in any_text()) {
        check_rules_file(&text)?;
    }
}
