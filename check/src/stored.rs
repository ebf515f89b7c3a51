//! A Morris slice's stored bytes as tables in memory: the engines read the
//! slices a new one depends on this way, and the checker the slices it
//! checks. One decoder, so that both read the format alike.

use egdb_games::morris::index::TableIndex;
use egdb_games::morris::MorrisSlice;
use rayon::prelude::*;

use crate::memory::advise_huge_pages;

/// Bytes that are not a slice's cells: how many there were, how many
/// cells the slice has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrongSize {
    pub bytes: u64,
    pub entries: u64,
}

/// The cells of each of `slice`'s tables, in the order of
/// [`MorrisSlice::tables`], from its stored bytes (two little-endian bytes
/// a cell, the tables one after another).
///
/// # Errors
/// [`WrongSize`] when `raw` is not two bytes per cell of the slice.
pub fn morris_tables(
    slice: &MorrisSlice,
    raw: &[u8],
) -> Result<Vec<(TableIndex, Vec<u16>)>, WrongSize> {
    let indexes: Vec<TableIndex> = slice.tables().into_iter().map(TableIndex::new).collect();
    let entries: u64 = indexes.iter().map(TableIndex::len).sum();
    if raw.len() as u64 != 2 * entries {
        return Err(WrongSize {
            bytes: raw.len() as u64,
            entries,
        });
    }
    let mut rest = raw;
    Ok(indexes
        .into_iter()
        .map(|index| {
            let (mine, after) = rest.split_at(2 * index.len() as usize);
            rest = after;
            // Fresh zeroed pages, advised before they are written: the
            // cells are read at random afterwards.
            let mut cells = vec![0u16; index.len() as usize];
            advise_huge_pages(&cells);
            cells
                .par_chunks_mut(1 << 16)
                .zip(mine.par_chunks(2 << 16))
                .for_each(|(cells, bytes)| {
                    for (cell, b) in cells.iter_mut().zip(bytes.chunks_exact(2)) {
                        *cell = u16::from_le_bytes([b[0], b[1]]);
                    }
                });
            (index, cells)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_back_in_table_order_and_other_sizes_are_refused() {
        // Two tables, one per side to move.
        let slice = MorrisSlice::Movement {
            a: 3,
            b: 2,
            parity: None,
        };
        assert_eq!(slice.tables().len(), 2);
        let entries: u64 = slice
            .tables()
            .into_iter()
            .map(|t| TableIndex::new(t).len())
            .sum();
        let raw: Vec<u8> = (0..entries)
            .flat_map(|i| (i as u16).to_le_bytes())
            .collect();
        let tables = morris_tables(&slice, &raw).expect("fits");
        let cells: Vec<u16> = tables.iter().flat_map(|(_, c)| c.iter().copied()).collect();
        assert_eq!(cells.len() as u64, entries);
        assert!(cells.iter().enumerate().all(|(i, &c)| c == i as u16));
        assert_eq!(
            morris_tables(&slice, &raw[1..]).err(),
            Some(WrongSize {
                bytes: 2 * entries - 1,
                entries
            })
        );
    }
}
