//! Rules of every game `egdb` solves, with their notation, symmetry and
//! indexing, and the slice graph a build is cut into.
//!
//! This crate knows nothing of storage or the network: it turns a game spec
//! into a [`nim::NimGame`] or a [`morris::MorrisGame`], says how its positions are
//! laid out in slices, and parses and prints positions and moves in the
//! notation of `shared/RULES.md`.
//!
//! * [`spec`] — the `GAME` strings of the command line.
//! * [`bounded_file`] — small files from outside, read with a bound.
//! * [`shown`] — text from outside as messages repeat it.
//! * [`checked`] — what a table says of a position, and what checking a
//!   slice against its moves finds.
//! * [`family`] — what every family gives the code outside its engines.
//! * [`game`] — a game of any family, and [`with_game!`] to reach it
//!   generically: the one list of families.
//! * [`slice`] — slice ids, sizes and dependencies.
//! * [`value`] — win/loss/draw from the mover's point of view.
//! * [`nim`] — Triangular Nim, the hexagram ring game and custom take-away games.
//! * [`morris`] — Taiwan Morris and Nine Men's Morris on the 24-point board.
//! * [`toy`] — the rotor game, a tiny third family for tests (its spec is
//!   known with feature `toy` only).

pub mod bounded_file;
pub mod checked;
pub mod error;
pub mod family;
mod fingerprint;
pub mod game;
pub mod morris;
pub mod nim;
pub mod shown;
pub mod slice;
pub mod spec;
mod text_file;
pub mod toy;
pub mod value;

pub use error::{GameError, PositionError};
pub use family::{Cell, Family};
pub use game::{phase_of, Game};
pub use shown::{printable, shown};
pub use slice::{NotASliceId, SliceId, SliceInfo, MAX_SLICE_ID};
pub use spec::{GameSpec, Rule};
pub use value::Value;
