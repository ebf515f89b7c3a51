//! Colex ranks of point sets, and bit gathering and scattering: the
//! arithmetic under the index.
//!
//! A table entry ranks the opponent's odd and even points among the free
//! points of their parity, so a rank is taken of at most 12 bits once the
//! free points are packed down (PEXT), and an entry is decoded by scattering
//! the 12-bit subset of a rank back onto them (PDEP). Both ranks and
//! subsets of 12 bits come from small tables.

use std::sync::LazyLock;

use super::board::{PointSet, POINTS};

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

/// Points of one parity.
pub const HALF: usize = POINTS / 2;

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

/// Ranks and subsets of 12 bits: `rank[v]` is the colex rank of `v` among
/// the masks of its size; the masks of size `j` in colex order are
/// `subsets[start[j]..start[j + 1]]`.
struct Small {
    rank: [u16; 1 << HALF],
    subsets: [u16; 1 << HALF],
    start: [usize; HALF + 2],
}

static SMALL: LazyLock<Box<Small>> = LazyLock::new(|| {
    let mut small = Box::new(Small {
        rank: [0; 1 << HALF],
        subsets: [0; 1 << HALF],
        start: [0; HALF + 2],
    });
    for (j, &count) in BINOMIAL[HALF].iter().enumerate().take(HALF + 1) {
        small.start[j + 1] = small.start[j] + count as usize;
    }
    let mut next = small.start;
    // Colex order among masks of one size is their numeric order.
    for v in 0..1u32 << HALF {
        let j = v.count_ones() as usize;
        small.rank[v as usize] = (next[j] - small.start[j]) as u16;
        small.subsets[next[j]] = v as u16;
        next[j] += 1;
    }
    small
});

/// Colex rank of a mask of at most 12 bits among the masks of its size.
#[inline]
pub fn rank12(mask: u32) -> u64 {
    debug_assert!(mask < 1 << HALF);
    u64::from(SMALL.rank[mask as usize])
}

/// [`rank12`] of every mask, as one table (for loops that rank many).
pub fn rank12_table() -> &'static [u16; 1 << HALF] {
    &SMALL.rank
}

/// The mask of `size` bits (at most 12) with colex rank `rank`.
#[inline]
pub fn unrank12(size: usize, rank: u64) -> u32 {
    let small = &*SMALL;
    debug_assert!(rank < BINOMIAL[HALF][size]);
    u32::from(small.subsets[small.start[size] + rank as usize])
}

/// The bits of `value` at the positions of `mask`, packed down (BMI2's
/// PEXT where the processor has it).
#[inline]
pub fn pext(value: u32, mask: u32) -> u32 {
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

/// The low bits of `value` spread onto the positions of `mask`, in order
/// (BMI2's PDEP where the processor has it).
#[inline]
pub fn pdep(value: u32, mask: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("bmi2") {
            // SAFETY: the processor has BMI2, checked just above.
            return unsafe { pdep_bmi2(value, mask) };
        }
    }
    let (mut out, mut bit, mut mask) = (0u32, 0u32, mask);
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if value >> bit & 1 != 0 {
            out |= low;
        }
        bit += 1;
        mask &= mask - 1;
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
unsafe fn pext_bmi2(value: u32, mask: u32) -> u32 {
    std::arch::x86_64::_pext_u32(value, mask)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
unsafe fn pdep_bmi2(value: u32, mask: u32) -> u32 {
    std::arch::x86_64::_pdep_u32(value, mask)
}

/// Every `size`-point subset of `within` (a mask of at most 12 points), in
/// colex order.
pub fn for_each_subset(within: u32, size: usize, mut visit: impl FnMut(u32)) {
    let n = within.count_ones() as usize;
    if size > n {
        return;
    }
    debug_assert!(n <= HALF);
    let small = &*SMALL;
    for &packed in &small.subsets[small.start[size]..small.start[size] + BINOMIAL[n][size] as usize]
    {
        visit(pdep(u32::from(packed), within));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Colex rank of `subset` among the subsets of `within` of its size.
    fn colex_rank(subset: u32, within: u32) -> u64 {
        let mut rank = 0;
        for (i, p) in PointSet(subset).iter().enumerate() {
            let below = (within & ((1u32 << p.index()) - 1)).count_ones() as usize;
            rank += BINOMIAL[below][i + 1];
        }
        rank
    }

    #[test]
    fn mask_ranks_are_colex_ranks() {
        for mask in [0u32, 1, 0b1011, 0xff_ffff, 0x80_0001, 0x12_3456] {
            let expected = colex_rank(mask, PointSet::FULL.bits()) as usize;
            assert_eq!(mask_rank(PointSet(mask)), expected, "{mask:#x}");
        }
    }

    #[test]
    fn small_ranks_and_subsets_invert_each_other() {
        for v in 0..1u32 << HALF {
            let size = v.count_ones() as usize;
            assert_eq!(rank12(v), colex_rank(v, (1 << HALF) - 1), "{v:#x}");
            assert_eq!(unrank12(size, rank12(v)), v);
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

        #[test]
        fn pdep_undoes_pext(value in any::<u32>(), mask in any::<u32>()) {
            prop_assert_eq!(pdep(pext(value, mask), mask), value & mask);
        }

        #[test]
        fn subsets_come_in_colex_order(within in 0u32..1 << 24, size in 0usize..=12) {
            let within = pdep((1 << within.count_ones().min(12)) - 1, within);
            let mut seen = Vec::new();
            for_each_subset(within, size, |s| seen.push(s));
            let n = within.count_ones() as usize;
            prop_assert_eq!(seen.len() as u64, if size <= n { BINOMIAL[n][size] } else { 0 });
            for (rank, &s) in seen.iter().enumerate() {
                prop_assert_eq!(s & !within, 0);
                prop_assert_eq!(s.count_ones() as usize, size);
                prop_assert_eq!(colex_rank(s, within), rank as u64);
            }
        }
    }
}
