//! Morris games as a [`Family`]: where a position's symmetry class lies
//! among the tables of its slice, and back.

use super::moves::{legal_moves, terminal_value};
use super::position::colours_of;
use super::slices::table_of_position;
use super::symmetry::canonical_pair;
use super::{Color, MorrisGame, MorrisSlice, Move, PointSet, Position};
use crate::family::{Cell, Family};
use crate::{GameError, GameSpec, SliceInfo, Value};

impl Family for MorrisGame {
    type Position = Position;
    type Move = Move;

    fn spec(&self) -> GameSpec {
        MorrisGame::spec(self)
    }

    fn name(&self) -> String {
        MorrisGame::name(self)
    }

    fn fingerprint(&self) -> u64 {
        MorrisGame::fingerprint(self)
    }

    fn definition(&self) -> Option<String> {
        MorrisGame::definition(self).map(str::to_string)
    }

    fn slices(&self) -> Vec<SliceInfo> {
        MorrisGame::slices(self)
    }

    fn start(&self) -> Position {
        Position::start(self.rules())
    }

    fn parse_position(&self, text: &str) -> Result<Position, GameError> {
        Position::parse(self.rules(), text)
    }

    fn format_position(&self, position: &Position) -> String {
        position.to_string()
    }

    fn format_move(&self, mv: &Move) -> String {
        mv.to_string()
    }

    fn moves(&self, position: &Position) -> Vec<(Move, Position)> {
        legal_moves(self.rules(), position)
    }

    fn terminal(&self, position: &Position) -> Option<Value> {
        terminal_value(self.rules(), position)
    }

    /// The board's smallest image (both colours moved by one symmetry);
    /// hands and the side to move stay.
    fn canonical(&self, position: &Position) -> Position {
        let (first, second) = (position.board(Color::First), position.board(Color::Second));
        let (first, second, _) = canonical_pair(first, second);
        position.with_boards(first, second)
    }

    /// Finished positions have no cell; the others lie in the table their
    /// counts name, at their symmetry class's entry.
    fn locate(&self, position: &Position) -> Option<Cell> {
        let rules = self.rules();
        if terminal_value(rules, position).is_some() {
            return None;
        }
        let (mover, opponent) = position.sides();
        let (slice, table) = table_of_position(rules, position)?;
        let locator = self.locator();
        let place = locator.place(slice)?;
        let (_, index) = locator.index(place)?;
        Some(Cell {
            slice: place,
            entry: index.starts[table] + index.tables[table].index(mover, opponent),
        })
    }

    /// The class's own member; `None` for the entries an index keeps only
    /// to stay regular (stored as don't-care).
    fn position_at(&self, cell: Cell) -> Option<Position> {
        let (slice, index) = self.locator().index(cell.slice)?;
        let table = index
            .starts
            .partition_point(|&s| s <= cell.entry)
            .checked_sub(1)?;
        let within = cell.entry - index.starts[table];
        let entry = index
            .tables
            .get(table)
            .filter(|t| within < t.len())?
            .entry(within);
        if !entry.canonical {
            return None;
        }
        self.position_in(slice, table, entry.mover, entry.opponent)
    }
}

impl MorrisGame {
    /// The position of table `table` of `slice` where the side to move
    /// holds `mover` and the other side `opponent`: the slice gives the
    /// hands and, where colours matter, who moves. `None` when no such
    /// position is legal.
    pub fn position_in(
        &self,
        slice: MorrisSlice,
        table: usize,
        mover: PointSet,
        opponent: PointSet,
    ) -> Option<Position> {
        let rules = self.rules();
        let (to_move, hand) = match slice {
            MorrisSlice::Placement { ply, .. } => {
                // Hands as the side to move and the other side hold them.
                let [mover_hand, other_hand] = rules.hands_after(ply).map(|h| h as u8);
                if ply % 2 == 0 {
                    (Color::First, [mover_hand, other_hand])
                } else {
                    (Color::Second, [other_hand, mover_hand])
                }
            }
            MorrisSlice::Movement { .. } | MorrisSlice::Hand { .. } => {
                let [mover_hand, other_hand] = *slice.hands()?.get(table)?;
                let pieces = [mover.len() + mover_hand, opponent.len() + other_hand];
                colours_of(rules, pieces, [mover_hand as u8, other_hand as u8])
            }
        };
        Position::from_sides(rules, mover, opponent, to_move, hand).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::XorShift;
    use crate::morris::rules::Variant;

    #[test]
    fn a_cell_gives_back_a_member_of_its_class() {
        let games = [
            MorrisGame::new(Variant::Taiwan, 4),
            MorrisGame::new(Variant::Standard, 5),
            MorrisGame::new(Variant::Lasker, 4),
            MorrisGame::with_hands(Variant::Morabaraba, 5, 3).unwrap(),
        ];
        for game in games {
            let mut random = XorShift(7);
            let mut checked = 0;
            for _ in 0..400 {
                let position = game.random_position(random.next());
                let Some(cell) = game.locate(&position) else {
                    assert!(game.terminal(&position).is_some());
                    continue;
                };
                let back = game.position_at(cell).expect("a stored class");
                assert_eq!(game.locate(&back), Some(cell), "{position}");
                assert_eq!(back.ply(game.rules()), position.ply(game.rules()));
                checked += 1;
            }
            assert!(checked > 150, "{checked} positions had cells");
        }
    }

    /// Two ways to name a class, the canonical form and the index's cell,
    /// must agree: every image of a position has its canonical form and
    /// its cell, and the canonical form is a fixed point.
    #[test]
    fn every_image_has_one_canonical_form_and_one_cell() {
        use crate::morris::symmetry::{BOARD_SYMMETRIES, SYMMETRIES};
        let game = MorrisGame::new(Variant::Taiwan, 5);
        let mut random = XorShift(11);
        for _ in 0..300 {
            let position = game.random_position(random.next());
            let canonical = game.canonical(&position);
            assert_eq!(game.canonical(&canonical), canonical);
            // A cell holds a class of (mover, opponent) pairs: in the
            // movement phase both colours' positions share it.
            if let Some(cell) = game.locate(&position) {
                let member = game.position_at(cell).expect("a stored class");
                let pair = |p: &Position| {
                    let (mover, opponent) = p.sides();
                    let (m, o, _) = canonical_pair(mover, opponent);
                    (m, o)
                };
                assert_eq!(pair(&member), pair(&canonical), "{position}");
            }
            for s in 0..SYMMETRIES {
                let image = position.with_boards(
                    BOARD_SYMMETRIES.apply(s, position.board(Color::First)),
                    BOARD_SYMMETRIES.apply(s, position.board(Color::Second)),
                );
                assert_eq!(game.canonical(&image), canonical, "{position} under Ω{s}");
                assert_eq!(game.locate(&image), game.locate(&position), "{position}");
            }
        }
    }

    #[test]
    fn cells_off_the_tables_hold_no_position() {
        let game = MorrisGame::new(Variant::Taiwan, 3);
        let slices = game.slices();
        let last = slices.len() as u32 - 1;
        let entries = slices[last as usize].entries;
        assert!(game
            .position_at(Cell {
                slice: last,
                entry: entries
            })
            .is_none());
        assert!(game
            .position_at(Cell {
                slice: last + 1,
                entry: 0
            })
            .is_none());
    }
}
