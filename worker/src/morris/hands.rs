//! Step 1 of a hand slice (placing and moving mixed, RULES.md §3a): each
//! entry's moves on the board that take nothing are counted (they lie in
//! the slice), its placements and captures folded in ([`super::movement`]
//! solves the rest as it solves movement).
//!
//! Entries are walked in runs of the engine layout, whose other side is
//! fixed. A placement that captures nothing keeps that side, so its
//! successor lies in one run of its table, ranked from the entry's own set
//! (as the placement engine ranks them); the classes of that side less a
//! captured piece are looked up once per run and piece. (Each successor
//! looked up in full, a lasker:6 build solved its hand slices at 278 ns
//! per entry; by runs, at 219.)

use std::sync::atomic::{AtomicBool, AtomicU16};

use egdb_games::morris::index::{TableIndex, TakenClasses};
use egdb_games::morris::moves::{for_each_move, for_each_step_with_hands};
use egdb_games::morris::placements::PlacementsAgainst;
use egdb_games::morris::slices::Side;
use egdb_games::morris::{MorrisRules, PointSet};

use super::counting::{count_entries, dedup_sorted, Table};
use super::placement::Quiet;
use super::solved::{decode, Dependencies, Located, SideSuccessors};

/// What the entries of one run share: where their placements that capture
/// nothing lead, how placements split against the run's other side, and
/// the classes of that side less a piece.
struct HandRun<'a> {
    /// `None` where the side to move has nothing in hand, or the run's
    /// other side nothing on the board (a mill is no move there, which the
    /// split does not know: the rules' generator gives those placements).
    placements: Option<(PlacementsAgainst, [Quiet<'a>; 2])>,
    /// By whether the capture came with a placement (the two lead into
    /// other tables).
    taken: [TakenClasses; 2],
}

/// Step 1 for a hand table: its moves on the board that take nothing are
/// counted (they lie in this slice), its placements and captures folded
/// in. `target` is the engine layout of the table the steps lead to.
pub(super) fn initialise_with_hands(
    rules: &MorrisRules,
    table: &Table,
    target: &TableIndex,
    deps: &Dependencies,
    deepest: &AtomicU16,
    cancel: &AtomicBool,
) {
    let key = table.stored.key();
    let hands = table.hands;
    let successors = SideSuccessors::new(
        rules,
        deps,
        Side::new(hands[0], key.mover),
        Side::new(hands[1], key.opponent),
    );
    let uncaptured = successors.uncaptured_placements();
    let run = |other: PointSet| HandRun {
        placements: uncaptured
            .filter(|_| hands[0] > 0 && !other.is_empty())
            .map(|targets| {
                let quiet = targets.map(|t| Quiet::new(t, other));
                (PlacementsAgainst::new(rules, other), quiet)
            }),
        taken: [other, other].map(|side| {
            let mut taken = TakenClasses::default();
            taken.start(side);
            taken
        }),
    };
    count_entries(
        rules,
        table,
        deepest,
        cancel,
        run,
        |counting, run, distinct, mover, opponent| {
            let HandRun { placements, taken } = run;
            let [step_taken, place_taken] = taken;
            match placements {
                Some((placements, quiet)) => {
                    let added = [quiet[0].added(mover), quiet[1].added(mover)];
                    // Pieces on odd points after a placement on an even
                    // point; one on an odd point changes the parity.
                    let parity = (mover.odd_count() + opponent.odd_count()) as usize % 2;
                    placements.for_each(
                        mover,
                        // In the run that stays in the cache.
                        |to| {
                            let odd = parity ^ usize::from(to.is_odd());
                            let cell = quiet[odd].placed_cell(added[odd].as_ref(), mover, to);
                            counting.placed.push(Located::Over(decode(cell)));
                        },
                        |s| {
                            let located = successors.locate_capture(
                                true,
                                place_taken,
                                s.mv.removed,
                                s.opponent,
                                s.mover,
                            );
                            counting.captured.push(located);
                        },
                    );
                    counting.captured.append(&mut counting.placed);
                }
                None if hands[0] > 0 => for_each_move(rules, true, mover, opponent, |s| {
                    let removed = s.mv.removed.len();
                    let located = successors.locate(true, removed, s.opponent, s.mover);
                    counting.captured.push(located);
                }),
                None => {}
            }
            counting.inside.clear();
            let mut steps = 0;
            for_each_step_with_hands(rules, mover, opponent, hands, |s| {
                if s.mv.removed.is_empty() {
                    steps += 1;
                    if !distinct {
                        counting.inside.push(target.index(s.mover, opponent));
                    }
                } else {
                    let located = successors.locate_capture(
                        false,
                        step_taken,
                        s.mv.removed,
                        s.opponent,
                        s.mover,
                    );
                    counting.captured.push(located);
                }
            });
            if distinct {
                steps
            } else {
                dedup_sorted(&mut counting.inside) as u8
            }
        },
    );
}
