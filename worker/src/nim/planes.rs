//! Depth tables in bit planes: one word of 64 positions is eight `u64`s,
//! plane `k` holding bit `k` of every position's value-and-depth byte.
//!
//! In this form a move is, as in the value engine, a shift and a mask per
//! plane, and the minimum or maximum of 64 depths is a few dozen word
//! operations (a comparator over the planes) instead of 64 branches.

use egdb_db_format::ValueCode;

/// Bytes of one word of a stored depth table: one per position.
pub const BYTES_PER_WORD: usize = 64;
/// Planes that hold the depth (bits 0-5 of the byte).
pub const DEPTH_PLANES: usize = 6;
/// Bit 6 of the byte: set for a loss (code 01) or a win (code 11).
const LOW_CODE: usize = 6;
/// Bit 7 of the byte: set for a win (11) or a draw (10).
const HIGH_CODE: usize = 7;

/// One word of a depth table; 64-byte aligned so that a word is one cache line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Planes(pub [u64; 8]);

// SAFETY: eight integers; all zeros is a valid (empty) word.
unsafe impl bytemuck::Zeroable for Planes {}

impl Planes {
    /// The planes of 64 value-and-depth bytes (byte `l` is position `l`).
    pub fn from_bytes(bytes: &[u8]) -> Planes {
        let mut planes = [0u64; 8];
        for (j, chunk) in bytes.chunks_exact(8).take(8).enumerate() {
            let columns = transpose8(u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])));
            for (k, plane) in planes.iter_mut().enumerate() {
                *plane |= (columns >> (8 * k) & 0xFF) << (8 * j);
            }
        }
        Planes(planes)
    }

    /// The 64 value-and-depth bytes of the word.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut bytes = [0u8; 64];
        for (j, chunk) in bytes.chunks_exact_mut(8).enumerate() {
            let mut columns = 0u64;
            for (k, plane) in self.0.iter().enumerate() {
                columns |= (plane >> (8 * j) & 0xFF) << (8 * k);
            }
            chunk.copy_from_slice(&transpose8(columns).to_le_bytes());
        }
        bytes
    }

    /// The word with lanes rearranged: lane `l` of the result is lane
    /// `from[l]` of this one.
    pub fn gather(&self, from: &[u8]) -> Planes {
        Planes(self.0.map(|x| gather_lanes(x, from)))
    }

    /// The value-and-depth byte of position `lane`.
    pub fn byte(&self, lane: u32) -> u8 {
        self.0
            .iter()
            .enumerate()
            .fold(0u8, |b, (k, plane)| b | ((plane >> lane & 1) as u8) << k)
    }

    /// Positions of the word that are wins, losses and draws for the mover.
    pub fn wins(&self) -> u64 {
        self.0[HIGH_CODE] & self.0[LOW_CODE]
    }

    pub fn losses(&self) -> u64 {
        !self.0[HIGH_CODE] & self.0[LOW_CODE]
    }

    /// The largest depth among the positions `lanes`.
    pub fn max_depth(&self, lanes: u64) -> u8 {
        let (mut max, mut candidates) = (0u8, lanes);
        for k in (0..DEPTH_PLANES).rev() {
            let with = candidates & self.0[k];
            if with != 0 {
                max |= 1 << k;
                candidates = with;
            }
        }
        max
    }
}

/// Bit `l` of the result is bit `from[l]` of `x`.
#[inline]
fn gather_lanes(x: u64, from: &[u8]) -> u64 {
    from.iter()
        .enumerate()
        .fold(0u64, |out, (l, &f)| out | (x >> f & 1) << l)
}

/// Transposes the 8×8 bit matrix whose row `i` is byte `i` of `x`: bit `k`
/// of byte `i` goes to bit `i` of byte `k`.
#[inline]
fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

/// Lanes where the 6-bit number `a` is below `b`, both in bit planes.
#[inline(always)]
fn below(a: &[u64; DEPTH_PLANES], b: &[u64; DEPTH_PLANES]) -> u64 {
    let (mut lt, mut eq) = (0u64, u64::MAX);
    for k in (0..DEPTH_PLANES).rev() {
        lt |= eq & !a[k] & b[k];
        eq &= !(a[k] ^ b[k]);
    }
    lt
}

/// `x + 1` in every lane, in bit planes.
#[inline(always)]
fn increment(x: &[u64; DEPTH_PLANES]) -> [u64; DEPTH_PLANES] {
    let mut carry = u64::MAX;
    let mut sum = [0u64; DEPTH_PLANES];
    for k in 0..DEPTH_PLANES {
        sum[k] = x[k] ^ carry;
        carry &= x[k];
    }
    sum
}

/// The children of a word's 64 positions folded together: the perfect-play
/// rule (win in one more than the fastest losing child, else lose in one
/// more than the longest child) needs no more than this.
#[derive(Clone, Copy)]
pub struct Fold {
    /// Positions with at least one child.
    any: u64,
    /// Positions with a child that loses for its mover.
    win: u64,
    fastest_loss: [u64; DEPTH_PLANES],
    longest: [u64; DEPTH_PLANES],
}

impl Default for Fold {
    fn default() -> Fold {
        Fold {
            any: 0,
            win: 0,
            fastest_loss: [u64::MAX; DEPTH_PLANES],
            longest: [0; DEPTH_PLANES],
        }
    }
}

impl Fold {
    /// Adds the child at lane `l - shift` of `source` to every position
    /// `l` of `lanes` (the positions that contain the move's stones).
    #[inline(always)]
    pub fn add(&mut self, source: &Planes, shift: u32, lanes: u64) {
        let s = &source.0;
        let child: [u64; DEPTH_PLANES] = std::array::from_fn(|k| (s[k] << shift) & lanes);
        let losing = lanes & !(s[HIGH_CODE] << shift) & (s[LOW_CODE] << shift);
        self.any |= lanes;
        self.win |= losing;
        let faster = below(&child, &self.fastest_loss) & losing;
        let longer = below(&self.longest, &child) & lanes;
        for ((fast, long), c) in self
            .fastest_loss
            .iter_mut()
            .zip(&mut self.longest)
            .zip(child)
        {
            *fast ^= (*fast ^ c) & faster;
            *long ^= (*long ^ c) & longer;
        }
    }

    /// Joins the children of `other` to these (the same positions).
    #[inline]
    pub fn merge(&mut self, other: &Fold) {
        self.any |= other.any;
        self.win |= other.win;
        let faster = below(&other.fastest_loss, &self.fastest_loss);
        let longer = below(&self.longest, &other.longest);
        let pairs = self.fastest_loss.iter_mut().zip(&mut self.longest);
        for ((fast, long), (of, ol)) in pairs.zip(other.fastest_loss.iter().zip(&other.longest)) {
            *fast ^= (*fast ^ of) & faster;
            *long ^= (*long ^ ol) & longer;
        }
    }

    /// The fold with lanes rearranged: lane `l` of the result is lane
    /// `from[l]` of this one.
    pub fn gather(&self, from: &[u8]) -> Fold {
        let move_lanes = |x: u64| gather_lanes(x, from);
        Fold {
            any: move_lanes(self.any),
            win: move_lanes(self.win),
            fastest_loss: self.fastest_loss.map(move_lanes),
            longest: self.longest.map(move_lanes),
        }
    }

    /// The word's planes: positions without a child take `terminal` at
    /// depth 0; lanes outside `valid` stay empty (don't care).
    #[inline(always)]
    pub fn resolve(&self, terminal: ValueCode, valid: u64) -> Planes {
        let win = self.win;
        let loss = self.any & !win;
        let none = !self.any;
        let (faster, longer) = (increment(&self.fastest_loss), increment(&self.longest));
        let mut planes = [0u64; 8];
        for k in 0..DEPTH_PLANES {
            planes[k] = ((faster[k] & win) | (longer[k] & loss)) & valid;
        }
        let code = terminal as u8;
        let terminal_high = if code & 2 != 0 { none } else { 0 };
        let terminal_low = if code & 1 != 0 { none } else { 0 };
        planes[HIGH_CODE] = (win | terminal_high) & valid;
        planes[LOW_CODE] = (win | loss | terminal_low) & valid;
        Planes(planes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egdb_db_format::encoding::pack_value_depth8;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn planes_round_trip_bytes(bytes in proptest::collection::vec(any::<u8>(), 64)) {
            let planes = Planes::from_bytes(&bytes);
            prop_assert_eq!(planes.to_bytes().to_vec(), bytes.clone());
            for (l, &b) in bytes.iter().enumerate() {
                prop_assert_eq!(planes.byte(l as u32), b);
                prop_assert_eq!(planes.0[3] >> l & 1, (b as u64 >> 3) & 1);
            }
        }

        /// The fold agrees with the plain rule, position by position.
        #[test]
        fn fold_agrees_with_the_rule(
            children in proptest::collection::vec(
                (proptest::collection::vec((any::<bool>(), 0u8..63), 64), 0u32..64, any::<u64>()),
                0..6,
            ),
            misere in any::<bool>(),
        ) {
            let terminal = if misere { ValueCode::Win } else { ValueCode::Loss };
            let mut fold = Fold::default();
            let mut expected: Vec<Vec<(bool, u8)>> = vec![Vec::new(); 64];
            for (entries, shift, lanes) in &children {
                let bytes: Vec<u8> = entries
                    .iter()
                    .map(|&(win, d)| pack_value_depth8(if win { ValueCode::Win } else { ValueCode::Loss }, d))
                    .collect();
                let lanes = lanes & (u64::MAX << shift);
                fold.add(&Planes::from_bytes(&bytes), *shift, lanes);
                for l in 0..64u32 {
                    if lanes >> l & 1 == 1 {
                        expected[l as usize].push(entries[(l - shift) as usize]);
                    }
                }
            }
            let got = fold.resolve(terminal, u64::MAX);
            for (l, kids) in expected.iter().enumerate() {
                let fastest = kids.iter().filter(|c| !c.0).map(|c| c.1).min();
                let want = match (kids.is_empty(), fastest) {
                    (true, _) => pack_value_depth8(terminal, 0),
                    (false, Some(d)) => pack_value_depth8(ValueCode::Win, d + 1),
                    (false, None) => pack_value_depth8(
                        ValueCode::Loss,
                        kids.iter().map(|c| c.1).max().unwrap_or(0) + 1,
                    ),
                };
                prop_assert_eq!(got.byte(l as u32), want);
            }
        }
    }

    #[test]
    fn max_depth_picks_the_largest_of_the_lanes() {
        let mut bytes = [pack_value_depth8(ValueCode::Loss, 3); 64];
        bytes[9] = pack_value_depth8(ValueCode::Win, 41);
        bytes[20] = pack_value_depth8(ValueCode::Win, 17);
        let planes = Planes::from_bytes(&bytes);
        assert_eq!(planes.max_depth(u64::MAX), 41);
        assert_eq!(planes.max_depth(!(1 << 9)), 17);
        assert_eq!(planes.max_depth(1), 3);
        assert_eq!(planes.wins().count_ones(), 2);
        assert_eq!(planes.losses().count_ones(), 62);
    }
}
