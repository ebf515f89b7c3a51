//! Codec 1 of format-3 blocks, for two-byte cells: each cell's rank among
//! the block's distinct cells (a Morris block holds a few dozen), coded
//! bit by bit down the block's Huffman tree (`code_tree.rs`: frequent ranks
//! take few steps) with adaptive probabilities at each node: the mean of
//! an order-0 estimate and one conditioned on the previous rank. The
//! models learn fast (a count-based rate until it reaches 1/16), so they
//! follow a table's runs and regions.
//!
//! Cells are coded in parts of [`PART_CELLS`], each with fresh models and
//! its own stream, so that a probe decodes one part of a block only.
//!
//! ```text
//! size        field
//! 1           distinct cells - 1 (n - 1)
//! 2           the lowest cell (u16 LE)
//! 1-3 each    the other n - 1 cells as rising gaps (LEB128, each >= 1)
//! n/2 (up)    each rank's code length, 4 bits (the low half first); none
//!             when n = 1
//! 2 each      the stream lengths of every part but the last (u16 LE)
//! rest        the parts' streams, in order
//! ```
//!
//! A block of one distinct cell has empty streams.

use crate::code_tree::{CodeTree, Step};
use crate::range_coder::{Decoder, Encoder, MAX_P, MIN_P};
use crate::symbols::to_symbols;

/// Cells per independently decoded part.
pub const PART_CELLS: usize = 4096;
/// Raw bytes per part.
pub const PART_BYTES: usize = 2 * PART_CELLS;

/// `raw` (little-endian u16 cells) coded; `None` when it cannot be (an
/// odd length, more than 256 distinct cells, or a part whose stream
/// passes 64 KiB), so that the caller falls back to zstd.
pub fn encode(raw: &[u8]) -> Option<Vec<u8>> {
    // The block's distinct cells and each cell's rank among them.
    let symbols = to_symbols(raw)?;
    let (&count, rest) = symbols.split_first()?;
    let (table, ranks) = rest.split_at_checked(2 * (usize::from(count) + 1))?;
    let distinct: Vec<u16> = table
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let mut out = Vec::with_capacity(raw.len() / 4);
    write_table(&distinct, &mut out);
    let tree = (distinct.len() > 1).then(|| {
        let mut counts = vec![0u32; distinct.len()];
        for &rank in ranks {
            counts[usize::from(rank)] += 1;
        }
        let lengths = CodeTree::lengths(&counts);
        for pair in lengths.chunks(2) {
            out.push(pair[0] | pair.get(1).map_or(0, |l| l << 4));
        }
        CodeTree::from_lengths(&lengths)
    });
    let tree = match tree {
        Some(Ok(tree)) => Some(tree),
        Some(Err(_)) => return None,
        None => None,
    };
    let streams: Vec<Vec<u8>> = ranks
        .chunks(PART_CELLS)
        .map(|part| {
            let mut encoder = Encoder::default();
            let mut model = Model::new(tree.as_ref(), distinct.len());
            for &rank in part {
                model.encode(&mut encoder, rank);
            }
            encoder.finish()
        })
        .collect();
    for stream in streams.iter().take(streams.len().saturating_sub(1)) {
        out.extend_from_slice(&u16::try_from(stream.len()).ok()?.to_le_bytes());
    }
    for stream in &streams {
        out.extend_from_slice(stream);
    }
    Some(out)
}

/// The raw bytes of parts `first ..= last` of a block of `raw_len` bytes.
///
/// # Errors
/// A reason, when the payload is not one that [`encode`] makes for that
/// length (never a panic, whatever the bytes).
pub fn decode(
    payload: &[u8],
    raw_len: usize,
    first: usize,
    last: usize,
) -> Result<Vec<u8>, String> {
    if raw_len % 2 != 0 {
        return Err(format!("{raw_len} raw bytes are not two-byte cells"));
    }
    let cells = raw_len / 2;
    let parts = cells.div_ceil(PART_CELLS);
    if first > last || last >= parts.max(1) {
        return Err(format!("parts {first} to {last} of {parts}"));
    }
    let (table, rest) = read_table(payload)?;
    let (tree, rest) = if table.len() > 1 {
        let Some((packed, rest)) = rest.split_at_checked(table.len().div_ceil(2)) else {
            return Err("code lengths cut short".to_string());
        };
        let lengths: Vec<u8> = (0..table.len())
            .map(|r| packed[r / 2] >> (4 * (r % 2)) & 15)
            .collect();
        (Some(CodeTree::from_lengths(&lengths)?), rest)
    } else {
        (None, rest)
    };
    let lengths_len = 2 * parts.saturating_sub(1);
    let Some((lengths, streams)) = rest.split_at_checked(lengths_len) else {
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
    let mut out = Vec::with_capacity((last + 1 - first) * PART_BYTES);
    for part in first..=last.min(parts.saturating_sub(1)) {
        let stream = &streams[starts[part]..starts[part + 1]];
        let len = PART_CELLS.min(cells - part * PART_CELLS);
        let mut decoder = Decoder::new(stream);
        let mut model = Model::new(tree.as_ref(), table.len());
        for _ in 0..len {
            let rank = model.decode(&mut decoder);
            let cell = table
                .get(usize::from(rank))
                .ok_or_else(|| format!("rank {rank} past a table of {}", table.len()))?;
            out.extend_from_slice(&cell.to_le_bytes());
        }
    }
    Ok(out)
}

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

/// An adaptive probability of a zero bit, in 1/65536, and how often it
/// has been updated (up to [`SETTLED`]): its first updates move it by
/// 1/(n + 1.5), later ones by 1/16.
#[derive(Clone, Copy)]
struct Counter {
    p: u16,
    seen: u8,
}

const SETTLED: usize = 15;

/// 65536 / (n + 1.5), no less than 65536 / 16.
const RATES: [i32; SETTLED + 1] = {
    let mut rates = [0i32; SETTLED + 1];
    let mut n = 0;
    while n <= SETTLED {
        let rate = 131_072 / (2 * n as i32 + 3);
        rates[n] = if rate > 4096 { rate } else { 4096 };
        n += 1;
    }
    rates
};

impl Counter {
    const FRESH: Counter = Counter { p: 32768, seen: 0 };

    #[inline]
    fn update(&mut self, bit: u32) {
        // 65535 after a zero, 0 after a one, without a branch: the bits
        // are too often a toss-up for a branch predictor.
        let target = (bit as i32 - 1) & 65535;
        let p = i32::from(self.p);
        self.p = (p + (((target - p) * RATES[usize::from(self.seen)]) >> 16)) as u16;
        self.seen += u8::from(usize::from(self.seen) < SETTLED);
    }
}

/// Ranks as paths down the block's code tree (none when the block has one
/// distinct cell); each internal node's chance is the mean of its order-0
/// counter and its counter under the previous rank (`n` at a part's
/// start).
struct Model<'a> {
    tree: Option<&'a CodeTree>,
    nodes: usize,
    order0: Vec<Counter>,
    order1: Vec<Counter>,
    previous: usize,
}

impl<'a> Model<'a> {
    fn new(tree: Option<&'a CodeTree>, distinct: usize) -> Model<'a> {
        let nodes = tree.map_or(0, CodeTree::nodes);
        Model {
            tree,
            nodes,
            order0: vec![Counter::FRESH; nodes],
            order1: vec![Counter::FRESH; nodes * (distinct + 1)],
            previous: distinct,
        }
    }

    #[inline]
    fn chance(&self, base: usize, node: usize) -> u32 {
        let sum = u32::from(self.order0[node].p) + u32::from(self.order1[base + node].p);
        (sum / 2).clamp(MIN_P, MAX_P)
    }

    #[inline]
    fn learn(&mut self, base: usize, node: usize, bit: u32) {
        self.order0[node].update(bit);
        self.order1[base + node].update(bit);
    }

    fn encode(&mut self, encoder: &mut Encoder, rank: u8) {
        let Some(tree) = self.tree else {
            return;
        };
        let base = self.previous * self.nodes;
        let (code, length) = tree.code(rank);
        let mut node = 0usize;
        for level in (0..length).rev() {
            let bit = u32::from(code >> level & 1);
            encoder.encode(self.chance(base, node), bit);
            self.learn(base, node, bit);
            if let Step::Node(next) = tree.step(node, bit) {
                node = next;
            }
        }
        self.previous = usize::from(rank);
    }

    fn decode(&mut self, decoder: &mut Decoder) -> u16 {
        let Some(tree) = self.tree else {
            return 0;
        };
        let base = self.previous * self.nodes;
        let mut node = 0usize;
        // A complete tree: every walk ends at a leaf within 15 steps.
        let rank = loop {
            let bit = decoder.decode(self.chance(base, node));
            self.learn(base, node, bit);
            match tree.step(node, bit) {
                Step::Node(next) => node = next,
                Step::Rank(rank) => break rank,
            }
        };
        self.previous = usize::from(rank);
        u16::from(rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn raw_of(cells: &[u16]) -> Vec<u8> {
        cells.iter().flat_map(|c| c.to_le_bytes()).collect()
    }

    /// Cells drawn from `alphabet` in runs, as a table's regions look.
    fn cells() -> impl Strategy<Value = Vec<u16>> {
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

    proptest! {
        #[test]
        fn blocks_round_trip_whole_and_by_part(cells in cells()) {
            let raw = raw_of(&cells);
            let payload = encode(&raw).unwrap();
            let parts = cells.len().div_ceil(PART_CELLS).max(1);
            prop_assert_eq!(&decode(&payload, raw.len(), 0, parts - 1).unwrap(), &raw);
            for part in 0..parts {
                let from = (part * PART_BYTES).min(raw.len());
                let to = ((part + 1) * PART_BYTES).min(raw.len());
                prop_assert_eq!(&decode(&payload, raw.len(), part, part).unwrap()[..], &raw[from..to]);
            }
        }

        #[test]
        fn any_payload_decodes_or_is_refused(payload in proptest::collection::vec(any::<u8>(), 0..300), cells in 0usize..10_000) {
            let parts = cells.div_ceil(PART_CELLS).max(1);
            if let Ok(raw) = decode(&payload, 2 * cells, 0, parts - 1) {
                prop_assert_eq!(raw.len(), 2 * cells);
            }
        }
    }

    #[test]
    fn long_blocks_round_trip_across_parts() {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let cells: Vec<u16> = (0..3 * PART_CELLS + 17)
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
            .collect();
        let raw = raw_of(&cells);
        let payload = encode(&raw).unwrap();
        assert_eq!(decode(&payload, raw.len(), 0, 3).unwrap(), raw);
        assert_eq!(
            decode(&payload, raw.len(), 2, 3).unwrap(),
            raw[2 * PART_BYTES..]
        );
        assert!(decode(&payload, raw.len(), 2, 4).is_err());
    }

    #[test]
    fn what_it_cannot_code_is_left_to_zstd() {
        assert!(encode(&[1, 2, 3]).is_none());
        let many: Vec<u16> = (0..257).collect();
        assert!(encode(&raw_of(&many)).is_none());
        let most: Vec<u16> = (0..256).map(|c| c * 200).collect();
        assert_eq!(
            decode(&encode(&raw_of(&most)).unwrap(), 512, 0, 0).unwrap(),
            raw_of(&most)
        );
    }

    #[test]
    fn runs_compress_far_below_a_byte_a_cell() {
        let cells: Vec<u16> = (0..32_768).map(|i| 0x8000 | (i / 1000) as u16).collect();
        let payload = encode(&raw_of(&cells)).unwrap();
        assert!(payload.len() < 1000, "{}", payload.len());
    }

    #[test]
    fn an_empty_block_round_trips() {
        let payload = encode(&[]).unwrap();
        assert_eq!(decode(&payload, 0, 0, 0).unwrap(), Vec::<u8>::new());
    }
}
