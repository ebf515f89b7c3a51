//! Proptest set-up and byte edits shared by the fuzz targets that
//! include this file (`#[path]`): near-valid input is a valid encoding
//! with a few bytes flipped, set, inserted, deleted or cut off.

#![allow(dead_code)]

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestRunner;

pub fn config() -> ProptestConfig {
    // No regression files written into the tree: a failure prints its
    // shrunk input, to be kept here as a test of its own.
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Runs `test` over `strategy` with state set up once (a build, a store),
/// failing with the shrunk input as `proptest!` does.
pub fn run<S: Strategy>(strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) {
    run_cases(config().cases, strategy, test);
}

/// [`run`] with another number of cases.
pub fn run_cases<S: Strategy>(
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let mut runner = TestRunner::new(ProptestConfig { cases, ..config() });
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
}

#[derive(Debug, Clone)]
pub enum ByteEdit {
    Flip(Index, u8),
    Set(Index, u8),
    Insert(Index, u8),
    Delete(Index),
    Truncate(Index),
    Append(Vec<u8>),
}

/// One to three edits of every kind.
pub fn byte_edits() -> impl Strategy<Value = Vec<ByteEdit>> {
    let edit = prop_oneof![
        4 => (any::<Index>(), 0u8..8).prop_map(|(i, b)| ByteEdit::Flip(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| ByteEdit::Set(i, b)),
        1 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| ByteEdit::Insert(i, b)),
        1 => any::<Index>().prop_map(ByteEdit::Delete),
        1 => any::<Index>().prop_map(ByteEdit::Truncate),
        1 => prop::collection::vec(any::<u8>(), 1..16).prop_map(ByteEdit::Append),
    ];
    prop::collection::vec(edit, 1..4)
}

/// One to seven edits that keep the length: flips and sets.
pub fn byte_edits_in_place() -> impl Strategy<Value = Vec<ByteEdit>> {
    let edit = prop_oneof![
        2 => (any::<Index>(), 0u8..8).prop_map(|(i, b)| ByteEdit::Flip(i, b)),
        1 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| ByteEdit::Set(i, b)),
    ];
    prop::collection::vec(edit, 1..8)
}

pub fn edited(bytes: &[u8], edits: &[ByteEdit]) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    for edit in edits {
        let n = bytes.len();
        match edit {
            ByteEdit::Flip(i, bit) if n > 0 => bytes[i.index(n)] ^= 1 << bit,
            ByteEdit::Set(i, b) if n > 0 => bytes[i.index(n)] = *b,
            ByteEdit::Insert(i, b) => bytes.insert(i.index(n + 1), *b),
            ByteEdit::Delete(i) if n > 0 => {
                bytes.remove(i.index(n));
            }
            ByteEdit::Truncate(i) => bytes.truncate(i.index(n + 1)),
            ByteEdit::Append(more) => bytes.extend_from_slice(more),
            _ => {}
        }
    }
    bytes
}

/// Any of the cell encodings.
pub fn encoding() -> impl Strategy<Value = egdb_db_format::CellEncoding> {
    use egdb_db_format::CellEncoding;
    prop::sample::select(
        &[
            CellEncoding::WinBits,
            CellEncoding::ValueDepth8,
            CellEncoding::ValueDepth16,
        ][..],
    )
}

/// The record with its trailing CRC-32 made to hold again.
pub fn with_crc(mut record: Vec<u8>) -> Vec<u8> {
    if let Some(body) = record.len().checked_sub(4) {
        let crc = crc32fast::hash(&record[..body]);
        record[body..].copy_from_slice(&crc.to_le_bytes());
    }
    record
}
