//! What the codecs by ranks ([`crate::ranked`], [`crate::tabled`]) share:
//! a block's cells as ranks among its distinct cells, the cell table
//! written before the ranks, and the framing of the parts' streams (each
//! part's length but the last's, then the streams), so that a probe
//! decodes one part of a block only.

use crate::symbols::to_symbols;

/// Cells per independently decoded part.
pub const PART_CELLS: usize = 4096;
/// Raw bytes per part.
pub const PART_BYTES: usize = 2 * PART_CELLS;

/// A block's distinct cells, rising, and each cell's rank among them.
pub(crate) struct Ranks {
    pub distinct: Vec<u16>,
    pub ranks: Vec<u8>,
}

impl Ranks {
    /// `None` for an odd length or more than 256 distinct cells.
    pub(crate) fn of(raw: &[u8]) -> Option<Ranks> {
        let mut symbols = to_symbols(raw)?;
        let count = usize::from(*symbols.first()?) + 1;
        if symbols.len() < 1 + 2 * count {
            return None;
        }
        let ranks = symbols.split_off(1 + 2 * count);
        let distinct = symbols[1..]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        Some(Ranks { distinct, ranks })
    }
}

/// The cells and parts of a block of `raw_len` bytes, once the parts
/// `first ..= last` asked of it are found to be in it.
///
/// # Errors
/// For an odd length, or parts the block does not have.
pub(crate) fn parts_asked(
    raw_len: usize,
    first: usize,
    last: usize,
) -> Result<(usize, usize), String> {
    if raw_len % 2 != 0 {
        return Err(format!("{raw_len} raw bytes are not two-byte cells"));
    }
    let cells = raw_len / 2;
    let parts = cells.div_ceil(PART_CELLS);
    if first > last || last >= parts.max(1) {
        return Err(format!("parts {first} to {last} of {parts}"));
    }
    Ok((cells, parts))
}

/// The parts' streams after what `out` holds: each one's length but the
/// last's (u16 LE), then the streams; `None` if a length passes 64 KiB.
pub(crate) fn write_streams(streams: &[Vec<u8>], out: &mut Vec<u8>) -> Option<()> {
    for stream in streams.iter().take(streams.len().saturating_sub(1)) {
        out.extend_from_slice(&u16::try_from(stream.len()).ok()?.to_le_bytes());
    }
    for stream in streams {
        out.extend_from_slice(stream);
    }
    Some(())
}

/// The streams of `parts` parts framed as [`write_streams`] writes them.
///
/// # Errors
/// When the lengths are cut short or pass the bytes.
pub(crate) fn read_streams(rest: &[u8], parts: usize) -> Result<Vec<&[u8]>, String> {
    let Some((lengths, streams)) = rest.split_at_checked(2 * parts.saturating_sub(1)) else {
        return Err("part lengths cut short".to_string());
    };
    let mut starts = Vec::with_capacity(parts + 1);
    starts.push(0usize);
    for pair in lengths.chunks_exact(2) {
        let end = starts[starts.len() - 1] + usize::from(u16::from_le_bytes([pair[0], pair[1]]));
        starts.push(end);
    }
    if starts[starts.len() - 1] > streams.len() {
        return Err("part lengths pass the payload".to_string());
    }
    starts.push(streams.len());
    Ok(starts.windows(2).map(|w| &streams[w[0]..w[1]]).collect())
}

/// The cell table (`cells` rising, 1 to 256 of them): their count - 1,
/// the lowest, then the rising gaps as LEB128.
pub(crate) fn write_table(cells: &[u16], out: &mut Vec<u8>) {
    out.push((cells.len() - 1) as u8);
    out.extend_from_slice(&cells[0].to_le_bytes());
    for pair in cells.windows(2) {
        let mut gap = u32::from(pair[1] - pair[0]);
        while gap >= 0x80 {
            out.push(gap as u8 | 0x80);
            gap >>= 7;
        }
        out.push(gap as u8);
    }
}

/// The cell table [`write_table`] writes, and the bytes after it.
///
/// # Errors
/// When it is cut short, or its cells do not rise within 16 bits.
pub(crate) fn read_table(payload: &[u8]) -> Result<(Vec<u16>, &[u8]), String> {
    let [count, low, high, rest @ ..] = payload else {
        return Err("cell table cut short".to_string());
    };
    let n = usize::from(*count) + 1;
    let mut cells = Vec::with_capacity(n);
    cells.push(u16::from_le_bytes([*low, *high]));
    let mut rest = rest;
    while cells.len() < n {
        let mut gap = 0u32;
        for shift in [0, 7, 14] {
            let [byte, tail @ ..] = rest else {
                return Err("cell table cut short".to_string());
            };
            rest = tail;
            gap |= u32::from(byte & 0x7F) << shift;
            if byte & 0x80 == 0 {
                break;
            }
            if shift == 14 {
                return Err("a cell gap longer than three bytes".to_string());
            }
        }
        let next = u32::from(cells[cells.len() - 1]) + gap;
        if gap == 0 || next > u32::from(u16::MAX) {
            return Err("cell table not rising".to_string());
        }
        cells.push(next as u16);
    }
    Ok((cells, rest))
}

#[cfg(test)]
pub(crate) mod samples {
    //! Blocks for the codecs' tests, and what both codecs must do.
    use super::{PART_BYTES, PART_CELLS};
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    pub type Encode = fn(&[u8]) -> Option<Vec<u8>>;
    pub type Decode = fn(&[u8], usize, usize, usize) -> Result<Vec<u8>, String>;

    /// `cells` coded give them back whole and by every run of parts.
    pub fn round_trips(encode: Encode, decode: Decode, cells: &[u16]) -> Result<(), TestCaseError> {
        let raw = raw_of(cells);
        let payload = encode(&raw).ok_or_else(|| TestCaseError::fail("not coded"))?;
        let parts = cells.len().div_ceil(PART_CELLS).max(1);
        for first in 0..parts {
            for last in first..parts {
                let from = (first * PART_BYTES).min(raw.len());
                let to = ((last + 1) * PART_BYTES).min(raw.len());
                let back = decode(&payload, raw.len(), first, last).map_err(TestCaseError::fail)?;
                prop_assert_eq!(&back[..], &raw[from..to]);
            }
        }
        prop_assert!(decode(&payload, raw.len(), 0, parts).is_err());
        Ok(())
    }

    /// Any bytes decode to the length asked for, or are refused.
    pub fn any_payload_decodes_or_is_refused(
        decode: Decode,
        payload: &[u8],
        cells: usize,
    ) -> Result<(), TestCaseError> {
        let parts = cells.div_ceil(PART_CELLS).max(1);
        if let Ok(raw) = decode(payload, 2 * cells, 0, parts - 1) {
            prop_assert_eq!(raw.len(), 2 * cells);
        }
        Ok(())
    }

    /// Odd lengths and more than 256 distinct cells are left to zstd; 256
    /// are coded; long blocks and empty ones round-trip.
    pub fn codes_what_it_can(encode: Encode, decode: Decode) {
        assert!(encode(&[1, 2, 3]).is_none());
        let many: Vec<u16> = (0..257).collect();
        assert!(encode(&raw_of(&many)).is_none());
        let most: Vec<u16> = (0..256).map(|c| c * 200).collect();
        assert_eq!(
            decode(&encode(&raw_of(&most)).unwrap(), 512, 0, 0).unwrap(),
            raw_of(&most)
        );
        round_trips(encode, decode, &runs_and_noise(3 * PART_CELLS + 17)).unwrap();
        round_trips(encode, decode, &[]).unwrap();
    }

    pub fn raw_of(cells: &[u16]) -> Vec<u8> {
        cells.iter().flat_map(|c| c.to_le_bytes()).collect()
    }

    /// Cells drawn from `alphabet` in runs, as a table's regions look.
    pub fn cells() -> impl Strategy<Value = Vec<u16>> {
        (
            proptest::collection::vec(any::<u16>(), 1..40),
            proptest::collection::vec((any::<prop::sample::Index>(), 1usize..50), 0..400),
        )
            .prop_map(|(alphabet, runs)| {
                runs.iter()
                    .flat_map(|(pick, len)| {
                        std::iter::repeat_n(alphabet[pick.index(alphabet.len())], *len)
                    })
                    .collect()
            })
    }

    /// `len` cells: slow runs, a quarter of them noise among 200 cells.
    pub fn runs_and_noise(len: usize) -> Vec<u16> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        (0..len)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if state % 4 == 0 {
                    (state >> 20) as u16 % 200
                } else {
                    (i / 100) as u16
                }
            })
            .collect()
    }
}
