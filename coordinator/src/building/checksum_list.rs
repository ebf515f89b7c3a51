//! Checksum lists as `egdb results --crc` writes them and `docs/results/`
//! publishes them: `slice positions raw_crc32` per line. `egdb compare`
//! holds a store to one; a build takes one as the [`VerifiedList`] of a
//! store verified in full. Read from files people give, so bounded and
//! checked line by line before anything is kept.
//!
//! [`VerifiedList`]: super::VerifiedList

use std::collections::BTreeSet;
use std::path::Path;

use egdb_games::bounded_file::{read_at_most, BoundedFileError};
use egdb_games::SliceId;
use thiserror::Error;

/// Far more than the plan of any game has lines (P = 12 has a few
/// thousand slices): a longer file is not a checksum list.
pub const MAX_LIST_BYTES: u64 = 4 << 20;

/// One line of a checksum list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed {
    pub positions: u64,
    /// CRC-32 of the slice's raw bytes.
    pub crc: u32,
}

/// Why a file is not a checksum list; each message names the file.
#[derive(Debug, Error)]
pub enum ListError {
    #[error("{file} is longer than {MAX_LIST_BYTES} bytes: not a checksum list")]
    TooLarge { file: String },
    #[error("cannot read {file}: {source}")]
    Unreadable {
        file: String,
        source: BoundedFileError,
    },
    #[error("{file} is not text: not a checksum list")]
    NotText { file: String },
    /// The first fault, with its line.
    #[error("{file}: {fault}")]
    Malformed { file: String, fault: String },
}

/// Reads the checksum list at `path`, refusing one too long to be one
/// before reading it whole.
///
/// # Errors
/// [`ListError`], naming the file and, for a malformed list, the line.
pub fn read_checksum_list(path: &Path) -> Result<Vec<(String, Listed)>, ListError> {
    let file = path.display().to_string();
    let bytes = read_at_most(path, MAX_LIST_BYTES).map_err(|source| match source {
        BoundedFileError::TooLarge { .. } => ListError::TooLarge { file: file.clone() },
        source => ListError::Unreadable {
            file: file.clone(),
            source,
        },
    })?;
    let text = String::from_utf8(bytes).map_err(|_| ListError::NotText { file: file.clone() })?;
    parse_checksum_list(&text).map_err(|fault| ListError::Malformed { file, fault })
}

/// `slice positions crc` per line (blank lines skipped).
///
/// # Errors
/// The first fault, named with its line.
pub fn parse_checksum_list(text: &str) -> Result<Vec<(String, Listed)>, String> {
    let mut seen = BTreeSet::new();
    let mut list = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let fault = |what: &str| format!("line {}: {what}", n + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        let [slice, positions, crc] = words[..] else {
            if words.is_empty() {
                continue;
            }
            return Err(fault("expected `slice positions crc32`"));
        };
        // Names are printed back: only plain ones are taken.
        SliceId::parse(slice).map_err(|_| fault("the slice is not a slice id"))?;
        let positions = positions
            .parse()
            .map_err(|_| fault("positions is not a count"))?;
        // from_str_radix alone would take a sign.
        let hex = crc.len() == 8 && crc.bytes().all(|b| b.is_ascii_hexdigit());
        let crc = u32::from_str_radix(crc, 16)
            .ok()
            .filter(|_| hex)
            .ok_or_else(|| fault("the CRC-32 is not 8 hex digits"))?;
        if !seen.insert(slice) {
            return Err(fault(&format!("slice {slice} is listed twice")));
        }
        list.push((slice.to_string(), Listed { positions, crc }));
    }
    if list.is_empty() {
        return Err("no slice is listed: not a checksum list".to_string());
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(positions: u64, crc: u32) -> Listed {
        Listed { positions, crc }
    }

    #[test]
    fn a_list_parses_and_its_faults_are_named_by_line() {
        let list = parse_checksum_list("a 10 0000abcd\n\nb 0 ffffffff\n").unwrap();
        assert_eq!(
            list,
            vec![
                ("a".to_string(), listed(10, 0xabcd)),
                ("b".to_string(), listed(0, 0xffff_ffff))
            ]
        );
        for (text, fault) in [
            ("a 10\n", "line 1: expected"),
            ("a 10 0000abcd x\n", "line 1: expected"),
            ("a 1 00000000\nb -1 00000000\n", "line 2: positions"),
            ("a 99999999999999999999 00000000\n", "line 1: positions"),
            ("a 1 abcd\n", "line 1: the CRC-32"),
            ("a 1 +0000abc\n", "line 1: the CRC-32"),
            ("\n\n", "no slice is listed"),
            ("a 1 0000abcg\n", "line 1: the CRC-32"),
            (
                "a 1 00000000\na 2 00000001\n",
                "line 2: slice a is listed twice",
            ),
            ("a\u{1b}[2J 1 00000000\n", "line 1: the slice is not"),
        ] {
            let error = parse_checksum_list(text).unwrap_err();
            assert!(error.starts_with(fault), "{text:?}: {error}");
        }
    }
}
