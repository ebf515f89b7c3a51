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

use std::fmt;

use super::index::TableKey;
use super::moves::{terminal_by_counts, Counts};
use super::rules::MorrisRules;
use crate::SliceId;

/// A slice of a Morris game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MorrisSlice {
    /// Piece counts `a` ≥ `b`; `parity` of pieces on odd points in the
    /// orientation where the side to move has `a` (`None`: not split).
    Movement { a: u32, b: u32, parity: Option<u32> },
    /// `ply` placements made; pieces on the board of the side to move and
    /// of the other side.
    Placement { ply: u32, mover: u32, opponent: u32 },
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

/// Every slice of the game, each after the slices it reads.
pub fn plan(rules: &MorrisRules) -> Vec<(MorrisSlice, Vec<MorrisSlice>)> {
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
        MorrisSlice::Placement { .. } => unreachable!("only movement slices here"),
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

    #[test]
    fn ids_round_trip() {
        for rules in [MorrisRules::taiwan(6), MorrisRules::standard(9)] {
            for (slice, _) in plan(&rules) {
                assert_eq!(MorrisSlice::parse(&slice.to_string()), Some(slice));
            }
        }
    }

    #[test]
    fn dependencies_come_first() {
        for rules in [MorrisRules::taiwan(6), MorrisRules::standard(5)] {
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
}
