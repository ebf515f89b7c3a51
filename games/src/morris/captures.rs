//! What a piece arriving on a point may capture (RULES.md §2-3).
//!
//! Captures are decided by the arrival point X and the board after the
//! piece arrived; the per-point line tables are built at compile time.

use super::board::{adjacency, LineKind, Point, PointSet, ALL_LINES, POINTS};
use super::rules::{DanTakes, MillTargets, MorrisRules};

/// The lines through one point, as the rules' captures read them.
#[derive(Debug, Clone, Copy)]
struct PointLines {
    /// For each line through the point: its other two points.
    mill_others: [u32; 3],
    mills: u8,
    /// 槓 from this point: the middle of the midline/diagonal it ends, and
    /// the far end (0 when the point ends none).
    gang_middle: u32,
    gang_far: u32,
    /// 擔 from this point: the two corners of the side it is the midpoint
    /// of (0 when it is a corner).
    dan_corners: u32,
}

const fn point_lines(diagonals: bool) -> [PointLines; POINTS] {
    let empty = PointLines {
        mill_others: [0; 3],
        mills: 0,
        gang_middle: 0,
        gang_far: 0,
        dan_corners: 0,
    };
    let mut table = [empty; POINTS];
    let count = if diagonals { 20 } else { 16 };
    let mut i = 0;
    while i < count {
        let line = ALL_LINES[i];
        let [a, b, c] = line.points;
        let bits = [1u32 << a.index(), 1u32 << b.index(), 1u32 << c.index()];
        let all = bits[0] | bits[1] | bits[2];
        let mut j = 0;
        while j < 3 {
            let p = line.points[j].index();
            let n = table[p].mills as usize;
            table[p].mill_others[n] = all & !bits[j];
            table[p].mills += 1;
            j += 1;
        }
        match line.kind {
            LineKind::Side => table[b.index()].dan_corners = bits[0] | bits[2],
            LineKind::Midline | LineKind::Diagonal => {
                table[a.index()].gang_middle = bits[1];
                table[a.index()].gang_far = bits[2];
                table[c.index()].gang_middle = bits[1];
                table[c.index()].gang_far = bits[0];
            }
        }
        i += 1;
    }
    table
}

static WITH_DIAGONALS: [PointLines; POINTS] = point_lines(true);
static WITHOUT_DIAGONALS: [PointLines; POINTS] = point_lines(false);

/// The capture choices a move offers: remove any one of `singles`, or both
/// points of `pair` (擔). Both empty: the move captures nothing. Where
/// captures are optional, capturing nothing is a further choice, which
/// the move generators add.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CaptureOptions {
    pub singles: PointSet,
    pub pair: PointSet,
}

impl CaptureOptions {
    pub const fn is_empty(&self) -> bool {
        self.singles.is_empty() && self.pair.is_empty()
    }

    /// Every distinct set of opponent pieces the mover may remove.
    pub fn removals(&self) -> impl Iterator<Item = PointSet> + '_ {
        let pair = (!self.pair.is_empty()).then_some(self.pair);
        self.singles.iter().map(Point::set).chain(pair)
    }
}

/// The captures open to the mover after a piece arrived on `x`; `mover`
/// already holds it.
#[inline]
pub fn capture_options(
    rules: &MorrisRules,
    x: Point,
    mover: PointSet,
    opponent: PointSet,
) -> CaptureOptions {
    let lines = if rules.diagonals {
        &WITH_DIAGONALS[x.index()]
    } else {
        &WITHOUT_DIAGONALS[x.index()]
    };
    let (m, o) = (mover.bits(), opponent.bits());
    let mut singles = 0;
    let mill = lines.mill_others[..lines.mills as usize]
        .iter()
        .any(|&others| others & !m == 0);
    if mill && o != 0 {
        singles = match rules.mill_targets {
            // Moves of the movement phase come here with the rules as they
            // are (placements with `MorrisRules::in_phase`).
            MillTargets::Any | MillTargets::NotInMillWhilePlacing => o,
            MillTargets::NotInMillUnlessAll => {
                let free = o & !in_mills(rules, opponent).bits();
                if free == 0 {
                    o
                } else {
                    free
                }
            }
        };
    }
    if rules.gang && lines.gang_middle & o != 0 && lines.gang_far & m != 0 {
        singles |= lines.gang_middle;
    }
    let mut pair = 0;
    if rules.dan && lines.dan_corners != 0 && o & lines.dan_corners == lines.dan_corners {
        match rules.dan_takes {
            DanTakes::Both => pair = lines.dan_corners,
            DanTakes::One => singles |= lines.dan_corners,
        }
    }
    CaptureOptions {
        singles: PointSet(singles),
        pair: PointSet(pair),
    }
}

/// Whether a piece arriving on `x` opens any capture: what
/// [`capture_options`] answers with a non-empty set, without listing it.
#[inline]
pub fn can_capture(rules: &MorrisRules, x: Point, mover: PointSet, opponent: PointSet) -> bool {
    let lines = if rules.diagonals {
        &WITH_DIAGONALS[x.index()]
    } else {
        &WITHOUT_DIAGONALS[x.index()]
    };
    let (m, o) = (mover.bits(), opponent.bits());
    // A mill always finds a target: when every opponent piece stands in a
    // mill, any of them may be taken.
    (o != 0
        && lines.mill_others[..lines.mills as usize]
            .iter()
            .any(|&others| others & !m == 0))
        || (rules.gang && lines.gang_middle & o != 0 && lines.gang_far & m != 0)
        || (rules.dan && lines.dan_corners != 0 && o & lines.dan_corners == lines.dan_corners)
}

/// The pieces of `side` standing in a mill of its own.
pub fn in_mills(rules: &MorrisRules, side: PointSet) -> PointSet {
    rules
        .lines()
        .iter()
        .map(|l| l.set())
        .filter(|l| l.is_subset(side))
        .fold(PointSet::EMPTY, PointSet::union)
}

/// The points a piece on `from` may move to when its side has `count`
/// pieces on the board.
#[inline]
pub fn destinations(rules: &MorrisRules, from: Point, count: u32, empty: PointSet) -> PointSet {
    const WITH: [PointSet; POINTS] = adjacency(true);
    const WITHOUT: [PointSet; POINTS] = adjacency(false);
    if rules.flies(count) {
        empty
    } else if rules.diagonals {
        WITH[from.index()].intersection(empty)
    } else {
        WITHOUT[from.index()].intersection(empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn can_capture_says_whether_there_are_options(
            taiwan in any::<bool>(),
            x in 0u8..24,
            mover in 0u32..1 << 24,
            opponent in 0u32..1 << 24,
        ) {
            let rules = if taiwan { MorrisRules::taiwan(9) } else { MorrisRules::standard(9) };
            let x = Point::new(x).unwrap();
            let mover = PointSet(mover).with(x);
            let opponent = PointSet(opponent).minus(mover);
            prop_assert_eq!(
                can_capture(&rules, x, mover, opponent),
                !capture_options(&rules, x, mover, opponent).is_empty()
            );
        }
    }
}
