//! How the game's symmetries act on the slice layout when the word block
//! and both halves of the outer cells are unions of orbits: a symmetry then
//! maps a row (high half) to a row, a low half to a low half and the lanes
//! of a word among themselves, so tables can keep one row of each orbit.

use std::collections::HashMap;

use super::cellmap::CellMap;
use super::{NimLayout, Row, SymmetryGroup};

/// The symmetries as maps of high halves, low halves and lanes.
#[derive(Debug, Clone)]
pub struct RowSymmetry {
    high: Vec<CellMap>,
    low: Vec<CellMap>,
    /// `lanes[g][l]`: the lane that lane `l` goes to.
    lanes: Vec<Vec<u8>>,
}

impl RowSymmetry {
    /// `None` when some symmetry moves a cell between the block and the
    /// halves, or between the halves.
    pub fn new(layout: &NimLayout, symmetry: &SymmetryGroup) -> Option<RowSymmetry> {
        let w = layout.word_bits();
        let low_bits = layout.low_bits();
        let outer = layout.outer_cells().len() as u32;
        let part_of = |bit: u32| match bit {
            b if b < w => 0,
            b if b < w + low_bits => 1,
            _ => 2,
        };
        let (mut high, mut low, mut lanes) = (Vec::new(), Vec::new(), Vec::new());
        for g in 0..symmetry.len() {
            // Where packed bit `b` goes under g, in packed bits.
            let image: Vec<u32> = (0..w + outer)
                .map(|b| {
                    layout
                        .pack(symmetry.apply(g, layout.unpack(1 << b)))
                        .trailing_zeros()
                })
                .collect();
            if image
                .iter()
                .enumerate()
                .any(|(b, &i)| part_of(b as u32) != part_of(i))
            {
                return None;
            }
            let shifted = |from: u32, len: u32| -> Vec<u32> {
                (from..from + len)
                    .map(|b| image[b as usize] - from)
                    .collect()
            };
            low.push(CellMap::new(&shifted(w, low_bits)));
            high.push(CellMap::new(&shifted(w + low_bits, outer - low_bits)));
            let block = CellMap::new(&shifted(0, w));
            lanes.push((0..1u64 << w).map(|l| block.apply(l) as u8).collect());
        }
        Some(RowSymmetry { high, low, lanes })
    }

    /// Symmetries in the group (index 0 is the identity).
    pub fn len(&self) -> usize {
        self.high.len()
    }

    pub fn is_empty(&self) -> bool {
        self.high.is_empty()
    }

    /// The image of a high half under symmetry `g`.
    #[inline]
    pub fn high(&self, g: usize, high: u64) -> u64 {
        self.high[g].apply(high)
    }

    /// The image of a low half under symmetry `g`.
    #[inline]
    pub fn low(&self, g: usize, low: u64) -> u64 {
        self.low[g].apply(low)
    }

    /// The lane that lane `l` goes to under symmetry `g`.
    #[inline]
    pub fn lane(&self, g: usize, l: u32) -> u32 {
        self.lanes[g][l as usize] as u32
    }

    /// Words kept of each slice (see [`KeptRows`]), without listing rows.
    pub fn kept_words(&self, layout: &NimLayout) -> Vec<u64> {
        let high_bits = layout.outer_cells().len() as u32 - layout.low_bits();
        let mut words = vec![0u64; layout.slice_count() as usize];
        for high in 0..1u64 << high_bits {
            if self.kept_row(high).0 != high {
                continue;
            }
            let a = high.count_ones();
            for b in 0..=layout.low_bits() {
                words[(a + b) as usize] += layout.binomial(layout.low_bits(), b);
            }
        }
        words
    }

    /// The row kept for `high`'s orbit (its smallest image) and a symmetry
    /// that maps `high` to it.
    #[inline]
    pub fn kept_row(&self, high: u64) -> (u64, usize) {
        (0..self.len())
            .map(|g| (self.high(g, high), g))
            .min()
            .unwrap_or((high, 0))
    }
}

/// The rows a table keeps: one row of each orbit of high halves (its
/// smallest image), each whole, slice by slice in word order.
#[derive(Debug, Clone)]
pub struct KeptRows {
    slices: Vec<KeptSlice>,
}

/// The kept rows of one slice; their `first_word` counts kept words.
#[derive(Debug, Clone, Default)]
pub struct KeptSlice {
    pub rows: Vec<Row>,
    start: HashMap<u64, u64>,
    pub words: u64,
}

impl KeptSlice {
    /// First kept word of the row `high`, if it is kept.
    #[inline]
    pub fn start(&self, high: u64) -> Option<u64> {
        self.start.get(&high).copied()
    }
}

impl KeptRows {
    pub fn new(layout: &NimLayout, symmetry: &RowSymmetry) -> KeptRows {
        let slices = (0..layout.slice_count())
            .map(|h| {
                let mut slice = KeptSlice::default();
                for row in layout.rows(h) {
                    if symmetry.kept_row(row.high).0 == row.high {
                        slice.start.insert(row.high, slice.words);
                        slice.rows.push(Row {
                            first_word: slice.words,
                            ..row
                        });
                        slice.words += row.len;
                    }
                }
                slice
            })
            .collect();
        KeptRows { slices }
    }

    pub fn slice(&self, h: u32) -> &KeptSlice {
        &self.slices[h as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nim::{triangle, NimGame};
    use crate::GameSpec;
    use proptest::prelude::*;

    #[test]
    fn triangles_and_the_hexagram_have_rows_closed_under_symmetry() {
        for layers in 3..=9 {
            let game = triangle(layers);
            let rows = RowSymmetry::new(game.layout(), game.symmetry());
            assert!(rows.is_some(), "{layers} layers");
            assert_eq!(rows.unwrap().len(), 6);
        }
        let hexagram = NimGame::from_spec(&GameSpec::NimHexagram).unwrap();
        assert!(RowSymmetry::new(hexagram.layout(), hexagram.symmetry()).is_some());
    }

    #[test]
    fn eight_layers_keep_a_full_low_half() {
        let game = triangle(8);
        assert_eq!(game.layout().low_bits(), 15);
    }

    #[test]
    fn kept_rows_cover_each_orbit_once() {
        let game = triangle(7);
        let layout = game.layout();
        let rows = RowSymmetry::new(layout, game.symmetry()).unwrap();
        let kept = KeptRows::new(layout, &rows);
        for h in 0..layout.slice_count() {
            let slice = kept.slice(h);
            let mut covered = std::collections::HashSet::new();
            for row in &slice.rows {
                for g in 0..rows.len() {
                    covered.insert(rows.high(g, row.high));
                }
                assert_eq!(slice.start(row.high), Some(row.first_word));
            }
            assert_eq!(covered.len(), layout.rows(h).count(), "slice {h}");
            assert_eq!(slice.words, slice.rows.iter().map(|r| r.len).sum::<u64>());
            assert_eq!(slice.words, rows.kept_words(layout)[h as usize]);
        }
    }

    #[test]
    fn eight_layers_keep_about_a_sixth_of_the_words() {
        let game = triangle(8);
        let layout = game.layout();
        let kept = KeptRows::new(layout, &RowSymmetry::new(layout, game.symmetry()).unwrap());
        let all: u64 = (0..layout.slice_count()).map(|h| layout.words(h)).sum();
        let kept_words: u64 = (0..layout.slice_count()).map(|h| kept.slice(h).words).sum();
        assert!(
            kept_words * 11 < all * 2,
            "{kept_words} of {all} words kept"
        );
    }

    proptest! {
        /// A position's image, found row by row, is where the symmetry
        /// sends the position itself.
        #[test]
        fn images_agree_with_the_symmetry(layers in 3u32..=8, seed in any::<u64>(), g in 0usize..6) {
            let game = triangle(layers);
            let layout = game.layout();
            let rows = RowSymmetry::new(layout, game.symmetry()).unwrap();
            let position = seed & ((1u64 << game.cells()) - 1);
            let w = layout.word_bits();
            let packed = layout.pack(position);
            let lane = (packed & ((1 << w) - 1)) as u32;
            let outer = packed >> w;
            let (low, high) = (outer & ((1 << layout.low_bits()) - 1), outer >> layout.low_bits());
            let image = layout.pack(game.symmetry().apply(g, position));
            let expected_outer = (rows.high(g, high) << layout.low_bits()) | rows.low(g, low);
            prop_assert_eq!(image >> w, expected_outer);
            prop_assert_eq!((image & ((1 << w) - 1)) as u32, rows.lane(g, lane));
            let (kept, to) = rows.kept_row(high);
            prop_assert_eq!(rows.high(to, high), kept);
            prop_assert!((0..6).all(|h| rows.high(h, high) >= kept));
        }
    }
}
