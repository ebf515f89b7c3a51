//! What a piece arriving on a point may capture (RULES.md §2-3).
//!
//! Captures are decided by the arrival point X and the board after the
//! piece arrived; the per-point line tables are built at compile time.

use super::board::{adjacency, LineKind, Point, PointSet, ALL_LINES, POINTS};
use super::rules::{DanTakes, MillTargets, MorrisRules, SeveralCaptures};

/// The lines through one point, as the rules' captures read them.
#[derive(Debug, Clone, Copy)]
pub(super) struct PointLines {
    /// For each line through the point: its other two points.
    mill_others: [u32; 3],
    mills: u8,
    /// 槓 from this point: the middle of the midline/diagonal it ends, and
    /// the far end (0 when the point ends none).
    pub(super) gang_middle: u32,
    pub(super) gang_far: u32,
    /// 擔 from this point: the two corners of the side it is the midpoint
    /// of (0 when it is a corner).
    pub(super) dan_corners: u32,
}

const fn lines_table(diagonals: bool) -> [PointLines; POINTS] {
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

static WITH_DIAGONALS: [PointLines; POINTS] = lines_table(true);
static WITHOUT_DIAGONALS: [PointLines; POINTS] = lines_table(false);

/// The lines through `x` under `rules`.
#[inline]
pub(super) fn point_lines(rules: &MorrisRules, x: Point) -> &'static PointLines {
    if rules.diagonals {
        &WITH_DIAGONALS[x.index()]
    } else {
        &WITHOUT_DIAGONALS[x.index()]
    }
}

/// The capture choices a move offers: every removal takes all of
/// `forced`, then `picks` more of `singles` (as many as there are, if
/// fewer); or else, where `pair` is set, both points of `pair`. All empty:
/// the move captures nothing. Where captures are optional, capturing
/// nothing is a further choice, which the move generators add.
///
/// A move taking one capture has `picks` 1 and no `forced`: any one of
/// `singles` (a mill's or a 槓's piece), or the 擔's `pair`. A move taking
/// every capture forces its 槓's and 擔's pieces and picks one more per
/// mill closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CaptureOptions {
    pub forced: PointSet,
    pub singles: PointSet,
    pub picks: u32,
    pub pair: PointSet,
}

impl CaptureOptions {
    pub const fn is_empty(&self) -> bool {
        self.forced.is_empty()
            && (self.picks == 0 || self.singles.is_empty())
            && self.pair.is_empty()
    }

    /// Every distinct set of opponent pieces the mover may remove.
    #[inline]
    pub fn removals(&self) -> Removals {
        let picks = self.picks.min(self.singles.len());
        let combos = picks > 1 || (picks == 0 && !self.forced.is_empty());
        Removals {
            forced: self.forced.bits(),
            left: if picks == 1 { self.singles.bits() } else { 0 },
            // The first `picks` of `singles`, by their rank in the set.
            combos: combos.then_some((1u32 << picks) - 1),
            singles: self.singles,
            pair: self.pair.bits(),
        }
    }
}

/// The removals of [`CaptureOptions::removals`]: the forced pieces with
/// each single in turn (one pick), or with each set of picks (several, as
/// masks over the singles' ranks in colex order); then the pair.
pub struct Removals {
    forced: u32,
    left: u32,
    combos: Option<u32>,
    singles: PointSet,
    pair: u32,
}

impl Iterator for Removals {
    type Item = PointSet;

    #[inline]
    fn next(&mut self) -> Option<PointSet> {
        if self.left != 0 {
            let single = self.left & self.left.wrapping_neg();
            self.left &= self.left - 1;
            return Some(PointSet(self.forced | single));
        }
        if let Some(mask) = self.combos {
            // The next mask with as many bits (Gosper's hack), while it
            // stays within the singles' ranks.
            self.combos = (mask != 0)
                .then(|| {
                    let low = mask & mask.wrapping_neg();
                    let ripple = mask + low;
                    (((ripple ^ mask) >> 2) / low) | ripple
                })
                .filter(|&next| next >> self.singles.len() == 0);
            let mut picked = self.forced;
            let (mut rest, mut ranks) = (self.singles.bits(), mask);
            while ranks != 0 {
                let point = rest & rest.wrapping_neg();
                if ranks & 1 != 0 {
                    picked |= point;
                }
                rest &= rest - 1;
                ranks >>= 1;
            }
            return Some(PointSet(picked));
        }
        let pair = std::mem::take(&mut self.pair);
        (pair != 0).then_some(PointSet(pair))
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
    capture_options_taking(rules, x, mover, opponent, || mill_targets(rules, opponent))
}

/// The pieces of `opponent` a closed mill may take (RULES.md §3): all, or
/// those outside mills unless every one stands in a mill.
#[inline]
pub fn mill_targets(rules: &MorrisRules, opponent: PointSet) -> PointSet {
    match rules.mill_targets {
        // Moves of the movement phase come here with the rules as they
        // are (placements with `MorrisRules::in_phase`).
        MillTargets::Any | MillTargets::NotInMillWhilePlacing => opponent,
        MillTargets::NotInMillUnlessAll => {
            let free = opponent.minus(in_mills(rules, opponent));
            if free.is_empty() {
                opponent
            } else {
                free
            }
        }
    }
}

/// [`capture_options`], with the mill targets given by `targets` (asked
/// only when a mill closes): callers that place against one opponent's
/// set many times work them out once.
#[inline]
pub(super) fn capture_options_taking(
    rules: &MorrisRules,
    x: Point,
    mover: PointSet,
    opponent: PointSet,
    targets: impl FnOnce() -> PointSet,
) -> CaptureOptions {
    let lines = point_lines(rules, x);
    let (m, o) = (mover.bits(), opponent.bits());
    let closed = |others: &u32| others & !m == 0;
    let lines_through = lines.mill_others[..lines.mills as usize].iter();
    // Taking one capture, whether a mill closed is all that matters.
    let mills = match rules.several_captures {
        SeveralCaptures::One => u32::from(lines_through.clone().any(closed)),
        SeveralCaptures::All => lines_through.filter(|o| closed(o)).count() as u32,
    };
    let targets = if mills > 0 && o != 0 {
        targets().bits()
    } else {
        0
    };
    let gang = if rules.gang && lines.gang_middle & o != 0 && lines.gang_far & m != 0 {
        lines.gang_middle
    } else {
        0
    };
    let dan = if rules.dan && lines.dan_corners != 0 && o & lines.dan_corners == lines.dan_corners {
        lines.dan_corners
    } else {
        0
    };
    match rules.several_captures {
        SeveralCaptures::One => {
            let (singles, pair) = match rules.dan_takes {
                DanTakes::Both => (targets | gang, dan),
                DanTakes::One => (targets | gang | dan, 0),
            };
            CaptureOptions {
                forced: PointSet::EMPTY,
                singles: PointSet(singles),
                picks: 1,
                pair: PointSet(pair),
            }
        }
        // (Rules files refuse a 擔 taking one corner here.)
        SeveralCaptures::All => {
            let forced = gang | dan;
            CaptureOptions {
                forced: PointSet(forced),
                singles: PointSet(targets & !forced),
                picks: mills,
                pair: PointSet::EMPTY,
            }
        }
    }
}

/// Whether a piece arriving on `x` opens any capture: what
/// [`capture_options`] answers with a non-empty set, without listing it.
#[inline]
pub fn can_capture(rules: &MorrisRules, x: Point, mover: PointSet, opponent: PointSet) -> bool {
    let lines = point_lines(rules, x);
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

/// Where a piece arriving opens a capture against one opponent's set
/// ([`can_capture`] of every empty point at once), its lines sorted out
/// once: the lines the opponent blocks dropped, its
/// 擔 points and the 槓 ends it opens found, so that each mover's set
/// costs a pass over what is left (a placement check asks for every
/// position of a run, the opponent's set the same).
#[derive(Debug, Clone)]
pub struct Openings {
    /// Lines without a piece of the opponent's, as sets: a mill closes on
    /// the third point of one holding two of the mover's. None when the
    /// opponent has no piece (a mill would find no target).
    open_lines: [u32; 20],
    open_count: usize,
    /// Points whose 擔 captures, whatever the mover holds.
    dan: u32,
    /// 槓 ends whose middle is the opponent's, each with its far end: the
    /// end opens once the mover holds the far end.
    gang: [(u32, u32); 16],
    gang_count: usize,
}

impl Openings {
    pub fn new(rules: &MorrisRules, opponent: PointSet) -> Openings {
        let o = opponent.bits();
        let mut openings = Openings {
            open_lines: [0; 20],
            open_count: 0,
            dan: 0,
            gang: [(0, 0); 16],
            gang_count: 0,
        };
        for line in rules.lines() {
            let [a, b, c] = line.points.map(|p| p.set().bits());
            let all = line.set().bits();
            if o != 0 && all & o == 0 {
                openings.open_lines[openings.open_count] = all;
                openings.open_count += 1;
            }
            match line.kind {
                LineKind::Side => {
                    if rules.dan && o & (a | c) == a | c {
                        openings.dan |= b;
                    }
                }
                LineKind::Midline | LineKind::Diagonal => {
                    if rules.gang && o & b != 0 {
                        openings.gang[openings.gang_count] = (a, c);
                        openings.gang[openings.gang_count + 1] = (c, a);
                        openings.gang_count += 2;
                    }
                }
            }
        }
        openings
    }

    /// The points of `empty` where a piece of `mover` arriving opens a
    /// capture.
    #[inline]
    pub fn of(&self, mover: PointSet, empty: PointSet) -> PointSet {
        let m = mover.bits();
        let mut open = self.dan;
        for &line in &self.open_lines[..self.open_count] {
            if (line & m).count_ones() == 2 {
                open |= line & !m;
            }
        }
        for &(end, far) in &self.gang[..self.gang_count] {
            if far & m != 0 {
                open |= end;
            }
        }
        PointSet(open).intersection(empty)
    }
}

/// Whether a piece arriving on `x` closes a mill of `mover` (which already
/// holds it), whatever it could take.
#[inline]
pub fn closes_mill(rules: &MorrisRules, x: Point, mover: PointSet) -> bool {
    let lines = point_lines(rules, x);
    lines.mill_others[..lines.mills as usize]
        .iter()
        .any(|&others| others & !mover.bits() == 0)
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
    reach(rules, from, rules.flies(count), empty)
}

/// The points a piece on `from` may move to: any empty one when its side
/// `flies`, else the empty neighbours.
#[inline]
pub fn reach(rules: &MorrisRules, from: Point, flies: bool, empty: PointSet) -> PointSet {
    const WITH: [PointSet; POINTS] = adjacency(true);
    const WITHOUT: [PointSet; POINTS] = adjacency(false);
    if flies {
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
        /// Removals are the forced pieces with every choice of picks from
        /// the singles (all of them when fewer), then the pair; each once.
        #[test]
        fn removals_are_every_choice_of_picks(
            forced in prop_oneof![Just(0u32), 0u32..1 << 24],
            singles in 0u32..1 << 24,
            picks in 0u32..4,
            pair in prop_oneof![Just(0u32), 0u32..1 << 24],
        ) {
            let singles = singles & !forced & 0x0f0f0f;
            let options = CaptureOptions {
                forced: PointSet(forced),
                singles: PointSet(singles),
                picks,
                pair: PointSet(pair),
            };
            let mut expected: Vec<u32> = Vec::new();
            let take = picks.min(singles.count_ones());
            // Brute force over every subset of the singles.
            let mut subset = singles;
            loop {
                if subset.count_ones() == take && (take > 0 || forced != 0) {
                    expected.push(forced | subset);
                }
                if subset == 0 {
                    break;
                }
                subset = (subset - 1) & singles;
            }
            if pair != 0 {
                expected.push(pair);
            }
            let mut got: Vec<u32> = options.removals().map(PointSet::bits).collect();
            prop_assert_eq!(got.len(), expected.len());
            got.sort_unstable();
            expected.sort_unstable();
            prop_assert_eq!(got, expected);
            prop_assert_eq!(options.is_empty(), options.removals().next().is_none());
        }

        /// Every rules' openings, taken line by line, are the empty
        /// points `can_capture` says yes to, one by one.
        #[test]
        fn openings_are_can_capture_point_by_point(
            taiwan in any::<bool>(),
            diagonals in any::<bool>(),
            mover in 0u32..1 << 24,
            opponent in 0u32..1 << 24,
            sparse in any::<[u32; 2]>(),
        ) {
            let rules = if taiwan { MorrisRules::taiwan(9) } else { MorrisRules::standard(9) };
            let rules = MorrisRules { diagonals, ..rules };
            for rules in [rules, rules.in_phase(true), rules.in_phase(false)] {
                // Boards of every fullness: thinned by random masks.
                let mover = PointSet(mover & (sparse[0] | sparse[1]));
                let opponent = PointSet(opponent & sparse[0]).minus(mover);
                let empty = mover.union(opponent).complement();
                let one_by_one: Vec<Point> = empty
                    .iter()
                    .filter(|&x| can_capture(&rules, x, mover.with(x), opponent))
                    .collect();
                let openings: Vec<Point> = Openings::new(&rules, opponent).of(mover, empty).iter().collect();
                prop_assert_eq!(openings, one_by_one);
            }
        }

        #[test]
        fn can_capture_says_whether_there_are_options(
            taiwan in any::<bool>(),
            take_all in any::<bool>(),
            x in 0u8..24,
            mover in 0u32..1 << 24,
            opponent in 0u32..1 << 24,
        ) {
            let rules = if taiwan { MorrisRules::taiwan(9) } else { MorrisRules::standard(9) };
            let several_captures = if take_all { SeveralCaptures::All } else { SeveralCaptures::One };
            let rules = MorrisRules { several_captures, ..rules };
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
