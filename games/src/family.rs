//! What every game family gives the code outside its engines: reading and
//! printing positions, their moves and where their cells lie in a store.
//!
//! A family implements the required methods; the provided ones follow from
//! them, and a family overrides one only where it knows better (Nim draws
//! its benchmark positions uniformly, say). Code outside `games` reaches a
//! family through [`crate::Game`] and [`crate::with_game!`], generically,
//! so a new family needs no change there.

use crate::{GameError, GameSpec, SliceInfo, Value};

/// Where a position's cell lies in a store: the slice by its place in
/// [`Family::slices`], the cell within the slice's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cell {
    pub slice: u32,
    pub entry: u64,
}

/// A game family: its rules, notation and store layout.
pub trait Family: Clone + Send + Sync + 'static {
    /// A position, with the side to move.
    type Position: Clone + Send + Sync;
    /// A move; the position it leads to is listed beside it.
    type Move;

    /// The spec that makes this game.
    fn spec(&self) -> GameSpec;

    /// A name for people.
    fn name(&self) -> String;

    /// What tells this game's stores from others'.
    fn fingerprint(&self) -> u64;

    /// The slices of a build, dependencies first.
    fn slices(&self) -> Vec<SliceInfo>;

    /// The position a game starts from.
    fn start(&self) -> Self::Position;

    /// A position in the game's notation.
    ///
    /// # Errors
    /// [`GameError::MalformedPosition`], naming what is wrong.
    fn parse_position(&self, text: &str) -> Result<Self::Position, GameError>;

    fn format_position(&self, position: &Self::Position) -> String;

    fn format_move(&self, mv: &Self::Move) -> String;

    /// Every legal move with the position it leads to (the other side to
    /// move), in the game's move order; empty when the game is over.
    fn moves(&self, position: &Self::Position) -> Vec<(Self::Move, Self::Position)>;

    /// The value of a position whose game is over, for the side to move:
    /// `Some` for every position without moves and every one [`Family::locate`]
    /// finds no cell for.
    fn terminal(&self, position: &Self::Position) -> Option<Value>;

    /// The cell holding the position's value (that of its symmetry class);
    /// `None` for a position no table stores, which is then over.
    fn locate(&self, position: &Self::Position) -> Option<Cell>;

    /// The position whose cell is `cell` (one member of its symmetry
    /// class); `None` for a cell that holds no position's value.
    fn position_at(&self, cell: Cell) -> Option<Self::Position>;

    /// The member of the position's symmetry class that every member maps
    /// to: two positions are one class exactly when their canonical forms
    /// are equal. A family that does not say keeps every position apart.
    fn canonical(&self, position: &Self::Position) -> Self::Position {
        position.clone()
    }

    /// The definition a store keeps where the spec alone does not give the
    /// game (a game file's contents).
    fn definition(&self) -> Option<String> {
        None
    }

    /// Whether every table stores depths whatever the build asks; a family
    /// that says no may store one win bit per position instead.
    fn always_depth(&self) -> bool {
        true
    }

    /// Bits of a cell that holds a value and a depth: 8 or 16.
    fn depth_cell_bits(&self) -> u32 {
        16
    }

    /// A position for benchmarks, from `seed`: a random walk from the start
    /// of up to 80 plies.
    fn random_position(&self, seed: u64) -> Self::Position {
        let mut random = XorShift(seed | 1);
        let mut position = self.start();
        for _ in 0..random.next() % 80 {
            let mut moves = self.moves(&position);
            if moves.is_empty() {
                break;
            }
            let pick = (random.next() % moves.len() as u64) as usize;
            position = moves.swap_remove(pick).1;
        }
        position
    }
}

/// A small generator with a fixed seed: the same positions every run.
#[derive(Debug, Clone)]
pub struct XorShift(pub u64);

impl XorShift {
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
