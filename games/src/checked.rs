//! What a table says of a position ([`Probe`]) and what checking a slice
//! against its moves finds ([`SliceCheck`], [`Mismatch`]): the checker
//! makes them, the tablebase answers with them, and the wire carries them
//! (`egdb-proto` converts them, once, at its edge).

use crate::{SliceId, Value};

/// Mismatches kept as examples per slice.
pub const EXAMPLES: usize = 10;

/// What the table says of one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub value: Value,
    /// Plies to the end under perfect play, where the table has depths.
    pub depth: Option<u32>,
}

/// "win in 23", "loss in 8", "draw": a probe as people read it.
impl std::fmt::Display for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.depth {
            Some(d) => write!(f, "{} in {d}", self.value),
            None => write!(f, "{}", self.value),
        }
    }
}

/// A position whose stored probe is not what its moves say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The position in the game's notation.
    pub position: String,
    /// `None`: the position's cell holds no value ("don't care").
    pub stored: Option<Probe>,
    pub expected: Probe,
}

/// What checking one slice found. A part of a slice's check, counted on
/// one thread before the parts are added up, is a `SliceCheck<()>`: it
/// names no slice until [`SliceCheck::of`] gives it one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SliceCheck<S = SliceId> {
    pub slice: S,
    /// Positions checked against their moves.
    pub positions: u64,
    /// Positions whose stored probe is wrong.
    pub mismatches: u64,
    /// Entries that only repeat a symmetry class yet hold a value (they
    /// must be "don't care").
    pub duplicates_with_values: u64,
    /// The first few mismatches.
    pub examples: Vec<Mismatch>,
    /// Why the slice's bytes cannot be trusted (a checksum that fails);
    /// its positions are not checked then.
    pub corrupt: Option<String>,
}

impl SliceCheck {
    /// A check of `slice` that found nothing yet.
    pub fn new(slice: SliceId) -> SliceCheck {
        SliceCheck::of(slice, SliceCheck::<()>::default())
    }

    /// What `part` found, as the check of `slice`.
    pub fn of<S>(slice: SliceId, part: SliceCheck<S>) -> SliceCheck {
        SliceCheck {
            slice,
            positions: part.positions,
            mismatches: part.mismatches,
            duplicates_with_values: part.duplicates_with_values,
            examples: part.examples,
            corrupt: part.corrupt,
        }
    }

    /// A slice whose bytes cannot be trusted, for `reason`.
    pub fn corrupt(slice: SliceId, reason: impl Into<String>) -> SliceCheck {
        SliceCheck {
            corrupt: Some(reason.into()),
            ..SliceCheck::new(slice)
        }
    }
}

impl<S> SliceCheck<S> {
    pub fn passed(&self) -> bool {
        self.corrupt.is_none() && self.mismatches == 0 && self.duplicates_with_values == 0
    }

    /// Adds what another part of the same slice found.
    pub fn add<T>(&mut self, other: SliceCheck<T>) {
        self.positions += other.positions;
        self.mismatches += other.mismatches;
        self.duplicates_with_values += other.duplicates_with_values;
        let room = EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
        if self.corrupt.is_none() {
            self.corrupt = other.corrupt;
        }
    }

    /// Counts a checked position, and keeps it as an example when it is
    /// wrong and there is room.
    pub fn record(
        &mut self,
        position: impl FnOnce() -> String,
        stored: Option<Probe>,
        expected: Probe,
    ) {
        self.positions += 1;
        if stored != Some(expected) {
            self.mismatches += 1;
            if self.examples.len() < EXAMPLES {
                self.examples.push(Mismatch {
                    position: position(),
                    stored,
                    expected,
                });
            }
        }
    }
}
