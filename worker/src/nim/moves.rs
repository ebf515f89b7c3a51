//! A game's moves rearranged for the word engines.
//!
//! In packed coordinates (see `egdb_games::nim::layout`) a move is an outer
//! part (which word it reads) and a word part (which bits it shifts). Moves
//! with the same outer part read the same word, so they are grouped.

use egdb_games::nim::NimGame;

/// One move's part inside the word block: positions `L ⊇ shift` read bit
/// `L - shift` of the source word (`L ^ shift`, the same since `L ⊇ shift`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordPart {
    pub shift: u32,
    /// The positions of a word that contain the part.
    pub superset: u64,
}

/// (word in the row, source word in the source row) lists, by low stones.
pub type PairLists = std::sync::Arc<Vec<Vec<(u16, u16)>>>;

/// Moves that remove the same outer stones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// For groups that remove low-half stones: `pairs[b]` lists, for a row
    /// whose low halves have `b` stones, each word that contains the
    /// group's low part with the rank of its source word in the source row.
    pub pairs: PairLists,
    /// Outer stones removed, high half and low half of the outer mask.
    pub high: u64,
    pub low: u64,
    pub removed: u32,
    pub parts: Vec<WordPart>,
    /// Positions of a word in which some move of the group is legal.
    pub any_superset: u64,
}

/// The moves of a game, grouped for the engines.
#[derive(Debug, Clone)]
pub struct MoveGroups {
    pub word_bits: u32,
    /// Bits of a word that are positions (all 64 unless the block is smaller).
    pub valid: u64,
    /// `by_popcount[k]`: the positions of a word with `k` stones in the block.
    pub by_popcount: [u64; 7],
    /// Moves that read another word.
    pub groups: Vec<Group>,
    /// Moves inside the word block.
    pub inner: Vec<WordPart>,
    pub inner_any_superset: u64,
    /// The block has six cells and the only moves inside it are its six
    /// single stones (the engine then uses constant masks).
    pub inner_are_the_six_cells: bool,
    /// Every cell alone is a move: the empty board is then the only
    /// position without a move.
    pub singles_cover_all: bool,
}

impl MoveGroups {
    pub fn new(game: &NimGame) -> MoveGroups {
        let layout = game.layout();
        let w = layout.word_bits();
        let slots = 1u32 << w;
        let valid = if slots == 64 {
            u64::MAX
        } else {
            (1u64 << slots) - 1
        };
        let superset = |part: u64| superset(part, slots);
        let mut by_popcount = [0u64; 7];
        for l in 0..slots as u64 {
            by_popcount[l.count_ones() as usize] |= 1 << l;
        }
        let low_mask = (1u64 << layout.low_bits()) - 1;
        let mut groups: Vec<Group> = Vec::new();
        let mut pairs_by_low: std::collections::HashMap<u64, PairLists> = Default::default();
        let mut inner = Vec::new();
        for &m in game.moves() {
            let packed = layout.pack(m);
            let word_part = packed & ((1u64 << w) - 1);
            let outer = packed >> w;
            let part = WordPart {
                shift: word_part as u32,
                superset: superset(word_part),
            };
            if outer == 0 {
                inner.push(part);
                continue;
            }
            let (high, low) = (outer >> layout.low_bits(), outer & low_mask);
            match groups.iter_mut().find(|g| g.high == high && g.low == low) {
                Some(g) => {
                    g.parts.push(part);
                    g.any_superset |= part.superset;
                }
                None => groups.push(Group {
                    pairs: pairs_by_low
                        .entry(low)
                        .or_insert_with(|| std::sync::Arc::new(containing_words(layout, low)))
                        .clone(),
                    high,
                    low,
                    removed: outer.count_ones(),
                    parts: vec![part],
                    any_superset: part.superset,
                }),
            }
        }
        // Groups with the same high part and as many low stones read the same
        // source row: kept together, that row stays in cache.
        groups.sort_by_key(|g| (g.high, g.low.count_ones(), g.low));
        let inner_any_superset = inner.iter().fold(0, |m, p| m | p.superset);
        let mut shifts: Vec<u32> = inner.iter().map(|p| p.shift).collect();
        shifts.sort_unstable();
        let inner_are_the_six_cells = w == 6 && shifts == [1, 2, 4, 8, 16, 32];
        let singles_cover_all = (0..game.cells()).all(|c| game.moves().contains(&(1u64 << c)));
        MoveGroups {
            word_bits: w,
            valid,
            by_popcount,
            groups,
            inner,
            inner_any_superset,
            inner_are_the_six_cells,
            singles_cover_all,
        }
    }
}

/// The lanes of a word (of `slots`) that contain the block stones `part`.
pub fn superset(part: u64, slots: u32) -> u64 {
    (0..slots as u64)
        .filter(|l| l & part == part)
        .fold(0u64, |m, l| m | 1 << l)
}

/// For each stone count `b` of a row's low halves: (word in the row, rank of
/// the source low half) for every low half that contains `part`. Both
/// columns increase, so the engine streams through both rows.
fn containing_words(layout: &egdb_games::nim::NimLayout, part: u64) -> Vec<Vec<(u16, u16)>> {
    if part == 0 {
        return Vec::new();
    }
    (0..=layout.low_bits())
        .map(|b| {
            layout
                .low_halves(b)
                .iter()
                .enumerate()
                .filter(|(_, &low)| low as u64 & part == part)
                .map(|(i, &low)| (i as u16, layout.low_rank(low as u64 ^ part) as u16))
                .collect()
        })
        .collect()
}
