//! Errors that name where a store is damaged: the slice, and the block
//! where there is one.

use egdb_db_format::{FormatError, SliceRecord};

use crate::TablebaseError;

/// A block that cannot hold what its record promises.
pub(super) fn corrupt(record: &SliceRecord, block: u32, reason: &str) -> TablebaseError {
    FormatError::Corrupt {
        slice: record.slice.clone(),
        block: Some(block),
        reason: reason.to_string(),
    }
    .into()
}

/// Damage told by a slice's manifest record, in no block.
pub(super) fn misfit_error(record: &SliceRecord, reason: &str) -> TablebaseError {
    FormatError::Corrupt {
        slice: record.slice.clone(),
        block: None,
        reason: reason.to_string(),
    }
    .into()
}
