//! What the Morris engines share: solved tables and how their cells are
//! coded, where the positions after a move lie (a table, or over by their
//! counts), and how successors' outcomes combine.

use std::collections::HashMap;
use std::sync::Arc;

use egdb_db_format::encoding::{pack_value_depth16, unpack_value_depth16, ValueCode};
use egdb_games::morris::index::{TableIndex, TakenClasses};
use egdb_games::morris::moves::{terminal_by_counts, Counts};
use egdb_games::morris::rules::MAX_REMOVED;
use egdb_games::morris::slices::{side_place, side_successors, table_of, Side};
use egdb_games::morris::{MorrisRules, MorrisSlice, PointSet};
use egdb_games::Value;

use crate::table::prefetch;

/// A solved slice: one table per orientation of the side to move.
#[derive(Debug)]
pub struct SolvedSlice {
    pub slice: MorrisSlice,
    pub tables: Vec<SolvedTable>,
}

#[derive(Debug)]
pub struct SolvedTable {
    pub index: TableIndex,
    pub cells: Vec<u16>,
}

/// The solved slices a slice reads.
pub type Dependencies = HashMap<MorrisSlice, Arc<SolvedSlice>>;

/// A value and depth from the point of view of the side to move.
pub type Outcome = (Value, u16);

/// The cell of a position in a solved table.
pub(super) fn cell_of(table: &SolvedTable, mover: PointSet, opponent: PointSet) -> Outcome {
    decode(table.cells[table.index.index(mover, opponent) as usize])
}

/// A stored cell as an outcome.
#[inline]
pub(super) fn decode(cell: u16) -> Outcome {
    let (code, depth) = unpack_value_depth16(cell);
    let value = match code {
        ValueCode::Win => Value::Win,
        ValueCode::Loss => Value::Loss,
        ValueCode::Draw => Value::Draw,
        ValueCode::DontCare => unreachable!("canonical entries are always solved"),
    };
    (value, depth)
}

/// Where positions with given counts get their values from.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// The game is over.
    Over(Outcome),
    Table(&'a SolvedTable),
}

/// The target of positions after `ply` placements (2P: movement) where the
/// side to move has `mover` pieces, the other side `opponent`, `odd` of
/// them on odd points.
///
/// # Panics
/// When the slice they lie in is not among `deps` (a planning error).
pub fn target<'a>(
    rules: &MorrisRules,
    deps: &'a Dependencies,
    ply: u32,
    mover: u32,
    opponent: u32,
    odd: u32,
) -> Target<'a> {
    let counts = Counts {
        board: [mover, opponent],
        hand: rules.hands_after(ply),
    };
    if let Some(value) = terminal_by_counts(rules, counts) {
        return Target::Over((value, 0));
    }
    let (slice, table) = table_of(rules, ply, mover, opponent, odd)
        .expect("counts that play on are stored in some table");
    let solved = deps
        .get(&slice)
        .unwrap_or_else(|| panic!("slice {slice} is read but was not given"));
    Target::Table(&solved.tables[table])
}

impl<'a> Target<'a> {
    /// Where the outcome of a position with these sets (side to move,
    /// other side) is, its cell prefetched.
    #[inline]
    fn locate(self, mover: PointSet, opponent: PointSet) -> Located<'a> {
        match self {
            Target::Over(outcome) => Located::Over(outcome),
            Target::Table(table) => {
                let i = table.index.index(mover, opponent) as usize;
                prefetch(&table.cells, i);
                Located::Cell(&table.cells, i)
            }
        }
    }
}

/// The target of positions whose side to move and other side hold
/// `mover` and `opponent` (in hand and on the board), `odd` pieces on odd
/// points: where placing and moving mix.
///
/// # Panics
/// When the slice they lie in is not among `deps` (a planning error).
pub(super) fn side_target<'a>(
    rules: &MorrisRules,
    deps: &'a Dependencies,
    mover: Side,
    opponent: Side,
    odd: u32,
) -> Target<'a> {
    match side_place(rules, mover, opponent, odd) {
        Err(value) => Target::Over((value, 0)),
        Ok((slice, table)) => {
            let solved = deps
                .get(&slice)
                .unwrap_or_else(|| panic!("slice {slice} is read but was not given"));
            Target::Table(&solved.tables[table])
        }
    }
}

/// The targets of a hand table's moves that leave its slice, resolved
/// once: by whether the move placed, pieces it removed, and parity.
pub(super) struct SideSuccessors<'a> {
    /// `[placed][removed]`; `None` where no move of the table goes.
    by_move: [[Option<[Target<'a>; 2]>; MAX_REMOVED as usize + 1]; 2],
}

impl<'a> SideSuccessors<'a> {
    /// For positions whose side to move holds `mover` and other side
    /// `opponent`.
    pub fn new(
        rules: &MorrisRules,
        deps: &'a Dependencies,
        mover: Side,
        opponent: Side,
    ) -> SideSuccessors<'a> {
        let mut by_move = [[None; MAX_REMOVED as usize + 1]; 2];
        for next in side_successors(rules, mover, opponent) {
            by_move[usize::from(next.placed)][next.removed as usize] =
                Some([0, 1].map(|odd| side_target(rules, deps, next.mover, next.opponent, odd)));
        }
        SideSuccessors { by_move }
    }

    /// Where the outcome of a successor (the side to move's set, the
    /// other's) of a move that `placed` and took `removed` pieces is; its
    /// cell is prefetched.
    #[inline]
    pub fn locate(
        &self,
        placed: bool,
        removed: u32,
        mover: PointSet,
        opponent: PointSet,
    ) -> Located<'a> {
        let odd = (mover.odd_count() + opponent.odd_count()) as usize % 2;
        let targets = self.by_move[usize::from(placed)][removed as usize]
            .expect("the plan lists every move that leaves the slice");
        targets[odd].locate(mover, opponent)
    }

    /// [`SideSuccessors::locate`] for a capture of an entry of a run whose
    /// other side `run` holds (one `run` per kind of move: placements and
    /// steps lead into other tables).
    #[inline]
    pub fn locate_capture(
        &self,
        placed: bool,
        run: &mut TakenClasses,
        removed: PointSet,
        mover: PointSet,
        opponent: PointSet,
    ) -> Located<'a> {
        let targets = self.by_move[usize::from(placed)][removed.len() as usize]
            .expect("the plan lists every move that leaves the slice");
        locate_taken(targets, run, removed, mover, opponent)
    }

    /// The targets of placements that capture nothing, by parity; `None`
    /// where the side to move has nothing in hand.
    pub fn uncaptured_placements(&self) -> Option<[Target<'a>; 2]> {
        self.by_move[1][0]
    }
}

/// Where the outcome of a capture's successor (the side to move's set,
/// the other's) is among `targets` (by parity), for an entry of a run
/// whose other side `run` holds: one piece taken is looked up once per
/// run and piece; several (rare) as any successor. Its cell is
/// prefetched.
#[inline]
fn locate_taken<'a>(
    targets: [Target<'a>; 2],
    run: &mut TakenClasses,
    removed: PointSet,
    mover: PointSet,
    opponent: PointSet,
) -> Located<'a> {
    let odd = (mover.odd_count() + opponent.odd_count()) as usize % 2;
    match (targets[odd], removed.first()) {
        (Target::Table(table), Some(taken)) if removed.len() == 1 => {
            debug_assert_eq!(mover, run.side().minus(removed), "a move of another run");
            let class = run.class(&table.index, taken, odd);
            let i = table.index.index_in(class, opponent) as usize;
            prefetch(&table.cells, i);
            Located::Cell(&table.cells, i)
        }
        _ => targets[odd].locate(mover, opponent),
    }
}

/// The targets of one slice's successors, resolved once: by pieces the move
/// removed and by parity of pieces on odd points.
pub(super) struct Successors<'a> {
    /// Indexed by pieces removed; `None` where no move of the slice goes.
    by_removed: [Option<[Target<'a>; 2]>; MAX_REMOVED as usize + 1],
}

/// Where a successor's outcome is: known from its counts, or a cell of a
/// solved table (prefetched when it was located).
#[derive(Debug, Clone, Copy)]
pub(super) enum Located<'a> {
    Over(Outcome),
    Cell(&'a [u16], usize),
}

impl Located<'_> {
    #[inline]
    pub fn outcome(self) -> Outcome {
        match self {
            Located::Over(outcome) => outcome,
            Located::Cell(cells, i) => decode(cells[i]),
        }
    }

    /// The outcome as a stored cell.
    #[inline]
    pub fn cell(self) -> u16 {
        match self {
            Located::Over(outcome) => encode(outcome),
            Located::Cell(cells, i) => cells[i],
        }
    }
}

/// An outcome as a stored cell.
#[inline]
pub(super) fn encode((value, depth): Outcome) -> u16 {
    let code = match value {
        Value::Win => ValueCode::Win,
        Value::Draw => ValueCode::Draw,
        Value::Loss => ValueCode::Loss,
    };
    pack_value_depth16(code, depth)
}

impl<'a> Successors<'a> {
    /// After a move of a side with `mover_after` pieces against `opponent`
    /// pieces (before captures), with `ply` placements made after it;
    /// `captures_only` for movement slices, whose other moves stay inside.
    pub fn new(
        rules: &MorrisRules,
        deps: &'a Dependencies,
        ply: u32,
        (mover_after, opponent): (u32, u32),
        captures_only: bool,
    ) -> Successors<'a> {
        let most = rules.most_removed();
        let by_removed = std::array::from_fn(|r| {
            let r = r as u32;
            let reachable = r <= most.min(opponent) && (r > 0 || !captures_only);
            reachable
                .then(|| [0, 1].map(|odd| target(rules, deps, ply, opponent - r, mover_after, odd)))
        });
        Successors { by_removed }
    }

    /// Where the outcome of a successor (the side to move's set, the
    /// other's) is; its cell is prefetched.
    #[inline]
    pub fn locate(&self, removed: u32, mover: PointSet, opponent: PointSet) -> Located<'a> {
        let odd = (mover.odd_count() + opponent.odd_count()) as usize % 2;
        let targets =
            self.by_removed[removed as usize].expect("the slice's moves remove this many");
        targets[odd].locate(mover, opponent)
    }

    /// Where the outcome of a capture's successor is, as
    /// [`Successors::locate`] says, for a placement of a run: the side to
    /// move after it (`mover`) is the run's other side less the pieces
    /// taken, so that the class of what is left is looked up once per run
    /// and piece taken.
    #[inline]
    pub fn locate_capture(
        &self,
        run: &mut TakenClasses,
        removed: PointSet,
        mover: PointSet,
        opponent: PointSet,
    ) -> Located<'a> {
        let targets =
            self.by_removed[removed.len() as usize].expect("the slice's moves remove this many");
        locate_taken(targets, run, removed, mover, opponent)
    }

    /// The targets of placements that capture nothing, by parity.
    pub fn uncaptured(&self) -> [Target<'a>; 2] {
        self.by_removed[0].expect("placements that capture nothing")
    }
}

/// Combines successor outcomes: the fastest win, else a draw, else the
/// slowest loss (all from the mover's point of view, one ply further).
#[derive(Debug, Clone, Copy, Default)]
pub struct Best {
    pub(super) fastest_win: Option<u16>,
    pub(super) draw: bool,
    pub(super) slowest_loss: Option<u16>,
}

impl Best {
    /// Adds a successor, given from the point of view of its side to move.
    #[inline]
    pub fn add(&mut self, (value, depth): Outcome) {
        match value {
            Value::Loss => {
                self.fastest_win = Some(self.fastest_win.map_or(depth + 1, |d| d.min(depth + 1)))
            }
            Value::Draw => self.draw = true,
            Value::Win => {
                self.slowest_loss = Some(self.slowest_loss.map_or(depth + 1, |d| d.max(depth + 1)))
            }
        }
    }

    /// The outcome if these were all the successors.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(d) = self.fastest_win {
            Some((Value::Win, d))
        } else if self.draw {
            Some((Value::Draw, 0))
        } else {
            self.slowest_loss.map(|d| (Value::Loss, d))
        }
    }
}
