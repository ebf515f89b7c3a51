//! Take-away games: Triangular Nim, the hexagram ring game and custom games.
//!
//! Every one is a set of cells holding stones and a list of moves, each a set
//! of cells that must all hold a stone and are then emptied. A position is the
//! mask of cells that still hold a stone ([`NimGame::cells`] ≤ 63).

mod cellmap;
pub mod custom;
mod definition;
mod family;
pub mod hexagram;
pub mod layout;
mod notation;
#[cfg(any(test, feature = "oracle"))]
pub mod oracle;
pub mod row_symmetry;
pub mod symmetry;
pub mod triangle;

use crate::fingerprint::Fnv;
use crate::{GameError, GameSpec, Rule, SliceId, SliceInfo, Value};
pub use definition::{Board, NimDefinition, MAX_CELLS};
pub use layout::{NimLayout, Row, Slot};
pub use row_symmetry::RowSymmetry;
pub use symmetry::SymmetryGroup;

/// The longest high half of a layout: 45 cells less a word block of six
/// and a low half of fifteen.
const MAX_HIGH_BITS: u32 = MAX_CELLS - layout::MAX_WORD_CELLS - layout::MAX_LOW_BITS;

/// A validated take-away game with its symmetry group and slice layout.
#[derive(Debug, Clone)]
pub struct NimGame {
    spec: GameSpec,
    def: NimDefinition,
    symmetry: SymmetryGroup,
    layout: NimLayout,
    all_cells: u64,
}

impl NimGame {
    /// Instantiates a spec; `nim:file:PATH` reads and validates the file.
    ///
    /// # Errors
    /// [`GameError::GameFile`] when the file cannot be read or is malformed.
    pub fn from_spec(spec: &GameSpec) -> Result<NimGame, GameError> {
        let def = match spec {
            GameSpec::NimTriangle { layers, rule } => NimDefinition::triangle(*layers, *rule),
            GameSpec::NimHexagram => NimDefinition::hexagram(),
            GameSpec::NimFile { path } => {
                let text = custom::read(path)?;
                custom::parse(&text, &path.display().to_string())?
            }
            GameSpec::Morris { .. }
            | GameSpec::MorrisHands { .. }
            | GameSpec::MorrisFile { .. }
            | GameSpec::Rotor { .. } => {
                return Err(GameError::UnknownSpec {
                    spec: spec.to_string(),
                    reason: "not a take-away game".to_string(),
                })
            }
        };
        NimGame::from_definition(spec.clone(), def)
    }

    /// The game of a spec whose definition travels with it (a store's copy,
    /// a task's): `nim:file:` games are read from `definition` rather than
    /// from the file, which may be gone or elsewhere.
    ///
    /// # Errors
    /// As [`NimGame::from_spec`], and for a malformed definition.
    pub fn from_spec_with_definition(
        spec: &GameSpec,
        definition: Option<&str>,
    ) -> Result<NimGame, GameError> {
        match (spec, definition) {
            (GameSpec::NimFile { path }, Some(definition)) => {
                let def = custom::parse(definition, &path.display().to_string())?;
                NimGame::from_definition(spec.clone(), def)
            }
            _ => NimGame::from_spec(spec),
        }
    }

    /// # Errors
    /// [`GameError::Definition`] when a symmetry does not preserve the moves
    /// or the game has too many cells; for a `nim:file:` game,
    /// [`GameError::GameFile`] naming the file.
    pub fn from_definition(spec: GameSpec, def: NimDefinition) -> Result<NimGame, GameError> {
        let file = match &spec {
            GameSpec::NimFile { path } => Some(path.display().to_string()),
            _ => None,
        };
        NimGame::checked(spec, def).map_err(|e| match (e, file) {
            (GameError::Definition { reason }, Some(path)) => GameError::GameFile { path, reason },
            (e, _) => e,
        })
    }

    fn checked(spec: GameSpec, def: NimDefinition) -> Result<NimGame, GameError> {
        if !(1..=MAX_CELLS).contains(&def.cells) {
            return Err(GameError::Definition {
                reason: format!("a game has 1 to {MAX_CELLS} cells, not {}", def.cells),
            });
        }
        let symmetry = SymmetryGroup::new(def.cells, &def.moves, &def.symmetries)?;
        let word_block = choose_word_block(def.cells, &def.moves, &symmetry);
        // The rank tables of the high half take 2^high_bits entries: the
        // bound MAX_CELLS keeps holds only with a full word block, which
        // symmetries of long orbits alone can deny.
        let high_bits = (def.cells - word_block.len() as u32).saturating_sub(layout::MAX_LOW_BITS);
        if high_bits > MAX_HIGH_BITS {
            return Err(GameError::Definition {
                reason: format!(
                    "its symmetries leave {} cells for the word block, orbits of six or fewer; \
                     the other {} would need rank tables of 2^{high_bits} entries (at most 2^{MAX_HIGH_BITS})",
                    word_block.len(),
                    def.cells - word_block.len() as u32
                ),
            });
        }
        let low_half = choose_low_half(def.cells, &word_block, &symmetry);
        let layout = NimLayout::with_low_half(def.cells, &word_block, &low_half);
        Ok(NimGame {
            spec,
            all_cells: (1u64 << def.cells) - 1,
            def,
            symmetry,
            layout,
        })
    }

    pub fn spec(&self) -> &GameSpec {
        &self.spec
    }

    pub fn definition(&self) -> &NimDefinition {
        &self.def
    }

    pub fn name(&self) -> &str {
        &self.def.name
    }

    pub fn cells(&self) -> u32 {
        self.def.cells
    }

    pub fn rule(&self) -> Rule {
        self.def.rule
    }

    pub fn moves(&self) -> &[u64] {
        &self.def.moves
    }

    pub fn start(&self) -> u64 {
        self.def.start
    }

    pub fn symmetry(&self) -> &SymmetryGroup {
        &self.symmetry
    }

    pub fn layout(&self) -> &NimLayout {
        &self.layout
    }

    /// Every position of the game: `2^cells`.
    pub fn position_count(&self) -> u64 {
        1u64 << self.def.cells
    }

    /// The value of a position with no legal move: the player to move cannot
    /// move, which loses under the normal rule and wins under misère.
    pub fn terminal_value(&self) -> Value {
        match self.def.rule {
            Rule::Normal => Value::Loss,
            Rule::Misere => Value::Win,
        }
    }

    /// The legal moves of a position, in the game's move order.
    pub fn legal_moves(&self, position: u64) -> impl Iterator<Item = u64> + '_ {
        self.def
            .moves
            .iter()
            .copied()
            .filter(move |&m| m & position == m)
    }

    /// The slices of a build, in an order where dependencies come first.
    pub fn slices(&self) -> Vec<SliceInfo> {
        let removals = self.outer_removals();
        let kept = self
            .row_symmetry()
            .map(|rows| rows.kept_words(&self.layout));
        (0..self.layout.slice_count())
            .map(|h| SliceInfo {
                id: slice_id(h),
                positions: self.layout.words(h) << self.layout.word_bits(),
                entries: self.layout.words(h) * 64,
                kept_entries: kept
                    .as_ref()
                    .map_or(self.layout.words(h), |k| k[h as usize])
                    * 64,
                dependencies: removals
                    .iter()
                    .filter(|&&k| k <= h)
                    .map(|&k| slice_id(h - k))
                    .collect(),
                stones: Some(h),
            })
            .collect()
    }

    /// How the symmetries act on rows, if both halves are unions of orbits.
    pub fn row_symmetry(&self) -> Option<RowSymmetry> {
        RowSymmetry::new(&self.layout, &self.symmetry)
    }

    /// The distinct numbers of outer stones one move removes (zero excluded).
    pub fn outer_removals(&self) -> Vec<u32> {
        let w = self.layout.word_bits();
        let mut removals: Vec<u32> = self
            .def
            .moves
            .iter()
            .map(|&m| (self.layout.pack(m) >> w).count_ones())
            .filter(|&k| k > 0)
            .collect();
        removals.sort_unstable();
        removals.dedup();
        removals
    }

    /// The slice number of a slice id of this game.
    pub fn slice_number(&self, id: &SliceId) -> Option<u32> {
        let h: u32 = id.as_str().strip_prefix("outer-")?.parse().ok()?;
        (h < self.layout.slice_count()).then_some(h)
    }

    /// Checks that a mask is a position of this game.
    pub fn contains(&self, position: u64) -> bool {
        position & !self.all_cells == 0
    }

    /// A stable fingerprint of everything that decides the stored tables:
    /// cells, rule, moves, symmetries. Stores of other games differ in it.
    pub fn fingerprint(&self) -> u64 {
        let mut moves = self.def.moves.clone();
        moves.sort_unstable();
        let mut perms = self.symmetry.permutations().to_vec();
        perms.sort();
        let mut hash = Fnv::default();
        hash.write(&self.def.cells.to_le_bytes());
        hash.write(self.def.rule.as_str().as_bytes());
        for m in moves {
            hash.write(&m.to_le_bytes());
        }
        for p in perms.iter().flatten() {
            hash.write(&p.to_le_bytes());
        }
        hash.0
    }
}

/// The id of Nim slice `h`: words whose outer cells hold `h` stones.
pub fn slice_id(h: u32) -> SliceId {
    SliceId::new(format!("outer-{h:02}"))
}

/// Picks up to six cells for the word block: whole symmetry orbits (so that
/// every slice is closed under symmetry), preferring cells that share no
/// multi-cell move, since moves inside the block cost more.
fn choose_word_block(cells: u32, moves: &[u64], symmetry: &SymmetryGroup) -> Vec<u32> {
    use layout::MAX_WORD_CELLS;
    if cells <= MAX_WORD_CELLS {
        return (0..cells).collect();
    }
    let mut orbits = symmetry.orbits();
    orbits.sort_by_key(|o| std::cmp::Reverse(o.len()));
    let inner_moves = |block: u64| {
        moves
            .iter()
            .filter(|&&m| m.count_ones() > 1 && m & block == m)
            .count()
    };
    let greedy = |strict: bool| {
        let mut block = 0u64;
        for orbit in &orbits {
            let mask = orbit.iter().fold(0u64, |m, &c| m | 1 << c);
            let fits = (block | mask).count_ones() <= MAX_WORD_CELLS;
            if fits && (!strict || inner_moves(block | mask) == 0) {
                block |= mask;
            }
        }
        block
    };
    let (strict, loose) = (greedy(true), greedy(false));
    // A fuller word beats one without inner moves.
    let block = if strict.count_ones() >= loose.count_ones() {
        strict
    } else {
        loose
    };
    (0..cells).filter(|c| block & (1 << c) != 0).collect()
}

/// Outer cells for the low half that form a union of symmetry orbits, as
/// many as fit (at most [`layout::MAX_LOW_BITS`]): symmetries then map rows
/// to rows.
fn choose_low_half(cells: u32, word_block: &[u32], symmetry: &SymmetryGroup) -> Vec<u32> {
    let outer: Vec<Vec<u32>> = symmetry
        .orbits()
        .into_iter()
        .filter(|o| !o.iter().any(|c| word_block.contains(c)))
        .collect();
    let size = (cells - word_block.len() as u32).min(layout::MAX_LOW_BITS) as usize;
    // reach[n]: the orbits of one way to cover exactly n cells.
    let mut reach: Vec<Option<Vec<usize>>> = vec![None; size + 1];
    reach[0] = Some(Vec::new());
    for (i, orbit) in outer.iter().enumerate() {
        for n in (orbit.len()..=size).rev() {
            if reach[n].is_none() {
                if let Some(mut way) = reach[n - orbit.len()].clone() {
                    way.push(i);
                    reach[n] = Some(way);
                }
            }
        }
    }
    let way = reach.into_iter().rev().flatten().next().unwrap_or_default();
    let mut low: Vec<u32> = way.into_iter().flat_map(|i| outer[i].clone()).collect();
    low.sort_unstable();
    low
}

/// The normal-rule triangle of `layers` layers, for tests.
#[cfg(test)]
pub(crate) fn triangle(layers: u32) -> NimGame {
    NimGame::from_spec(&GameSpec::NimTriangle {
        layers,
        rule: Rule::Normal,
    })
    .unwrap_or_else(|e| panic!("{layers} layers: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_blocks_are_unions_of_orbits() {
        for layers in 1..=9 {
            let game = NimGame::from_spec(&GameSpec::NimTriangle {
                layers,
                rule: Rule::Normal,
            })
            .unwrap();
            let block = game.layout().word_cells().to_vec();
            assert_eq!(block.len() as u32, game.cells().min(6), "{layers} layers");
            for g in 0..game.symmetry().len() {
                let mask = block.iter().fold(0u64, |m, &c| m | 1 << c);
                assert_eq!(game.symmetry().apply(g, mask), mask);
            }
        }
    }

    #[test]
    fn symmetries_that_deny_the_word_block_are_refused_before_any_table() {
        // One orbit of all 45 cells: no orbit fits a word of six, and the
        // high half would have taken rank tables of 2^30 entries.
        let def = NimDefinition {
            name: "ring".to_string(),
            board: Board::Custom,
            cells: 45,
            rule: Rule::Normal,
            moves: (0..45).map(|c| 1u64 << c).collect(),
            start: (1u64 << 45) - 1,
            symmetries: vec![(0..45).map(|c| (c + 1) % 45).collect()],
        };
        let spec = GameSpec::NimTriangle {
            layers: 9,
            rule: Rule::Normal,
        };
        let err = NimGame::from_definition(spec, def).unwrap_err().to_string();
        assert!(err.contains("2^30"), "{err}");
    }

    #[test]
    fn triangle_has_six_symmetries_and_hexagram_twelve() {
        let tri = NimGame::from_spec(&GameSpec::NimTriangle {
            layers: 5,
            rule: Rule::Normal,
        })
        .unwrap();
        assert_eq!(tri.symmetry().len(), 6);
        let hex = NimGame::from_spec(&GameSpec::NimHexagram).unwrap();
        assert_eq!(hex.symmetry().len(), 12);
        assert_eq!(hex.layout().word_cells(), &[0, 1, 4, 8, 11, 12]);
    }

    #[test]
    fn dependencies_point_to_earlier_slices() {
        let game = NimGame::from_spec(&GameSpec::NimTriangle {
            layers: 6,
            rule: Rule::Misere,
        })
        .unwrap();
        let slices = game.slices();
        for (i, s) in slices.iter().enumerate() {
            for d in &s.dependencies {
                assert!(slices[..i].iter().any(|e| &e.id == d));
            }
        }
        let total: u64 = slices.iter().map(|s| s.positions).sum();
        assert_eq!(total, game.position_count());
    }
}
