//! How the positions of a take-away game are laid out in slices and words.
//!
//! A position is a mask of the cells that still hold a stone. Up to six cells
//! form the **word block**: the 64 subsets of the block are the 64 bits of one
//! machine word, so that a move is a shift and a mask on whole words. The
//! other (**outer**) cells pick the word. A **slice** holds every word whose
//! outer cells keep `h` stones; a move either removes outer stones (it reads
//! a slice with fewer) or stays inside one word.
//!
//! Inside a slice the outer masks are split into a high and a low half (the
//! low half takes up to [`MAX_LOW_BITS`] cells); words
//! are ordered by the high half's stone count, then by the colex rank of the
//! high half, then by the colex rank of the low half. Both ranks come from
//! tables, so locating the word of a move's result costs one lookup and an add.

use super::cellmap::CellMap;

/// Cells in a word block at most: 2^6 = 64 bits.
pub const MAX_WORD_CELLS: u32 = 6;

/// Cells of the low half at most: a row then has at most C(15, 7) words,
/// so word numbers within a row fit 16 bits.
pub const MAX_LOW_BITS: u32 = 15;

/// The slot of one position: slice, word in the slice, bit in the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slot {
    pub slice: u32,
    pub word: u64,
    pub bit: u32,
}

/// A run of words of one slice that share the high half of their outer mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// Stones in the high half.
    pub high_stones: u32,
    /// The high half, as a mask of high-half bits.
    pub high: u64,
    /// First word of the row in its slice.
    pub first_word: u64,
    /// Words in the row: one per low half with `h - high_stones` stones.
    pub len: u64,
}

/// The slice/word/bit layout of one game; see the module docs.
#[derive(Debug, Clone)]
pub struct NimLayout {
    cells: u32,
    word_cells: Vec<u32>,
    outer_cells: Vec<u32>,
    to_packed: CellMap,
    from_packed: CellMap,
    low_bits: u32,
    high_bits: u32,
    low: RankTable,
    high: RankTable,
    binomial: Vec<Vec<u64>>,
    /// `row_base[h][a]`: first word of slice `h` whose high half has `a` stones.
    row_base: Vec<Vec<u64>>,
}

impl NimLayout {
    /// A layout with the given word block (at most six cells).
    pub fn new(cells: u32, word_cells: &[u32]) -> NimLayout {
        NimLayout::with_low_half(cells, word_cells, &[])
    }

    /// A layout whose low half starts with the cells `low_first` (the other
    /// outer cells follow in index order).
    pub fn with_low_half(cells: u32, word_cells: &[u32], low_first: &[u32]) -> NimLayout {
        // Games are validated to at most 63 cells; blocks are chosen by
        // `choose_word_block` with at most six.
        debug_assert!(word_cells.len() as u32 <= MAX_WORD_CELLS && cells <= 63);
        let word_cells = word_cells.to_vec();
        let outer_cells: Vec<u32> = low_first
            .iter()
            .copied()
            .chain((0..cells).filter(|c| !word_cells.contains(c) && !low_first.contains(c)))
            .collect();
        let mut target = vec![0u32; cells as usize];
        for (bit, &c) in word_cells.iter().chain(&outer_cells).enumerate() {
            target[c as usize] = bit as u32;
        }
        let mut source = vec![0u32; cells as usize];
        for (c, &bit) in target.iter().enumerate() {
            source[bit as usize] = c as u32;
        }
        let outer = outer_cells.len() as u32;
        // A long low half gives long rows: long streams through source rows.
        let low_bits = outer.min(MAX_LOW_BITS);
        let high_bits = outer - low_bits;
        let binomial = binomials(64);
        let mut row_base = vec![vec![0u64; high_bits as usize + 2]; outer as usize + 1];
        for (h, bases) in row_base.iter_mut().enumerate() {
            let mut total = 0;
            for a in 0..=high_bits as usize {
                bases[a] = total;
                if h >= a && h - a <= low_bits as usize {
                    total += binomial[high_bits as usize][a] * binomial[low_bits as usize][h - a];
                }
            }
            bases[high_bits as usize + 1] = total;
        }
        NimLayout {
            cells,
            to_packed: CellMap::new(&target),
            from_packed: CellMap::new(&source),
            word_cells,
            outer_cells,
            low_bits,
            high_bits,
            low: RankTable::new(low_bits),
            high: RankTable::new(high_bits),
            binomial,
            row_base,
        }
    }

    pub fn cells(&self) -> u32 {
        self.cells
    }

    pub fn word_cells(&self) -> &[u32] {
        &self.word_cells
    }

    pub fn outer_cells(&self) -> &[u32] {
        &self.outer_cells
    }

    /// Cells in the word block; a word holds `1 << word_bits()` positions.
    pub fn word_bits(&self) -> u32 {
        self.word_cells.len() as u32
    }

    pub fn low_bits(&self) -> u32 {
        self.low_bits
    }

    /// Slices of the game: `0..=outer cells`.
    pub fn slice_count(&self) -> u32 {
        self.outer_cells.len() as u32 + 1
    }

    /// Words in slice `h`.
    pub fn words(&self, h: u32) -> u64 {
        self.binomial[self.outer_cells.len()][h as usize]
    }

    pub fn binomial(&self, n: u32, k: u32) -> u64 {
        if k > n {
            0
        } else {
            self.binomial[n as usize][k as usize]
        }
    }

    /// A position's mask in packed form: word cells in bits `0..w`, outer
    /// cells above.
    #[inline]
    pub fn pack(&self, mask: u64) -> u64 {
        self.to_packed.apply(mask)
    }

    #[inline]
    pub fn unpack(&self, packed: u64) -> u64 {
        self.from_packed.apply(packed)
    }

    /// Where a position lives.
    pub fn locate(&self, mask: u64) -> Slot {
        let packed = self.pack(mask);
        let w = self.word_bits();
        let outer = packed >> w;
        let low_mask = (1u64 << self.low_bits) - 1;
        Slot {
            slice: outer.count_ones(),
            word: self.word_index(outer >> self.low_bits, outer & low_mask),
            bit: (packed & ((1u64 << w) - 1)) as u32,
        }
    }

    /// The word index of an outer mask given as its two halves.
    #[inline]
    pub fn word_index(&self, high: u64, low: u64) -> u64 {
        let a = high.count_ones();
        let b = low.count_ones();
        let h = (a + b) as usize;
        self.row_base[h][a as usize]
            + self.high.rank(high) * self.binomial[self.low_bits as usize][b as usize]
            + self.low.rank(low)
    }

    /// First word of the row of slice `h` whose high half is `high`.
    #[inline]
    pub fn row_start(&self, h: u32, high: u64) -> u64 {
        let a = high.count_ones();
        self.row_base[h as usize][a as usize]
            + self.high.rank(high) * self.binomial[self.low_bits as usize][(h - a) as usize]
    }

    /// Colex rank of a low half among the low halves with as many stones.
    #[inline]
    pub fn low_rank(&self, low: u64) -> u64 {
        self.low.rank(low)
    }

    /// The low halves with `stones` stones, in rank order.
    pub fn low_halves(&self, stones: u32) -> &[u32] {
        self.low.unrank(stones)
    }

    /// The position in a slot (packed bits translated back to cells).
    pub fn position(&self, slice: u32, word: u64, bit: u32) -> u64 {
        let row = self.row_of(slice, word);
        let low = self.low.unrank(slice - row.high_stones)[(word - row.first_word) as usize] as u64;
        let outer = (row.high << self.low_bits) | low;
        self.unpack((outer << self.word_bits()) | bit as u64)
    }

    fn row_of(&self, h: u32, word: u64) -> Row {
        let bases = &self.row_base[h as usize];
        let a = (0..=self.high_bits as usize)
            .rev()
            .find(|&a| bases[a] <= word && bases[a + 1] > word)
            .unwrap_or(0) as u32;
        let len = self.binomial[self.low_bits as usize][(h - a) as usize];
        let r = (word - bases[a as usize]) / len;
        Row {
            high_stones: a,
            high: self.high.unrank(a)[r as usize] as u64,
            first_word: bases[a as usize] + r * len,
            len,
        }
    }

    /// Every row of slice `h`, in word order.
    pub fn rows(&self, h: u32) -> impl Iterator<Item = Row> + '_ {
        let low_bits = self.low_bits;
        (0..=self.high_bits.min(h))
            .filter(move |a| h - a <= low_bits)
            .flat_map(move |a| {
                let len = self.binomial[low_bits as usize][(h - a) as usize];
                let base = self.row_base[h as usize][a as usize];
                self.high
                    .unrank(a)
                    .iter()
                    .enumerate()
                    .map(move |(r, &high)| Row {
                        high_stones: a,
                        high: high as u64,
                        first_word: base + r as u64 * len,
                        len,
                    })
            })
    }
}

/// Colex ranks of all masks of `bits` bits among those with as many ones.
#[derive(Debug, Clone)]
struct RankTable {
    rank: Vec<u32>,
    unrank: Vec<Vec<u32>>,
}

impl RankTable {
    fn new(bits: u32) -> RankTable {
        let mut rank = vec![0u32; 1usize << bits];
        let mut unrank = vec![Vec::new(); bits as usize + 1];
        // Numeric order within one popcount is colex order.
        for (mask, r) in rank.iter_mut().enumerate() {
            let ones = &mut unrank[mask.count_ones() as usize];
            *r = ones.len() as u32;
            ones.push(mask as u32);
        }
        RankTable { rank, unrank }
    }

    #[inline]
    fn rank(&self, mask: u64) -> u64 {
        self.rank[mask as usize] as u64
    }

    fn unrank(&self, ones: u32) -> &[u32] {
        &self.unrank[ones as usize]
    }
}

fn binomials(n: usize) -> Vec<Vec<u64>> {
    let mut c = vec![vec![0u64; n + 1]; n + 1];
    for i in 0..=n {
        c[i][0] = 1;
        for k in 1..=i {
            c[i][k] = c[i - 1][k - 1].saturating_add(c[i - 1][k]);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn layout() -> NimLayout {
        NimLayout::new(15, &[2, 5, 7, 9, 11, 14])
    }

    #[test]
    fn slices_cover_every_position_once() {
        let layout = layout();
        let total: u64 = (0..layout.slice_count())
            .map(|h| layout.words(h) << layout.word_bits())
            .sum();
        assert_eq!(total, 1 << 15);
        let mut seen = std::collections::HashSet::new();
        for mask in 0..1u64 << 15 {
            let slot = layout.locate(mask);
            assert!(slot.word < layout.words(slot.slice));
            assert!(seen.insert((slot.slice, slot.word, slot.bit)));
        }
    }

    #[test]
    fn rows_tile_each_slice() {
        let layout = layout();
        for h in 0..layout.slice_count() {
            let mut next = 0;
            for row in layout.rows(h) {
                assert_eq!(row.first_word, next);
                assert_eq!(layout.row_start(h, row.high), row.first_word);
                next += row.len;
            }
            assert_eq!(next, layout.words(h));
        }
    }

    proptest! {
        #[test]
        fn locate_and_position_round_trip(mask in 0u64..1 << 15) {
            let layout = layout();
            let slot = layout.locate(mask);
            prop_assert_eq!(layout.position(slot.slice, slot.word, slot.bit), mask);
        }

        #[test]
        fn pack_round_trips(mask in 0u64..1 << 15) {
            let layout = layout();
            prop_assert_eq!(layout.unpack(layout.pack(mask)), mask);
        }
    }
}
