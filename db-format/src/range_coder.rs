//! A binary range coder: 32-bit range, probabilities in 1/65536, the
//! carry propagated through a pending run of 0xFF bytes. The models that
//! drive it live with their codec ([`crate::ranked`]).

const TOP: u32 = 1 << 24;

/// Probabilities handed to the coder stay inside this margin, so that
/// neither side of a split is ever empty (and a decoder fed anything at all
/// keeps a non-zero range).
pub const MIN_P: u32 = 32;
pub const MAX_P: u32 = 65536 - MIN_P;

/// Codes bits into bytes.
pub struct Encoder {
    low: u64,
    range: u32,
    /// The byte held back until no carry can reach it.
    cache: u8,
    /// 0xFF bytes after `cache`, held back for the same reason.
    pending: u64,
    started: bool,
    out: Vec<u8>,
}

impl Default for Encoder {
    fn default() -> Encoder {
        Encoder {
            low: 0,
            range: u32::MAX,
            cache: 0,
            pending: 0,
            started: false,
            out: Vec::new(),
        }
    }
}

impl Encoder {
    /// Codes `bit` where `p0` (in [`MIN_P`] ..= [`MAX_P`]) is the chance of
    /// a zero.
    #[inline]
    pub fn encode(&mut self, p0: u32, bit: u32) {
        let bound = (self.range >> 16) * p0;
        // Without a branch, as in the decoder.
        let one = bit.wrapping_neg();
        self.low += u64::from(bound & one);
        self.range = (bound & !one) | (self.range.wrapping_sub(bound) & one);
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }

    fn shift_low(&mut self) {
        if (self.low as u32) < 0xFF00_0000 || self.low >> 32 != 0 {
            let carry = (self.low >> 32) as u8;
            // The first byte out is always zero (nothing can carry into
            // it yet): the decoder assumes it instead of reading it.
            if self.started {
                self.out.push(self.cache.wrapping_add(carry));
            }
            self.started = true;
            for _ in 0..self.pending {
                self.out.push(0xFFu8.wrapping_add(carry));
            }
            self.pending = 0;
            self.cache = (self.low >> 24) as u8;
        } else {
            self.pending += 1;
        }
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    /// The coded bytes. Trailing zeros are dropped: the decoder reads
    /// zeros past the end.
    pub fn finish(mut self) -> Vec<u8> {
        for _ in 0..5 {
            self.shift_low();
        }
        while self.out.last() == Some(&0) {
            self.out.pop();
        }
        self.out
    }
}

/// Reads bits back. Any input decodes to some bits without panicking or
/// looping: the caller bounds how many it asks for.
pub struct Decoder<'a> {
    code: u32,
    range: u32,
    input: &'a [u8],
    at: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(input: &'a [u8]) -> Decoder<'a> {
        let mut decoder = Decoder {
            code: 0,
            range: u32::MAX,
            input,
            at: 0,
        };
        for _ in 0..4 {
            decoder.code = decoder.code << 8 | u32::from(decoder.next_byte());
        }
        decoder
    }

    #[inline]
    fn next_byte(&mut self) -> u8 {
        let byte = self.input.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte
    }

    /// The next bit, `p0` as [`Encoder::encode`] had it.
    #[inline]
    pub fn decode(&mut self, p0: u32) -> u32 {
        let bound = (self.range >> 16) * p0;
        // Without a branch: the bits are too often a toss-up for a branch
        // predictor, and a miss costs more than both sides.
        let bit = u32::from(self.code >= bound);
        let one = bit.wrapping_neg();
        self.code -= bound & one;
        self.range = (bound & !one) | (self.range.wrapping_sub(bound) & one);
        while self.range < TOP {
            self.range <<= 8;
            self.code = self.code << 8 | u32::from(self.next_byte());
        }
        bit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn bits_round_trip(bits in proptest::collection::vec((any::<bool>(), MIN_P..=MAX_P), 0..3000)) {
            let mut encoder = Encoder::default();
            for &(bit, p0) in &bits {
                encoder.encode(p0, u32::from(bit));
            }
            let bytes = encoder.finish();
            let mut decoder = Decoder::new(&bytes);
            for &(bit, p0) in &bits {
                prop_assert_eq!(decoder.decode(p0), u32::from(bit));
            }
        }

        #[test]
        fn any_input_decodes_without_panicking(input in proptest::collection::vec(any::<u8>(), 0..64), p0 in MIN_P..=MAX_P) {
            let mut decoder = Decoder::new(&input);
            for _ in 0..1000 {
                prop_assert!(decoder.decode(p0) <= 1);
            }
        }
    }

    #[test]
    fn well_predicted_bits_cost_little() {
        let mut encoder = Encoder::default();
        for _ in 0..80_000 {
            encoder.encode(MAX_P, 0);
        }
        // -log2(65504/65536) bits each: about 7 bytes for 80,000 bits.
        assert!(encoder.finish().len() < 16);
    }
}
