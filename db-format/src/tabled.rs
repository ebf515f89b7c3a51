//! Codec 2 of format-4 blocks, for two-byte cells: each cell's rank among
//! the block's distinct cells, coded with rANS under fixed chances that the
//! block carries: one row of chances for what follows each rank (order 1),
//! or the block's overall row where a context's own would cost more than
//! it saves. Fixed chances decode by table lookup, several times quicker
//! than [`crate::ranked`]'s adaptive bits, for a tenth or so more bytes.
//!
//! Cells are coded in parts of [`PART_CELLS`], each its own stream, so
//! that a probe decodes one part of a block only.
//!
//! ```text
//! size        field
//! 1           distinct cells - 1 (n - 1)
//! 2           the lowest cell (u16 LE)
//! 1-3 each    the other n - 1 cells as rising gaps (LEB128, each >= 1)
//! -- when n > 1:
//! (n+1)/8 up  own-row flags: bit c of byte c/8 set when context c (the
//!             previous rank; n at a part's start) has a row of its own
//! n/2 up      the shared row: each rank's weight, 4 bits (rank 2k in the
//!             low half of byte k), 0 for never, w for a count of 2^(w-1)
//! n/2 up each the own rows, in context order
//! 2 each      the stream lengths of every part but the last (u16 LE)
//! rest        the parts' streams, in order
//! ```
//!
//! A row's weights become chances in 1/2048 ([`chances`]). A part's stream
//! is rANS with a 32-bit state kept at or above 2^16, renormalised 16 bits
//! at a time: the state the encoder ends with (u32 LE), then the 16-bit
//! words (LE) in the order the decoder reads them. A decoder ends where
//! the encoder began, at state 2^16 with every word read; anything else is
//! refused.

use crate::parts::{
    parts_asked, read_streams, read_table, write_streams, write_table, Ranks, PART_CELLS,
};

/// Chances are in 1/2^[`SCALE_BITS`].
const SCALE_BITS: u32 = 11;
const SCALE: u32 = 1 << SCALE_BITS;
/// The lowest state; also where encoding starts and decoding must end.
const LOW: u32 = 1 << 16;
/// The largest 4-bit weight: a count of 2^14.
const MAX_WEIGHT: u8 = 15;

/// `raw` (little-endian u16 cells) coded; `None` when it cannot be (an
/// odd length, more than 256 distinct cells, or a part whose stream
/// passes 64 KiB), so that the caller falls back to zstd.
pub fn encode(raw: &[u8]) -> Option<Vec<u8>> {
    let Ranks { distinct, ranks } = Ranks::of(raw)?;
    let n = distinct.len();
    let mut out = Vec::with_capacity(raw.len() / 4);
    write_table(&distinct, &mut out);
    if n == 1 {
        return Some(out);
    }
    let model = Model::fitted(&ranks, n)?;
    model.write(&mut out);
    let streams: Vec<Vec<u8>> = ranks
        .chunks(PART_CELLS)
        .map(|part| model.encode_part(part))
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
    let part_len = |part: usize| PART_CELLS.min(cells - part * PART_CELLS);
    let wanted: usize = (first..=last.min(parts.saturating_sub(1)))
        .map(part_len)
        .sum();
    if table.len() == 1 {
        if !rest.is_empty() {
            return Err("bytes after a one-cell table".to_string());
        }
        return Ok(table[0].to_le_bytes().repeat(wanted));
    }
    let (model, rest) = Model::read(rest, table.len())?;
    let streams = read_streams(rest, parts)?;
    let mut out = vec![0u8; 2 * wanted];
    let mut at = 0;
    let mut part = first;
    // Two parts side by side where they are of one length: their chains
    // of lookups overlap in the core.
    while part <= last && part < parts {
        let len = part_len(part);
        if part < last && part + 1 < parts && part_len(part + 1) == len {
            let (one, two) = out[at..at + 4 * len].split_at_mut(2 * len);
            model.decode_two([streams[part], streams[part + 1]], [one, two], &table)?;
            part += 2;
            at += 4 * len;
        } else {
            model.decode_one(streams[part], &mut out[at..at + 2 * len], &table)?;
            part += 1;
            at += 2 * len;
        }
    }
    Ok(out)
}

/// A row's 4-bit weights as chances in 1/[`SCALE`] summing to [`SCALE`]:
/// each weighed rank gets its share of the scale rounded down, at least 1;
/// the largest (the lowest rank among equals) takes up the difference.
/// `None` for a row without weights.
fn chances(weights: &[u8]) -> Option<Vec<u32>> {
    let counts: Vec<u64> = weights
        .iter()
        .map(|&w| if w == 0 { 0 } else { 1u64 << (w - 1) })
        .collect();
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return None;
    }
    let mut chances: Vec<u32> = counts
        .iter()
        .map(|&c| {
            if c == 0 {
                0
            } else {
                (c * u64::from(SCALE) / total).max(1) as u32
            }
        })
        .collect();
    let largest = |chances: &[u32]| {
        (0..chances.len())
            .rev()
            .max_by_key(|&r| chances[r])
            .unwrap_or(0)
    };
    let sum: u32 = chances.iter().sum();
    if sum < SCALE {
        let top = largest(&chances);
        chances[top] += SCALE - sum;
    }
    let mut excess = chances.iter().sum::<u32>().saturating_sub(SCALE);
    // At most 256 ranks hold 1 each, far under the scale: the largest can
    // always give, and the loop ends within one pass over the ranks.
    while excess > 0 {
        let top = largest(&chances);
        let take = excess.min(chances[top] - 1);
        chances[top] -= take;
        excess -= take;
    }
    Some(chances)
}

/// A count's 4-bit weight: its bit length, at most [`MAX_WEIGHT`].
fn weight(count: u64) -> u8 {
    if count == 0 {
        0
    } else {
        ((64 - count.leading_zeros()) as u8).min(MAX_WEIGHT)
    }
}

/// One row: its weights as written, the chances they make, where each
/// rank's chances begin, and which rank each of the [`SCALE`] slots holds.
struct Row {
    weights: Vec<u8>,
    chance: Vec<u32>,
    start: Vec<u32>,
}

impl Row {
    fn of_weights(weights: Vec<u8>) -> Option<Row> {
        let chance = chances(&weights)?;
        let start = chance
            .iter()
            .scan(0u32, |sum, &c| {
                let at = *sum;
                *sum += c;
                Some(at)
            })
            .collect();
        Some(Row {
            weights,
            chance,
            start,
        })
    }

    /// Bits to code `counts` under this row (infinite for a rank it never
    /// expects).
    fn cost(&self, counts: &[u64]) -> f64 {
        counts
            .iter()
            .zip(&self.chance)
            .filter(|(&c, _)| c > 0)
            .map(|(&c, &p)| {
                if p == 0 {
                    f64::INFINITY
                } else {
                    c as f64 * (f64::from(SCALE_BITS) - f64::from(p).log2())
                }
            })
            .sum()
    }
}

/// A block's rows and which one each context (previous rank, `n` at a
/// part's start) codes with.
struct Model {
    n: usize,
    rows: Vec<Row>,
    /// Index into `rows` by context; 0 is the shared row.
    row_of: Vec<u16>,
    /// Each row's ranks by slot, rows one after another.
    slots: Vec<u8>,
}

impl Model {
    /// The rows that code `ranks` (of `n` > 1 distinct cells) in fewest
    /// bytes, counting each own row's bytes against what it saves; `None`
    /// for no ranks.
    fn fitted(ranks: &[u8], n: usize) -> Option<Model> {
        let contexts = n + 1;
        let mut counts = vec![0u64; contexts * n];
        for part in ranks.chunks(PART_CELLS) {
            let mut previous = n;
            for &rank in part {
                counts[previous * n + usize::from(rank)] += 1;
                previous = usize::from(rank);
            }
        }
        let overall: Vec<u64> = (0..n)
            .map(|r| (0..contexts).map(|c| counts[c * n + r]).sum())
            .collect();
        let row = |counts: &[u64]| Row::of_weights(counts.iter().map(|&c| weight(c)).collect());
        let shared = row(&overall)?;
        let row_bytes = 8.0 * n.div_ceil(2) as f64;
        let mut rows = vec![];
        let mut row_of = vec![0u16; contexts];
        for (context, counts) in counts.chunks(n).enumerate() {
            let Some(own) = row(counts) else { continue };
            if own.cost(counts) + row_bytes < shared.cost(counts) {
                rows.push(own);
                row_of[context] = rows.len() as u16;
            }
        }
        rows.insert(0, shared);
        Some(Model::of_rows(n, rows, row_of))
    }

    fn of_rows(n: usize, rows: Vec<Row>, row_of: Vec<u16>) -> Model {
        let mut slots = vec![0u8; rows.len() * SCALE as usize];
        for (row, place) in rows.iter().zip(slots.chunks_mut(SCALE as usize)) {
            for rank in 0..n {
                let (start, chance) = (row.start[rank] as usize, row.chance[rank] as usize);
                place[start..start + chance].fill(rank as u8);
            }
        }
        Model {
            n,
            rows,
            row_of,
            slots,
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        let mut flags = vec![0u8; (self.n + 1).div_ceil(8)];
        for (context, &row) in self.row_of.iter().enumerate() {
            if row != 0 {
                flags[context / 8] |= 1 << (context % 8);
            }
        }
        out.extend_from_slice(&flags);
        for row in &self.rows {
            for pair in row.weights.chunks(2) {
                out.push(pair[0] | pair.get(1).map_or(0, |w| w << 4));
            }
        }
    }

    fn read(payload: &[u8], n: usize) -> Result<(Model, &[u8]), String> {
        let contexts = n + 1;
        let Some((flags, mut rest)) = payload.split_at_checked(contexts.div_ceil(8)) else {
            return Err("row flags cut short".to_string());
        };
        let own = |context: usize| flags[context / 8] >> (context % 8) & 1 == 1;
        // Only the last byte can hold bits past the contexts.
        let used = contexts - 8 * (flags.len() - 1);
        if used < 8 && flags[flags.len() - 1] >> used != 0 {
            return Err("row flags past the contexts".to_string());
        }
        let mut row_of = vec![0u16; contexts];
        let mut rows = Vec::new();
        for context in std::iter::once(None).chain((0..contexts).filter(|&c| own(c)).map(Some)) {
            let Some((packed, tail)) = rest.split_at_checked(n.div_ceil(2)) else {
                return Err("rows cut short".to_string());
            };
            rest = tail;
            let weights = (0..n)
                .map(|r| packed[r / 2] >> (4 * (r % 2)) & 15)
                .collect();
            if n % 2 == 1 && packed[n / 2] >> 4 != 0 {
                return Err("a weight past the ranks".to_string());
            }
            let row = Row::of_weights(weights).ok_or("a row without weights")?;
            if let Some(context) = context {
                row_of[context] = rows.len() as u16;
            }
            rows.push(row);
        }
        Ok((Model::of_rows(n, rows, row_of), rest))
    }

    fn encode_part(&self, part: &[u8]) -> Vec<u8> {
        let mut state = LOW;
        let mut words: Vec<u16> = Vec::with_capacity(part.len() / 4);
        for (i, &rank) in part.iter().enumerate().rev() {
            let context = i.checked_sub(1).map_or(self.n, |p| usize::from(part[p]));
            let row = &self.rows[usize::from(self.row_of[context])];
            let (chance, start) = (row.chance[usize::from(rank)], row.start[usize::from(rank)]);
            // The state after coding stays under 2^32.
            let bound = u64::from((LOW >> SCALE_BITS) << 16) * u64::from(chance);
            while u64::from(state) >= bound {
                words.push(state as u16);
                state >>= 16;
            }
            state = ((state / chance) << SCALE_BITS) + state % chance + start;
        }
        let mut stream = Vec::with_capacity(4 + 2 * words.len());
        stream.extend_from_slice(&state.to_le_bytes());
        for word in words.iter().rev() {
            stream.extend_from_slice(&word.to_le_bytes());
        }
        stream
    }

    fn decode_one(&self, stream: &[u8], out: &mut [u8], table: &[u16]) -> Result<(), String> {
        let mut part = PartDecoder::new(stream, self.n)?;
        for cell in out.chunks_exact_mut(2) {
            let rank = self.step(&mut part);
            cell.copy_from_slice(&table[rank].to_le_bytes());
        }
        part.finish()
    }

    fn decode_two(
        &self,
        streams: [&[u8]; 2],
        outs: [&mut [u8]; 2],
        table: &[u16],
    ) -> Result<(), String> {
        let mut one = PartDecoder::new(streams[0], self.n)?;
        let mut two = PartDecoder::new(streams[1], self.n)?;
        let [out_one, out_two] = outs;
        for (a, b) in out_one.chunks_exact_mut(2).zip(out_two.chunks_exact_mut(2)) {
            let first = self.step(&mut one);
            let second = self.step(&mut two);
            a.copy_from_slice(&table[first].to_le_bytes());
            b.copy_from_slice(&table[second].to_le_bytes());
        }
        one.finish()?;
        two.finish()
    }

    /// One rank out of a part's state. The state stays at or above
    /// [`LOW`] whatever the words, and under 2^32 (a chance is at most
    /// 2^11, the state shifted right by 11 under 2^21); an exhausted
    /// stream reads zeros and is refused at its end.
    #[inline(always)]
    fn step(&self, part: &mut PartDecoder) -> usize {
        let slot = part.state & (SCALE - 1);
        let row = usize::from(self.row_of[part.context]);
        let rank = usize::from(self.slots[row * SCALE as usize + slot as usize]);
        let row = &self.rows[row];
        part.state = row.chance[rank] * (part.state >> SCALE_BITS) + slot - row.start[rank];
        if part.state < LOW {
            let word = match part.words.get(part.at..part.at + 2) {
                Some(word) => u32::from(u16::from_le_bytes([word[0], word[1]])),
                None => {
                    part.overrun = true;
                    0
                }
            };
            part.at += 2;
            part.state = part.state << 16 | word;
        }
        part.context = rank;
        rank
    }
}

/// Where one part's decoding stands.
struct PartDecoder<'a> {
    state: u32,
    words: &'a [u8],
    at: usize,
    context: usize,
    overrun: bool,
}

impl<'a> PartDecoder<'a> {
    fn new(stream: &'a [u8], n: usize) -> Result<PartDecoder<'a>, String> {
        let [a, b, c, d, words @ ..] = stream else {
            return Err("a part's stream without its state".to_string());
        };
        let state = u32::from_le_bytes([*a, *b, *c, *d]);
        if state < LOW || words.len() % 2 != 0 {
            return Err("a part's stream is malformed".to_string());
        }
        Ok(PartDecoder {
            state,
            words,
            at: 0,
            context: n,
            overrun: false,
        })
    }

    fn finish(self) -> Result<(), String> {
        if self.overrun || self.at != self.words.len() || self.state != LOW {
            return Err("a part's stream does not end where its encoder began".to_string());
        }
        Ok(())
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

        #[test]
        fn edited_payloads_decode_to_the_right_length_or_are_refused(
            cells in cells(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            cut in any::<bool>(),
        ) {
            let raw = raw_of(&cells);
            let mut payload = encode(&raw).unwrap();
            if payload.is_empty() {
                return Ok(());
            }
            let i = at.index(payload.len());
            if cut {
                payload.truncate(i);
            } else {
                payload[i] = byte;
            }
            let parts = cells.len().div_ceil(PART_CELLS).max(1);
            if let Ok(decoded) = decode(&payload, raw.len(), 0, parts - 1) {
                prop_assert_eq!(decoded.len(), raw.len());
            }
        }

        #[test]
        fn any_weights_make_chances_that_fill_the_scale(weights in proptest::collection::vec(0u8..=15, 1..=256)) {
            match chances(&weights) {
                Some(chances) => {
                    prop_assert_eq!(chances.iter().sum::<u32>(), SCALE);
                    for (w, c) in weights.iter().zip(&chances) {
                        prop_assert_eq!(*w == 0, *c == 0);
                    }
                }
                None => prop_assert!(weights.iter().all(|&w| w == 0)),
            }
        }
    }

    #[test]
    fn codes_what_it_can() {
        samples::codes_what_it_can(encode, decode);
    }

    #[test]
    fn contexts_that_repeat_get_rows_of_their_own() {
        // Each cell follows from the one before: one own row per context
        // codes the block in a few bits, the shared row could not.
        let cells: Vec<u16> = (0..32_768).map(|i| (i % 7) as u16).collect();
        let payload = encode(&raw_of(&cells)).unwrap();
        assert!(payload.len() < 400, "{}", payload.len());
        assert_eq!(
            decode(&payload, 2 * cells.len(), 0, 7).unwrap(),
            raw_of(&cells)
        );
    }

    #[test]
    fn one_cell_blocks_and_empty_ones_round_trip() {
        let payload = encode(&[]).unwrap();
        assert_eq!(decode(&payload, 0, 0, 0).unwrap(), Vec::<u8>::new());
        let same = raw_of(&[0x8005; 5000]);
        let payload = encode(&same).unwrap();
        assert_eq!(payload.len(), 3);
        assert_eq!(decode(&payload, same.len(), 0, 1).unwrap(), same);
        assert_eq!(
            decode(&payload, same.len(), 1, 1).unwrap(),
            same[2 * PART_CELLS..]
        );
    }
}
