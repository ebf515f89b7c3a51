//! Burnside's count of the symmetry classes of a table, from the cycles of
//! each symmetry: an independent check of the index's canonical entries.

use super::board::POINTS;
use super::index::TableKey;
use super::symmetry::{BOARD_SYMMETRIES, SYMMETRIES};

/// Positions of the table that symmetry `s` leaves unchanged: both sides'
/// sets must be unions of the symmetry's cycles.
pub fn fixed_positions(key: TableKey, s: usize) -> u64 {
    let sym = &*BOARD_SYMMETRIES;
    let mut seen = [false; POINTS];
    // ways[m][o][parity of pieces on odd points]
    let (m, o) = (key.mover as usize, key.opponent as usize);
    let mut ways = vec![vec![[0u64; 2]; o + 1]; m + 1];
    ways[0][0][0] = 1;
    for start in 0..POINTS {
        if seen[start] {
            continue;
        }
        let mut len = 0;
        let mut p = start;
        while !seen[p] {
            seen[p] = true;
            len += 1;
            p = sym.point(s, p);
        }
        // Symmetries keep point parity, so a cycle is all odd or all even.
        let flips = usize::from(start % 2 == 1 && len % 2 == 1);
        let mut next = vec![vec![[0u64; 2]; o + 1]; m + 1];
        for a in 0..=m {
            for b in 0..=o {
                for parity in 0..2 {
                    let w = ways[a][b][parity];
                    if w == 0 {
                        continue;
                    }
                    next[a][b][parity] += w;
                    if a + len <= m {
                        next[a + len][b][parity ^ flips] += w;
                    }
                    if b + len <= o {
                        next[a][b + len][parity ^ flips] += w;
                    }
                }
            }
        }
        ways = next;
    }
    match key.parity {
        Some(p) => ways[m][o][p as usize],
        None => ways[m][o][0] + ways[m][o][1],
    }
}

/// Arrangements of the table and its symmetry classes by Burnside's lemma;
/// `None` when the sum does not divide (a broken symmetry table).
pub fn class_count(key: TableKey) -> Option<(u64, u64)> {
    let arrangements = fixed_positions(key, 0);
    let total: u64 = (0..SYMMETRIES).map(|s| fixed_positions(key, s)).sum();
    (total % SYMMETRIES as u64 == 0).then_some((arrangements, total / SYMMETRIES as u64))
}

#[cfg(test)]
mod tests {
    use super::super::index::TableIndex;
    use super::*;

    #[test]
    fn three_against_three_matches_rules_md() {
        let key = TableKey {
            mover: 3,
            opponent: 3,
            parity: None,
        };
        assert_eq!(class_count(key), Some((2_691_920, 169_626)));
    }

    #[test]
    fn index_classes_equal_burnside_for_small_tables() {
        for m in 0..=12u32 {
            for o in 0..=12u32 {
                for parity in [None, Some(0), Some(1)] {
                    let key = TableKey {
                        mover: m,
                        opponent: o,
                        parity,
                    };
                    if m + o > 24 {
                        continue;
                    }
                    let index = TableIndex::new(key);
                    if index.len() > 400_000 {
                        continue;
                    }
                    let (mut classes, mut arrangements) = (0u64, 0u64);
                    index.for_each_entry(|_, e| {
                        if e.canonical {
                            classes += 1;
                            arrangements += u64::from(e.class_size);
                        }
                    });
                    assert_eq!(class_count(key), Some((arrangements, classes)), "{key:?}");
                }
            }
        }
    }

    /// Every slice of every preset at 3 and 4 pieces: its positions (from
    /// Burnside) are the arrangements its index's classes stand for.
    #[test]
    fn slice_positions_equal_index_class_sizes_for_every_preset() {
        use super::super::{MorrisGame, Variant};
        for variant in Variant::ALL {
            for pieces in [3, 4] {
                let game = MorrisGame::new(variant, pieces);
                for ((slice, _), info) in game.plan().into_iter().zip(game.slices()) {
                    let mut arrangements = 0u64;
                    for key in slice.tables() {
                        TableIndex::new(key).for_each_entry(|_, e| {
                            if e.canonical {
                                arrangements += u64::from(e.class_size);
                            }
                        });
                    }
                    assert_eq!(arrangements, info.positions, "{variant:?} {}", info.id);
                }
            }
        }
    }
}
