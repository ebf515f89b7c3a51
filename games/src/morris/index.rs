//! Perfect-enough indexing of Morris positions by symmetry class.
//!
//! A table holds the positions where the side to move has `m` pieces and the
//! other side `o` (and, where the slice splits by parity, a fixed parity of
//! pieces on odd points). Entry = (class of the mover's set, the opponent's
//! set among the free points): the mover's set is mapped to the smallest
//! image of its symmetry class (its *representative*), the opponent's set
//! goes along, and is then ranked among the free points, odd and even points
//! apart so that one parity can be kept alone. Where the representative has
//! symmetries of its own, the opponent's set takes its smallest image under
//! them; the other images stay in the table as "don't care" entries, so a
//! table is a little larger than its number of classes.

use std::sync::LazyLock;

use super::board::{PointSet, POINTS};
use super::symmetry::{BOARD_SYMMETRIES, SYMMETRIES};

/// Binomial coefficients up to 24.
const fn binomials() -> [[u64; POINTS + 1]; POINTS + 1] {
    let mut c = [[0u64; POINTS + 1]; POINTS + 1];
    let mut n = 0;
    while n <= POINTS {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    c
}

/// `BINOMIAL[n][k]` = n choose k.
pub const BINOMIAL: [[u64; POINTS + 1]; POINTS + 1] = binomials();

/// Colex rank of a mask among the masks with as many points, from one
/// table per byte: `BYTE_RANK[k][c][v]` is what byte `k` holding `v` adds
/// when `c` points lie in the bytes below it.
static BYTE_RANK: LazyLock<Box<[[[u32; 256]; POINTS + 1]; 3]>> = LazyLock::new(|| {
    let mut table = Box::new([[[0u32; 256]; POINTS + 1]; 3]);
    for (k, per_count) in table.iter_mut().enumerate() {
        for (c, row) in per_count.iter_mut().enumerate() {
            for (v, rank) in row.iter_mut().enumerate() {
                let mut i = c;
                for b in 0..8 {
                    if v >> b & 1 == 1 {
                        i += 1;
                        if i <= POINTS {
                            *rank += BINOMIAL[8 * k + b][i] as u32;
                        }
                    }
                }
            }
        }
    }
    table
});

/// Colex rank of `set` among the sets of its size.
#[inline]
pub fn mask_rank(set: PointSet) -> usize {
    let b = set.bits();
    let t = &*BYTE_RANK;
    let (b0, b1, b2) = (b & 0xff, b >> 8 & 0xff, b >> 16 & 0xff);
    let c1 = b0.count_ones() as usize;
    let c2 = c1 + b1.count_ones() as usize;
    (t[0][0][b0 as usize] + t[1][c1][b1 as usize] + t[2][c2][b2 as usize]) as usize
}

/// Every mover set's representative and the symmetry that maps it there.
struct Representatives {
    /// Per piece count, per colex rank of the set: representative number
    /// (within the piece count) << 4 | symmetry.
    of_rank: Vec<Vec<u32>>,
    /// Per piece count: the representatives in increasing order.
    reps: Vec<Vec<u32>>,
    /// Per piece count and representative: the symmetries that fix it (bit s).
    stabilizers: Vec<Vec<u16>>,
}

static REPRESENTATIVES: LazyLock<Representatives> = LazyLock::new(|| {
    let sym = &*BOARD_SYMMETRIES;
    let mut of_rank: Vec<Vec<u32>> = (0..=POINTS)
        .map(|m| vec![u32::MAX; BINOMIAL[POINTS][m] as usize])
        .collect();
    let mut reps = vec![Vec::new(); POINTS + 1];
    let mut stabilizers = vec![Vec::new(); POINTS + 1];
    for mask in 0..1u32 << POINTS {
        let count = mask.count_ones() as usize;
        if of_rank[count][mask_rank(PointSet(mask))] != u32::MAX {
            continue;
        }
        // The smallest member of a class is met first: it is the representative.
        let id = reps[count].len() as u32;
        let mut stabilizer = 0u16;
        for s in 0..SYMMETRIES {
            let image = sym.apply(s, PointSet(mask));
            if image.bits() == mask {
                stabilizer |= 1 << s;
            }
            let entry = &mut of_rank[count][mask_rank(image)];
            if *entry == u32::MAX {
                *entry = id << 4 | sym.inverse(s) as u32;
            }
        }
        reps[count].push(mask);
        stabilizers[count].push(stabilizer);
    }
    Representatives {
        of_rank,
        reps,
        stabilizers,
    }
});

/// Which positions a table holds: piece counts, and the parity of pieces on
/// odd points (`None`: both parities).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableKey {
    pub mover: u32,
    pub opponent: u32,
    pub parity: Option<u32>,
}

/// The index of one table: entry number ↔ (mover set, opponent set).
#[derive(Debug, Clone)]
pub struct TableIndex {
    key: TableKey,
    /// Entries before each representative (one more than representatives).
    offsets: Vec<u64>,
    /// Per odd-point count of the representative: entries before each odd-point
    /// count of the opponent.
    k_offsets: Vec<Vec<u64>>,
}

/// One entry, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub mover: PointSet,
    pub opponent: PointSet,
    /// Whether this entry is the class's own (not a duplicate kept for
    /// indexing only).
    pub canonical: bool,
    /// Arrangements in the class (16 / symmetries fixing the position).
    pub class_size: u32,
}

impl TableIndex {
    /// # Panics
    /// When the pieces do not fit the board.
    pub fn new(key: TableKey) -> TableIndex {
        let (m, o) = (key.mover as usize, key.opponent as usize);
        assert!(m + o <= POINTS, "{m} + {o} pieces do not fit the board");
        let all = &*REPRESENTATIVES;
        let k_offsets: Vec<Vec<u64>> = (0..=m)
            .map(|odd_mover| {
                let (fo, fe) = free_counts(m, odd_mover);
                let mut offsets = vec![0u64; o + 2];
                for k in 0..=o {
                    let size = if parity_allows(key.parity, odd_mover, k) && k <= fo && o - k <= fe
                    {
                        BINOMIAL[fo][k] * BINOMIAL[fe][o - k]
                    } else {
                        0
                    };
                    offsets[k + 1] = offsets[k] + size;
                }
                offsets
            })
            .collect();
        let mut offsets = Vec::with_capacity(all.reps[m].len() + 1);
        offsets.push(0);
        let mut total = 0;
        for &rep in &all.reps[m] {
            let odd_mover = PointSet(rep).odd_count() as usize;
            total += k_offsets[odd_mover][o + 1];
            offsets.push(total);
        }
        TableIndex {
            key,
            offsets,
            k_offsets,
        }
    }

    pub fn key(&self) -> TableKey {
        self.key
    }

    /// Entries of the table.
    pub fn len(&self) -> u64 {
        *self.offsets.last().unwrap_or(&0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entry of a position of this table (any symmetric image).
    ///
    /// # Panics
    /// In debug builds, when the position does not belong to the table.
    #[inline]
    pub fn index(&self, mover: PointSet, opponent: PointSet) -> u64 {
        self.index_in(&self.mover_class(mover), opponent)
    }

    /// What the entries of positions with this mover's set share; many
    /// successors of one position do (a placement or step leaves the other
    /// side's set as it was, and that side moves next).
    #[inline]
    pub fn mover_class(&self, mover: PointSet) -> MoverClass {
        let all = &*REPRESENTATIVES;
        let m = self.key.mover as usize;
        debug_assert_eq!(mover.len() as usize, m);
        let code = all.of_rank[m][mask_rank(mover)];
        let id = (code >> 4) as usize;
        let rep = PointSet(all.reps[m][id]);
        let free = rep.complement();
        let odd_free = free.intersection(PointSet::ODD);
        MoverClass {
            base: self.offsets[id],
            odd_mover: rep.odd_count() as usize,
            symmetry: (code & 15) as usize,
            stabilizer: all.stabilizers[m][id],
            odd_free: odd_free.bits(),
            even_free: free.minus(PointSet::ODD).bits(),
        }
    }

    /// The entry of the position (a mover's set in `class`, `opponent`).
    #[inline]
    pub fn index_in(&self, class: &MoverClass, opponent: PointSet) -> u64 {
        debug_assert_eq!(opponent.len(), self.key.opponent);
        let sym = &*BOARD_SYMMETRIES;
        let mut opp = sym.apply(class.symmetry, opponent);
        if class.stabilizer != 1 {
            opp = smallest_image(class.stabilizer, opp);
        }
        let odd_opp = opp.bits() & PointSet::ODD.bits();
        let even_opp = opp.bits() & !PointSet::ODD.bits();
        let k = odd_opp.count_ones() as usize;
        debug_assert!(
            parity_allows(self.key.parity, class.odd_mover, k),
            "wrong parity"
        );
        let fe = class.even_free.count_ones() as usize;
        let o = self.key.opponent as usize;
        class.base
            + self.k_offsets[class.odd_mover][k]
            + mask_rank(PointSet(pext(odd_opp, class.odd_free))) as u64 * BINOMIAL[fe][o - k]
            + mask_rank(PointSet(pext(even_opp, class.even_free))) as u64
    }

    /// The entry at `index` (< [`TableIndex::len`]).
    ///
    /// # Panics
    /// When `index` is out of range.
    pub fn entry(&self, index: u64) -> Entry {
        assert!(index < self.len(), "entry {index} of {}", self.len());
        let all = &*REPRESENTATIVES;
        let m = self.key.mover as usize;
        let o = self.key.opponent as usize;
        let id = self.offsets.partition_point(|&start| start <= index) - 1;
        let rep = PointSet(all.reps[m][id]);
        let odd_mover = rep.odd_count() as usize;
        let within = index - self.offsets[id];
        let k_offsets = &self.k_offsets[odd_mover];
        let k = k_offsets.partition_point(|&start| start <= within) - 1;
        let within = within - k_offsets[k];
        let free = rep.complement();
        let (odd_free, even_free) = (free.intersection(PointSet::ODD), free.minus(PointSet::ODD));
        let per_odd = BINOMIAL[even_free.len() as usize][o - k];
        let odd_opp = colex_unrank(within / per_odd, k, odd_free);
        let even_opp = colex_unrank(within % per_odd, o - k, even_free);
        self.describe(rep, odd_opp.union(even_opp), all.stabilizers[m][id])
    }

    /// Calls `visit(index, entry)` for every entry in order.
    pub fn for_each_entry(&self, mut visit: impl FnMut(u64, Entry)) {
        for id in 0..self.rep_count() {
            self.for_each_entry_of_rep(id, &mut visit);
        }
    }

    /// Representatives of the mover's set: the table is cut into one run of
    /// entries per representative.
    pub fn rep_count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The entries of representative `id`.
    pub fn rep_range(&self, id: usize) -> std::ops::Range<u64> {
        self.offsets[id]..self.offsets[id + 1]
    }

    /// Whether no symmetry but the identity fixes representative `id`: then
    /// every entry of its run is its class's own, with 16 arrangements.
    pub fn rep_is_asymmetric(&self, id: usize) -> bool {
        REPRESENTATIVES.stabilizers[self.key.mover as usize][id] == 1
    }

    /// Calls `visit(index, entry)` for every entry of representative `id`.
    pub fn for_each_entry_of_rep(&self, id: usize, mut visit: impl FnMut(u64, Entry)) {
        let all = &*REPRESENTATIVES;
        let m = self.key.mover as usize;
        let o = self.key.opponent as usize;
        let mut index = self.offsets[id];
        {
            let rep = PointSet(all.reps[m][id]);
            let free = rep.complement();
            let (odd_free, even_free) =
                (free.intersection(PointSet::ODD), free.minus(PointSet::ODD));
            let odd_mover = rep.odd_count() as usize;
            for k in 0..=o {
                let k_offsets = &self.k_offsets[odd_mover];
                if k_offsets[k + 1] == k_offsets[k] {
                    continue;
                }
                for_each_subset(odd_free, k, |odd_opp| {
                    for_each_subset(even_free, o - k, |even_opp| {
                        let entry =
                            self.describe(rep, odd_opp.union(even_opp), all.stabilizers[m][id]);
                        visit(index, entry);
                        index += 1;
                    });
                });
            }
        }
        debug_assert_eq!(index, self.offsets[id + 1]);
    }

    fn describe(&self, rep: PointSet, opponent: PointSet, stabilizer: u16) -> Entry {
        if stabilizer == 1 {
            return Entry {
                mover: rep,
                opponent,
                canonical: true,
                class_size: SYMMETRIES as u32,
            };
        }
        let sym = &*BOARD_SYMMETRIES;
        let fixing = (0..SYMMETRIES)
            .filter(|&s| stabilizer >> s & 1 == 1 && sym.apply(s, opponent) == opponent)
            .count() as u32;
        Entry {
            mover: rep,
            opponent,
            canonical: smallest_image(stabilizer, opponent) == opponent,
            class_size: SYMMETRIES as u32 / fixing,
        }
    }
}

/// What [`TableIndex::index_in`] needs of a mover's set.
#[derive(Debug, Clone, Copy)]
pub struct MoverClass {
    base: u64,
    odd_mover: usize,
    symmetry: usize,
    stabilizer: u16,
    odd_free: u32,
    even_free: u32,
}

/// The bits of `value` at the positions of `mask`, packed down (BMI2's
/// PEXT where the processor has it).
#[inline]
fn pext(value: u32, mask: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("bmi2") {
            // SAFETY: the processor has BMI2, checked just above.
            return unsafe { pext_bmi2(value, mask) };
        }
    }
    let (mut out, mut bit, mut mask) = (0u32, 0u32, mask);
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if value & low != 0 {
            out |= 1 << bit;
        }
        bit += 1;
        mask &= mask - 1;
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn pext_bmi2(value: u32, mask: u32) -> u32 {
    std::arch::x86_64::_pext_u32(value, mask)
}

/// Free odd and even points when the mover has `m` pieces, `odd_mover` of
/// them on odd points.
fn free_counts(m: usize, odd_mover: usize) -> (usize, usize) {
    let half = POINTS / 2;
    (half - odd_mover, half.saturating_sub(m - odd_mover))
}

fn parity_allows(parity: Option<u32>, odd_mover: usize, odd_opponent: usize) -> bool {
    parity.is_none_or(|p| (odd_mover + odd_opponent) as u32 % 2 == p)
}

/// The smallest image of `set` under the symmetries in `stabilizer`.
fn smallest_image(stabilizer: u16, set: PointSet) -> PointSet {
    let sym = &*BOARD_SYMMETRIES;
    (0..SYMMETRIES)
        .filter(|&s| stabilizer >> s & 1 == 1)
        .map(|s| sym.apply(s, set))
        .min()
        .unwrap_or(set)
}

/// The subset of `within` with `size` points and colex rank `rank`.
fn colex_unrank(mut rank: u64, size: usize, within: PointSet) -> PointSet {
    let points: Vec<u32> = within.iter().map(|p| p.index() as u32).collect();
    let mut set = 0u32;
    for i in (1..=size).rev() {
        // The largest position c with C(c, i) <= rank.
        let mut c = i - 1;
        while c + 1 < points.len() && BINOMIAL[c + 1][i] <= rank {
            c += 1;
        }
        rank -= BINOMIAL[c][i];
        set |= 1 << points[c];
    }
    PointSet(set)
}

/// Every `size`-point subset of `within`, in colex order.
fn for_each_subset(within: PointSet, size: usize, mut visit: impl FnMut(PointSet)) {
    let n = within.len() as usize;
    if size > n {
        return;
    }
    let points: Vec<u32> = within.iter().map(|p| p.index() as u32).collect();
    if size == 0 {
        visit(PointSet::EMPTY);
        return;
    }
    // Gosper's hack over positions, then spread onto the points.
    let mut combo: u32 = (1 << size) - 1;
    let limit: u32 = 1 << n;
    while combo < limit {
        let mut spread = 0u32;
        let mut bits = combo;
        while bits != 0 {
            spread |= 1 << points[bits.trailing_zeros() as usize];
            bits &= bits - 1;
        }
        visit(PointSet(spread));
        let low = combo & combo.wrapping_neg();
        let ripple = combo + low;
        combo = (((ripple ^ combo) >> 2) / low) | ripple;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Colex rank of `subset` among the subsets of `within` of its size.
    fn colex_rank(subset: PointSet, within: PointSet) -> u64 {
        let within = within.bits();
        let mut rank = 0;
        for (i, p) in subset.iter().enumerate() {
            let below = (within & ((1u32 << p.index()) - 1)).count_ones() as usize;
            rank += BINOMIAL[below][i + 1];
        }
        rank
    }

    fn keys() -> impl Strategy<Value = TableKey> {
        (
            0u32..=12,
            0u32..=12,
            prop_oneof![Just(None), Just(Some(0)), Just(Some(1))],
        )
            .prop_map(|(mover, opponent, parity)| TableKey {
                mover,
                opponent,
                parity,
            })
    }

    #[test]
    fn parity_halves_partition_the_table() {
        for (m, o) in [(3, 3), (4, 3), (5, 6)] {
            let size = |parity| {
                TableIndex::new(TableKey {
                    mover: m,
                    opponent: o,
                    parity,
                })
                .len()
            };
            assert_eq!(size(Some(0)) + size(Some(1)), size(None), "{m} v {o}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn index_and_entry_round_trip(key in keys(), pick in any::<u64>()) {
            let index = TableIndex::new(key);
            prop_assume!(!index.is_empty());
            let i = pick % index.len();
            let e = index.entry(i);
            prop_assert_eq!(e.mover.len(), key.mover);
            prop_assert_eq!(e.opponent.len(), key.opponent);
            prop_assert!(e.mover.intersection(e.opponent).is_empty());
            if e.canonical {
                prop_assert_eq!(index.index(e.mover, e.opponent), i);
            }
            // Every image of the position lands on the class's canonical entry.
            let sym = &*BOARD_SYMMETRIES;
            let home = index.index(e.mover, e.opponent);
            prop_assert!(index.entry(home).canonical);
            for s in 0..SYMMETRIES {
                prop_assert_eq!(index.index(sym.apply(s, e.mover), sym.apply(s, e.opponent)), home);
            }
        }
    }

    proptest! {
        #[test]
        fn pext_packs_the_masked_bits(value in any::<u32>(), mask in any::<u32>()) {
            let expected = (0..32)
                .filter(|b| mask >> b & 1 == 1)
                .enumerate()
                .fold(0u32, |acc, (i, b)| acc | ((value >> b & 1) << i));
            prop_assert_eq!(pext(value, mask), expected);
        }
    }

    #[test]
    fn mask_ranks_are_colex_ranks() {
        for mask in [0u32, 1, 0b1011, 0xff_ffff, 0x80_0001, 0x12_3456] {
            let set = PointSet(mask);
            let expected = colex_rank(set, PointSet::FULL) as usize;
            assert_eq!(mask_rank(set), expected, "{mask:#x}");
        }
    }

    #[test]
    fn enumeration_agrees_with_entry() {
        let index = TableIndex::new(TableKey {
            mover: 4,
            opponent: 2,
            parity: Some(1),
        });
        index.for_each_entry(|i, e| assert_eq!(index.entry(i), e, "entry {i}"));
    }
}
