//! How values are held in a slice's raw bytes.

/// The layout of a slice's raw bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CellEncoding {
    /// One bit per position, little-endian within 64-bit words: 1 = the
    /// player to move wins, 0 = loses (games without draws).
    WinBits,
    /// One byte per position: [`ValueCode`] in the top two bits, the depth
    /// (plies to the end, 0 to 63) in the low six.
    ValueDepth8,
    /// Two bytes per position, little-endian: [`ValueCode`] in the top two
    /// bits, the depth (0 to 16383) in the low fourteen (games with draws
    /// and long wins: Morris).
    ValueDepth16,
}

impl CellEncoding {
    pub fn tag(self) -> u8 {
        match self {
            CellEncoding::WinBits => 1,
            CellEncoding::ValueDepth8 => 2,
            CellEncoding::ValueDepth16 => 3,
        }
    }

    pub fn from_tag(tag: u8) -> Option<CellEncoding> {
        match tag {
            1 => Some(CellEncoding::WinBits),
            2 => Some(CellEncoding::ValueDepth8),
            3 => Some(CellEncoding::ValueDepth16),
            _ => None,
        }
    }

    /// Bytes of a table of `entries` cells (one-bit cells fill the last
    /// byte with zeros).
    pub fn table_bytes(self, entries: u64) -> u64 {
        match self {
            CellEncoding::WinBits => entries.div_ceil(8),
            CellEncoding::ValueDepth8 => entries,
            CellEncoding::ValueDepth16 => 2 * entries,
        }
    }

    /// Cells in a table of `bytes` bytes (for one-bit cells, the padding
    /// of the last byte counted as cells).
    pub fn entries_in(self, bytes: u64) -> u64 {
        match self {
            CellEncoding::WinBits => bytes.saturating_mul(8),
            CellEncoding::ValueDepth8 => bytes,
            CellEncoding::ValueDepth16 => bytes / 2,
        }
    }
}

/// A stored value; `DontCare` marks entries nobody reads (a position stored
/// through its symmetric image), so that they compress to nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueCode {
    DontCare = 0,
    Loss = 1,
    Draw = 2,
    Win = 3,
}

/// Largest depth a [`CellEncoding::ValueDepth8`] byte holds.
pub const MAX_DEPTH8: u8 = 63;

#[inline]
pub fn pack_value_depth8(code: ValueCode, depth: u8) -> u8 {
    debug_assert!(depth <= MAX_DEPTH8);
    ((code as u8) << 6) | depth
}

#[inline]
pub fn unpack_value_depth8(byte: u8) -> (ValueCode, u8) {
    let code = match byte >> 6 {
        0 => ValueCode::DontCare,
        1 => ValueCode::Loss,
        2 => ValueCode::Draw,
        _ => ValueCode::Win,
    };
    (code, byte & MAX_DEPTH8)
}

/// Largest depth a [`CellEncoding::ValueDepth16`] cell holds.
pub const MAX_DEPTH16: u16 = (1 << 14) - 1;

#[inline]
pub fn pack_value_depth16(code: ValueCode, depth: u16) -> u16 {
    debug_assert!(depth <= MAX_DEPTH16);
    ((code as u16) << 14) | depth
}

#[inline]
pub fn unpack_value_depth16(cell: u16) -> (ValueCode, u16) {
    let code = match cell >> 14 {
        0 => ValueCode::DontCare,
        1 => ValueCode::Loss,
        2 => ValueCode::Draw,
        _ => ValueCode::Win,
    };
    (code, cell & MAX_DEPTH16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_depth_bytes_round_trip() {
        for code in [
            ValueCode::DontCare,
            ValueCode::Loss,
            ValueCode::Draw,
            ValueCode::Win,
        ] {
            for depth in [0, 1, 255, 256, MAX_DEPTH16] {
                assert_eq!(
                    unpack_value_depth16(pack_value_depth16(code, depth)),
                    (code, depth)
                );
            }
            for depth in 0..=MAX_DEPTH8 {
                assert_eq!(
                    unpack_value_depth8(pack_value_depth8(code, depth)),
                    (code, depth)
                );
            }
        }
    }
}
