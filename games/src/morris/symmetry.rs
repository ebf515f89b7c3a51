//! The 16 symmetries of the board (RULES.md §1) and canonical forms.
//!
//! Each symmetry is applied to a point set through three 256-entry tables,
//! one per byte of the mask.

use std::sync::LazyLock;

use super::board::{PointSet, POINTS};

/// Number of board symmetries.
pub const SYMMETRIES: usize = 16;

/// The table of RULES.md §1 in cycle notation, Ω0 … Ω15.
const CYCLES: [&str; SYMMETRIES] = [
    "",
    "(0 2 4 6)(1 3 5 7)(8 10 12 14)(9 11 13 15)(16 18 20 22)(17 19 21 23)",
    "(0 4)(1 5)(2 6)(3 7)(8 12)(9 13)(10 14)(11 15)(16 20)(17 21)(18 22)(19 23)",
    "(0 6 4 2)(1 7 5 3)(8 14 12 10)(9 15 13 11)(16 22 20 18)(17 23 21 19)",
    "(0 2)(3 7)(4 6)(8 10)(11 15)(12 14)(17 23)(18 22)(19 21)",
    "(0 4)(1 3)(5 7)(8 12)(9 11)(13 15)(16 18)(19 23)(20 22)",
    "(0 6)(1 5)(2 4)(8 14)(9 13)(10 12)(16 20)(17 19)(21 23)",
    "(1 7)(2 6)(3 5)(9 15)(10 14)(11 13)(16 22)(17 21)(18 20)",
    "(0 8)(1 9)(2 10)(3 11)(4 12)(5 13)(6 14)(7 15)",
    "(0 10 4 14)(1 11 5 15)(2 12 6 8)(3 13 7 9)(16 18 20 22)(17 19 21 23)",
    "(0 12)(1 13)(2 14)(3 15)(4 8)(5 9)(6 10)(7 11)(16 20)(17 21)(18 22)(19 23)",
    "(0 14 4 10)(1 15 5 11)(2 8 6 12)(3 9 7 13)(16 22 20 18)(17 23 21 19)",
    "(0 10)(1 9)(2 8)(3 15)(4 14)(5 13)(6 12)(7 11)(17 23)(18 22)(19 21)",
    "(0 12)(1 11)(2 10)(3 9)(4 8)(5 15)(6 14)(7 13)(16 18)(19 23)(20 22)",
    "(0 14)(1 13)(2 12)(3 11)(4 10)(5 9)(6 8)(7 15)(16 20)(17 19)(21 23)",
    "(0 8)(1 15)(2 14)(3 13)(4 12)(5 11)(6 10)(7 9)(16 22)(17 21)(18 20)",
];

/// Image of each point under each symmetry.
fn permutations() -> [[u8; POINTS]; SYMMETRIES] {
    let mut perms = [[0u8; POINTS]; SYMMETRIES];
    for (perm, cycles) in perms.iter_mut().zip(CYCLES) {
        for (i, image) in perm.iter_mut().enumerate() {
            *image = i as u8;
        }
        for cycle in cycles.split(')').filter(|c| !c.is_empty()) {
            let points: Vec<u8> = cycle
                .trim_start_matches('(')
                .split(' ')
                .map(|n| n.parse().expect("the cycle table holds point numbers"))
                .collect();
            for (k, &p) in points.iter().enumerate() {
                perm[p as usize] = points[(k + 1) % points.len()];
            }
        }
    }
    perms
}

/// The symmetries, ready to apply to point sets.
pub struct Symmetries {
    perms: [[u8; POINTS]; SYMMETRIES],
    /// `bytes[s][k][v]`: image under `s` of byte `k` of a mask holding `v`.
    bytes: Box<[[[u32; 256]; 3]; SYMMETRIES]>,
    inverse: [u8; SYMMETRIES],
}

/// The board's symmetries, built once.
pub static BOARD_SYMMETRIES: LazyLock<Symmetries> = LazyLock::new(Symmetries::new);

impl Symmetries {
    fn new() -> Symmetries {
        let perms = permutations();
        let mut bytes = Box::new([[[0u32; 256]; 3]; SYMMETRIES]);
        for (s, perm) in perms.iter().enumerate() {
            for k in 0..3 {
                for v in 0..256usize {
                    bytes[s][k][v] = (0..8)
                        .filter(|b| v >> b & 1 == 1)
                        .map(|b| 1u32 << perm[8 * k + b])
                        .fold(0, |a, b| a | b);
                }
            }
        }
        let mut inverse = [0u8; SYMMETRIES];
        for (s, inv) in inverse.iter_mut().enumerate() {
            *inv = (0..SYMMETRIES)
                .find(|&t| (0..POINTS).all(|p| perms[t][perms[s][p] as usize] as usize == p))
                .expect("the symmetries form a group") as u8;
        }
        Symmetries {
            perms,
            bytes,
            inverse,
        }
    }

    /// The image of point `p` under symmetry `s`.
    pub fn point(&self, s: usize, p: usize) -> usize {
        self.perms[s][p] as usize
    }

    /// The image of a point set under symmetry `s`.
    #[inline]
    pub fn apply(&self, s: usize, set: PointSet) -> PointSet {
        let b = set.bits();
        let t = &self.bytes[s];
        PointSet(
            t[0][(b & 0xff) as usize] | t[1][(b >> 8 & 0xff) as usize] | t[2][(b >> 16) as usize],
        )
    }

    /// The symmetry that undoes `s`.
    pub fn inverse(&self, s: usize) -> usize {
        self.inverse[s] as usize
    }
}

/// The canonical form of a pair of point sets (the side to move's, the
/// other side's): the image with the smallest first set, ties broken by the
/// smallest second set; and the symmetry that gives it.
pub fn canonical_pair(mover: PointSet, opponent: PointSet) -> (PointSet, PointSet, usize) {
    let sym = &*BOARD_SYMMETRIES;
    let key =
        |s: usize| (sym.apply(s, mover).bits() as u64) << 24 | sym.apply(s, opponent).bits() as u64;
    let best = (0..SYMMETRIES).min_by_key(|&s| key(s)).unwrap_or(0);
    (sym.apply(best, mover), sym.apply(best, opponent), best)
}

#[cfg(test)]
mod tests {
    use super::super::board::{Point, ALL_LINES};
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn symmetries_map_lines_to_lines_of_the_same_kind() {
        let sym = &*BOARD_SYMMETRIES;
        for s in 0..SYMMETRIES {
            for line in ALL_LINES {
                let image = sym.apply(s, line.set());
                let same = ALL_LINES.iter().find(|l| l.set() == image);
                let same = same.unwrap_or_else(|| panic!("Ω{s} breaks a line"));
                assert_eq!(same.kind, line.kind, "Ω{s}");
                let middle = sym.point(s, line.middle().index());
                assert_eq!(middle, same.middle().index(), "Ω{s} moves a middle point");
            }
        }
    }

    #[test]
    fn symmetries_are_sixteen_distinct_and_closed() {
        let sym = &*BOARD_SYMMETRIES;
        let mut seen: Vec<[u8; POINTS]> = sym.perms.to_vec();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), SYMMETRIES);
        for a in 0..SYMMETRIES {
            for b in 0..SYMMETRIES {
                // The composition is one of the sixteen.
                let composed: Vec<usize> =
                    (0..POINTS).map(|p| sym.point(b, sym.point(a, p))).collect();
                assert!(
                    (0..SYMMETRIES).any(|c| (0..POINTS).all(|p| sym.point(c, p) == composed[p]))
                );
            }
        }
    }

    #[test]
    fn symmetries_keep_point_parity() {
        let sym = &*BOARD_SYMMETRIES;
        for s in 0..SYMMETRIES {
            for p in Point::all() {
                assert_eq!(sym.point(s, p.index()) % 2, p.index() % 2, "Ω{s}");
            }
        }
    }

    fn pair() -> impl Strategy<Value = (PointSet, PointSet)> {
        (0u32..1 << 24, 0u32..1 << 24).prop_map(|(a, b)| (PointSet(a), PointSet(b & !a)))
    }

    proptest! {
        #[test]
        fn canonical_form_is_idempotent_and_shared_by_all_images((m, o) in pair()) {
            let sym = &*BOARD_SYMMETRIES;
            let (cm, co, s) = canonical_pair(m, o);
            prop_assert_eq!((sym.apply(s, m), sym.apply(s, o)), (cm, co));
            let again = canonical_pair(cm, co);
            prop_assert_eq!((again.0, again.1), (cm, co));
            for t in 0..SYMMETRIES {
                let image = canonical_pair(sym.apply(t, m), sym.apply(t, o));
                prop_assert_eq!((image.0, image.1), (cm, co));
            }
        }

        #[test]
        fn inverse_undoes((m, _o) in pair(), s in 0usize..SYMMETRIES) {
            let sym = &*BOARD_SYMMETRIES;
            prop_assert_eq!(sym.apply(sym.inverse(s), sym.apply(s, m)), m);
        }
    }
}
