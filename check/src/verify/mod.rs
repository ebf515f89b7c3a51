//! `egdb verify`: a finished store checked without the engines that built
//! it. For each slice, every block's checksum and the slice's, then every
//! stored position against the positions its legal moves lead to
//! ([`crate`] states the rule), from decoded slices in
//! memory: the slice and those its moves lead into, kept up to a memory
//! budget for the checks to come.

mod journal;

pub use journal::Journal;

use std::sync::atomic::AtomicBool;

use egdb_db_format::{FormatError, Store};
use egdb_games::{Game, SliceId};

pub use crate::{expected, Mismatch, SliceCheck, EXAMPLES};
use crate::{Checker, Fetched};

/// Checks the slices of one store, keeping decoded slices between checks.
pub struct Verifier<'a> {
    store: &'a Store,
    checker: Checker,
}

impl<'a> Verifier<'a> {
    /// A verifier of `store`, whose game is `game`, that keeps up to
    /// `memory` bytes of decoded slices besides the one being checked and
    /// those it reads.
    pub fn new(store: &'a Store, game: Game, memory: u64) -> Verifier<'a> {
        Verifier {
            store,
            checker: Checker::new(game, memory),
        }
    }

    /// Verifies one slice of the store: checksums, then every position.
    ///
    /// # Errors
    /// Store I/O errors. A corrupt slice, or one whose moves lead into a
    /// corrupt or missing slice, is a failed check, not an error.
    pub fn check(&mut self, slice: &SliceId) -> Result<SliceCheck, FormatError> {
        let store = self.store;
        let never = AtomicBool::new(false);
        let check = self.checker.check(slice, &never, |id| fetch(store, id))?;
        // Never cancelled: a check is always there.
        Ok(check.unwrap_or_else(|| SliceCheck::new(slice.clone())))
    }
}

/// A slice's bytes from the store, every checksum checked.
fn fetch(store: &Store, slice: &SliceId) -> Result<Fetched, FormatError> {
    let slice = slice.as_str();
    if store.slice(slice)?.is_none() {
        return Ok(Fetched::Missing);
    }
    match store.read_slice(slice) {
        Ok((record, raw)) => Ok(Fetched::Slice(record.encoding, raw)),
        Err(e @ (FormatError::Corrupt { .. } | FormatError::Damaged(_))) => {
            Ok(Fetched::Corrupt(e.to_string()))
        }
        Err(e) => Err(e),
    }
}
