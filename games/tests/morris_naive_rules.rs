//! An independent cross-check of the Morris move generator.
//!
//! The engine, the verifier and the plain oracle all read the rules through
//! the same code (`morris::captures`, `morris::moves`, the board tables), so
//! a misreading of RULES.md there would pass every one of their checks. This
//! file re-implements the rules of RULES.md §1-3 naively and from scratch:
//! its own point names, lines, line kinds, adjacency, 直/槓/擔, mill
//! protection, flying and game end. Only the public position and move
//! notation is shared. It then compares both generators, as sets of
//! `(move, resulting position)` texts, and their verdicts on finished games,
//! on over a hundred thousand random positions of both games and phases.
//! The same for the rules option where a move takes every capture it opens
//! (`several_captures = "all"`), with its own naive removals, and for the
//! standard rules where placing and moving mix (RULES.md §3a: unequal
//! starts and Lasker Morris).

use std::collections::BTreeSet;

use egdb_games::morris::moves::{legal_moves, terminal_value};
use egdb_games::morris::rules::SeveralCaptures;
use egdb_games::morris::{MorrisRules, Position};
use egdb_games::Value;

/// The points in the order of the position text (RULES.md, Notation).
const NAMES: [&str; 24] = [
    "a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4", "e4", "f4", "g4", "c5",
    "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7",
];

/// Every line of the board with diagonals, written end, middle, end, as
/// read off the diagram of RULES.md §1. The standard game drops those the
/// geometry classifies as diagonals.
const LINES: [[&str; 3]; 20] = [
    // Outer, middle and inner square sides.
    ["a7", "d7", "g7"],
    ["g7", "g4", "g1"],
    ["g1", "d1", "a1"],
    ["a1", "a4", "a7"],
    ["b6", "d6", "f6"],
    ["f6", "f4", "f2"],
    ["f2", "d2", "b2"],
    ["b2", "b4", "b6"],
    ["c5", "d5", "e5"],
    ["e5", "e4", "e3"],
    ["e3", "d3", "c3"],
    ["c3", "c4", "c5"],
    // Midlines, outer end first.
    ["d7", "d6", "d5"],
    ["g4", "f4", "e4"],
    ["d1", "d2", "d3"],
    ["a4", "b4", "c4"],
    // Diagonals, outer end first.
    ["a7", "b6", "c5"],
    ["g7", "f6", "e5"],
    ["g1", "f2", "e3"],
    ["a1", "b2", "c3"],
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Side,
    Midline,
    Diagonal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Game {
    /// RULES.md §2.
    Taiwan,
    /// RULES.md §3.
    Standard,
}

/// How pieces in hand come into play (RULES.md §3a).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mix {
    /// All placing, then all moving.
    Phases,
    /// A side with pieces in hand places; one without moves.
    Forced,
    /// A side with pieces in hand places or moves.
    Lasker,
}

#[derive(Debug, Clone, Copy)]
struct Line {
    /// End, middle, end, as indices into [`NAMES`].
    points: [usize; 3],
    kind: Kind,
}

/// The board of one game: its lines and the adjacency they give.
struct Board {
    lines: Vec<Line>,
    adjacent: [[bool; 24]; 24],
}

fn point(name: &str) -> usize {
    NAMES.iter().position(|&n| n == name).expect("a point name")
}

/// Column and row of a point, centred on the board's middle (d4 = 0, 0).
fn coords(p: usize) -> (i32, i32) {
    let name = NAMES[p].as_bytes();
    (
        i32::from(name[0]) - i32::from(b'd'),
        i32::from(name[1]) - i32::from(b'4'),
    )
}

/// Which square a point lies on: 1 inner, 2 middle, 3 outer.
fn square(p: usize) -> i32 {
    let (x, y) = coords(p);
    x.abs().max(y.abs())
}

/// The kind of a line from geometry alone, so that a slip in the table
/// above shows as a wrong kind rather than a silently wrong rule.
fn classify(points: [usize; 3]) -> Kind {
    let squares = points.map(square);
    if squares[0] == squares[1] && squares[1] == squares[2] {
        return Kind::Side;
    }
    let on_axis = points.iter().all(|&p| {
        let (x, y) = coords(p);
        x == 0 || y == 0
    });
    if on_axis {
        Kind::Midline
    } else {
        Kind::Diagonal
    }
}

impl Board {
    fn new(game: Game) -> Board {
        let lines: Vec<Line> = LINES
            .iter()
            .map(|names| {
                let points = names.map(point);
                Line {
                    points,
                    kind: classify(points),
                }
            })
            .filter(|line| game == Game::Taiwan || line.kind != Kind::Diagonal)
            .collect();
        // RULES.md §1: adjacent = consecutive on a line of the game.
        let mut adjacent = [[false; 24]; 24];
        for line in &lines {
            let [a, m, b] = line.points;
            for (p, q) in [(a, m), (m, b)] {
                adjacent[p][q] = true;
                adjacent[q][p] = true;
            }
        }
        Board { lines, adjacent }
    }

    fn adjacent_pairs(&self) -> usize {
        self.adjacent.iter().flatten().filter(|&&a| a).count() / 2
    }
}

/// The other colour: `B` for `W` and the reverse.
fn opponent(colour: u8) -> u8 {
    if colour == b'B' {
        b'W'
    } else {
        b'B'
    }
}

/// A position as plain text parts: `B`, `W` or `.` per point.
#[derive(Debug, Clone)]
struct Naive {
    cells: [u8; 24],
    /// `B` or `W`.
    to_move: u8,
    /// Pieces in hand of B and of W.
    hand: [u8; 2],
    mix: Mix,
}

impl Naive {
    fn parse(text: &str) -> Naive {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [board, side, hand_b, hand_w] = fields.as_slice() else {
            panic!("not a position text: {text}");
        };
        Naive {
            cells: board.as_bytes().try_into().expect("24 points"),
            to_move: side.to_ascii_uppercase().as_bytes()[0],
            hand: [hand_b.parse().unwrap(), hand_w.parse().unwrap()],
            mix: Mix::Phases,
        }
    }

    fn text(&self) -> String {
        let board = String::from_utf8(self.cells.to_vec()).unwrap();
        let side = char::from(self.to_move.to_ascii_lowercase());
        format!("{board} {side} {} {}", self.hand[0], self.hand[1])
    }

    fn other(&self) -> u8 {
        opponent(self.to_move)
    }

    fn hand_of(&self, colour: u8) -> u8 {
        self.hand[usize::from(colour == b'W')]
    }

    fn count(&self, colour: u8) -> usize {
        self.cells.iter().filter(|&&c| c == colour).count()
    }

    fn placing(&self) -> bool {
        self.hand != [0, 0]
    }

    /// Whether the side to move may place a piece, and may move one.
    fn may_place_and_move(&self) -> (bool, bool) {
        let holds = self.hand_of(self.to_move) > 0;
        match self.mix {
            Mix::Phases => (self.placing(), !self.placing()),
            Mix::Forced => (holds, !holds),
            Mix::Lasker => (holds, true),
        }
    }
}

/// One capture a move opens (RULES.md §2-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opportunity {
    /// 直: remove one opponent piece (which ones depends on the game).
    Mill,
    /// 槓: remove the bracketed middle piece.
    Gang(usize),
    /// 擔: remove both corners.
    Dan(usize, usize),
}

/// Which captures the moves of one position offered.
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    mill: bool,
    gang: bool,
    dan: bool,
    /// A move opening two or more captures at once.
    several: bool,
    /// A move closing two or more mills at once.
    mills: bool,
    /// A standard mill that had to spare an opponent piece standing in a mill.
    protected: bool,
    /// A standard mill where every opponent piece stood in a mill.
    all_in_mills: bool,
    /// A mill closed against an empty board, which is no move where hands
    /// mix.
    empty_board_mill: bool,
}

/// How many positions of each sort were compared, so that the test cannot
/// pass vacuously.
#[derive(Debug, Default)]
struct Tally {
    positions: usize,
    terminal: usize,
    placement: usize,
    flying: usize,
    moves: usize,
    capturing_moves: usize,
    mill: usize,
    gang: usize,
    dan: usize,
    several: usize,
    mills: usize,
    protected: usize,
    all_in_mills: usize,
    /// Positions where the side to move could both place and move.
    place_or_move: usize,
    empty_board_mill: usize,
}

impl Tally {
    fn add(&mut self, seen: Seen) {
        self.mill += usize::from(seen.mill);
        self.gang += usize::from(seen.gang);
        self.dan += usize::from(seen.dan);
        self.several += usize::from(seen.several);
        self.mills += usize::from(seen.mills);
        self.protected += usize::from(seen.protected);
        self.all_in_mills += usize::from(seen.all_in_mills);
        self.empty_board_mill += usize::from(seen.empty_board_mill);
    }
}

/// The captures a piece of `me` arriving on `x` opens, on the board after
/// it arrived.
fn opportunities(
    game: Game,
    board: &Board,
    cells: &[u8; 24],
    x: usize,
    me: u8,
) -> Vec<Opportunity> {
    let them = opponent(me);
    let mut found = Vec::new();
    for line in board.lines.iter().filter(|l| l.points.contains(&x)) {
        let [a, m, b] = line.points;
        if line.points.iter().all(|&p| cells[p] == me) {
            found.push(Opportunity::Mill);
        }
        if game != Game::Taiwan {
            continue;
        }
        match line.kind {
            Kind::Midline | Kind::Diagonal => {
                let far = if x == a {
                    Some(b)
                } else if x == b {
                    Some(a)
                } else {
                    None
                };
                if let Some(far) = far {
                    if cells[m] == them && cells[far] == me {
                        found.push(Opportunity::Gang(m));
                    }
                }
            }
            Kind::Side => {
                if x == m && cells[a] == them && cells[b] == them {
                    found.push(Opportunity::Dan(a, b));
                }
            }
        }
    }
    found
}

/// Whether the piece on `p` stands in a line of three of its own colour.
fn in_mill(board: &Board, cells: &[u8; 24], p: usize) -> bool {
    board
        .lines
        .iter()
        .any(|l| l.points.contains(&p) && l.points.iter().all(|&q| cells[q] == cells[p]))
}

/// The opponent pieces a mill may take: any in Taiwan; in the standard
/// game those not in a mill, unless all of them are.
fn mill_targets(
    game: Game,
    board: &Board,
    cells: &[u8; 24],
    them: u8,
    seen: &mut Seen,
) -> Vec<usize> {
    let theirs: Vec<usize> = (0..24).filter(|&p| cells[p] == them).collect();
    if game == Game::Taiwan {
        return theirs;
    }
    let free: Vec<usize> = theirs
        .iter()
        .copied()
        .filter(|&p| !in_mill(board, cells, p))
        .collect();
    if free.is_empty() {
        seen.all_in_mills |= !theirs.is_empty();
        theirs
    } else {
        seen.protected |= free.len() < theirs.len();
        free
    }
}

/// Every set of opponent pieces the mover may remove after arriving on
/// `x`: one opportunity's worth each, or with `take_all` every opportunity
/// at once. Empty when the move captures nothing.
fn removal_choices(
    game: Game,
    board: &Board,
    cells: &[u8; 24],
    (x, me): (usize, u8),
    take_all: bool,
    seen: &mut Seen,
) -> BTreeSet<Vec<usize>> {
    let them = opponent(me);
    let found = opportunities(game, board, cells, x, me);
    seen.several |= found.len() > 1;
    let mills = found.iter().filter(|o| **o == Opportunity::Mill).count();
    seen.mills |= mills > 1;
    if take_all {
        return all_at_once(game, board, cells, them, &found, seen);
    }
    let mut choices = BTreeSet::new();
    for opportunity in found {
        match opportunity {
            Opportunity::Mill => {
                seen.mill = true;
                for p in mill_targets(game, board, cells, them, seen) {
                    choices.insert(vec![p]);
                }
            }
            Opportunity::Gang(m) => {
                seen.gang = true;
                choices.insert(vec![m]);
            }
            Opportunity::Dan(a, b) => {
                seen.dan = true;
                choices.insert(vec![a.min(b), a.max(b)]);
            }
        }
    }
    choices
}

/// The removals of a move that takes every opportunity it opens: the
/// 槓's and 擔's pieces, and one more piece per mill, each a different one
/// (all that are left when fewer).
fn all_at_once(
    game: Game,
    board: &Board,
    cells: &[u8; 24],
    them: u8,
    found: &[Opportunity],
    seen: &mut Seen,
) -> BTreeSet<Vec<usize>> {
    let mut forced = BTreeSet::new();
    let mut mills = 0;
    for opportunity in found {
        match *opportunity {
            Opportunity::Mill => {
                seen.mill = true;
                mills += 1;
            }
            Opportunity::Gang(m) => {
                seen.gang = true;
                forced.insert(m);
            }
            Opportunity::Dan(a, b) => {
                seen.dan = true;
                forced.extend([a, b]);
            }
        }
    }
    let pool: Vec<usize> = if mills > 0 {
        mill_targets(game, board, cells, them, seen)
            .into_iter()
            .filter(|p| !forced.contains(p))
            .collect()
    } else {
        Vec::new()
    };
    let mut choices = BTreeSet::new();
    if forced.is_empty() && pool.is_empty() {
        return choices;
    }
    for picked in subsets(&pool, mills.min(pool.len())) {
        let mut removed: Vec<usize> = forced.iter().copied().chain(picked).collect();
        removed.sort_unstable();
        choices.insert(removed);
    }
    choices
}

/// Every `k`-element subset of `items`.
fn subsets(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let Some((&first, rest)) = items.split_first() else {
        return Vec::new();
    };
    let mut with: Vec<Vec<usize>> = subsets(rest, k - 1);
    for subset in &mut with {
        subset.insert(0, first);
    }
    with.extend(subsets(rest, k));
    with
}

/// The destinations of the piece on `from`: a step to an adjacent empty
/// point, or, standard game with exactly 3 pieces, any empty point.
fn destinations(game: Game, board: &Board, pos: &Naive, from: usize) -> Vec<usize> {
    // Lasker counts the pieces in hand too.
    let in_hand = match pos.mix {
        Mix::Lasker => usize::from(pos.hand_of(pos.to_move)),
        Mix::Phases | Mix::Forced => 0,
    };
    let flies = game == Game::Standard && pos.count(pos.to_move) + in_hand == 3;
    (0..24)
        .filter(|&to| pos.cells[to] == b'.' && (flies || board.adjacent[from][to]))
        .collect()
}

/// Every legal move of a position that is not over, as (move text,
/// resulting position text).
fn naive_moves(
    game: Game,
    board: &Board,
    pos: &Naive,
    take_all: bool,
    seen: &mut Seen,
) -> BTreeSet<(String, String)> {
    let me = pos.to_move;
    let mut arrivals: Vec<(Option<usize>, usize)> = Vec::new();
    let (place, step) = pos.may_place_and_move();
    if place {
        arrivals.extend(
            (0..24)
                .filter(|&p| pos.cells[p] == b'.')
                .map(|to| (None, to)),
        );
    }
    if step {
        for from in (0..24).filter(|&p| pos.cells[p] == me) {
            arrivals.extend(
                destinations(game, board, pos, from)
                    .into_iter()
                    .map(|to| (Some(from), to)),
            );
        }
    }
    let mut moves = BTreeSet::new();
    for (from, to) in arrivals {
        let mut after = pos.clone();
        if let Some(from) = from {
            after.cells[from] = b'.';
        } else {
            after.hand[usize::from(me == b'W')] -= 1;
        }
        after.cells[to] = me;
        after.to_move = pos.other();
        let head = match from {
            Some(from) => format!("{}-{}", NAMES[from], NAMES[to]),
            None => NAMES[to].to_string(),
        };
        let mills = opportunities(game, board, &after.cells, to, me).contains(&Opportunity::Mill);
        if pos.mix != Mix::Phases && mills && after.count(after.to_move) == 0 {
            seen.empty_board_mill = true;
            continue;
        }
        let choices = removal_choices(game, board, &after.cells, (to, me), take_all, seen);
        if choices.is_empty() {
            moves.insert((head.clone(), after.text()));
        }
        // Capture is compulsory: with choices, each move takes one of them.
        for removed in choices {
            let mut taken = after.clone();
            let mut text = head.clone();
            // egdb lists removed points in notation order, as `removed` is.
            for &p in &removed {
                taken.cells[p] = b'.';
                text.push('x');
                text.push_str(NAMES[p]);
            }
            moves.insert((text, taken.text()));
        }
    }
    moves
}

/// How the game stands, from the side to move's view (RULES.md §2-3, End).
fn naive_terminal(game: Game, board: &Board, pos: &Naive) -> Option<Value> {
    let (me, them) = (pos.to_move, pos.other());
    let movement = !pos.placing();
    let pieces = |c: u8| match game {
        // Taiwan counts the board only, and only once movement has begun.
        Game::Taiwan => pos.count(c),
        Game::Standard => pos.count(c) + usize::from(pos.hand_of(c)),
    };
    if game == Game::Standard || movement {
        if pieces(me) < 3 {
            return Some(Value::Loss);
        }
        if pieces(them) < 3 {
            return Some(Value::Win);
        }
    }
    if pos.mix != Mix::Phases && !movement {
        // Placing or moving: over when there is neither.
        let none = naive_moves(game, board, pos, false, &mut Seen::default()).is_empty();
        return none.then_some(Value::Loss);
    }
    if !movement {
        return None;
    }
    if pos.cells.iter().all(|&c| c != b'.') {
        return Some(Value::Draw);
    }
    let can_move = (0..24)
        .filter(|&p| pos.cells[p] == me)
        .any(|from| !destinations(game, board, pos, from).is_empty());
    (!can_move).then_some(Value::Loss)
}

/// Compares both generators on one position; panics with the difference.
fn compare(rules: &MorrisRules, game: Game, board: &Board, position: &Position, tally: &mut Tally) {
    let text = position.to_string();
    let mut pos = Naive::parse(&text);
    pos.mix = match (rules.mixes_hands(), rules.moves_with_hand()) {
        (false, _) => Mix::Phases,
        (true, false) => Mix::Forced,
        (true, true) => Mix::Lasker,
    };
    assert_eq!(pos.text(), text, "the naive notation round-trips");
    let verdict = naive_terminal(game, board, &pos);
    assert_eq!(
        terminal_value(rules, position),
        verdict,
        "game end of {text} ({game:?} {})",
        rules.pieces
    );
    let listed = legal_moves(rules, position);
    let egdb: BTreeSet<(String, String)> = listed
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(egdb.len(), listed.len(), "{text}: egdb lists a move twice");
    tally.positions += 1;
    if verdict.is_some() {
        tally.terminal += 1;
        assert!(egdb.is_empty(), "{text}: moves in a finished game");
        return;
    }
    tally.placement += usize::from(pos.placing());
    tally.place_or_move += usize::from(pos.may_place_and_move() == (true, true));
    let (_, steps) = pos.may_place_and_move();
    let in_hand = match pos.mix {
        Mix::Lasker => usize::from(pos.hand_of(pos.to_move)),
        Mix::Phases | Mix::Forced => 0,
    };
    tally.flying +=
        usize::from(game == Game::Standard && steps && pos.count(pos.to_move) + in_hand == 3);
    let mut seen = Seen::default();
    let take_all = rules.several_captures == SeveralCaptures::All;
    let naive = naive_moves(game, board, &pos, take_all, &mut seen);
    tally.add(seen);
    tally.moves += naive.len();
    tally.capturing_moves += naive.iter().filter(|(m, _)| m.contains('x')).count();
    if naive != egdb {
        let only_egdb: Vec<_> = egdb.difference(&naive).collect();
        let only_naive: Vec<_> = naive.difference(&egdb).collect();
        panic!(
            "{game:?} P={}: {text}\n only egdb: {only_egdb:?}\n only naive: {only_naive:?}",
            rules.pieces
        );
    }
}

/// SplitMix64: a seeded generator, so a failure reproduces exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.range(0, i));
        }
    }
}

/// Positions of random games from the start; egdb only picks them.
fn random_game(rules: &MorrisRules, rng: &mut Rng, plies: usize) -> Vec<Position> {
    let mut position = Position::start(rules);
    let mut seen = vec![position];
    for _ in 0..plies {
        let moves = legal_moves(rules, &position);
        if moves.is_empty() {
            break;
        }
        position = moves[rng.range(0, moves.len() - 1)].1;
        seen.push(position);
    }
    seen
}

/// The frame of a position after `ply` placements (2P = the movement
/// phase): the pieces each side has placed, so may have on the board, and
/// the tail of the position text (side to move, hands).
fn frame(rules: &MorrisRules, rng: &mut Rng, ply: usize) -> ([usize; 2], String) {
    if rules.mixes_hands() {
        // Any hands within each side's start, either side to move; half of
        // them with an empty hand on one side.
        let [k, l] = rules.start_hands().map(usize::from);
        let mut hands = [rng.range(0, k), rng.range(0, l)];
        if rng.range(0, 1) == 0 {
            hands[rng.range(0, 1)] = 0;
        }
        let side = if rng.range(0, 1) == 0 { 'b' } else { 'w' };
        let tail = format!("{side} {} {}", hands[0], hands[1]);
        return ([k - hands[0], l - hands[1]], tail);
    }
    let p = usize::from(rules.pieces);
    let placed = [ply.div_ceil(2), ply / 2];
    // Placement alternates from B; in movement either side may be to move.
    let black = if ply < 2 * p {
        ply % 2 == 0
    } else {
        rng.range(0, 1) == 0
    };
    let side = if black { 'b' } else { 'w' };
    (
        placed,
        format!("{side} {} {}", p - placed[0], p - placed[1]),
    )
}

fn position_of(rules: &MorrisRules, cells: &[u8], tail: &str) -> Position {
    let text = format!("{} {tail}", String::from_utf8(cells.to_vec()).unwrap());
    Position::parse(rules, &text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Random pieces scattered over the board, each side keeping most of the
/// pieces it placed so that captures abound.
fn scattered_setup(rules: &MorrisRules, rng: &mut Rng, ply: usize) -> Position {
    let (placed, tail) = frame(rules, rng, ply);
    let keep = |rng: &mut Rng, n: usize| n - rng.range(0, n.min(3));
    let counts = [keep(rng, placed[0]), keep(rng, placed[1])];
    let mut cells: Vec<u8> = [b'B', b'W']
        .iter()
        .zip(counts)
        .flat_map(|(&c, n)| std::iter::repeat_n(c, n))
        .chain(std::iter::repeat(b'.'))
        .take(24)
        .collect();
    rng.shuffle(&mut cells);
    position_of(rules, &cells, &tail)
}

/// Random whole lines of either colour, some with a gap: mills to close,
/// pieces standing in mills, 槓 and 擔 brackets are far more common than
/// among scattered pieces.
fn lined_setup(rules: &MorrisRules, board: &Board, rng: &mut Rng, ply: usize) -> Position {
    let (placed, tail) = frame(rules, rng, ply);
    let mut cells = [b'.'; 24];
    let mut counts = [0; 2];
    let mut put = |cells: &mut [u8; 24], p: usize, side: usize| {
        if cells[p] == b'.' && counts[side] < placed[side] {
            cells[p] = [b'B', b'W'][side];
            counts[side] += 1;
        }
    };
    for _ in 0..rng.range(1, 6) {
        let line = board.lines[rng.range(0, board.lines.len() - 1)];
        let side = rng.range(0, 1);
        // 3: no gap.
        let gap = rng.range(0, 3);
        for (i, &p) in line.points.iter().enumerate() {
            if i != gap {
                put(&mut cells, p, side);
            }
        }
    }
    for _ in 0..rng.range(0, 4) {
        let (p, side) = (rng.range(0, 23), rng.range(0, 1));
        put(&mut cells, p, side);
    }
    position_of(rules, &cells, &tail)
}

#[test]
fn own_board_matches_rules_md_section_1() {
    let taiwan = Board::new(Game::Taiwan);
    let standard = Board::new(Game::Standard);
    let kinds = |b: &Board, k: Kind| b.lines.iter().filter(|l| l.kind == k).count();
    assert_eq!(
        [Kind::Side, Kind::Midline, Kind::Diagonal].map(|k| kinds(&taiwan, k)),
        [12, 4, 4]
    );
    assert_eq!(kinds(&standard, Kind::Diagonal), 0);
    assert_eq!(taiwan.adjacent_pairs(), 40);
    assert_eq!(standard.adjacent_pairs(), 32);
    for line in &taiwan.lines {
        // Straight, with the middle point halfway between the ends.
        let [a, m, b] = line.points.map(coords);
        assert_eq!((a.0 + b.0, a.1 + b.1), (2 * m.0, 2 * m.1), "{line:?}");
    }
    // RULES.md §1: the board graph is bipartite. Two-colour it by search.
    let mut colour = [None::<bool>; 24];
    colour[0] = Some(false);
    let mut queue = vec![0];
    while let Some(p) = queue.pop() {
        for q in (0..24).filter(|&q| taiwan.adjacent[p][q]) {
            let want = !colour[p].unwrap();
            match colour[q] {
                None => {
                    colour[q] = Some(want);
                    queue.push(q);
                }
                Some(c) => assert_eq!(c, want, "{} {} break bipartiteness", NAMES[p], NAMES[q]),
            }
        }
    }
    assert!(colour.iter().all(Option::is_some), "the board is connected");
}

/// Compares both generators on `games` random games and `setups` setups of
/// each kind under `rules`.
fn compare_many(
    rules: &MorrisRules,
    game: Game,
    rng: &mut Rng,
    (games, setups): (usize, usize),
) -> Tally {
    let board = Board::new(game);
    let mut tally = Tally::default();
    let p = usize::from(rules.pieces);
    for _ in 0..games {
        for position in random_game(rules, rng, 2 * p + 40) {
            compare(rules, game, &board, &position, &mut tally);
        }
    }
    for i in 0..2 * setups {
        // Half movement positions, half placement at any ply.
        let ply = if rng.range(0, 1) == 0 {
            2 * p
        } else {
            rng.range(0, 2 * p - 1)
        };
        let position = if i % 2 == 0 {
            scattered_setup(rules, rng, ply)
        } else {
            lined_setup(rules, &board, rng, ply)
        };
        compare(rules, game, &board, &position, &mut tally);
    }
    eprintln!("{game:?} P={}: {tally:?}", rules.pieces);
    tally
}

#[test]
fn naive_generator_agrees_with_egdb_where_hands_mix() {
    let mut rng = Rng(0x4a5c_e12f_0dd5_7a27);
    let mut tallies = Vec::new();
    for (lasker, first, second) in [
        (false, 3, 5),
        (false, 5, 3),
        (false, 9, 4),
        (false, 7, 7),
        (false, 12, 12),
        (true, 3, 3),
        (true, 6, 9),
        (true, 10, 10),
    ] {
        let base = if lasker {
            MorrisRules::lasker(first)
        } else {
            MorrisRules::standard(first)
        };
        let rules = base.with_hands(first, second).unwrap();
        tallies.push((
            lasker,
            compare_many(&rules, Game::Standard, &mut rng, (100, 2000)),
        ));
    }
    let of = |lasker: bool, f: fn(&Tally) -> usize| {
        tallies
            .iter()
            .filter(|(l, _)| *l == lasker)
            .map(|(_, t)| f(t))
            .sum::<usize>()
    };
    // Positions of each sort, at about half of what the seed above gives.
    for lasker in [false, true] {
        assert!(of(lasker, |t| t.positions) >= 20_000);
        assert!(of(lasker, |t| t.placement) >= 5_000);
        assert!(of(lasker, |t| t.capturing_moves) >= 10_000);
        assert!(of(lasker, |t| t.flying) >= 200);
        assert!(of(lasker, |t| t.empty_board_mill) >= 20);
    }
    assert!(of(true, |t| t.place_or_move) >= 5_000);
    assert_eq!(of(false, |t| t.place_or_move), 0);
}

/// The rules of `game` with `pieces` each.
fn rules_of(game: Game, pieces: u8) -> MorrisRules {
    match game {
        Game::Taiwan => MorrisRules::taiwan(pieces),
        Game::Standard => MorrisRules::standard(pieces),
    }
}

#[test]
fn naive_generator_agrees_with_egdb() {
    // Per game and piece count: random games, and setups of each kind.
    let mut rng = Rng(0x5eed_0fd1_a60a_15ed);
    let mut tallies = Vec::new();
    for game in [Game::Taiwan, Game::Standard] {
        for pieces in [3u8, 6, 9, 12] {
            let tally = compare_many(&rules_of(game, pieces), game, &mut rng, (200, 4000));
            tallies.push((game, pieces, tally));
        }
    }
    let total = |f: fn(&Tally) -> usize| tallies.iter().map(|(_, _, t)| f(t)).sum::<usize>();
    let of = |g: Game, f: fn(&Tally) -> usize| {
        tallies
            .iter()
            .filter(|(game, _, _)| *game == g)
            .map(|(_, _, t)| f(t))
            .sum::<usize>()
    };
    // Positions (not moves) of each sort, at about half of what the seed
    // above gives, so that retuning the generators keeps them meaningful.
    assert!(total(|t| t.positions) >= 100_000);
    assert!(total(|t| t.terminal) >= 5_000);
    assert!(total(|t| t.placement) >= 25_000);
    assert!(total(|t| t.capturing_moves) >= 100_000);
    assert!(of(Game::Taiwan, |t| t.mill) >= 10_000);
    assert!(of(Game::Taiwan, |t| t.gang) >= 4_000);
    assert!(of(Game::Taiwan, |t| t.dan) >= 3_000);
    assert!(of(Game::Taiwan, |t| t.several) >= 500);
    assert!(of(Game::Standard, |t| t.mill) >= 10_000);
    assert!(of(Game::Standard, |t| t.several) >= 50);
    assert!(of(Game::Standard, |t| t.protected) >= 4_000);
    assert!(of(Game::Standard, |t| t.all_in_mills) >= 300);
    assert!(of(Game::Standard, |t| t.flying) >= 4_000);
    assert_eq!(of(Game::Standard, |t| t.gang + t.dan), 0);
}

/// The reading where a move takes every capture it opens (a rules option,
/// not RULES.md): two or three mills take as many pieces, a 擔 and a 槓
/// together three.
#[test]
fn naive_generator_agrees_with_egdb_taking_every_capture() {
    let mut rng = Rng(0x7a6e_a11c_a97e_5eed);
    let mut tallies = Vec::new();
    for game in [Game::Taiwan, Game::Standard] {
        for pieces in [6u8, 9, 12] {
            let rules = MorrisRules {
                several_captures: SeveralCaptures::All,
                ..rules_of(game, pieces)
            };
            tallies.push((game, compare_many(&rules, game, &mut rng, (100, 2000))));
        }
    }
    let of = |g: Game, f: fn(&Tally) -> usize| {
        tallies
            .iter()
            .filter(|(game, _)| *game == g)
            .map(|(_, t)| f(t))
            .sum::<usize>()
    };
    // Positions of each sort, at about half of what the seed above gives.
    assert!(of(Game::Taiwan, |t| t.several) >= 250);
    assert!(of(Game::Taiwan, |t| t.mills) >= 120);
    assert!(of(Game::Standard, |t| t.mills) >= 30);
}
