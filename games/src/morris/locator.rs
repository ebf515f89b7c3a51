//! Where a Morris game's positions lie: its slices by their place in the
//! plan, each slice's tables indexed on first use.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::index::TableIndex;
use super::slices::MorrisSlice;

/// The slices of a game by their place in the plan, with each slice's
/// tables indexed on first use (an index costs memory and time to build,
/// and a query touches few slices).
#[derive(Debug, Default)]
pub(super) struct Locator {
    places: HashMap<MorrisSlice, u32>,
    slices: Vec<(MorrisSlice, OnceLock<SliceIndex>)>,
}

/// A slice's tables and where each starts among its cells.
#[derive(Debug)]
pub(super) struct SliceIndex {
    pub(super) tables: Vec<TableIndex>,
    /// Cells before each table; one more entry: all the slice's cells.
    pub(super) starts: Vec<u64>,
}

impl SliceIndex {
    fn new(slice: MorrisSlice) -> SliceIndex {
        let tables: Vec<TableIndex> = slice.tables().into_iter().map(TableIndex::new).collect();
        let starts = std::iter::once(0)
            .chain(tables.iter().scan(0, |sum, t| {
                *sum += t.len();
                Some(*sum)
            }))
            .collect();
        SliceIndex { tables, starts }
    }
}

impl Locator {
    /// The slices of a plan, in its order.
    pub(super) fn new(plan: impl IntoIterator<Item = MorrisSlice>) -> Locator {
        let slices: Vec<_> = plan
            .into_iter()
            .map(|slice| (slice, OnceLock::new()))
            .collect();
        let places = slices
            .iter()
            .enumerate()
            .map(|(i, (slice, _))| (*slice, i as u32))
            .collect();
        Locator { places, slices }
    }

    /// The place of `slice` in the plan, if it is one of the game's.
    pub(super) fn place(&self, slice: MorrisSlice) -> Option<u32> {
        self.places.get(&slice).copied()
    }

    pub(super) fn index(&self, place: u32) -> Option<(MorrisSlice, &SliceIndex)> {
        let (slice, index) = self.slices.get(place as usize)?;
        Some((*slice, index.get_or_init(|| SliceIndex::new(*slice))))
    }
}
