//! Moves and un-moves, from the point of view of the side to move.
//!
//! The core works on the two sides' point sets (the rules are the same for
//! both colours); [`Position`] adds colours, hands and notation on top.

use std::fmt;

use super::board::{Point, PointSet, NOTATION_ORDER, POINTS};
use super::captures::{
    can_capture, capture_options, capture_options_taking, closes_mill, destinations, mill_targets,
    reach, CaptureOptions, Openings,
};
use super::position::{Phase, Position};
use super::rules::{CaptureRule, MorrisRules, PieceLoss};
use crate::{GameError, Value};

/// A move: a placement (`from` is `None`) or a step/flight, and the
/// opponent pieces it removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Option<Point>,
    pub to: Point,
    pub removed: PointSet,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(from) = self.from {
            write!(f, "{from}-")?;
        }
        write!(f, "{}", self.to)?;
        for &n in &NOTATION_ORDER {
            let p = Point::new(n).expect("notation order names board points");
            if self.removed.contains(p) {
                write!(f, "x{p}")?;
            }
        }
        Ok(())
    }
}

impl Move {
    /// Parses `d2`, `d2-d3`, `a1-g7`, each with any `x<point>` suffixes.
    ///
    /// # Errors
    /// [`GameError::MalformedMove`] naming the bad part.
    pub fn parse(text: &str) -> Result<Move, GameError> {
        let fail = |reason: String| GameError::MalformedMove {
            text: text.to_string(),
            reason,
        };
        let point = |name: &str| {
            Point::from_name(name)
                .ok_or_else(|| fail(format!("`{name}` is not a point (columns a-g, rows 1-7)")))
        };
        let mut parts = text.trim().split('x');
        let head = parts.next().unwrap_or_default();
        let (from, to) = match head.split_once('-') {
            Some((from, to)) => (Some(point(from)?), point(to)?),
            None => (None, point(head)?),
        };
        let mut removed = PointSet::EMPTY;
        for name in parts {
            let p = point(name)?;
            if removed.contains(p) {
                return Err(fail(format!("{p} is removed twice")));
            }
            removed = removed.with(p);
        }
        Ok(Move { from, to, removed })
    }
}

/// The side to move's and the other side's pieces after a move, before the
/// turn passes (the caller swaps roles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Successor {
    pub mv: Move,
    pub mover: PointSet,
    pub opponent: PointSet,
}

/// Every move of the side to move, in the given phase.
pub fn for_each_move(
    rules: &MorrisRules,
    placing: bool,
    mover: PointSet,
    opponent: PointSet,
    visit: impl FnMut(Successor),
) {
    let flies = rules.flies(mover.len());
    moves_flying_at(rules, placing, mover, opponent, flies, visit);
}

/// Every move of the side to move where placing and moving mix (RULES.md
/// §3a), `hands` the pieces in hand of the side to move and of the other
/// side: placements while it holds pieces, moves on the board when its
/// hand is empty or the rules let it choose (Lasker). `visit` learns
/// whether the move placed a piece.
pub fn for_each_move_with_hands(
    rules: &MorrisRules,
    mover: PointSet,
    opponent: PointSet,
    hands: [u32; 2],
    mut visit: impl FnMut(Successor, bool),
) {
    if hands[0] > 0 {
        for_each_move(rules, true, mover, opponent, |s| visit(s, true));
    }
    for_each_step_with_hands(rules, mover, opponent, hands, |s| visit(s, false));
}

/// The moves on the board of [`for_each_move_with_hands`]: none while the
/// side to move holds pieces and must place them, its flying by its
/// pieces on the board and in hand.
pub fn for_each_step_with_hands(
    rules: &MorrisRules,
    mover: PointSet,
    opponent: PointSet,
    hands: [u32; 2],
    visit: impl FnMut(Successor),
) {
    if hands[0] == 0 || rules.moves_with_hand() {
        let flies = rules.flies_with(mover.len(), hands[0]);
        moves_flying_at(rules, false, mover, opponent, flies, visit);
    }
}

/// [`for_each_move`], the side to move flying or not as `flies` says.
fn moves_flying_at(
    rules: &MorrisRules,
    placing: bool,
    mover: PointSet,
    opponent: PointSet,
    flies: bool,
    mut visit: impl FnMut(Successor),
) {
    let rules = &rules.in_phase(placing);
    let empty = mover.union(opponent).complement();
    // A mill against an empty board is no move where hands mix (RULES.md
    // §3a); elsewhere it takes nothing.
    let no_mill = opponent.is_empty() && rules.mixes_hands();
    let mut arrive = |from: Option<Point>, to: Point, mover_after: PointSet| {
        // Most arrivals capture nothing: told apart before any list is made.
        let options = if can_capture(rules, to, mover_after, opponent) {
            capture_options(rules, to, mover_after, opponent)
        } else if no_mill && closes_mill(rules, to, mover_after) {
            return;
        } else {
            CaptureOptions::default()
        };
        if options.is_empty() || rules.capture == CaptureRule::Optional {
            visit(Successor {
                mv: Move {
                    from,
                    to,
                    removed: PointSet::EMPTY,
                },
                mover: mover_after,
                opponent,
            });
        }
        for_each_capture(options, from, to, mover_after, opponent, &mut visit);
    };
    if placing {
        for to in empty.iter() {
            arrive(None, to, mover.with(to));
        }
    } else {
        for from in mover.iter() {
            for to in reach(rules, from, flies, empty).iter() {
                arrive(Some(from), to, mover.without(from).with(to));
            }
        }
    }
}

/// What the placements against one opponent's set share, worked out
/// once for [`quiet_placements`]: where a piece placed opens a capture,
/// and what a closed mill may take.
#[derive(Debug, Clone)]
pub struct PlacementCaptures {
    /// The rules as they hold while placing.
    rules: MorrisRules,
    opponent: PointSet,
    openings: Openings,
    targets: PointSet,
}

impl PlacementCaptures {
    pub fn new(rules: &MorrisRules, opponent: PointSet) -> PlacementCaptures {
        let rules = rules.in_phase(true);
        PlacementCaptures {
            openings: Openings::new(&rules, opponent),
            targets: mill_targets(&rules, opponent),
            rules,
            opponent,
        }
    }

    /// The opponent's set these placements are against.
    pub fn opponent(&self) -> PointSet {
        self.opponent
    }
}

/// The placements of the side to move against the opponent's set of
/// `captures`, split as the placement checker needs them: returns the
/// points whose placement captures nothing (the other side's set stays
/// as it is; declining an optional capture is one), and visits each
/// placement that captures. The same moves as [`for_each_move`] with
/// `placing` true, captures in the same order.
#[inline]
pub fn quiet_placements(
    mover: PointSet,
    captures: &PlacementCaptures,
    mut capture: impl FnMut(Successor),
) -> PointSet {
    let (rules, opponent) = (&captures.rules, captures.opponent);
    let empty = mover.union(opponent).complement();
    let opening = captures.openings.of(mover, empty);
    for to in opening.iter() {
        let after = mover.with(to);
        let options = capture_options_taking(rules, to, after, opponent, || captures.targets);
        for_each_capture(options, None, to, after, opponent, &mut capture);
    }
    if rules.capture == CaptureRule::Optional {
        empty
    } else {
        empty.minus(opening)
    }
}

/// The movement-phase moves of the side to move, split as the retrograde
/// engines need them: returns how many capture nothing (they keep the
/// other side's set) and visits only those that capture. The same moves as
/// [`for_each_move`] with `placing` false.
pub fn count_quiet_steps(
    rules: &MorrisRules,
    mover: PointSet,
    opponent: PointSet,
    mut visit_capture: impl FnMut(Successor),
) -> u32 {
    let empty = mover.union(opponent).complement();
    let optional = rules.capture == CaptureRule::Optional;
    let mut quiet = 0;
    for from in mover.iter() {
        let rest = mover.without(from);
        for to in destinations(rules, from, mover.len(), empty).iter() {
            let after = rest.with(to);
            if !can_capture(rules, to, after, opponent) {
                quiet += 1;
                continue;
            }
            // Declining the capture is a quiet step too.
            quiet += u32::from(optional);
            let options = capture_options(rules, to, after, opponent);
            for_each_capture(options, Some(from), to, after, opponent, &mut visit_capture);
        }
    }
    quiet
}

/// The movement-phase moves of the side to move, split as the checker
/// reads them: `quiet(from, to)` for each step that captures nothing
/// (declining an optional capture is one; the other side's set stays as
/// it is), `capture` for each that captures. The same moves as
/// [`for_each_move`] with `placing` false, in the same order, but where
/// hands mix against an empty board (a mill is no move there; no
/// movement table holds such a position: its side has lost by count).
#[inline]
pub fn for_each_step_split(
    rules: &MorrisRules,
    mover: PointSet,
    opponent: PointSet,
    quiet: impl FnMut(Point, Point),
    capture: impl FnMut(Successor),
) {
    let flies = rules.flies(mover.len());
    steps_split_flying_at(rules, mover, opponent, flies, quiet, capture);
}

/// [`for_each_step_with_hands`]'s moves split as [`for_each_step_split`]
/// splits them, and in the same order; against an opponent with pieces
/// on the board (against an empty one a mill is no move where hands mix).
#[inline]
pub fn for_each_step_split_with_hands(
    rules: &MorrisRules,
    mover: PointSet,
    opponent: PointSet,
    hands: [u32; 2],
    quiet: impl FnMut(Point, Point),
    capture: impl FnMut(Successor),
) {
    debug_assert!(!opponent.is_empty() || !rules.mixes_hands());
    if hands[0] == 0 || rules.moves_with_hand() {
        let flies = rules.flies_with(mover.len(), hands[0]);
        steps_split_flying_at(rules, mover, opponent, flies, quiet, capture);
    }
}

/// The steps split, the side to move flying or not as `flies` says.
#[inline(always)]
fn steps_split_flying_at(
    rules: &MorrisRules,
    mover: PointSet,
    opponent: PointSet,
    flies: bool,
    mut quiet: impl FnMut(Point, Point),
    mut capture: impl FnMut(Successor),
) {
    let empty = mover.union(opponent).complement();
    let optional = rules.capture == CaptureRule::Optional;
    for from in mover.iter() {
        let rest = mover.without(from);
        for to in reach(rules, from, flies, empty).iter() {
            let after = rest.with(to);
            if !can_capture(rules, to, after, opponent) {
                quiet(from, to);
                continue;
            }
            if optional {
                quiet(from, to);
            }
            let options = capture_options(rules, to, after, opponent);
            for_each_capture(options, Some(from), to, after, opponent, &mut capture);
        }
    }
}

/// Each successor of a move (`from`, `to`) that opened `options`, one per
/// set of pieces it may remove; `mover` already holds `to`.
#[inline]
pub(super) fn for_each_capture(
    options: CaptureOptions,
    from: Option<Point>,
    to: Point,
    mover: PointSet,
    opponent: PointSet,
    mut visit: impl FnMut(Successor),
) {
    for removed in options.removals() {
        visit(Successor {
            mv: Move { from, to, removed },
            mover,
            opponent: opponent.minus(removed),
        });
    }
}

/// A capture-free step taken back: the piece of the side that just moved
/// returns from `to` to `from`, giving the position before it (`mover`,
/// the side that moved, to move; `opponent` the other side).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unmove {
    pub from: Point,
    pub to: Point,
    pub mover: PointSet,
    pub opponent: PointSet,
}

/// The movement positions from which the side that just moved reached
/// (`mover`, `opponent`) by a step or flight that captured nothing: the
/// un-moves of the retrograde engines.
#[inline]
pub fn for_each_unmove(
    rules: &MorrisRules,
    mover: PointSet,
    opponent: PointSet,
    visit: impl FnMut(Unmove),
) {
    unmoves_flying_as(rules, mover, opponent, rules.flies(opponent.len()), visit);
}

/// [`for_each_unmove`] where placing and moving mix (RULES.md §3a), `hands`
/// the pieces in hand of the side to move and of the other side (the one
/// that moved): none where that side had to place, its flying by its
/// pieces on the board and in hand, no mill closed against an empty board.
pub fn for_each_unmove_with_hands(
    rules: &MorrisRules,
    mover: PointSet,
    opponent: PointSet,
    hands: [u32; 2],
    visit: impl FnMut(Unmove),
) {
    if hands[1] > 0 && !rules.moves_with_hand() {
        return;
    }
    let flies = rules.flies_with(opponent.len(), hands[1]);
    unmoves_flying_as(rules, mover, opponent, flies, visit);
}

/// The un-moves, the side that moved flying or not as `flies` says.
#[inline]
fn unmoves_flying_as(
    rules: &MorrisRules,
    mover: PointSet,
    opponent: PointSet,
    flies: bool,
    mut visit: impl FnMut(Unmove),
) {
    let empty = mover.union(opponent).complement();
    let compulsory = rules.capture == CaptureRule::Compulsory;
    // A mill closed against an empty board is no move where hands mix.
    let no_mill = mover.is_empty() && rules.mixes_hands();
    for to in opponent.iter() {
        let sources = reach(rules, to, flies, empty);
        // A capture open after arriving on `to` would have had to be taken.
        let refused = (compulsory && can_capture(rules, to, opponent, mover))
            || (no_mill && closes_mill(rules, to, opponent));
        if sources.is_empty() || refused {
            continue;
        }
        let rest = opponent.without(to);
        for from in sources.iter() {
            visit(Unmove {
                from,
                to,
                mover: rest.with(from),
                opponent: mover,
            });
        }
    }
}

/// Piece counts of the two sides, as the end-of-game rules read them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Pieces on the board of the side to move and of the other side.
    pub board: [u32; 2],
    /// Pieces in hand of the side to move and of the other side.
    pub hand: [u32; 2],
}

/// How the game stands from piece counts alone, from the side to move's
/// point of view: over for lack of pieces, or a full board at the start of
/// the movement phase. `None`: play on (a side without moves is over too,
/// which takes the board to see).
pub fn terminal_by_counts(rules: &MorrisRules, counts: Counts) -> Option<Value> {
    let movement = counts.hand == [0, 0];
    let (me, other) = match rules.piece_loss {
        PieceLoss::BoardAndHand => (
            counts.board[0] + counts.hand[0],
            counts.board[1] + counts.hand[1],
        ),
        PieceLoss::BoardInMovement if movement => (counts.board[0], counts.board[1]),
        PieceLoss::BoardInMovement => return None,
    };
    if me < 3 {
        Some(Value::Loss)
    } else if other < 3 {
        Some(Value::Win)
    } else if movement && counts.board[0] + counts.board[1] == POINTS as u32 {
        Some(Value::Draw)
    } else {
        None
    }
}

/// How a finished game ended, from the side to move's point of view; the
/// depth of such a position is 0.
pub fn terminal_value(rules: &MorrisRules, position: &Position) -> Option<Value> {
    let me = position.to_move();
    let (mover, opponent) = position.sides();
    let counts = Counts {
        board: [mover.len(), opponent.len()],
        hand: [
            u32::from(position.hand(me)),
            u32::from(position.hand(me.other())),
        ],
    };
    if let Some(value) = terminal_by_counts(rules, counts) {
        return Some(value);
    }
    let mut any = false;
    match position.phase(rules) {
        Phase::Placement { .. } => return None,
        Phase::Movement => for_each_move(rules, false, mover, opponent, |_| any = true),
        Phase::Hands => {
            for_each_move_with_hands(rules, mover, opponent, counts.hand, |_, _| any = true);
        }
    }
    (!any).then_some(rules.blocked.value())
}

/// Every legal move of a position, with the position it leads to; none when
/// the game is over.
pub fn legal_moves(rules: &MorrisRules, position: &Position) -> Vec<(Move, Position)> {
    let mut moves = Vec::new();
    if terminal_value(rules, position).is_some() {
        return moves;
    }
    let (mover, opponent) = position.sides();
    let phase = position.phase(rules);
    if phase == Phase::Hands {
        let me = position.to_move();
        let hands = [position.hand(me), position.hand(me.other())].map(u32::from);
        for_each_move_with_hands(rules, mover, opponent, hands, |s, placed| {
            moves.push((s.mv, position.after(s.mover, s.opponent, placed)));
        });
        return moves;
    }
    let placing = matches!(phase, Phase::Placement { .. });
    for_each_move(rules, placing, mover, opponent, |s| {
        moves.push((s.mv, position.after(s.mover, s.opponent, placing)));
    });
    moves
}

/// The position after `text`, a move in RULES.md notation.
///
/// # Errors
/// [`GameError::MalformedMove`] for text that is no move,
/// [`GameError::IllegalMove`] for a move the rules do not allow here.
pub fn play(rules: &MorrisRules, position: &Position, text: &str) -> Result<Position, GameError> {
    let wanted = Move::parse(text)?;
    let moves = legal_moves(rules, position);
    if let Some((_, next)) = moves.iter().find(|(m, _)| *m == wanted) {
        return Ok(*next);
    }
    let reason = if moves.is_empty() {
        "the game is over".to_string()
    } else if moves
        .iter()
        .any(|(m, _)| m.from == wanted.from && m.to == wanted.to)
    {
        let choices: Vec<String> = moves
            .iter()
            .filter(|(m, _)| m.from == wanted.from && m.to == wanted.to)
            .map(|(m, _)| m.to_string())
            .collect();
        format!(
            "the captures do not match; choose one of {}",
            choices.join(", ")
        )
    } else {
        "no such placement or step".to_string()
    };
    Err(GameError::IllegalMove {
        text: text.to_string(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::morris::rules::{DanTakes, SeveralCaptures, Variant};

    /// Which opponent pieces a mill just closed may take, with 槓 and 擔
    /// turned off so that only the mill captures.
    fn mill_removals(variant: Variant, placing: bool) -> PointSet {
        let rules = MorrisRules {
            gang: false,
            dan: false,
            ..MorrisRules::preset(variant, 9)
        };
        let lines = rules.lines();
        let theirs = lines[0].points;
        let ours = lines
            .iter()
            .map(|l| l.points)
            .find(|l| l.iter().all(|p| !theirs.contains(p)))
            .unwrap();
        let spare = (0..24)
            .map(|n| Point::new(n).unwrap())
            .find(|p| !theirs.contains(p) && !ours.contains(p))
            .unwrap();
        let opponent = theirs.iter().fold(spare.set(), |s, &p| s.with(p));
        let (mover, to) = if placing {
            (PointSet::EMPTY.with(ours[0]).with(ours[1]), None)
        } else {
            // One step away from closing the mill (the board's lines all
            // have a neighbour of their third point off the line).
            let third = ours[2];
            let taken = ours.iter().fold(opponent, |s, &p| s.with(p));
            let from = destinations(&rules, third, 9, taken.complement())
                .iter()
                .find(|p| !ours.contains(p))
                .unwrap();
            (
                PointSet::EMPTY.with(ours[0]).with(ours[1]).with(from),
                Some(from),
            )
        };
        let mut removed = PointSet::EMPTY;
        for_each_move(&rules, placing, mover, opponent, |s| {
            if s.mv.to == ours[2] && s.mv.from == to {
                removed = removed.union(s.mv.removed);
            }
        });
        removed
    }

    #[test]
    fn protected_mills_hold_while_placing_only() {
        let all = |v, placing| mill_removals(v, placing).len();
        // Three pieces in a mill and a spare: only the spare while placing.
        assert_eq!(all(Variant::TaiwanProtected, true), 1);
        assert_eq!(all(Variant::TaiwanProtected, false), 4);
        assert_eq!(all(Variant::Taiwan, true), 4);
        assert_eq!(all(Variant::Taiwan, false), 4);
        assert_eq!(all(Variant::Standard, true), 1);
        assert_eq!(all(Variant::Standard, false), 1);
    }

    /// The moves to d1 of a position, as their notation, sorted.
    fn moves_of(rules: &MorrisRules, text: &str) -> Vec<String> {
        moves_to(rules, text, "d1")
    }

    /// The moves to `to` of a position, as their notation, sorted.
    fn moves_to(rules: &MorrisRules, text: &str, to: &str) -> Vec<String> {
        let position = Position::parse(rules, text).unwrap();
        let mut moves: Vec<String> = legal_moves(rules, &position)
            .into_iter()
            .map(|(mv, _)| mv.to_string())
            .collect();
        moves.retain(|m| m.starts_with(to));
        moves.sort();
        moves
    }

    #[test]
    fn dan_takes_both_corners_or_one() {
        // White on a1 and g1; Black (on d5 and d7) places on d1, between them.
        let text = "W.W.............B.....B. b 4 4";
        let both = MorrisRules::taiwan(6);
        assert_eq!(moves_of(&both, text), ["d1xa1xg1"]);
        let one = MorrisRules {
            dan_takes: DanTakes::One,
            ..both
        };
        assert_eq!(moves_of(&one, text), ["d1xa1", "d1xg1"]);
    }

    #[test]
    fn a_move_takes_one_capture_or_every_one() {
        let one = MorrisRules::taiwan(9);
        let all = MorrisRules {
            several_captures: SeveralCaptures::All,
            ..one
        };
        // Black places on d1: a 擔 of a1 and g1, and a 槓 of d2 (Black on d3).
        let dan_and_gang = "W.W.W..B.............BB. b 6 6";
        assert_eq!(moves_of(&one, dan_and_gang), ["d1xa1xg1", "d1xd2"]);
        assert_eq!(moves_of(&all, dan_and_gang), ["d1xa1xg1xd2"]);
        // Two mills through d1 (a1-g1 and d2-d3), White on b2, f2 and c3:
        // one piece, or two different ones.
        let two_mills = "B.BWBWWB................ b 5 5";
        assert_eq!(moves_of(&one, two_mills), ["d1xb2", "d1xc3", "d1xf2"]);
        assert_eq!(
            moves_of(&all, two_mills),
            ["d1xb2xc3", "d1xb2xf2", "d1xf2xc3"]
        );
        // Three mills through a1 (sides to g1 and a7, the diagonal to c3)
        // against four White pieces: every three of them.
        let three_mills = ".BBB.WB.WBW..........B.W b 3 3";
        assert_eq!(moves_to(&one, three_mills, "a1").len(), 4);
        let three = moves_to(&all, three_mills, "a1");
        assert_eq!(three.len(), 4, "{three:?}");
        assert!(
            three.iter().all(|m| m.matches('x').count() == 3),
            "{three:?}"
        );
        // Two pieces left to take for three mills: both go.
        let few = ".BBB..B..B..W........B.W b 3 3";
        assert_eq!(moves_to(&all, few, "a1"), ["a1xe4xg7"]);
    }

    #[test]
    fn optional_captures_add_the_move_that_takes_nothing() {
        let optional = MorrisRules {
            capture: CaptureRule::Optional,
            ..MorrisRules::taiwan(6)
        };
        // The 擔 of the last test, and a mill: Black on a1 and g1, White
        // on b2 and d7.
        assert_eq!(
            moves_of(&optional, "W.W.............B.....B. b 4 4"),
            ["d1", "d1xa1xg1"]
        );
        assert_eq!(
            moves_of(&optional, "B.BW..................W. b 4 4"),
            ["d1", "d1xb2", "d1xd7"]
        );
        // Moving: a step that closes a mill is also an un-move target.
        let (mover, opponent) = (PointSet(0b101), PointSet(0b1000));
        let mut closing = 0;
        for_each_unmove(
            &optional,
            opponent,
            mover.with(Point::new(1).unwrap()),
            |u| {
                closing += usize::from(u.to.index() == 1);
            },
        );
        assert!(closing > 0, "the mill-closing step has no un-move");
        let mut compulsory = 0;
        let rules = MorrisRules::taiwan(6);
        for_each_unmove(&rules, opponent, mover.with(Point::new(1).unwrap()), |u| {
            compulsory += usize::from(u.to.index() == 1);
        });
        assert_eq!(compulsory, 0);
    }
}
