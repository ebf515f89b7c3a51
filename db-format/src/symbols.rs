//! A block of two-byte cells as one-byte symbols: the block's distinct
//! cells, sorted, then each cell's rank among them. A Morris block holds a
//! few dozen distinct (value, depth) pairs, so the stream halves before
//! zstd sees it, and decodes to the very same raw bytes (checksums over
//! the raw bytes are unchanged).
//!
//! ```text
//! offset  size     field
//! 0       1        distinct cells - 1 (n - 1)
//! 1       2n       the distinct cells, u16 little-endian, strictly rising
//! 1+2n    len/2    one rank per cell
//! ```

/// The most distinct cells a block may hold to be written as symbols.
pub const MAX_SYMBOLS: usize = 256;

/// `raw` (little-endian u16 cells) as symbols; `None` for a block of an
/// odd length or with more than [`MAX_SYMBOLS`] distinct cells.
pub fn to_symbols(raw: &[u8]) -> Option<Vec<u8>> {
    if raw.len() % 2 != 0 {
        return None;
    }
    let cells = || {
        raw.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
    };
    let mut seen = vec![0u64; 1 << 10];
    let mut distinct = 0usize;
    for cell in cells() {
        let (word, bit) = (usize::from(cell >> 6), cell & 63);
        if seen[word] >> bit & 1 == 0 {
            seen[word] |= 1 << bit;
            distinct += 1;
            if distinct > MAX_SYMBOLS {
                return None;
            }
        }
    }
    if distinct == 0 {
        // An empty block: one symbol, no cells.
        return Some(vec![0, 0, 0]);
    }
    let mut rank = vec![0u8; 1 << 16];
    let mut packed = Vec::with_capacity(1 + 2 * distinct + raw.len() / 2);
    packed.push((distinct - 1) as u8);
    let mut next = 0u8;
    for (word, &bits) in seen.iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let cell = (word << 6) as u16 | bits.trailing_zeros() as u16;
            bits &= bits - 1;
            packed.extend_from_slice(&cell.to_le_bytes());
            rank[usize::from(cell)] = next;
            next = next.wrapping_add(1);
        }
    }
    packed.extend(cells().map(|cell| rank[usize::from(cell)]));
    Some(packed)
}

/// The raw bytes of `raw_len` that `packed` holds as symbols.
///
/// # Errors
/// The reason, for a stream that is not what [`to_symbols`] writes: of
/// another length, cells not rising, or a rank past the cells.
pub fn from_symbols(packed: &[u8], raw_len: usize) -> Result<Vec<u8>, String> {
    let (&last, rest) = packed.split_first().ok_or("an empty symbol stream")?;
    let count = usize::from(last) + 1;
    if raw_len % 2 != 0 {
        return Err(format!("{raw_len} raw bytes are no two-byte cells"));
    }
    if rest.len() != 2 * count + raw_len / 2 {
        return Err(format!(
            "{} bytes of symbols for {count} cells and {raw_len} raw bytes",
            packed.len()
        ));
    }
    let (table, ranks) = rest.split_at(2 * count);
    let table: Vec<[u8; 2]> = table.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
    let rising = table
        .windows(2)
        .all(|w| u16::from_le_bytes(w[0]) < u16::from_le_bytes(w[1]));
    if !rising {
        return Err("symbol cells not strictly rising".to_string());
    }
    let mut raw = Vec::with_capacity(raw_len);
    for &rank in ranks {
        let cell = table
            .get(usize::from(rank))
            .ok_or_else(|| format!("rank {rank} past {count} cells"))?;
        raw.extend_from_slice(cell);
    }
    Ok(raw)
}

/// The longest symbol stream of a block of `raw_len` raw bytes.
pub fn max_symbols_len(raw_len: usize) -> usize {
    1 + 2 * MAX_SYMBOLS + raw_len / 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn raw_of(cells: &[u16]) -> Vec<u8> {
        cells.iter().flat_map(|c| c.to_le_bytes()).collect()
    }

    proptest! {
        #[test]
        fn blocks_of_few_cells_read_back_whole(
            alphabet in prop::collection::vec(any::<u16>(), 1..300),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 0..2000),
        ) {
            let cells: Vec<u16> = picks.iter().map(|i| alphabet[i.index(alphabet.len())]).collect();
            let raw = raw_of(&cells);
            let mut distinct = cells.clone();
            distinct.sort_unstable();
            distinct.dedup();
            match to_symbols(&raw) {
                Some(packed) => {
                    prop_assert!(distinct.len() <= MAX_SYMBOLS);
                    prop_assert!(packed.len() <= max_symbols_len(raw.len()));
                    prop_assert_eq!(from_symbols(&packed, raw.len()), Ok(raw));
                }
                None => prop_assert!(distinct.len() > MAX_SYMBOLS),
            }
        }

        #[test]
        fn edited_streams_decode_to_a_block_of_the_right_length_or_are_refused(
            cells in prop::collection::vec(0u16..40, 0..500),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            cut in any::<bool>(),
        ) {
            let raw = raw_of(&cells);
            let mut packed = to_symbols(&raw).unwrap();
            if cut {
                packed.truncate(at.index(packed.len()));
            } else {
                let i = at.index(packed.len());
                packed[i] = byte;
            }
            if let Ok(decoded) = from_symbols(&packed, raw.len()) {
                // A rank edited to another valid rank, or a table cell
                // still rising: a different block, of the right length.
                prop_assert_eq!(decoded.len(), raw.len());
            }
        }
    }

    #[test]
    fn odd_and_crowded_blocks_stay_plain() {
        assert_eq!(to_symbols(&[1, 2, 3]), None);
        let crowded: Vec<u16> = (0..=256).collect();
        assert_eq!(to_symbols(&raw_of(&crowded)), None);
        let full: Vec<u16> = (0..256).map(|c| c * 257).collect();
        let packed = to_symbols(&raw_of(&full)).unwrap();
        assert_eq!(packed[0], 255);
        assert_eq!(from_symbols(&packed, 512), Ok(raw_of(&full)));
        assert_eq!(from_symbols(&to_symbols(&[]).unwrap(), 0), Ok(Vec::new()));
        assert!(from_symbols(&[], 0).is_err());
        assert!(from_symbols(&[1, 5, 0, 5, 0, 0], 2).is_err(), "not rising");
        assert!(
            from_symbols(&[0, 5, 0, 1], 2).is_err(),
            "rank past the cells"
        );
    }
}
