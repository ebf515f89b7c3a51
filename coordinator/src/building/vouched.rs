//! Checks a published checksum list stands for. The list of slice
//! checksums (`slice positions raw_crc32`, as `egdb results --crc` writes
//! it) of a store that `egdb verify` checked in full vouches for a slice
//! taken from a store of the same rules (`--reuse`): a movement slice, or
//! a hand slice (RULES.md §3a), named by what it holds, taken only from a
//! store of the same rules of mixing. Equal bytes under the same rules are
//! the very tables that passed, so a build that verifies as it goes counts
//! the slice as passed instead of checking it again (Taiwan P = 12 takes
//! P = 9's movement slices, Lasker P = 10 a store of starts' hand slices:
//! hours of checks already done once). Slices solved here are checked
//! whatever the list says: equal bytes in another game's placement round
//! (the same board, other pieces in hand) are not the same claim.

use std::collections::HashMap;

use egdb_db_format::{SliceRecord, SolvedBy};
use egdb_games::morris::MorrisSlice;

use super::{Build, BuildOptions};

/// The slices of a fully verified store of the same rules, each with its
/// positions and the CRC-32 of its raw bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifiedList {
    /// Where the list came from (a file's path), to say so.
    source: String,
    slices: HashMap<String, (u64, u32)>,
}

impl VerifiedList {
    /// The checksum list at `path` (as `egdb results --crc` writes it).
    ///
    /// # Errors
    /// A file that cannot be read or is not a checksum list.
    pub fn read(path: &std::path::Path) -> Result<VerifiedList, super::checksum_list::ListError> {
        let list = super::checksum_list::read_checksum_list(path)?;
        Ok(VerifiedList::new(
            path.display().to_string(),
            list.into_iter()
                .map(|(slice, listed)| (slice, listed.positions, listed.crc)),
        ))
    }

    /// A list of `(slice, positions, raw CRC-32)` from `source`.
    pub fn new(
        source: impl Into<String>,
        slices: impl IntoIterator<Item = (String, u64, u32)>,
    ) -> VerifiedList {
        VerifiedList {
            source: source.into(),
            slices: slices
                .into_iter()
                .map(|(slice, positions, crc)| (slice, (positions, crc)))
                .collect(),
        }
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether `record` is of a movement or hand slice taken from another
    /// store with the bytes the list gives it.
    pub fn vouches_for(&self, record: &SliceRecord) -> bool {
        matches!(record.solved_by, Some(SolvedBy::Reused { .. }))
            && matches!(
                MorrisSlice::parse(&record.slice),
                Some(MorrisSlice::Movement { .. } | MorrisSlice::Hand { .. })
            )
            && self.slices.get(&record.slice) == Some(&(record.counts.positions, record.raw_crc32))
    }
}

impl BuildOptions {
    /// Whether the list of a verified store these options carry vouches
    /// for `record` (none: no list).
    pub(super) fn vouch_for(&self, record: &SliceRecord) -> bool {
        self.verified_list
            .as_ref()
            .is_some_and(|list| list.vouches_for(record))
    }
}

impl Build {
    /// Whether this build's list of a verified store stands for the check
    /// of `record`'s slice (a build that verifies as it goes).
    pub(super) fn vouched(&self, record: &SliceRecord) -> bool {
        self.verifies_as_built() && self.options.vouch_for(record)
    }

    /// The list of a verified store this build was given, and how many of
    /// the slices stored it counts as passed rather than checked.
    ///
    /// # Errors
    /// Store I/O.
    pub fn vouched_slices(
        &self,
    ) -> Result<Option<(&VerifiedList, usize)>, crate::CoordinatorError> {
        let Some(list) = self.options.verified_list.as_deref() else {
            return Ok(None);
        };
        let records = self.store.slices()?;
        Ok(Some((
            list,
            records.iter().filter(|r| self.vouched(r)).count(),
        )))
    }
}
