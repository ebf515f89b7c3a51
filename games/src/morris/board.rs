//! The 24-point board: points, point sets, lines and adjacency.
//!
//! Points use the internal numbering of RULES.md §1 (each square walked
//! clockwise from its top-left corner: outer 0-7, inner 8-15, middle 16-23),
//! the numbering the symmetry table is written in. The notation order
//! (`a1 d1 g1 b2 …`) is kept apart, in [`NOTATION_ORDER`].

use std::fmt;

/// Points on the board.
pub const POINTS: usize = 24;

/// One of the 24 points, by its internal number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point(u8);

impl Point {
    /// The point with internal number `n`, if there is one.
    pub const fn new(n: u8) -> Option<Point> {
        if (n as usize) < POINTS {
            Some(Point(n))
        } else {
            None
        }
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Whether the internal number is odd; adjacent points differ in this.
    pub const fn is_odd(self) -> bool {
        self.0 & 1 == 1
    }

    pub const fn set(self) -> PointSet {
        PointSet(1 << self.0)
    }

    /// The point's name, e.g. `d2`.
    pub fn name(self) -> &'static str {
        NAMES[self.index()]
    }

    /// The point named `name` (`a1` … `g7`).
    pub fn from_name(name: &str) -> Option<Point> {
        NAMES
            .iter()
            .position(|&n| n == name)
            .map(|i| Point(i as u8))
    }

    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS as u8).map(Point)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Names of the points by internal number.
const NAMES: [&str; POINTS] = [
    "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4", // outer square
    "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4", // inner square
    "d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6", // middle square
];

/// The internal numbers of the points in notation order:
/// `a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7`.
pub const NOTATION_ORDER: [u8; POINTS] = [
    6, 5, 4, 21, 20, 19, 14, 13, 12, 7, 22, 15, 11, 18, 3, 8, 9, 10, 23, 16, 17, 0, 1, 2,
];

/// A set of points as a 24-bit mask (bit i = internal point i).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PointSet(pub u32);

impl PointSet {
    pub const EMPTY: PointSet = PointSet(0);
    pub const FULL: PointSet = PointSet((1 << POINTS) - 1);
    /// The points with an odd internal number.
    pub const ODD: PointSet = PointSet(0xAA_AAAA);

    pub const fn bits(self) -> u32 {
        self.0
    }

    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn contains(self, p: Point) -> bool {
        self.0 & (1 << p.0) != 0
    }

    pub const fn with(self, p: Point) -> PointSet {
        PointSet(self.0 | (1 << p.0))
    }

    pub const fn without(self, p: Point) -> PointSet {
        PointSet(self.0 & !(1 << p.0))
    }

    pub const fn union(self, other: PointSet) -> PointSet {
        PointSet(self.0 | other.0)
    }

    pub const fn intersection(self, other: PointSet) -> PointSet {
        PointSet(self.0 & other.0)
    }

    pub const fn minus(self, other: PointSet) -> PointSet {
        PointSet(self.0 & !other.0)
    }

    /// The points of the board not in this set.
    pub const fn complement(self) -> PointSet {
        PointSet(!self.0 & PointSet::FULL.0)
    }

    pub const fn is_subset(self, other: PointSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// The point with the lowest internal number, if any.
    pub const fn first(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point(self.0.trailing_zeros() as u8))
        }
    }

    /// Pieces standing on odd points.
    pub const fn odd_count(self) -> u32 {
        (self.0 & PointSet::ODD.0).count_ones()
    }

    pub fn iter(self) -> PointIter {
        PointIter(self.0)
    }
}

/// The points of a set in increasing internal number.
#[derive(Debug, Clone)]
pub struct PointIter(u32);

impl Iterator for PointIter {
    type Item = Point;

    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            return None;
        }
        let p = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Point(p))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for PointIter {}

impl FromIterator<Point> for PointSet {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> PointSet {
        iter.into_iter().fold(PointSet::EMPTY, PointSet::with)
    }
}

/// What kind of line three points form; the Taiwan captures depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A side of one square: corner, midpoint, corner.
    Side,
    /// A line crossing the squares through their side midpoints.
    Midline,
    /// A line crossing the squares through their corners (Taiwan only).
    Diagonal,
}

/// Three points in a row, the middle one in the middle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub kind: LineKind,
    pub points: [Point; 3],
}

impl Line {
    pub const fn middle(self) -> Point {
        self.points[1]
    }

    pub const fn ends(self) -> [Point; 2] {
        [self.points[0], self.points[2]]
    }

    pub const fn set(self) -> PointSet {
        PointSet((1 << self.points[0].0) | (1 << self.points[1].0) | (1 << self.points[2].0))
    }
}

const fn line(kind: LineKind, a: u8, b: u8, c: u8) -> Line {
    Line {
        kind,
        points: [Point(a), Point(b), Point(c)],
    }
}

/// Every line of the board: 12 sides, 4 midlines, then 4 diagonals.
pub const ALL_LINES: [Line; 20] = {
    use LineKind::*;
    [
        line(Side, 0, 1, 2),
        line(Side, 2, 3, 4),
        line(Side, 4, 5, 6),
        line(Side, 6, 7, 0),
        line(Side, 8, 9, 10),
        line(Side, 10, 11, 12),
        line(Side, 12, 13, 14),
        line(Side, 14, 15, 8),
        line(Side, 23, 16, 17),
        line(Side, 17, 18, 19),
        line(Side, 19, 20, 21),
        line(Side, 21, 22, 23),
        line(Midline, 1, 16, 9),
        line(Midline, 3, 18, 11),
        line(Midline, 5, 20, 13),
        line(Midline, 7, 22, 15),
        line(Diagonal, 0, 23, 8),
        line(Diagonal, 2, 17, 10),
        line(Diagonal, 4, 19, 12),
        line(Diagonal, 6, 21, 14),
    ]
};

/// The lines of a board with or without its diagonals.
pub fn lines(diagonals: bool) -> &'static [Line] {
    if diagonals {
        &ALL_LINES
    } else {
        &ALL_LINES[..16]
    }
}

/// For each point, the points adjacent to it (consecutive on a line).
pub const fn adjacency(diagonals: bool) -> [PointSet; POINTS] {
    let mut adjacent = [PointSet::EMPTY; POINTS];
    let count = if diagonals { 20 } else { 16 };
    let mut i = 0;
    while i < count {
        let [a, b, c] = ALL_LINES[i].points;
        adjacent[a.0 as usize].0 |= 1 << b.0;
        adjacent[b.0 as usize].0 |= (1 << a.0) | (1 << c.0);
        adjacent[c.0 as usize].0 |= 1 << b.0;
        i += 1;
    }
    adjacent
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_order_is_a_permutation_of_the_names() {
        let order: Vec<&str> = NOTATION_ORDER.iter().map(|&n| Point(n).name()).collect();
        assert_eq!(
            order.join(" "),
            "a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7"
        );
    }

    #[test]
    fn adjacency_counts_and_bipartite() {
        for (diagonals, pairs) in [(true, 40), (false, 32)] {
            let adjacent = adjacency(diagonals);
            let total: u32 = adjacent.iter().map(|s| s.len()).sum();
            assert_eq!(total, 2 * pairs);
            for p in Point::all() {
                for q in adjacent[p.index()].iter() {
                    assert!(adjacent[q.index()].contains(p), "symmetric");
                    assert_ne!(p.is_odd(), q.is_odd(), "{p}-{q} joins equal parity");
                }
            }
        }
    }

    #[test]
    fn points_lie_on_two_lines_plus_a_diagonal_at_corners() {
        for p in Point::all() {
            let on = |lines: &[Line]| lines.iter().filter(|l| l.set().contains(p)).count();
            assert_eq!(on(lines(false)), 2, "{p}");
            let corner = ALL_LINES[16..].iter().any(|l| l.set().contains(p));
            assert_eq!(on(lines(true)), 2 + usize::from(corner), "{p}");
        }
    }
}
