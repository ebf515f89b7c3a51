//! A Morris slice's tables decoded for checking, and why a slice cannot
//! be checked.

use egdb_games::morris::index::TableIndex;
use egdb_games::morris::MorrisSlice;

use crate::stored::{morris_tables, WrongSize};

/// Why a slice cannot be checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MorrisCheckError {
    #[error("slice {slice} holds {bytes} bytes; its tables have {entries} 16-bit cells")]
    WrongSize {
        slice: String,
        bytes: u64,
        entries: u64,
    },
    #[error("slice {slice} reads slice {needed}, which was not given")]
    Missing { slice: String, needed: String },
    #[error("slice {slice} is no slice this checker knows")]
    Unsupported { slice: String },
}

/// One decoded table.
#[derive(Debug)]
pub struct CellTable {
    pub index: TableIndex,
    pub cells: Vec<u16>,
}

/// A slice's tables, decoded from its stored bytes.
#[derive(Debug)]
pub struct MorrisTables {
    pub slice: MorrisSlice,
    pub tables: Vec<CellTable>,
}

impl MorrisTables {
    /// # Errors
    /// [`MorrisCheckError::WrongSize`] when the bytes are not the slice's
    /// cells.
    pub fn from_bytes(slice: MorrisSlice, raw: &[u8]) -> Result<MorrisTables, MorrisCheckError> {
        let tables = morris_tables(&slice, raw)
            .map_err(|WrongSize { bytes, entries }| MorrisCheckError::WrongSize {
                slice: slice.to_string(),
                bytes,
                entries,
            })?
            .into_iter()
            .map(|(index, cells)| CellTable { index, cells })
            .collect();
        Ok(MorrisTables { slice, tables })
    }

    /// Bytes of memory the cells take.
    pub fn bytes(&self) -> u64 {
        self.tables.iter().map(|t| 2 * t.cells.len() as u64).sum()
    }
}
