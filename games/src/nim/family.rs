//! Take-away games as a [`Family`].

use super::NimGame;
use crate::family::{Cell, Family, XorShift};
use crate::{GameError, GameSpec, SliceInfo, Value};

impl Family for NimGame {
    /// The mask of cells holding a stone.
    type Position = u64;
    /// The mask of cells a move empties.
    type Move = u64;

    fn spec(&self) -> GameSpec {
        NimGame::spec(self).clone()
    }

    fn name(&self) -> String {
        NimGame::name(self).to_string()
    }

    fn fingerprint(&self) -> u64 {
        NimGame::fingerprint(self)
    }

    fn slices(&self) -> Vec<SliceInfo> {
        NimGame::slices(self)
    }

    fn start(&self) -> u64 {
        NimGame::start(self)
    }

    fn parse_position(&self, text: &str) -> Result<u64, GameError> {
        NimGame::parse_position(self, text)
    }

    fn format_position(&self, position: &u64) -> String {
        NimGame::format_position(self, *position)
    }

    fn format_move(&self, mv: &u64) -> String {
        NimGame::format_move(self, *mv)
    }

    fn moves(&self, position: &u64) -> Vec<(u64, u64)> {
        self.legal_moves(*position)
            .map(|m| (m, position ^ m))
            .collect()
    }

    fn canonical(&self, position: &u64) -> u64 {
        self.symmetry().canonical(*position)
    }

    fn terminal(&self, position: &u64) -> Option<Value> {
        self.legal_moves(*position)
            .next()
            .is_none()
            .then(|| self.terminal_value())
    }

    /// Every position has a cell, finished ones too. Depth tables keep each
    /// symmetry class once, under its canonical member; value tables keep
    /// every member, all alike: the canonical member's cell serves both.
    fn locate(&self, position: &u64) -> Option<Cell> {
        let slot = self.layout().locate(self.symmetry().canonical(*position));
        Some(Cell {
            slice: slot.slice,
            entry: slot.word * 64 + u64::from(slot.bit),
        })
    }

    fn position_at(&self, cell: Cell) -> Option<u64> {
        let layout = self.layout();
        let (word, bit) = (cell.entry / 64, (cell.entry % 64) as u32);
        let fits = cell.slice < layout.slice_count()
            && word < layout.words(cell.slice)
            && bit < 1 << layout.word_bits();
        fits.then(|| layout.position(cell.slice, word, bit))
    }

    fn definition(&self) -> Option<String> {
        (NimGame::definition(self).board == super::Board::Custom)
            .then(|| super::custom::to_toml(NimGame::definition(self)))
    }

    fn always_depth(&self) -> bool {
        false
    }

    fn depth_cell_bits(&self) -> u32 {
        8
    }

    /// Every cell holds a stone or not with even odds: all slices alike.
    fn random_position(&self, seed: u64) -> u64 {
        let all = u64::MAX >> (64 - self.cells().clamp(1, 64));
        XorShift(seed | 1).next() & all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_cell_gives_back_its_position(layers in 1u32..=6, bits in any::<u64>()) {
            let game = NimGame::from_spec(&GameSpec::NimTriangle {
                layers,
                rule: crate::Rule::Normal,
            })
            .unwrap();
            let position = bits & game.start();
            let cell = Family::locate(&game, &position).unwrap();
            let back = game.position_at(cell).unwrap();
            prop_assert_eq!(game.symmetry().canonical(back), game.symmetry().canonical(position));
            prop_assert_eq!(Family::locate(&game, &back), Some(cell));
        }
    }
}
