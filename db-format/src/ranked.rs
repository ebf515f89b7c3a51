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
use crate::parts::{parts_asked, read_streams, read_table, write_streams, write_table, Ranks};
pub use crate::parts::{PART_BYTES, PART_CELLS};
use crate::range_coder::{Decoder, Encoder, MAX_P, MIN_P};

/// `raw` (little-endian u16 cells) coded; `None` when it cannot be (an
/// odd length, more than 256 distinct cells, or a part whose stream
/// passes 64 KiB), so that the caller falls back to zstd.
pub fn encode(raw: &[u8]) -> Option<Vec<u8>> {
    let Ranks { distinct, ranks } = Ranks::of(raw)?;
    let mut out = Vec::with_capacity(raw.len() / 4);
    write_table(&distinct, &mut out);
    let tree = (distinct.len() > 1).then(|| {
        let mut counts = vec![0u32; distinct.len()];
        for &rank in &ranks {
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
    write_streams(&streams, &mut out)?;
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
    let (cells, parts) = parts_asked(raw_len, first, last)?;
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
    let streams = read_streams(rest, parts)?;
    let mut out = Vec::with_capacity((last + 1 - first) * PART_BYTES);
    let asked = streams.iter().enumerate().take(last + 1).skip(first);
    for (part, stream) in asked {
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
    use crate::parts::samples::{self, cells, raw_of};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn blocks_round_trip_whole_and_by_part(cells in cells()) {
            samples::round_trips(encode, decode, &cells)?;
        }

        #[test]
        fn any_payload_decodes_or_is_refused(payload in proptest::collection::vec(any::<u8>(), 0..300), cells in 0usize..10_000) {
            samples::any_payload_decodes_or_is_refused(decode, &payload, cells)?;
        }
    }

    #[test]
    fn codes_what_it_can() {
        samples::codes_what_it_can(encode, decode);
    }

    #[test]
    fn runs_compress_far_below_a_byte_a_cell() {
        let cells: Vec<u16> = (0..32_768).map(|i| 0x8000 | (i / 1000) as u16).collect();
        let payload = encode(&raw_of(&cells)).unwrap();
        assert!(payload.len() < 1000, "{}", payload.len());
    }
}
