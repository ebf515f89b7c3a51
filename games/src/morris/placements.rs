//! Placements against one opponent's set, with what depends on that set
//! alone worked out once. The placement engine walks its table in runs
//! whose other side is fixed (the side that moves next), so per entry only
//! the mover's own set is new: which empty points close one of its mills,
//! and which of its pieces stand at the far end of a 槓.

use super::board::{lines, Point, PointSet, ALL_LINES, POINTS};
use super::captures::{capture_options_taking, mill_targets, point_lines};
use super::moves::{for_each_capture, Successor};
use super::rules::{CaptureRule, MorrisRules};

/// The most 槓 a board holds: every point ends at most one midline or
/// diagonal.
const MAX_GANG_ENDS: usize = POINTS;

/// The placements of any mover against `opponent`:
/// [`PlacementsAgainst::for_each`] visits the quiet points
/// [`quiet_placements`](super::moves::quiet_placements) returns and the
/// captures it visits, in the same order.
#[derive(Debug, Clone)]
pub struct PlacementsAgainst {
    /// The rules as they hold while placing.
    rules: MorrisRules,
    opponent: PointSet,
    /// What a closed mill may take; none when the opponent has no piece.
    targets: PointSet,
    /// The lines a placement may close into a mill, as sets.
    lines: [u32; ALL_LINES.len()],
    line_count: usize,
    /// Points whose 擔 captures: both corners of their side are the
    /// opponent's.
    dan: u32,
    /// 槓 open against the opponent: (an end, the far end), where the
    /// middle is the opponent's; the end captures when the mover holds
    /// the far end.
    gang: [(u32, u32); MAX_GANG_ENDS],
    gang_count: usize,
}

impl PlacementsAgainst {
    pub fn new(rules: &MorrisRules, opponent: PointSet) -> PlacementsAgainst {
        let rules = rules.in_phase(true);
        let o = opponent.bits();
        let (mut dan, mut gang, mut gang_count) = (0, [(0, 0); MAX_GANG_ENDS], 0);
        for x in Point::all() {
            let at = point_lines(&rules, x);
            if rules.dan && at.dan_corners != 0 && o & at.dan_corners == at.dan_corners {
                dan |= x.set().bits();
            }
            if rules.gang && at.gang_middle & o != 0 {
                gang[gang_count] = (x.set().bits(), at.gang_far);
                gang_count += 1;
            }
        }
        let mut line_sets = [0; ALL_LINES.len()];
        let on_board = lines(rules.diagonals);
        for (set, line) in line_sets.iter_mut().zip(on_board) {
            *set = line.set().bits();
        }
        PlacementsAgainst {
            rules,
            opponent,
            targets: mill_targets(&rules, opponent),
            lines: line_sets,
            line_count: on_board.len(),
            dan,
            gang,
            gang_count,
        }
    }

    /// The empty points where a placement of `mover` captures.
    #[inline]
    fn capturing(&self, mover: PointSet, empty: u32) -> u32 {
        let m = mover.bits();
        let mut points = self.dan;
        // A mill closes where a line lacks one point of the mover's.
        if !self.opponent.is_empty() {
            for line in &self.lines[..self.line_count] {
                let missing = line & !m;
                if missing & missing.wrapping_sub(1) == 0 {
                    points |= missing;
                }
            }
        }
        for &(end, far) in &self.gang[..self.gang_count] {
            if far & m != 0 {
                points |= end;
            }
        }
        points & empty
    }

    /// `quiet(to)` for each placement of `mover` that captures nothing
    /// (declining an optional capture is one), `capture` for each that
    /// captures.
    #[inline]
    pub fn for_each(
        &self,
        mover: PointSet,
        mut quiet: impl FnMut(Point),
        mut capture: impl FnMut(Successor),
    ) {
        let empty = mover.union(self.opponent).complement();
        let capturing = self.capturing(mover, empty.bits());
        let optional = self.rules.capture == CaptureRule::Optional;
        for to in empty.iter() {
            if capturing & to.set().bits() == 0 {
                quiet(to);
                continue;
            }
            if optional {
                quiet(to);
            }
            let after = mover.with(to);
            let options =
                capture_options_taking(&self.rules, to, after, self.opponent, || self.targets);
            for_each_capture(options, None, to, after, self.opponent, &mut capture);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::morris::moves::{quiet_placements, PlacementCaptures};
    use crate::morris::rules::{DanTakes, MillTargets, SeveralCaptures};

    /// Every mix of the rules that decide captures (a 擔 taking one corner
    /// does not go with taking every capture: rules files refuse it).
    fn capture_rules() -> impl Strategy<Value = MorrisRules> {
        (any::<[bool; 5]>(), 0usize..3, 0usize..3).prop_map(
            |([diagonals, gang, dan, optional, all], targets, dan_takes)| MorrisRules {
                diagonals,
                gang,
                dan,
                mill_targets: [
                    MillTargets::Any,
                    MillTargets::NotInMillUnlessAll,
                    MillTargets::NotInMillWhilePlacing,
                ][targets],
                capture: if optional {
                    CaptureRule::Optional
                } else {
                    CaptureRule::Compulsory
                },
                several_captures: if all {
                    SeveralCaptures::All
                } else {
                    SeveralCaptures::One
                },
                dan_takes: if dan_takes == 1 && !all {
                    DanTakes::One
                } else {
                    DanTakes::Both
                },
                ..MorrisRules::taiwan(12)
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The same placements as `quiet_placements`, in the same order,
        /// on any two disjoint sets (reachable or not).
        #[test]
        fn placements_against_equal_quiet_placements(
            rules in capture_rules(),
            mover in 0u32..1 << 24,
            opponent in 0u32..1 << 24,
            sparse in any::<[u32; 2]>(),
        ) {
            // Boards of every fullness: thinned by random masks.
            let mover = PointSet(mover & (sparse[0] | sparse[1]));
            let opponent = PointSet(opponent & sparse[0]).minus(mover);
            let mut captures = Vec::new();
            let quiet: Vec<_> = quiet_placements(mover, &PlacementCaptures::new(&rules, opponent), |s| captures.push(s)).iter().collect();
            let (mut quiet_seen, mut captures_seen) = (Vec::new(), Vec::new());
            PlacementsAgainst::new(&rules, opponent).for_each(
                mover,
                |to| quiet_seen.push(to),
                |s| captures_seen.push(s),
            );
            prop_assert_eq!(quiet_seen, quiet);
            prop_assert_eq!(captures_seen, captures);
        }
    }
}
