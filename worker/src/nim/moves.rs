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

/// Moves that remove the same outer stones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
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
}

impl MoveGroups {
    pub fn new(game: &NimGame) -> MoveGroups {
        let layout = game.layout();
        let w = layout.word_bits();
        let slots = 1u32 << w;
        let valid = if slots == 64 { u64::MAX } else { (1u64 << slots) - 1 };
        let superset = |part: u64| (0..slots as u64).filter(|l| l & part == part).fold(0u64, |m, l| m | 1 << l);
        let mut by_popcount = [0u64; 7];
        for l in 0..slots as u64 {
            by_popcount[l.count_ones() as usize] |= 1 << l;
        }
        let low_mask = (1u64 << layout.low_bits()) - 1;
        let mut groups: Vec<Group> = Vec::new();
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
                    high,
                    low,
                    removed: outer.count_ones(),
                    parts: vec![part],
                    any_superset: part.superset,
                }),
            }
        }
        let inner_any_superset = inner.iter().fold(0, |m, p| m | p.superset);
        MoveGroups {
            word_bits: w,
            valid,
            by_popcount,
            groups,
            inner,
            inner_any_superset,
        }
    }
}
