//! The slice graph of a Morris game.
//!
//! * Movement slices hold the positions with given piece counts, in both
//!   orientations (the side to move with `a` pieces against `b`, and `b`
//!   against `a`), since step moves swap them; where no side flies they are
//!   split further by the parity of pieces on odd points (RULES.md §1). A
//!   step keeps the slice; a capture leads to a slice with fewer pieces.
//! * Placement slices hold the positions after `ply` placements with given
//!   pieces on the board; each reads only slices of the next ply (or, after
//!   the last placement, movement slices).
//! * Where placing and moving mix (RULES.md §3a), hand slices replace the
//!   placement rounds: each holds the positions whose two sides have given
//!   pieces in hand and on the board, in both orientations (a move on the
//!   board passes the turn inside the slice, as a step does), split by
//!   parity as movement slices are. A placement reads a slice with one
//!   piece fewer in hand, a capture one with fewer on the board. They are
//!   named by what they hold, not by the game's start, so that the slices
//!   of one start are those of every other that holds them.

use std::fmt;

use super::index::TableKey;
use super::moves::{terminal_by_counts, Counts};
use super::rules::MorrisRules;
use super::{PointSet, Position};
use crate::{SliceId, Value};

/// A slice of a Morris game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MorrisSlice {
    /// Piece counts `a` ≥ `b`; `parity` of pieces on odd points in the
    /// orientation where the side to move has `a` (`None`: not split).
    Movement { a: u32, b: u32, parity: Option<u32> },
    /// `ply` placements made; pieces on the board of the side to move and
    /// of the other side.
    Placement { ply: u32, mover: u32, opponent: u32 },
    /// Placing and moving mixed: the two sides' pieces, `first` ≥ `second`
    /// (not both with empty hands); `parity` as for movement, recorded in
    /// the orientation where `first` moves.
    Hand {
        first: Side,
        second: Side,
        parity: Option<u32>,
    },
}

/// One side's pieces in hand and on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Side {
    pub hand: u32,
    pub board: u32,
}

impl Side {
    pub const fn new(hand: u32, board: u32) -> Side {
        Side { hand, board }
    }

    /// On the board and in hand together: what the loss rule counts.
    pub const fn pieces(self) -> u32 {
        self.hand + self.board
    }
}

impl MorrisSlice {
    /// The tables the slice holds: one per orientation of the side to move.
    pub fn tables(&self) -> Vec<TableKey> {
        match *self {
            MorrisSlice::Movement { a, b, parity } if a == b => vec![TableKey {
                mover: a,
                opponent: b,
                parity,
            }],
            MorrisSlice::Movement { a, b, parity } => vec![
                TableKey {
                    mover: a,
                    opponent: b,
                    parity,
                },
                TableKey {
                    mover: b,
                    opponent: a,
                    parity: parity.map(|p| 1 - p),
                },
            ],
            MorrisSlice::Placement {
                mover, opponent, ..
            } => vec![TableKey {
                mover,
                opponent,
                parity: None,
            }],
            MorrisSlice::Hand {
                first,
                second,
                parity,
            } => {
                let key = TableKey {
                    mover: first.board,
                    opponent: second.board,
                    parity,
                };
                // The other orientation: parity as the movement slices
                // record it, in the orientation where `first` moves.
                let other = TableKey {
                    mover: second.board,
                    opponent: first.board,
                    parity: parity.map(|p| 1 - p),
                };
                if first == second {
                    vec![key]
                } else {
                    vec![key, other]
                }
            }
        }
    }

    /// The pieces in hand of the side to move and of the other side in each
    /// of [`MorrisSlice::tables`], where the slice alone says
    /// (`None` for placement rounds, whose hands depend on the game).
    pub fn hands(&self) -> Option<Vec<[u32; 2]>> {
        match *self {
            MorrisSlice::Movement { a, b, .. } => Some(vec![[0, 0]; 1 + usize::from(a != b)]),
            MorrisSlice::Placement { .. } => None,
            MorrisSlice::Hand { first, second, .. } if first == second => {
                Some(vec![[first.hand, second.hand]])
            }
            MorrisSlice::Hand { first, second, .. } => {
                Some(vec![[first.hand, second.hand], [second.hand, first.hand]])
            }
        }
    }

    pub fn id(&self) -> SliceId {
        SliceId::new(self.to_string())
    }

    /// The slice an id names.
    pub fn parse(id: &str) -> Option<MorrisSlice> {
        let parts: Vec<&str> = id.split('-').collect();
        let num = |s: &str| s.parse::<u32>().ok();
        match parts.as_slice() {
            ["move", a, b] => Some(MorrisSlice::Movement {
                a: num(a)?,
                b: num(b)?,
                parity: None,
            }),
            ["move", a, b, p] => Some(MorrisSlice::Movement {
                a: num(a)?,
                b: num(b)?,
                parity: Some(num(p.strip_prefix('p')?)?),
            }),
            ["place", ply, mover, opponent] => Some(MorrisSlice::Placement {
                ply: num(ply)?,
                mover: num(mover)?,
                opponent: num(opponent)?,
            }),
            ["hand", h1, b1, h2, b2, rest @ ..] => {
                let parity = match rest {
                    [] => None,
                    [p] => Some(num(p.strip_prefix('p')?)?),
                    _ => return None,
                };
                Some(MorrisSlice::Hand {
                    first: Side::new(num(h1)?, num(b1)?),
                    second: Side::new(num(h2)?, num(b2)?),
                    parity,
                })
            }
            _ => None,
        }
    }
}

impl fmt::Display for MorrisSlice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MorrisSlice::Movement { a, b, parity: None } => write!(f, "move-{a:02}-{b:02}"),
            MorrisSlice::Movement {
                a,
                b,
                parity: Some(p),
            } => write!(f, "move-{a:02}-{b:02}-p{p}"),
            MorrisSlice::Placement {
                ply,
                mover,
                opponent,
            } => write!(f, "place-{ply:02}-{mover:02}-{opponent:02}"),
            MorrisSlice::Hand {
                first,
                second,
                parity,
            } => {
                write!(
                    f,
                    "hand-{:02}-{:02}-{:02}-{:02}",
                    first.hand, first.board, second.hand, second.board
                )?;
                match parity {
                    Some(p) => write!(f, "-p{p}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// The movement slice holding positions where the side to move has `mover`
/// pieces and the other side `opponent`, with `odd` pieces on odd points in
/// all; `None` for counts the movement phase never stores (a side below 3:
/// the game is over).
pub fn movement_slice(
    rules: &MorrisRules,
    mover: u32,
    opponent: u32,
    odd: u32,
) -> Option<MorrisSlice> {
    if mover < 3 || opponent < 3 {
        return None;
    }
    let (a, b) = (mover.max(opponent), mover.min(opponent));
    let parity = (a != b && rules.parity_splits(a, b)).then(|| {
        let p = odd % 2;
        // The parity is recorded in the orientation where the mover has `a`.
        if mover == a {
            p
        } else {
            1 - p
        }
    });
    Some(MorrisSlice::Movement { a, b, parity })
}

/// The table of its movement slice that holds positions with these counts.
pub fn movement_table(
    rules: &MorrisRules,
    mover: u32,
    opponent: u32,
    odd: u32,
) -> Option<(MorrisSlice, usize)> {
    let slice = movement_slice(rules, mover, opponent, odd)?;
    let table = slice
        .tables()
        .iter()
        .position(|t| t.mover == mover)
        .expect("a movement slice holds both orientations");
    Some((slice, table))
}

/// The slice and table holding positions after `ply` placements (2P and
/// more: the movement phase) where the side to move has `mover` pieces and
/// the other side `opponent`, with `odd` pieces on odd points in all;
/// `None` when such positions are over by their counts alone.
pub fn table_of(
    rules: &MorrisRules,
    ply: u32,
    mover: u32,
    opponent: u32,
    odd: u32,
) -> Option<(MorrisSlice, usize)> {
    let counts = Counts {
        board: [mover, opponent],
        hand: rules.hands_after(ply),
    };
    if terminal_by_counts(rules, counts).is_some() {
        return None;
    }
    if ply >= 2 * u32::from(rules.pieces) {
        movement_table(rules, mover, opponent, odd)
    } else {
        let slice = MorrisSlice::Placement {
            ply,
            mover,
            opponent,
        };
        Some((slice, 0))
    }
}

/// The slice and table holding `position`, whatever the game's shape;
/// `None` when it is over by its counts alone.
pub fn table_of_position(rules: &MorrisRules, position: &Position) -> Option<(MorrisSlice, usize)> {
    let (mover, opponent) = position.sides();
    let odd = mover.odd_count() + opponent.odd_count();
    if rules.mixes_hands() {
        let me = position.to_move();
        let side = |board: PointSet, color| Side::new(u32::from(position.hand(color)), board.len());
        return side_table(rules, side(mover, me), side(opponent, me.other()), odd);
    }
    table_of(rules, position.ply(rules), mover.len(), opponent.len(), odd)
}

/// The movement slices holding a table with these counts (both parities
/// where split).
fn movement_slices_of(rules: &MorrisRules, mover: u32, opponent: u32) -> Vec<MorrisSlice> {
    let mut slices: Vec<MorrisSlice> = (0..2)
        .filter_map(|odd| movement_slice(rules, mover, opponent, odd))
        .collect();
    slices.dedup();
    slices
}

/// Pieces a capture may remove at once under these rules.
fn removals(rules: &MorrisRules) -> &'static [u32] {
    &[1, 2, 3][..rules.most_removed() as usize]
}

/// Whether placement positions with these counts can be other than over.
fn placement_alive(rules: &MorrisRules, ply: u32, mover: u32, opponent: u32) -> bool {
    let counts = Counts {
        board: [mover, opponent],
        hand: rules.hands_after(ply),
    };
    terminal_by_counts(rules, counts).is_none()
}

/// Whether a side moves on the board by flying (where it moves at all).
fn side_flies(rules: &MorrisRules, side: Side) -> bool {
    rules.flies_with(side.board, side.hand)
}

/// The slice holding positions where the side to move has `mover` and the
/// other side `opponent`, with `odd` pieces on odd points in all, and the
/// table of it; `None` when such positions are over by their counts.
/// Both hands empty: a movement slice.
pub fn side_table(
    rules: &MorrisRules,
    mover: Side,
    opponent: Side,
    odd: u32,
) -> Option<(MorrisSlice, usize)> {
    side_place(rules, mover, opponent, odd).ok()
}

/// Where positions with these sides get their value from: [`side_table`]'s
/// slice and table, or `Err` with the value (for the side to move) of
/// positions over by their counts.
pub fn side_place(
    rules: &MorrisRules,
    mover: Side,
    opponent: Side,
    odd: u32,
) -> Result<(MorrisSlice, usize), Value> {
    let counts = Counts {
        board: [mover.board, opponent.board],
        hand: [mover.hand, opponent.hand],
    };
    if let Some(value) = terminal_by_counts(rules, counts) {
        return Err(value);
    }
    if mover.hand == 0 && opponent.hand == 0 {
        return Ok(movement_table(rules, mover.board, opponent.board, odd)
            .expect("sides not over by their counts move on"));
    }
    let (first, second) = (mover.max(opponent), mover.min(opponent));
    let split = first != second && !side_flies(rules, first) && !side_flies(rules, second);
    let parity = split.then(|| if mover == first { odd % 2 } else { 1 - odd % 2 });
    let slice = MorrisSlice::Hand {
        first,
        second,
        parity,
    };
    Ok((slice, usize::from(mover != first)))
}

/// The slices holding tables with these sides (both parities where split).
fn side_slices_of(rules: &MorrisRules, mover: Side, opponent: Side) -> Vec<MorrisSlice> {
    let mut slices: Vec<MorrisSlice> = (0..2)
        .filter_map(|odd| side_table(rules, mover, opponent, odd).map(|(s, _)| s))
        .collect();
    slices.dedup();
    slices
}

/// Where one kind of move from a position leads, by counts: a placement
/// or a move on the board, taking `removed` pieces; the sides after it,
/// the other side then to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideMove {
    pub placed: bool,
    pub removed: u32,
    pub mover: Side,
    pub opponent: Side,
}

/// What a position with these sides leads to, beyond its own slice: each
/// kind of placement and of capture the counts allow, over all removals
/// the rules allow. (A move on the board that takes nothing stays in the
/// slice, as a step does in a movement slice.)
pub fn side_successors(rules: &MorrisRules, mover: Side, opponent: Side) -> Vec<SideMove> {
    let mut next = Vec::new();
    // A capture needs enough of the mover's pieces on the board (three for
    // a mill) and pieces to take.
    let fewest = rules.fewest_to_capture();
    let removable =
        |r: u32, mover_board: u32| r == 0 || (r <= opponent.board && mover_board >= fewest);
    let mut add = |placed: bool, after: Side, removals: &[u32]| {
        for &removed in removals {
            if removable(removed, after.board) {
                next.push(SideMove {
                    placed,
                    removed,
                    mover: Side::new(opponent.hand, opponent.board - removed),
                    opponent: after,
                });
            }
        }
    };
    if mover.hand > 0 {
        let placed = Side::new(mover.hand - 1, mover.board + 1);
        add(true, placed, &[0]);
        add(true, placed, removals(rules));
    }
    if (mover.hand == 0 || rules.moves_with_hand()) && mover.board > 0 {
        add(false, mover, removals(rules));
    }
    next
}

/// Every slice of a game where placing and moving mix: every position
/// with at most K pieces (board and hand) for the first player and L for
/// the second, so that each start up to (K, L) lies in it.
fn plan_with_hands(rules: &MorrisRules) -> Vec<(MorrisSlice, Vec<MorrisSlice>)> {
    let [k, l] = rules.start_hands().map(u32::from);
    let sides = |most: u32| -> Vec<Side> {
        (3..=most)
            .flat_map(|total| (0..=total).map(move |hand| Side::new(hand, total - hand)))
            .collect()
    };
    let mut slices: Vec<MorrisSlice> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for x in sides(k) {
        for y in sides(l) {
            for slice in side_slices_of(rules, x, y) {
                if seen.insert(slice) {
                    slices.push(slice);
                }
            }
        }
    }
    let hand_total = |s: &MorrisSlice| match *s {
        MorrisSlice::Hand { first, second, .. } => {
            (first.hand + second.hand, first.board + second.board)
        }
        MorrisSlice::Movement { a, b, .. } => (0, a + b),
        MorrisSlice::Placement { .. } => unreachable!("no placement rounds here"),
    };
    slices.sort_by_key(|s| (hand_total(s), s.to_string()));
    slices
        .into_iter()
        .map(|slice| {
            let mut deps = Vec::new();
            let hands = slice
                .hands()
                .expect("hand and movement slices name their hands");
            for (key, [mover_hand, opponent_hand]) in slice.tables().into_iter().zip(hands) {
                let (mover, opponent) = (
                    Side::new(mover_hand, key.mover),
                    Side::new(opponent_hand, key.opponent),
                );
                for next in side_successors(rules, mover, opponent) {
                    deps.extend(side_slices_of(rules, next.mover, next.opponent));
                }
            }
            deps.retain(|d| *d != slice);
            (slice, dedup(deps))
        })
        .collect()
}

/// Every slice of the game, each after the slices it reads.
pub fn plan(rules: &MorrisRules) -> Vec<(MorrisSlice, Vec<MorrisSlice>)> {
    if rules.mixes_hands() {
        return plan_with_hands(rules);
    }
    let p = u32::from(rules.pieces);
    let mut plan = Vec::new();
    let mut movement: Vec<MorrisSlice> = Vec::new();
    for a in 3..=p {
        for b in 3..=a {
            for slice in movement_slices_of(rules, a, b) {
                if !movement.contains(&slice) {
                    movement.push(slice);
                }
            }
        }
    }
    movement.sort_by_key(|s| match *s {
        MorrisSlice::Movement { a, b, parity } => (a + b, a, parity),
        _ => unreachable!("only movement slices here"),
    });
    for slice in movement {
        let mut deps = Vec::new();
        for table in slice.tables() {
            for &r in removals(rules) {
                if let Some(left) = table.opponent.checked_sub(r) {
                    deps.extend(movement_slices_of(rules, left, table.mover));
                }
            }
        }
        plan.push((slice, dedup(deps)));
    }
    let last = 2 * p;
    for ply in (0..last).rev() {
        let (mover_placed, opponent_placed) = (ply / 2, ply.div_ceil(2));
        for mover in 0..=mover_placed {
            for opponent in 0..=opponent_placed {
                if !placement_alive(rules, ply, mover, opponent) {
                    continue;
                }
                let mut deps = Vec::new();
                for r in std::iter::once(0).chain(removals(rules).iter().copied()) {
                    let Some(left) = opponent.checked_sub(r) else {
                        continue;
                    };
                    if ply + 1 == last {
                        deps.extend(movement_slices_of(rules, left, mover + 1));
                    } else if placement_alive(rules, ply + 1, left, mover + 1) {
                        deps.push(MorrisSlice::Placement {
                            ply: ply + 1,
                            mover: left,
                            opponent: mover + 1,
                        });
                    }
                }
                let slice = MorrisSlice::Placement {
                    ply,
                    mover,
                    opponent,
                };
                plan.push((slice, dedup(deps)));
            }
        }
    }
    plan
}

fn dedup(mut slices: Vec<MorrisSlice>) -> Vec<MorrisSlice> {
    let mut seen = Vec::new();
    slices.retain(|s| {
        let fresh = !seen.contains(s);
        seen.push(*s);
        fresh
    });
    slices
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two-phase games and games where placing and moving mix.
    fn some_rules() -> Vec<MorrisRules> {
        vec![
            MorrisRules::taiwan(6),
            MorrisRules::standard(5),
            MorrisRules::standard(9),
            MorrisRules::lasker(5),
            MorrisRules::standard(9).with_hands(9, 4).unwrap(),
            MorrisRules::morabaraba(3).with_hands(3, 7).unwrap(),
        ]
    }

    #[test]
    fn ids_round_trip() {
        for rules in some_rules() {
            for (slice, _) in plan(&rules) {
                assert_eq!(MorrisSlice::parse(&slice.to_string()), Some(slice));
            }
        }
    }

    #[test]
    fn dependencies_come_first() {
        for rules in some_rules() {
            let plan = plan(&rules);
            for (i, (slice, deps)) in plan.iter().enumerate() {
                for dep in deps {
                    let j = plan.iter().position(|(s, _)| s == dep);
                    assert!(j.is_some_and(|j| j < i), "{slice} reads {dep}");
                }
            }
        }
    }

    #[test]
    fn flying_slices_are_not_split() {
        let rules = MorrisRules::standard(9);
        assert_eq!(
            movement_slice(&rules, 3, 5, 0),
            Some(MorrisSlice::Movement {
                a: 5,
                b: 3,
                parity: None
            })
        );
        assert!(matches!(
            movement_slice(&rules, 4, 5, 0),
            Some(MorrisSlice::Movement {
                parity: Some(_),
                ..
            })
        ));
        assert!(matches!(
            movement_slice(&MorrisRules::taiwan(9), 3, 5, 0),
            Some(MorrisSlice::Movement {
                parity: Some(_),
                ..
            })
        ));
    }

    /// Hand slices are named by what they hold: a smaller start's slices
    /// are among a larger one's, with the same reads.
    #[test]
    fn a_larger_start_holds_a_smaller_ones_slices() {
        let small = plan(&MorrisRules::lasker(4).with_hands(4, 3).unwrap());
        let large = plan(&MorrisRules::lasker(6).with_hands(5, 6).unwrap());
        for entry in &small {
            assert!(large.contains(entry), "{} {:?}", entry.0, entry.1);
        }
        assert!(large.len() > small.len());
    }

    /// Where placing and moving mix, every position a game reaches lies in
    /// a planned slice, and every move from it leads to a finished game,
    /// to its own slice or to one the slice reads.
    #[test]
    // Whole games through the plain oracle: minutes without optimisation;
    // deploy/test.sh's release pass runs it.
    #[cfg_attr(debug_assertions, ignore = "release profile only")]
    fn mixed_plans_hold_every_position_and_read_every_move() {
        use crate::morris::moves::{legal_moves, terminal_value};
        use crate::morris::oracle::Oracle;
        use std::collections::HashMap;
        for rules in [
            MorrisRules::lasker(3),
            MorrisRules::standard(3).with_hands(3, 5).unwrap(),
            MorrisRules::morabaraba(4).with_hands(4, 3).unwrap(),
        ] {
            let plan = plan(&rules);
            let reads: HashMap<MorrisSlice, &Vec<MorrisSlice>> =
                plan.iter().map(|(s, d)| (*s, d)).collect();
            let oracle = Oracle::whole_game(&rules);
            let mut checked = 0;
            for (position, _) in oracle.solutions() {
                if terminal_value(&rules, &position).is_some() {
                    continue;
                }
                let (slice, table) = table_of_position(&rules, &position).expect("not over");
                let deps = reads
                    .get(&slice)
                    .unwrap_or_else(|| panic!("{slice} is not planned"));
                assert!(table < slice.tables().len());
                for (mv, next) in legal_moves(&rules, &position) {
                    if terminal_value(&rules, &next).is_some() {
                        continue;
                    }
                    let (to, _) = table_of_position(&rules, &next).expect("not over");
                    assert!(
                        to == slice || deps.contains(&to),
                        "{position} {mv}: {slice} does not read {to}"
                    );
                }
                checked += 1;
            }
            assert!(checked > 5_000, "{checked} positions");
        }
    }

    /// The same start played with placing and moving mixed is the same
    /// game while hands are equal (no mill closes against an empty board
    /// there): same value and depth.
    #[test]
    // Whole games through the plain oracle: minutes without optimisation;
    // deploy/test.sh's release pass runs it.
    #[cfg_attr(debug_assertions, ignore = "release profile only")]
    fn equal_starts_mixed_keep_the_two_phase_values() {
        use crate::morris::oracle::Oracle;
        use crate::morris::Position;
        for two_phase in [MorrisRules::standard(3), MorrisRules::morabaraba(3)] {
            let mixed = two_phase.with_hands(3, 3).unwrap();
            let value =
                |rules: &MorrisRules| Oracle::whole_game(rules).value(&Position::start(rules));
            assert_eq!(value(&mixed), value(&two_phase), "{two_phase:?}");
        }
    }
}
